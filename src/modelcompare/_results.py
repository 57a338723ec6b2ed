"""Result types shared by every test: a frozen-dataclass base with ``to_dict`` and a short repr."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar, NamedTuple, TypeVar

import numpy as np

__all__ = ["ConfidenceInterval", "Result", "result_class", "to_builtin"]

T = TypeVar("T")


class ConfidenceInterval(NamedTuple):
    """A two-sided interval ``(low, high)``."""

    low: float
    high: float


def to_builtin(value: Any, *, include_arrays: bool = True) -> Any:
    """Convert numpy/pandas/dataclass values into JSON-safe Python objects.

    NaN and inf stay floats; the CLI maps them to ``null``.
    """
    if isinstance(value, Result):
        return value.to_dict(include_arrays=include_arrays)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_builtin(getattr(value, f.name), include_arrays=include_arrays)
            for f in dataclasses.fields(value)
            if not f.name.startswith("_")
        }
    if isinstance(value, np.ndarray):
        return value.tolist() if include_arrays else None
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, ConfidenceInterval):
        return [to_builtin(value.low), to_builtin(value.high)]
    if isinstance(value, dict):
        return {str(k): to_builtin(v, include_arrays=include_arrays) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_builtin(v, include_arrays=include_arrays) for v in value]
    if hasattr(value, "to_dict") and hasattr(value, "columns"):  # pandas DataFrame
        return to_builtin(value.to_dict(orient="records"), include_arrays=include_arrays)
    return value


def _short(value: Any) -> str:
    if isinstance(value, float | np.floating):
        v = float(value)
        return repr(v) if not math.isfinite(v) else f"{v:.6g}"
    if isinstance(value, np.ndarray):
        return f"array(shape={value.shape})"
    return repr(value)


class Result:
    """Base class of all result dataclasses.

    Subclasses are declared with :func:`result_class`. Fields whose name starts with ``_`` are private
    state used by methods; they are left out of :meth:`to_dict` and the repr. ``_repr_fields`` names
    the fields shown by ``repr`` (default: the first four public scalar fields).
    """

    _repr_fields: ClassVar[tuple[str, ...]] = ()

    def to_dict(self, *, include_arrays: bool = True) -> dict[str, Any]:
        """Return the public fields as JSON-safe Python objects.

        Parameters
        ----------
        include_arrays : bool
            If False, array-valued fields are left out.
        """
        out = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            if f.name.startswith("_"):
                continue
            value = getattr(self, f.name)
            if not include_arrays and isinstance(value, np.ndarray):
                continue
            out[f.name] = to_builtin(value, include_arrays=include_arrays)
        return out

    def __repr__(self) -> str:
        names = self._repr_fields
        if not names:
            names = tuple(
                f.name
                for f in dataclasses.fields(self)  # type: ignore[arg-type]
                if not f.name.startswith("_")
                and isinstance(getattr(self, f.name), int | float | str | bool | np.generic)
            )[:4]
        body = ", ".join(f"{n}={_short(getattr(self, n))}" for n in names)
        return f"{type(self).__name__}({body})"


def result_class(cls: type[T]) -> type[T]:
    """Declare a frozen result dataclass (``eq=False``: array fields cannot be compared with ==)."""
    return dataclasses.dataclass(frozen=True, eq=False, repr=False)(cls)
