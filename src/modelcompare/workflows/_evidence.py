"""How strong the evidence of a resampling check is: its p-value's floor, and an effect size.

A Monte Carlo p-value (1 + #{T⁽ᵇ⁾ ≥ T}) / (1 + B) cannot go below 1/(B + 1), and after the
check's corrections (Bonferroni over the tests at a point, Holm over the E points) not below
(tests per point)·E/(B + 1). A check whose p-value sits at that floor says only "p ≤ floor":
a posterior 1.3× too wide and one 3× too wide then get the same p. The effect size reads the
strength off the null draws already computed: how far the observed statistic lies beyond its
null, in null standard deviations, at the worst evaluation point (and parameter or pair).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["at_floor", "bound_flags", "effect_size", "format_p"]

#: Relative tolerance of "at the floor": the corrections multiply in floating point.
_TOL = 1e-9


def effect_size(result: Any) -> float:
    """How far a resampling check's statistic lies beyond its null, in null standard deviations.

    For statistics T (one per tested parameter or pair, and per evaluation point) and null draws
    T⁽ᵇ⁾ at each point, the largest (T − mean T⁽ᵇ⁾) / sd T⁽ᵇ⁾ over the tests (Monte Carlo
    tests reject for large T). For the SBC log-gamma test, where small log γ is the evidence,
    the largest (mean − log γ_j) / sd of the null's log γ. NaN for a result without null draws.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> null = np.array([[0.0], [1.0], [2.0]])  # B = 3 draws at one point: mean 1, sd 1
    >>> effect_size(SimpleNamespace(statistics=np.array([[4.0]]), null_statistics=null))
    3.0
    """
    null = getattr(result, "null_statistics", None)
    if null is not None:
        null = np.asarray(null, dtype=float)
        null = null.reshape(null.shape[0], -1)  # (B, E)
        stats = np.asarray(result.statistics, dtype=float)
        stats = stats.reshape(-1, null.shape[1])  # (tests per point, E)
        return _largest((stats - null.mean(axis=0)) / _sd(null))
    null = getattr(result, "null_distribution", None)
    log_gammas = getattr(result, "log_gammas", None)
    if null is not None and log_gammas is not None:
        null = np.asarray(null, dtype=float)
        return _largest((null.mean() - np.asarray(log_gammas, dtype=float)) / _sd(null[:, None]))
    return math.nan


def _sd(null: np.ndarray) -> np.ndarray:
    sd = null.std(axis=0, ddof=1) if null.shape[0] > 1 else np.zeros(null.shape[1])
    return np.where(sd > 0, sd, np.nan)


def _largest(z: np.ndarray) -> float:
    z = z[np.isfinite(z)]
    return float(z.max()) if z.size else math.nan


def at_floor(pvalue: float, floor: float | None) -> bool:
    """Whether ``pvalue`` sits at ``floor``, the smallest value its resampling can show.

    Examples
    --------
    >>> at_floor(0.0125, 0.0125), at_floor(0.02, 0.0125), at_floor(0.01, None)
    (True, False, False)
    """
    return floor is not None and math.isfinite(pvalue) and pvalue <= floor * (1 + _TOL)


def bound_flags(pvalues: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Which of Holm's adjusted p-values are only upper bounds.

    Holm's adjusted value of the i-th smallest p is the running maximum of
    (C − j + 1)·p₍ⱼ₎ over j ≤ i; it is a bound when the term the maximum takes is one of
    ``bounds`` (the true p-value is at most that term, and Holm's adjustment is monotone).

    Examples
    --------
    >>> bound_flags(np.array([0.01, 0.2]), np.array([True, False])).tolist()
    [True, False]
    """
    p = np.asarray(pvalues, dtype=float)
    c = p.size
    order = np.argsort(p, kind="stable")
    out = np.zeros(c, dtype=bool)
    best, best_bound = -math.inf, False
    for rank, i in enumerate(order):
        term = (c - rank) * p[i]
        if term > best:
            best, best_bound = term, bool(bounds[i])
        out[i] = best_bound and min(best, 1.0) < 1.0
    return out


def format_p(pvalue: float, bound: bool, digits: int = 3) -> str:
    """``"p = …"``, or ``"p ≤ …"`` for a bound.

    Examples
    --------
    >>> format_p(0.0125, True), format_p(0.2, False)
    ('p ≤ 0.0125', 'p = 0.2')
    """
    if not math.isfinite(pvalue):
        return "p = –"
    return f"p {'≤' if bound else '='} {pvalue:.{digits}g}"
