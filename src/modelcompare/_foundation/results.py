"""The result protocol: frozen dataclasses with ``to_dict`` and a short repr, in these kinds.

- :class:`TestResult`: a test with a p-value (``statistic``, ``pvalue``, ``decision(alpha)``);
- :class:`ThresholdResult`: a test that decides at a level fixed before it ran (``statistic``,
  ``threshold``, ``alpha``, ``decision()``);
- :class:`ScoreResult`: a score (``value``);
- :class:`CheckResult`: a pass/fail check (``passed``, ``statistic``, ``tolerance``);
- :class:`BayesianComparisonResult`: posterior probabilities of three regions
  (``prob_a_better``, ``prob_rope``, ``prob_a_worse``, ``decision(threshold)``);
- :class:`CollectionResult`: many results at once, in a ``table`` that ``print`` shows;
  :class:`CollectionTestResult` adds a family-wise ``pvalue`` and ``decision(alpha)``.

Fitted parameters share the :class:`Result` base alone.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar, NamedTuple, TypeVar

import numpy as np

from modelcompare._foundation.validation import check_fraction

__all__ = [
    "BayesianComparisonResult",
    "CheckResult",
    "CollectionResult",
    "CollectionTestResult",
    "ConfidenceInterval",
    "Result",
    "ScoreResult",
    "TestResult",
    "ThresholdResult",
    "check_alpha",
    "result_class",
    "to_builtin",
]

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


def check_alpha(alpha: Any, name: str = "alpha") -> float:
    """Return ``alpha`` as a float in (0, 1), or raise a ``ValueError`` naming it."""
    if isinstance(alpha, bool) or not isinstance(alpha, int | float | np.integer | np.floating):
        msg = f"`{name}` must be a number in (0, 1); got {alpha!r}."
        raise TypeError(msg)
    value = float(alpha)
    if not 0.0 < value < 1.0:  # also refuses NaN
        msg = f"`{name}` must be in (0, 1); got {alpha!r}."
        raise ValueError(msg)
    return value


class TestResult(Result):
    """A test with a p-value.

    Subclasses declare ``statistic`` and ``pvalue`` (finite, in [0, 1]) as their first fields, and
    ``seed_used`` where anything is random. The result stores no level and no decision: the caller
    decides, and the library-wide rule is *reject H0 iff p <= alpha*. One family also decides
    against a threshold built for a fixed level: there ``pvalue`` is None and a subclass's
    ``decision`` refuses any other level (:class:`~modelcompare.categorical.ClosenessResult`'s
    threshold modes).
    """

    __test__ = False  # not a pytest test class
    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue")

    def decision(self, alpha: float = 0.05) -> bool:
        """Return True when H0 is rejected at level ``alpha``, that is when ``pvalue <= alpha``."""
        return bool(self.pvalue <= check_alpha(alpha))  # type: ignore[attr-defined]


class ThresholdResult(Result):
    """A test that decides at a level fixed before it ran, against a threshold.

    Subclasses declare ``statistic``, ``threshold`` and ``alpha`` (the level the threshold was built
    for). :meth:`decision` takes no level; it rejects when the statistic exceeds the threshold,
    unless a subclass states another rule.
    """

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "threshold", "alpha")

    def decision(self) -> bool:
        """Return True when H0 is rejected at the level the test was run at."""
        return bool(self.statistic > self.threshold)  # type: ignore[attr-defined]


class ScoreResult(Result):
    """A score: ``value`` first, then the fields that explain it."""

    _repr_fields: ClassVar[tuple[str, ...]] = ("value",)


class CheckResult(Result):
    """A pass/fail check of an object against a tolerance (``passed``, ``statistic``, ``tolerance``)."""

    _repr_fields: ClassVar[tuple[str, ...]] = ("passed", "statistic", "tolerance")


class BayesianComparisonResult(Result):
    """The Bayesian comparison kind: posterior probabilities of three regions, no p-value.

    Subclasses declare ``prob_a_better``, ``prob_rope`` and ``prob_a_worse`` as their first fields:
    the posterior probabilities that model a is practically better than b, practically equivalent
    (within the region of practical equivalence, the ROPE), or practically worse.
    """

    _repr_fields: ClassVar[tuple[str, ...]] = ("prob_a_better", "prob_rope", "prob_a_worse")

    def decision(self, threshold: float = 0.95) -> str:
        """Benavoli et al.'s reading of the three posterior probabilities.

        Parameters
        ----------
        threshold : float
            A region is declared when its posterior probability exceeds ``threshold`` (in (0, 1)).

        Returns
        -------
        str
            ``"a_better"``, ``"a_worse"`` or ``"rope"`` (practically equivalent) for the first
            region, in that order, whose probability exceeds ``threshold``; ``"undecided"`` when
            none does.
        """
        threshold = check_fraction(threshold, "threshold")
        if self.prob_a_better > threshold:  # type: ignore[attr-defined]
            return "a_better"
        if self.prob_a_worse > threshold:  # type: ignore[attr-defined]
            return "a_worse"
        if self.prob_rope > threshold:  # type: ignore[attr-defined]
            return "rope"
        return "undecided"


class CollectionResult(Result):
    """Many results at once, with a ``table``: a pandas DataFrame, one row per item.

    Subclasses declare ``table``. The repr stays short (the class name and a few scalar fields);
    ``str(result)``, and so ``print(result)``, shows that line followed by the whole table.
    ``to_dict()`` turns the table into a list of row records.
    """

    def __str__(self) -> str:
        table = self.table  # type: ignore[attr-defined]
        shown = table.to_string(index=False) if hasattr(table, "to_string") else str(table)
        return f"{Result.__repr__(self)}\n{shown}"


class CollectionTestResult(CollectionResult):
    """A collection with a family-wise test: ``table``, ``pvalue`` and ``decision(alpha)``.

    Subclasses declare ``pvalue``, the overall p-value of "no item differs" (for a family
    corrected by Holm or Bonferroni, the smallest adjusted p-value), and ``table``. As for a
    :class:`TestResult`, the result stores no level and no decision.
    """

    _repr_fields: ClassVar[tuple[str, ...]] = ("pvalue",)

    def decision(self, alpha: float = 0.05) -> bool:
        """Return True when the family-wise H0 is rejected at ``alpha``: ``pvalue <= alpha``."""
        return bool(self.pvalue <= check_alpha(alpha))  # type: ignore[attr-defined]
