"""P-values in one place: Monte Carlo p-values, multiplicity adjustments and their resolution.

Every part computes its resampling p-values with :func:`monte_carlo_pvalue`, adjusts a family of
p-values with :func:`adjust_pvalues`, reports an overall p-value with :func:`familywise_pvalue`
and plans its number of resamples with :func:`smallest_adjusted_pvalue` and
:func:`resamples_needed`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from modelcompare._foundation.validation import check_vector

__all__ = [
    "CORRECTIONS",
    "FAMILYWISE_CORRECTIONS",
    "adjust_pvalues",
    "check_correction",
    "familywise_pvalue",
    "holm_adjust",
    "monte_carlo_pvalue",
    "resamples_needed",
    "smallest_adjusted_pvalue",
]

#: The multiplicity corrections that ``correction=`` accepts wherever adjusted p-values are given.
CORRECTIONS = ("holm", "bonferroni", "fdr_bh", None)

#: The corrections that control the family-wise error rate (under any dependence).
FAMILYWISE_CORRECTIONS = ("holm", "bonferroni")

#: The level at which :func:`resamples_needed` lets a check reject by default.
DEFAULT_ALPHA = 0.05


def monte_carlo_pvalue(
    statistic: Any, null_statistics: Any, *, rtol: float = 1e-12, atol: float = 1e-15
) -> Any:
    """Monte Carlo p-value (1 + #{b : T_b ≥ T}) / (1 + B) of an observed statistic T.

    Large values of T are evidence against H0. Ties count as at least as extreme: a null
    statistic T_b counts when T_b ≥ T − (atol + rtol·|T|), so that the same value computed in
    another floating-point order (a difference of a few ulps) is a tie, not a smaller value.
    Counting ties makes the p-value valid (P(p ≤ α) ≤ α under H0 for every α, exactly when the
    B null statistics and T are exchangeable) and never 0: it is at least 1/(1 + B).

    A null statistic that is NaN counts as at least as extreme, and a NaN observed statistic
    gives p = 1: an undefined value never makes a rejection.

    Parameters
    ----------
    statistic : float or array-like
        The observed statistic(s) T, of any shape S.
    null_statistics : array-like of shape (B, ...)
        The B null (resampled) statistics on axis 0; the remaining axes broadcast against S,
        so several observed statistics can share one null draw.
    rtol, atol : float
        The relative and absolute tolerance of a tie.

    Returns
    -------
    float or numpy.ndarray
        A float for a scalar ``statistic`` and no extra null axes, else an array of the broadcast
        shape; every value in [1/(1 + B), 1].

    Raises
    ------
    ValueError
        If ``null_statistics`` holds no resample (B = 0).

    References
    ----------
    B. V. North, D. Curtis and P. C. Sham (2002). A note on the calculation of empirical P
    values from Monte Carlo procedures. American Journal of Human Genetics 71(2), 439-441.
    B. Phipson and G. K. Smyth (2010). Permutation p-values should never be zero. Statistical
    Applications in Genetics and Molecular Biology 9(1), article 39.

    Examples
    --------
    Two of the four null values (3.0 and the tie 2.0) are at least as large as T = 2:

    >>> monte_carlo_pvalue(2.0, [1.0, 2.0, 3.0, 0.5])
    0.6
    >>> monte_carlo_pvalue([0.0, 2.5], [[1.0], [2.0], [3.0], [0.5]]).tolist()
    [1.0, 0.4]
    """
    t = np.asarray(statistic, dtype=float)
    null = np.asarray(null_statistics, dtype=float)
    if null.ndim == 0 or null.shape[0] == 0:
        msg = (
            f"`null_statistics` must hold at least one resample on axis 0; got shape {null.shape}."
        )
        raise ValueError(msg)
    b = null.shape[0]
    with np.errstate(invalid="ignore"):
        extreme = (null >= t - (atol + rtol * np.abs(t))) | np.isnan(null)
    count = np.sum(extreme, axis=0)
    p = (1.0 + count) / (1.0 + b)
    p = np.where(np.isnan(t), 1.0, p)
    return float(p) if p.ndim == 0 else p


def check_correction(correction: Any, name: str = "correction") -> str | None:
    """Return ``correction`` if it is ``"holm"``, ``"bonferroni"``, ``"fdr_bh"`` or None.

    Raises
    ------
    ValueError
        For any other value, naming the argument ``name``.

    Examples
    --------
    >>> check_correction("fdr_bh")
    'fdr_bh'
    """
    if isinstance(correction, bool) or correction not in CORRECTIONS:
        msg = f"`{name}` must be one of 'holm', 'bonferroni', 'fdr_bh', None; got {correction!r}."
        raise ValueError(msg)
    return correction


def holm_adjust(pvalues: Any) -> np.ndarray:
    """Holm's step-down adjusted p-values, in the input order.

    With the k p-values sorted ascending, p_(1) ≤ … ≤ p_(k), the adjusted value of p_(i) is
    max_{j ≤ i} min(1, (k − j + 1) p_(j)) (Holm 1979), the values of
    ``statsmodels.stats.multitest.multipletests(method="holm")``. Rejecting the hypotheses whose
    adjusted value is ≤ α controls the family-wise error rate at α under any dependence. The
    smallest adjusted value is min(1, k · min_i p_i). :func:`adjust_pvalues` with
    ``correction="holm"`` gives the same values after checking the input.

    Parameters
    ----------
    pvalues : array-like of shape (k,)
        Raw p-values in [0, 1]; k may be 0.

    Returns
    -------
    numpy.ndarray of shape (k,)
        The adjusted p-values, float.

    Raises
    ------
    ValueError
        If ``pvalues`` is not one-dimensional.

    References
    ----------
    S. Holm (1979). A simple sequentially rejective multiple test procedure. Scandinavian Journal
    of Statistics 6(2), 65-70.

    Examples
    --------
    >>> holm_adjust([0.01, 0.04, 0.03, 0.005]).round(4).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        msg = f"`pvalues` must be one-dimensional; got shape {p.shape}."
        raise ValueError(msg)
    k = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, (k - np.arange(k)) * p[order])
    out = np.empty(k)
    out[order] = np.maximum.accumulate(stepped)
    return out


def _benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    # adjusted p_(i) = min_{j >= i} min(1, k p_(j) / j), over the ascending p-values
    k = p.size
    order = np.argsort(p, kind="stable")
    stepped = p[order] * k / np.arange(1, k + 1)
    out = np.empty(k)
    out[order] = np.minimum(1.0, np.minimum.accumulate(stepped[::-1])[::-1])
    return out


def adjust_pvalues(pvalues: Any, correction: str | None = "holm") -> np.ndarray:
    """Adjust a family of p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Raw p-values in [0, 1]; m may be 0.
    correction : {"holm", "bonferroni", "fdr_bh", None}
        ``"bonferroni"``: min(1, m·p). ``"holm"``: step-down,
        p̃_(i) = max_{j ≤ i} min(1, (m − j + 1) p_(j)) over the ascending p-values (Holm 1979).
        Both control the family-wise error rate under any dependence: rejecting the hypotheses
        with p̃ ≤ α makes no false rejection with probability ≥ 1 − α. ``"fdr_bh"``:
        Benjamini–Hochberg step-up, p̃_(i) = min_{j ≥ i} min(1, m p_(j) / j); rejecting the
        hypotheses with p̃ ≤ α controls the false discovery rate (the expected share of false
        rejections among the rejections) at α for independent or positively dependent p-values
        (Benjamini & Yekutieli 2001), not the family-wise error rate. None: unchanged.

    Returns
    -------
    numpy.ndarray of shape (m,)
        Adjusted p-values in the input order; the values of
        ``statsmodels.stats.multitest.multipletests(pvalues, method=...)`` (``"holm"``,
        ``"bonferroni"``, ``"fdr_bh"``) and, for ``"fdr_bh"``, of
        ``scipy.stats.false_discovery_control(pvalues)``.

    Raises
    ------
    ValueError
        If ``pvalues`` is not 1-D, not finite or outside [0, 1], or ``correction`` is not one of
        the four.

    See Also
    --------
    familywise_pvalue : the overall p-value of a family, Holm's min(1, m · min p).

    References
    ----------
    S. Holm (1979). A simple sequentially rejective multiple test procedure. Scandinavian Journal
    of Statistics 6(2), 65-70.
    Y. Benjamini and Y. Hochberg (1995). Controlling the false discovery rate: a practical and
    powerful approach to multiple testing. JRSS B 57(1), 289-300.
    Y. Benjamini and D. Yekutieli (2001). The control of the false discovery rate in multiple
    testing under dependency. Annals of Statistics 29(4), 1165-1188.

    Examples
    --------
    >>> from modelcompare import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03], correction="holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], correction="bonferroni").round(3).tolist()
    [0.03, 0.12, 0.09]
    >>> adjust_pvalues([0.01, 0.04, 0.03], correction="fdr_bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    check_correction(correction)
    p = check_vector(pvalues, "pvalues", min_size=0)
    if (p < 0).any() or (p > 1).any():
        bad = float(p[(p < 0) | (p > 1)][0])
        msg = f"`pvalues` must lie in [0, 1]; got {bad!r}."
        raise ValueError(msg)
    m = p.shape[0]
    if correction is None or m == 0:
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, m * p)
    if correction == "fdr_bh":
        return _benjamini_hochberg(p)
    return holm_adjust(p)


def familywise_pvalue(pvalues: Any, axis: int | None = None) -> Any:
    """The overall p-value of a family: Holm's smallest adjusted p-value, min(1, m · min_i p_i).

    ``familywise_pvalue(p) <= alpha`` is Holm's (and Bonferroni's) family-wise decision "some
    hypothesis of the family is false" at level ``alpha``, valid under any dependence. Every
    result whose ``pvalue`` sums up several p-values uses it, whatever ``correction`` shapes its
    per-item adjusted values: the smallest Benjamini–Hochberg value is Simes' p-value, which is
    valid only under positive dependence, so it never becomes an overall ``pvalue``.

    Parameters
    ----------
    pvalues : array-like
        The raw p-values of the family.
    axis : int, optional
        The axis that holds the family, giving one overall p-value per remaining index (the
        Bonferroni combination of the m tests at each evaluation point). ``None``: the whole
        array is one family (an empty one gives 1.0).

    Returns
    -------
    float or numpy.ndarray
        A float with ``axis=None``; otherwise an array without ``axis``. The value is the same
        floating-point product as the smallest value of :func:`holm_adjust`.

    Examples
    --------
    >>> familywise_pvalue([0.01, 0.04, 0.03])
    0.03
    >>> familywise_pvalue([[0.01, 0.5], [0.2, 0.3]], axis=0).tolist()
    [0.02, 0.6]
    """
    p = np.asarray(pvalues, dtype=float)
    if axis is None:
        p = p.reshape(-1)
        return 1.0 if p.size == 0 else float(min(1.0, p.size * p.min()))
    return np.minimum(1.0, p.shape[axis] * p.min(axis=axis))


def smallest_adjusted_pvalue(n_resamples: int, factors: Sequence[int]) -> float:
    """The smallest p-value a resampling check can report after its corrections.

    A Monte Carlo p-value (:func:`monte_carlo_pvalue`) is at least 1/(1 + B); each correction
    that follows multiplies the smallest value by its number of tests (Bonferroni over
    covariates or pairs, Holm over the evaluation points, Holm over the checks of a report),
    capped at 1. The products are taken in the same floating-point order as the tests take
    them. A combination that does not multiply the smallest value (the harmonic mean of equal
    p-values) has factor 1.

    Parameters
    ----------
    n_resamples : int
        B, the null resamples.
    factors : sequence of int
        The number of tests of each correction, innermost first.

    Returns
    -------
    float

    Examples
    --------
    >>> smallest_adjusted_pvalue(839, (2, 3, 7))  # m = 2, E = 3, 7 checks
    0.05
    """
    p = 1.0 / (1.0 + n_resamples)
    for factor in factors:
        p = min(1.0, factor * p)
    return p


def resamples_needed(
    factors: Sequence[int], *, alpha: float = DEFAULT_ALPHA, at_least: int = 0
) -> int:
    """The smallest B ≥ ``at_least`` whose smallest adjusted p-value is ≤ ``alpha``.

    B + 1 ≥ (∏ factors) / alpha, rounded up, and raised by one until
    :func:`smallest_adjusted_pvalue` is ≤ ``alpha`` in floating point too.

    Parameters
    ----------
    factors : sequence of int
        The number of tests of each correction (see :func:`smallest_adjusted_pvalue`).
    alpha : float
        The level the check must be able to reach.
    at_least : int
        A floor on the answer.

    Returns
    -------
    int

    Examples
    --------
    >>> resamples_needed((2, 3, 7))  # local coverage: m = 2, E = 3, Holm over 7 checks
    839
    >>> resamples_needed((1, 3, 1), at_least=100)  # L-C2ST-NF alone at 3 points
    100
    """
    total = math.prod(factors)
    b = max(at_least, math.ceil(Fraction(total) / Fraction(alpha)) - 1, 1)
    while smallest_adjusted_pvalue(b, factors) > alpha:
        b += 1
    return b
