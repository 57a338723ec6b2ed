"""Independence of the PIT covariates, globally: the open item of Linhart et al. (2022), Theorem 1.

Uniform marginals are not enough: H0(x) also needs the P_i to be mutually independent given x.
The global test uses rank correlation or a binned χ² test per pair. The pairs and the
Gaussianised covariates z_i = Φ⁻¹(P_i) defined here are shared with the local test.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
from scipy import stats
from scipy.special import ndtri

from modelcompare._foundation.deprecation import renamed_parameters
from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.pvalues import adjust_pvalues, familywise_pvalue
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.validation import check_choice, check_int, check_nonempty
from modelcompare.posterior._calibration._pit import check_pit_values

__all__ = ["IndependenceResult", "check_pit_pairs", "gaussianise", "pit_independence_test"]

_EPS = 1e-12


def check_pit_pairs(m: int, pairs: Any) -> list[tuple[int, int]]:
    """The pairs (i, j) of the ``m`` PIT columns to test: all of them when ``pairs`` is None."""
    if m < 2:
        msg = f"`pit_values` needs at least 2 columns to test independence; got {m}."
        raise ValueError(msg)
    if pairs is None:
        return list(itertools.combinations(range(m), 2))
    out = []
    for k, pair in enumerate(check_nonempty(pairs, "pairs")):
        if isinstance(pair, str | bytes) or not hasattr(pair, "__len__") or len(pair) != 2:
            msg = f"`pairs[{k}]` must be a pair (i, j) of column indices; got {pair!r}."
            raise TypeError(msg)
        i, j = (check_int(v, f"pairs[{k}]") for v in pair)
        if not (0 <= i < m and 0 <= j < m and i != j):
            msg = f"`pairs` must hold distinct column indices in [0, {m}); got {pair!r}."
            raise ValueError(msg)
        out.append((i, j))
    return out


def gaussianise(pit_values: Any) -> np.ndarray:
    """z = Φ⁻¹(P), with P clipped to [1e-12, 1 − 1e-12] so that z is finite."""
    return ndtri(np.clip(check_pit_values(pit_values), _EPS, 1 - _EPS))


@result_class
class IndependenceResult(TestResult):
    """Result of :func:`pit_independence_test` (K pairs of covariates).

    Attributes
    ----------
    statistic : float
        The largest |ρ| (Spearman, Kendall) or χ² over the pairs.
    pvalue : float
        The smallest Holm-adjusted p-value over the K pairs, min(1, K · min_k p_k) (equal to
        Bonferroni's): ``decision(alpha)`` is Holm's family-wise decision.
    statistics, pvalues : numpy.ndarray, shape (K,)
        Statistic (ρ, τ or χ²) and p-value of each pair, in the order of ``pairs``.
    pvalues_adjusted : numpy.ndarray, shape (K,)
        ``pvalues`` Holm-adjusted over the pairs.
    pairs : list of (int, int)
        The tested pairs of columns.
    method : str
        ``"spearman"``, ``"kendall"`` or ``"chi2"``.
    n : int
        Number of PIT rows.
    degenerate : bool
        Some pair holds a constant column: such a pair has no measurable dependence, so its
        statistic is set to 0 and its p-value to 1 (with a ``DegenerateDataWarning``); when every
        pair is degenerate, ``pvalue`` is 1 and H0 is never rejected.

    Examples
    --------
    >>> import numpy as np
    >>> res = pit_independence_test(np.random.default_rng(0).uniform(size=(500, 3)))
    >>> res.decision(0.05), res.pvalues.shape
    (False, (3,))
    """

    statistic: float
    pvalue: float
    statistics: np.ndarray
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    pairs: list[tuple[int, int]]
    method: str
    n: int
    degenerate: bool

    _repr_fields = ("statistic", "pvalue", "method", "n")


@renamed_parameters(method="statistic")
def pit_independence_test(
    pit_values: Any, *, statistic: str = "spearman", n_bins: int = 5, pairs: Any = None
) -> IndependenceResult:
    """Global test of the pairwise independence of the PIT covariates, Holm over the pairs.

    Parameters
    ----------
    pit_values : array-like, shape (N, m)
        PIT values (m ≥ 2).
    statistic : {"spearman", "kendall", "chi2"}
        Rank correlation (scipy's tests) or the χ² test on a ``n_bins`` × ``n_bins`` table of
        (P_i, P_j) binned at the uniform quantiles (which also sees non-monotone dependence).
    n_bins : int
        Bins per axis for ``"chi2"`` (keep N / n_bins² ≥ 5).
    pairs : sequence of (i, j), optional
        Pairs to test (default: all m(m−1)/2).

    Returns
    -------
    IndependenceResult

    Warns
    -----
    DegenerateDataWarning
        When a tested pair holds a constant column (``degenerate=True``, p-value 1 for that pair).

    Notes
    -----
    Pairwise independence is necessary, not sufficient, for mutual independence. Uncorrelated
    normal marginals need not be independent; these tests see monotone (rank) or binned dependence.
    For the whole null z | x ~ N(0, I) at one x₀ use :func:`lc2st_nf`.

    References
    ----------
    .. [1] J. Linhart, A. Gramfort and P. L. C. Rodrigues (2022). Validation Diagnostics for SBI
       algorithms based on Normalizing Flows. arXiv:2211.09602.

    Examples
    --------
    >>> import numpy as np
    >>> res = pit_independence_test(np.random.default_rng(0).uniform(size=(500, 3)))
    >>> res.pairs
    [(0, 1), (0, 2), (1, 2)]
    """
    p = check_pit_values(pit_values)
    n, m = p.shape
    method = check_choice(statistic, "statistic", ("spearman", "kendall", "chi2"))
    n_bins = check_int(n_bins, "n_bins", low=2)
    pair_list = check_pit_pairs(m, pairs)
    constant = np.ptp(p, axis=0) == 0
    st, pv = [], []
    flat: list[tuple[int, int]] = []
    for i, j in pair_list:
        if constant[i] or constant[j]:
            flat.append((i, j))
            st.append(0.0)
            pv.append(1.0)
        elif method == "spearman":
            r = stats.spearmanr(p[:, i], p[:, j])
            st.append(float(r.statistic))
            pv.append(float(r.pvalue))
        elif method == "kendall":
            r = stats.kendalltau(p[:, i], p[:, j])
            st.append(float(r.statistic))
            pv.append(float(r.pvalue))
        else:
            bi = np.minimum((p[:, i] * n_bins).astype(int), n_bins - 1)
            bj = np.minimum((p[:, j] * n_bins).astype(int), n_bins - 1)
            table = np.zeros((n_bins, n_bins))
            np.add.at(table, (bi, bj), 1)
            table += 1e-12  # empty rows/columns would make the expected counts zero
            r = stats.chi2_contingency(table, correction=False)
            st.append(float(r.statistic))
            pv.append(float(r.pvalue))
    if flat:
        cols = sorted({int(k) for k in np.flatnonzero(constant)})
        warnings.warn(
            f"pit_independence_test: column(s) {cols} of `pit_values` are constant; the pair(s) "
            f"{flat} carry no information on dependence (statistic 0, p-value 1).",
            DegenerateDataWarning,
            stacklevel=2,
        )
    st_arr, pv_arr = np.array(st), np.array(pv)
    # a non-finite statistic never decides: its pair counts as showing no dependence
    bad = ~np.isfinite(st_arr) | ~np.isfinite(pv_arr)
    st_arr, pv_arr = np.where(bad, 0.0, st_arr), np.where(bad, 1.0, pv_arr)
    stat = float(np.max(np.abs(st_arr))) if method != "chi2" else float(st_arr.max())
    return IndependenceResult(
        statistic=stat,
        pvalue=familywise_pvalue(pv_arr),
        statistics=st_arr,
        pvalues=pv_arr,
        pvalues_adjusted=adjust_pvalues(pv_arr, "holm"),
        pairs=pair_list,
        method=method,
        n=n,
        degenerate=bool(flat) or bool(bad.any()),
    )
