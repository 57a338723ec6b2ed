"""The optimiser arguments of Rel-UME and Rel-FSSD as they were spelled in 0.1, still accepted.

``optimize=True``/``False``, ``preset=``, ``locations=J`` (an int), and the optimiser's fields
(``reg=``, ``max_iter=``, ...) given directly each map to today's ``optimizer=`` and
``n_locations=``, with a :class:`FutureWarning` naming the new spelling.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from typing import Any, TypeVar

from modelcompare._foundation.deprecation import warn_renamed
from modelcompare.relative._presets import OptimizerOptions

__all__ = ["accepts_legacy_optimizer_arguments"]

F = TypeVar("F", bound=Callable[..., Any])

#: The fields of :class:`OptimizerOptions` that 0.1 took as keyword arguments.
_OPTIMIZER_FIELDS = ("reg", "max_iter", "tol_fun", "locs_bounds_frac", "bandwidth_bounds")


def _translate(kwargs: dict[str, Any]) -> dict[str, Any]:
    for old in ("optimize", "preset"):
        if old in kwargs and "optimizer" in kwargs:
            msg = f"Pass only `optimizer`, not also its old spelling `{old}`."
            raise TypeError(msg)
    if "optimize" in kwargs:
        warn_renamed("optimize", "optimizer", stacklevel=4)
        kwargs["optimizer"] = "default" if kwargs.pop("optimize") else None
    if "preset" in kwargs:
        warn_renamed("preset", "optimizer", stacklevel=4)
        kwargs["optimizer"] = kwargs.pop("preset")
    fields = {name: kwargs.pop(name) for name in _OPTIMIZER_FIELDS if name in kwargs}
    if fields:
        warn_renamed(", ".join(fields), "optimizer=OptimizerOptions(...)", stacklevel=4)
        base = kwargs.get("optimizer", "default")
        preset = base.preset if isinstance(base, OptimizerOptions) else (base or "default")
        kwargs["optimizer"] = OptimizerOptions(preset=preset, **fields)
    locations = kwargs.get("locations")
    if isinstance(locations, numbers.Integral) and not isinstance(locations, bool):
        warn_renamed("locations=J (an int)", "n_locations=J", stacklevel=4)
        kwargs["n_locations"] = int(kwargs.pop("locations"))
    return kwargs


def accepts_legacy_optimizer_arguments(func: F) -> F:
    """Decorator: accept 0.1's ``optimize``, ``preset``, ``locations=int`` and optimiser fields.

    Parameters
    ----------
    func : callable
        :func:`rel_ume`, :func:`rel_fssd`, :func:`optimize_ume` or :func:`optimize_fssd`.

    Returns
    -------
    callable
        The function, with an unchanged signature.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **_translate(kwargs))

    # Recorded for the API-break check: the old keywords this wrapper still accepts.
    wrapper.__renamed_parameters__ = {  # type: ignore[attr-defined]
        "optimize": "optimizer",
        "preset": "optimizer",
        **dict.fromkeys(_OPTIMIZER_FIELDS, "optimizer"),
    }
    return wrapper  # type: ignore[return-value]
