"""Checks shared by the local posterior tests: local coverage, local independence and L-C2ST.

Each test standardises the conditioning ``x`` the same way, and each warns the same way when its
number of Monte Carlo resamples cannot reach p ≤ 0.05 (Zhao et al. 2021; Linhart et al. 2023).
"""

from __future__ import annotations

import warnings

import numpy as np

from modelcompare._foundation.errors import DegenerateDataWarning, TooFewResamplesWarning
from modelcompare._foundation.pvalues import resamples_needed, smallest_adjusted_pvalue
from modelcompare._foundation.validation import check_int

__all__ = ["check_n_resamples", "standardisation", "warn_resolution"]


def standardisation(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and scales of ``x``, safe near the float64 limit; constant columns get scale 1.

    Constant columns carry no information for a local test, so they warn with
    :class:`~modelcompare.DegenerateDataWarning` (raised at the caller of the public test).

    Examples
    --------
    >>> import numpy as np
    >>> mean, scale = standardisation(np.array([[0.0, 1.0], [2.0, 3.0]]))
    >>> mean.tolist(), scale.tolist()
    ([1.0, 2.0], [1.0, 1.0])
    """
    with np.errstate(over="ignore", invalid="ignore"):
        mean = x.mean(axis=0)
        scale = x.std(axis=0)
    if not (np.isfinite(mean).all() and np.isfinite(scale).all()):
        # values near the float64 limit: their sum or squares overflow, so take the moments of
        # x / max|x| and scale them back
        big = np.max(np.abs(x), axis=0)
        unit = np.where(big > 0, big, 1.0)
        mean = (x / unit).mean(axis=0) * unit
        scale = (x / unit).std(axis=0) * unit
    if np.any(scale == 0):
        warnings.warn(
            "Some columns of `x` are constant; they carry no information for the local tests.",
            DegenerateDataWarning,
            stacklevel=4,
        )
        scale = np.where(scale == 0, 1.0, scale)
    return mean, scale


def check_n_resamples(n_resamples: int) -> int:
    """``n_resamples`` checked to be a positive integer; under 19 warns that p < 0.05 is out of reach.

    The smallest Monte Carlo p-value (1 + 0)/(1 + B) is at most 0.05 only for B ≥ 19.

    Examples
    --------
    >>> check_n_resamples(99)
    99
    """
    n_resamples = check_int(n_resamples, "n_resamples", low=1)
    if n_resamples < 19:
        warnings.warn(
            f"`n_resamples`={n_resamples}: the smallest attainable p-value is "
            f"1/{n_resamples + 1} > 0.05.",
            TooFewResamplesWarning,
            stacklevel=3,
        )
    return n_resamples


def warn_resolution(m: int, e: int, n_resamples: int, combine: str) -> None:
    """Warn when ``n_resamples`` cannot reach an overall p-value of 0.05 after the corrections.

    ``m`` tests per evaluation point are combined by ``combine`` (``"bonferroni"`` or the harmonic
    mean), and Holm corrects across the ``e`` evaluation points.

    Examples
    --------
    >>> warn_resolution(1, 1, 99, "bonferroni")  # 1/100 ≤ 0.05: no warning
    """
    # Bonferroni over the m tests of a point multiplies the smallest p-value by m, the harmonic
    # mean of m equal values does not; Holm across the e points multiplies it by e.
    factors = (m if combine == "bonferroni" else 1, e)
    smallest = smallest_adjusted_pvalue(n_resamples, factors)
    if smallest > 0.05:
        warnings.warn(
            f"With {m} {combine}-combined test(s) per point, {e} corrected evaluation point(s) "
            f"and n_resamples={n_resamples}, the smallest attainable overall p-value is "
            f"{smallest:.3g} > 0.05; use n_resamples >= {resamples_needed(factors)} to be able "
            "to reject at 0.05.",
            TooFewResamplesWarning,
            stacklevel=3,
        )
