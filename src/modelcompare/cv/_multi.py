"""Many models on many data sets (Demšar 2006; Benavoli et al. 2017).

Input is a data sets × models table holding **one score per model per data set** (e.g. the mean
cross-validated score). The CV folds of a single data set are *not* independent data sets: running
these tests over folds gives invalid, tiny p-values; use :func:`compare_models` for one data set.
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any, ClassVar

import numpy as np
from scipy import stats

from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.pvalues import adjust_pvalues, check_correction, familywise_pvalue
from modelcompare._foundation.resources import check_memory, estimate_array_bytes
from modelcompare._foundation.results import (
    BayesianComparisonResult,
    TestResult,
    ThresholdResult,
    check_alpha,
    result_class,
)
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    as_numpy,
    check_choice,
    check_int,
    check_positive,
)
from modelcompare.cv._bayes import check_rope
from modelcompare.cv._core import check_flag, paired_differences
from modelcompare.cv._scores import pandas_labels

__all__ = [
    "BayesianSignedRankResult",
    "FriedmanResult",
    "NemenyiResult",
    "WilcoxonHolmResult",
    "bayesian_signed_rank",
    "friedman_test",
    "nemenyi_test",
    "wilcoxon_holm_test",
]


def _scores_table(scores: Any, names: Any, greater_is_better: bool) -> tuple[np.ndarray, list[str]]:
    """Validate a data sets × models table; return (scores oriented greater-is-better, names)."""
    greater_is_better = check_flag(greater_is_better, "greater_is_better")
    columns = pandas_labels(scores, "columns")
    index = pandas_labels(scores, "index")
    arr = as_numpy(scores, "scores")
    if arr.ndim != 2:
        msg = f"`scores` must be 2-D (data sets × models); got shape {arr.shape}."
        raise ValueError(msg)
    if arr.dtype.kind not in "biuf":
        msg = f"`scores` must be numeric; got dtype {arr.dtype}."
        raise TypeError(msg)
    arr = np.asarray(arr, dtype=float)
    if names is None:
        names = (
            [str(c) for c in columns]
            if columns is not None
            else [f"model_{j}" for j in range(arr.shape[1])]
        )
    names = [str(n) for n in names]
    if len(names) != arr.shape[1]:
        msg = f"`names` has {len(names)} entries for {arr.shape[1]} models (columns)."
        raise ValueError(msg)
    if len(set(names)) != len(names):
        msg = f"model names must be unique; got {names}."
        raise ValueError(msg)
    if arr.shape[1] < 2:
        msg = f"`scores` needs at least 2 models (columns); got {arr.shape[1]}."
        raise ValueError(msg)
    if arr.shape[0] < 2:
        msg = f"`scores` needs at least 2 data sets (rows); got {arr.shape[0]}."
        raise ValueError(msg)
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        row = index[i] if index is not None else int(i)
        msg = f"`scores` must be finite; data set {row!r}, model {names[j]!r} is {arr[i, j]}."
        raise ValueError(msg)
    return (arr if greater_is_better else -arr), names


def _average_ranks(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks within each data set (1 = best, ties averaged) and their column means."""
    ranks = stats.rankdata(-arr, axis=1)
    return ranks, ranks.mean(axis=0)


@result_class
class FriedmanResult(TestResult):
    """Result of :func:`friedman_test`: a test with a p-value (H0: all models perform alike).

    Attributes
    ----------
    statistic : float
        Friedman's χ²_F (tie-corrected, as ``scipy.stats.friedmanchisquare``).
    pvalue : float
        χ² p-value with k − 1 degrees of freedom.
    df : int
        k − 1.
    average_ranks : dict of str to float
        Mean rank per model (1 = best), best first.
    iman_davenport_statistic, iman_davenport_pvalue : float
        Iman–Davenport's F_F = (N−1)χ²/(N(k−1) − χ²) on (k−1, (k−1)(N−1)) df, less conservative
        (Demšar 2006 recommends it). When the ranks agree in every data set, F_F is its limit
        +inf and its p-value is the χ² one (see :func:`friedman_test`).
    n_datasets, n_models : int
    degenerate : bool
        True when every data set ties all models (statistic 0, p = 1).

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import friedman_test
    >>> rng = np.random.default_rng(0)
    >>> res = friedman_test(np.array([0.80, 0.77, 0.74]) + 0.05 * rng.standard_normal((12, 3)))
    >>> round(res.statistic, 3), res.decision(alpha=0.05)
    (7.167, True)
    """

    statistic: float
    pvalue: float
    df: int
    average_ranks: dict[str, float]
    iman_davenport_statistic: float
    iman_davenport_pvalue: float
    n_datasets: int
    n_models: int
    degenerate: bool

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "n_datasets", "n_models")


def friedman_test(
    scores: Any, *, names: Any = None, greater_is_better: bool = True
) -> FriedmanResult:
    """Friedman test of "all models perform alike" over data sets, with average ranks.

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_models)
        One score per model (column) per data set (row); a DataFrame's columns name the models.
    names : sequence of str, optional
        Model names.
    greater_is_better : bool
        False for losses.

    Returns
    -------
    FriedmanResult
        χ²_F and its p-value, ``decision(alpha)``, the Iman–Davenport F and the average ranks.

    Notes
    -----
    With R_j the average rank of model j over N data sets and k models,
    χ²_F = 12N/(k(k+1)) [Σ_j R_j² − k(k+1)²/4], divided by the tie correction
    1 − Σ(t³ − t)/(N k (k² − 1)); p from χ²_{k−1}. Folds of one data set are not data sets.

    Limits. When every data set ties all models, χ²_F is 0/0: statistic 0, p = 1,
    ``degenerate=True`` and a :class:`DegenerateDataWarning`. When the ranks agree in every data
    set, χ²_F = N(k − 1) is finite and its p-value stands, but F_F = (N−1)χ²/(N(k−1) − χ²) is
    +inf: ``iman_davenport_statistic`` is inf and ``iman_davenport_pvalue`` is the χ² p-value
    (F_F is an increasing function of χ²_F, so both approximate one exact test, whose p-value
    for rows without ties is (k!)^(1−N), smaller still), with a :class:`DegenerateDataWarning`.

    References
    ----------
    .. [1] J. Demšar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7,
       2006. https://jmlr.org/papers/v7/demsar06a.html.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import friedman_test
    >>> rng = np.random.default_rng(0)
    >>> scores = np.array([0.80, 0.77, 0.74]) + 0.05 * rng.standard_normal((12, 3))
    >>> res = friedman_test(scores, names=["a", "b", "c"])
    >>> round(res.pvalue, 4), {m: round(r, 3) for m, r in res.average_ranks.items()}
    (0.0278, {'a': 1.417, 'b': 2.083, 'c': 2.5})
    """
    arr, names = _scores_table(scores, names, greater_is_better)
    n, k = arr.shape
    ranks, avg = _average_ranks(arr)
    ties = 0.0
    for row in ranks:
        _, counts = np.unique(row, return_counts=True)
        ties += float(np.sum(counts**3 - counts))
    c = 1.0 - ties / (n * k * (k * k - 1))
    degenerate = c <= 1e-12
    if degenerate:
        chi2, p, f, pf = 0.0, 1.0, 0.0, 1.0
        warnings.warn(
            "friedman_test: every data set ties all models; statistic 0, p = 1 (flagged).",
            DegenerateDataWarning,
            stacklevel=2,
        )
    else:
        chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(avg**2) - k * (k + 1) ** 2 / 4.0) / c
        chi2 = max(float(chi2), 0.0)
        p = float(stats.chi2.sf(chi2, k - 1))
        denom = n * (k - 1) - chi2
        if denom <= 1e-12 * n * (k - 1):
            # The ranks agree in every data set: χ² reaches its maximum N(k − 1) and F_F its
            # limit +inf (zero residual variance). F_F increases with χ², so both approximate the
            # same exact test; F's approximation says p = 0, which no finite sample supports, so
            # the p-value comes from the finite χ².
            f, pf = math.inf, p
            warnings.warn(
                "friedman_test: the ranks agree in every data set, so the Iman–Davenport "
                f"statistic is +inf (zero residual variance); its p-value is the χ² p-value "
                f"{p:.3g}.",
                DegenerateDataWarning,
                stacklevel=2,
            )
        else:
            f = (n - 1) * chi2 / denom
            pf = float(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))
    order = np.argsort(avg, kind="stable")
    return FriedmanResult(
        statistic=chi2,
        pvalue=p,
        df=k - 1,
        average_ranks={names[j]: float(avg[j]) for j in order},
        iman_davenport_statistic=float(f),
        iman_davenport_pvalue=pf,
        n_datasets=n,
        n_models=k,
        degenerate=bool(degenerate),
    )


def _cliques(avg: np.ndarray, significant: np.ndarray) -> list[list[int]]:
    """Maximal runs of rank-adjacent models with no significant pair among them (size ≥ 2)."""
    order = list(np.argsort(avg, kind="stable"))
    k = len(order)
    runs = []
    for start in range(k):
        end = start
        while end + 1 < k and not any(
            significant[order[a], order[end + 1]] for a in range(start, end + 1)
        ):
            end += 1
        if end > start:
            runs.append((start, end))
    maximal = [r for r in runs if not any(o != r and o[0] <= r[0] and r[1] <= o[1] for o in runs)]
    return [[int(order[i]) for i in range(s, e + 1)] for s, e in maximal]


def _significant(pvalues: np.ndarray, alpha: float) -> np.ndarray:
    sig = pvalues <= alpha
    np.fill_diagonal(sig, False)
    return sig


def _named_cliques(names: tuple[str, ...], avg: np.ndarray, sig: np.ndarray) -> list[list[str]]:
    return [[names[i] for i in c] for c in _cliques(avg, sig)]


def _frame(matrix: np.ndarray, names: tuple[str, ...]) -> Any:
    import pandas as pd

    return pd.DataFrame(matrix, index=list(names), columns=list(names))


@result_class
class NemenyiResult(ThresholdResult):
    """Result of :func:`nemenyi_test`: a threshold test at the level fixed when it ran.

    Attributes
    ----------
    statistic : float
        The largest difference of average ranks, max_ij |R_i − R_j|.
    threshold : float
        Nemenyi's critical difference CD = q_α/√2·√(k(k+1)/(6N)) at ``alpha``.
    alpha : float
        The level the critical difference was built for.
    pvalues : numpy.ndarray of shape (k, k)
        Pairwise Nemenyi p-values, 1 on the diagonal, in ``names`` order (the pairwise detail: a
        pair differs at ``alpha`` iff its p-value is ≤ ``alpha``, iff its rank difference is at
        least the critical difference).
    names : tuple of str
    average_ranks : numpy.ndarray of shape (k,)
        Mean rank per model (1 = best), in ``names`` order.
    n_datasets : int

    Notes
    -----
    :meth:`decision` rejects "all models perform alike" when the largest rank difference is at
    least the critical difference (Demšar 2006: two models differ when their average ranks
    differ "by at least the critical difference"), that is when some pair differs.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import nemenyi_test
    >>> rng = np.random.default_rng(0)
    >>> scores = np.array([0.80, 0.77, 0.74]) + 0.05 * rng.standard_normal((12, 3))
    >>> res = nemenyi_test(scores, names=["a", "b", "c"])
    >>> round(res.statistic, 3), round(res.threshold, 3), res.decision()
    (1.083, 0.957, True)
    >>> res.cliques()
    [['a', 'b'], ['b', 'c']]
    """

    statistic: float
    threshold: float
    alpha: float
    pvalues: np.ndarray
    names: tuple[str, ...]
    average_ranks: np.ndarray
    n_datasets: int

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "threshold", "alpha", "n_datasets")

    def decision(self) -> bool:
        """True when some pair of models differs: the largest rank difference is ≥ the CD."""
        return bool(self.statistic >= self.threshold)

    def significant(self) -> np.ndarray:
        """Boolean (k, k) matrix: the pair differs at ``alpha`` (p ≤ alpha)."""
        return _significant(self.pvalues, self.alpha)

    def cliques(self) -> list[list[str]]:
        """Maximal groups of rank-adjacent models with no pair differing at ``alpha``.

        These are the bars of a critical-difference diagram, best-ranked first.
        """
        return _named_cliques(self.names, self.average_ranks, self.significant())

    def to_frame(self) -> Any:
        """The p-value matrix as a square pandas DataFrame (scikit-posthocs layout)."""
        return _frame(self.pvalues, self.names)


@result_class
class WilcoxonHolmResult(TestResult):
    """Result of :func:`wilcoxon_holm_test`: pairwise Wilcoxon signed-rank tests with a correction.

    Attributes
    ----------
    statistic : float
        The Wilcoxon statistic (``scipy.stats.wilcoxon``'s, the smaller signed-rank sum) of the
        pair with the smallest p-value (the first such pair in ``names`` order).
    pvalue : float
        Holm's family-wise p-value over the K pairs, min(1, K · min p), whatever ``correction``
        shaped ``pvalues_adjusted``: ``decision(alpha)`` is the family-wise decision "some pair
        differs" at ``alpha``. It equals the smallest adjusted p-value with Holm or Bonferroni;
        the smallest Benjamini–Hochberg value controls only the false discovery rate, so it is
        never ``pvalue``.
    statistics : numpy.ndarray of shape (k, k)
        The pairwise Wilcoxon statistics, 0 on the diagonal and for pairs whose differences are
        all zero.
    pvalues : numpy.ndarray of shape (k, k)
        The pairwise two-sided p-values before the correction, 1 on the diagonal and for pairs
        whose differences are all zero.
    pvalues_adjusted : numpy.ndarray of shape (k, k)
        The p-values after ``correction`` over the k(k − 1)/2 pairs, 1 on the diagonal.
    names : tuple of str
    average_ranks : numpy.ndarray of shape (k,)
        Mean rank per model (1 = best), in ``names`` order (for the critical-difference diagram).
    correction : str or None
        ``"holm"``, ``"bonferroni"``, ``"fdr_bh"`` or None.
    zero_method : str
        scipy's handling of zero differences.
    n_datasets : int

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import wilcoxon_holm_test
    >>> rng = np.random.default_rng(0)
    >>> scores = np.array([0.80, 0.77, 0.74]) + 0.05 * rng.standard_normal((12, 3))
    >>> res = wilcoxon_holm_test(scores, names=["a", "b", "c"])
    >>> round(res.pvalue, 4), res.statistic, res.decision(alpha=0.05)
    (0.0044, 2.0, True)
    >>> res.cliques(alpha=0.05)
    [['a', 'b'], ['b', 'c']]
    """

    statistic: float
    pvalue: float
    statistics: np.ndarray
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    names: tuple[str, ...]
    average_ranks: np.ndarray
    correction: str | None
    zero_method: str
    n_datasets: int

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "correction", "n_datasets")

    def significant(self, alpha: float = 0.05) -> np.ndarray:
        """Boolean (k, k) matrix: the pair differs at ``alpha`` (adjusted p ≤ alpha)."""
        return _significant(self.pvalues_adjusted, check_alpha(alpha))

    def cliques(self, alpha: float = 0.05) -> list[list[str]]:
        """Maximal groups of rank-adjacent models with no pair differing at ``alpha``.

        These are the bars of a critical-difference diagram, best-ranked first.
        """
        return _named_cliques(self.names, self.average_ranks, self.significant(alpha))

    def to_frame(self) -> Any:
        """The adjusted p-value matrix as a square pandas DataFrame (scikit-posthocs layout)."""
        return _frame(self.pvalues_adjusted, self.names)


def nemenyi_test(
    scores: Any, *, names: Any = None, greater_is_better: bool = True, alpha: float = 0.05
) -> NemenyiResult:
    """Nemenyi post-hoc test after Friedman: all pairs, from the average ranks.

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_models)
        One score per model per data set.
    names : sequence of str, optional
        Model names (default: a DataFrame's columns, else ``model_j``).
    greater_is_better : bool
        False for losses.
    alpha : float
        The level of the critical difference, fixed before the test runs.

    Returns
    -------
    NemenyiResult
        The largest rank difference (``statistic``) against the critical difference
        (``threshold``), ``decision()``, the pairwise p-values
        p_ij = P(Q_{k,∞} > √2·|R_i − R_j| / √(k(k+1)/(6N))) (as scikit-posthocs'
        ``posthoc_nemenyi_friedman``) and ``cliques()``.

    References
    ----------
    .. [1] J. Demšar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7,
       2006, section 3.2.2. https://jmlr.org/papers/v7/demsar06a.html.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import nemenyi_test
    >>> rng = np.random.default_rng(0)
    >>> scores = np.array([0.80, 0.77, 0.74]) + 0.05 * rng.standard_normal((12, 3))
    >>> res = nemenyi_test(scores, names=["a", "b", "c"], alpha=0.05)
    >>> res.decision(), [round(float(r), 3) for r in res.average_ranks]
    (True, [1.417, 2.083, 2.5])
    """
    alpha = check_alpha(alpha)
    arr, names = _scores_table(scores, names, greater_is_better)
    n, k = arr.shape
    _, avg = _average_ranks(arr)
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    diffs = np.abs(avg[:, None] - avg[None, :])
    q = diffs / se * math.sqrt(2.0)
    pvals = np.ones((k, k))
    for i, j in itertools.combinations(range(k), 2):
        pvals[i, j] = pvals[j, i] = float(stats.studentized_range.sf(q[i, j], k, np.inf))
    cd = float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0) * se)
    pvals = np.clip(pvals, 0.0, 1.0)
    np.fill_diagonal(pvals, 1.0)
    return NemenyiResult(
        statistic=float(diffs.max()),
        threshold=cd,
        alpha=alpha,
        pvalues=pvals,
        names=tuple(names),
        average_ranks=avg,
        n_datasets=n,
    )


def wilcoxon_holm_test(
    scores: Any,
    *,
    names: Any = None,
    greater_is_better: bool = True,
    correction: str | None = "holm",
    zero_method: str = "wilcox",
) -> WilcoxonHolmResult:
    """Pairwise two-sided Wilcoxon signed-rank tests over data sets, Holm-corrected.

    Today's usual replacement for Nemenyi (aeon ≥ 0.6, Benavoli et al. 2016): each pair is tested
    on its own differences, so the verdict on a pair does not depend on the other models.

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_models)
        One score per model per data set.
    names : sequence of str, optional
        Model names (default: a DataFrame's columns, else ``model_j``).
    greater_is_better : bool
        False for losses.
    correction : {"holm", "bonferroni", "fdr_bh", None}
        Multiplicity correction over the k(k − 1)/2 pairs, in ``pvalues_adjusted`` (see
        :func:`adjust_pvalues`); the overall ``pvalue`` is Holm's whatever this is.
    zero_method : {"wilcox", "pratt", "zsplit"}
        scipy's handling of zero differences (common: scores are quantised).

    Returns
    -------
    WilcoxonHolmResult
        The smallest adjusted p-value (``pvalue``) and its pair's Wilcoxon ``statistic``, the
        pairwise ``statistics``, ``pvalues`` and ``pvalues_adjusted``, the average ranks (for the
        diagram), ``decision(alpha)`` and ``cliques(alpha)``. A pair whose differences are all
        zero gets statistic 0 and p = 1 (before the correction).

    References
    ----------
    .. [1] A. Benavoli, G. Corani and F. Mangili, "Should we really use post-hoc tests based on
       mean-ranks?", JMLR 17, 2016.
    .. [2] S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian
       Journal of Statistics 6, 1979.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import wilcoxon_holm_test
    >>> rng = np.random.default_rng(0)
    >>> scores = np.array([0.80, 0.77, 0.74]) + 0.05 * rng.standard_normal((12, 3))
    >>> res = wilcoxon_holm_test(scores, names=["a", "b", "c"], correction="holm")
    >>> res.to_frame().round(4).loc["a", "c"].item(), res.decision(alpha=0.01)
    (0.0044, True)
    """
    check_choice(zero_method, "zero_method", ("wilcox", "pratt", "zsplit"))
    check_correction(correction)
    arr, names = _scores_table(scores, names, greater_is_better)
    n, k = arr.shape
    _, avg = _average_ranks(arr)
    pairs = list(itertools.combinations(range(k), 2))
    raw, stat = [], []
    for i, j in pairs:
        d = arr[:, i] - arr[:, j]
        if not np.any(d != 0):
            raw.append(1.0)
            stat.append(0.0)
            continue
        res = stats.wilcoxon(d, zero_method=zero_method)
        raw.append(float(res.pvalue))
        stat.append(float(res.statistic))
    raw_arr = np.asarray(raw)
    adj = adjust_pvalues(raw_arr, correction)
    statistics = np.zeros((k, k))
    pvals = np.ones((k, k))
    pvals_adj = np.ones((k, k))
    for (i, j), w, p, pa in zip(pairs, stat, raw, adj, strict=True):
        statistics[i, j] = statistics[j, i] = w
        pvals[i, j] = pvals[j, i] = p
        pvals_adj[i, j] = pvals_adj[j, i] = pa
    best = int(np.argmin(raw_arr))
    return WilcoxonHolmResult(
        statistic=stat[best],
        pvalue=familywise_pvalue(raw_arr),
        statistics=statistics,
        pvalues=pvals,
        pvalues_adjusted=pvals_adj,
        names=tuple(names),
        average_ranks=avg,
        correction=correction,
        zero_method=zero_method,
        n_datasets=n,
    )


@result_class
class BayesianSignedRankResult(BayesianComparisonResult):
    """Result of :func:`bayesian_signed_rank`: a Bayesian comparison, with no p-value.

    Attributes
    ----------
    prob_a_better, prob_rope, prob_a_worse : float
        Posterior probability that each region (a practically better, equivalent, b practically
        better) is the most probable one: the share of Monte Carlo draws in which it has the
        largest mass (baycomp's ``probs``). ``decision(threshold)`` reads them.
    mean_a_better, mean_rope, mean_a_worse : float
        Posterior means of the three masses.
    rope : tuple of float
        The ROPE (low, high) used; (0.0, 0.0) when none.
    prior : float
        Strength of the Dirichlet-process prior's pseudo-observation at 0.
    n_datasets : int
        Data sets (paired scores) used.
    n_draws : int
        Monte Carlo draws of the Dirichlet weights.
    seed_used : int or None
        The seed of the draws (None when a Generator was passed).
    draws : numpy.ndarray of shape (n_draws, 3)
        Draws of (mass a worse, mass rope, mass a better).

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import bayesian_signed_rank
    >>> rng = np.random.default_rng(0)
    >>> a = 0.8 + 0.03 * rng.standard_normal(15)
    >>> res = bayesian_signed_rank(a, a - 0.03, rope=0.01, n_draws=2000, seed=0)
    >>> res.prob_a_better, res.decision(threshold=0.95)
    (1.0, 'a_better')
    """

    prob_a_better: float
    prob_rope: float
    prob_a_worse: float
    mean_a_better: float
    mean_rope: float
    mean_a_worse: float
    rope: tuple[float, float]
    prior: float
    n_datasets: int
    n_draws: int
    seed_used: int | None
    draws: np.ndarray


def signed_rank_masses(z: np.ndarray, weights: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Masses (below, rope, above) for Dirichlet weight draws over (0, z_1, ..., z_n).

    The pseudo-observation 0 comes first. Pairs (i, j) with i = j included: sums z_i + z_j are
    compared with 2·lo and 2·hi, ties counting one half (Benavoli et al. 2014; baycomp).
    """
    zz = np.concatenate(([0.0], z))
    sums = zz[:, None] + zz[None, :]
    above = (sums > 2 * hi).astype(float) + 0.5 * (sums == 2 * hi)
    below = (sums < 2 * lo).astype(float) + 0.5 * (sums == 2 * lo)
    out = np.empty((weights.shape[0], 3))
    out[:, 0] = np.einsum("si,ij,sj->s", weights, below, weights)
    out[:, 2] = np.einsum("si,ij,sj->s", weights, above, weights)
    out[:, 1] = 1.0 - out[:, 0] - out[:, 2]
    return out


def bayesian_signed_rank(
    scores_a: Any,
    scores_b: Any,
    *,
    rope: Any = 0.01,
    prior: float = 0.5,
    n_draws: int = 50_000,
    seed: SeedLike = None,
) -> BayesianSignedRankResult:
    """Bayesian signed-rank test of two models over data sets (Benavoli et al. 2014, 2017).

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_datasets,)
        One score per data set (e.g. the mean CV score), greater is better.
    rope : float, (float, float) or None
        Region of practical equivalence for the difference a − b (default ±0.01).
    prior : float
        Weight of the Dirichlet process' pseudo-observation at z = 0 (baycomp's default 0.5).
    n_draws : int
        Monte Carlo draws of the Dirichlet weights.
    seed : int, numpy.random.Generator or None
        Seed of the Monte Carlo draws; same seed, same result. None draws fresh entropy, recorded
        in ``seed_used``.

    Returns
    -------
    BayesianSignedRankResult
        ``prob_a_better``, ``prob_rope``, ``prob_a_worse``, ``decision(threshold)`` and the draws.

    Notes
    -----
    The posterior of the data sets' difference distribution is a Dirichlet process; given weights
    w ~ Dir(prior, 1, ..., 1) on (0, z_1, ..., z_n) with z = a − b, the mass of "a better" is
    Σ_ij w_i w_j 1[z_i + z_j > 2·hi] (half on ties), and likewise below 2·lo. baycomp's
    ``two_on_multiple(x, y, rope)`` uses z = y − x, so its ``(p_left, p_rope, p_right)`` is our
    ``(prob_a_better, prob_rope, prob_a_worse)`` when x = a; it draws with a global-style
    ``RandomState``, we with ``seed``.

    References
    ----------
    .. [1] A. Benavoli, G. Corani, F. Mangili, M. Zaffalon and F. Ruggeri, "A Bayesian Wilcoxon
       signed-rank test based on the Dirichlet process", ICML 2014.
    .. [2] A. Benavoli, G. Corani, J. Demšar and M. Zaffalon, JMLR 18, 2017. arXiv:1606.04316.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import bayesian_signed_rank
    >>> rng = np.random.default_rng(0)
    >>> a = 0.8 + 0.03 * rng.standard_normal(15)
    >>> b = a - 0.005 + 0.01 * rng.standard_normal(15)
    >>> res = bayesian_signed_rank(a, b, rope=0.01, n_draws=2000, seed=0)
    >>> res.prob_rope > 0.5, res.decision(threshold=0.95) in ("rope", "undecided")
    (True, True)
    """
    lo, hi = check_rope(rope)
    prior = check_positive(prior, "prior")
    n_draws = check_int(n_draws, "n_draws", low=1)
    check_memory(estimate_array_bytes((n_draws, 3)), "the posterior draws", "n_draws")
    rng, seed_used = check_seed(seed)
    diff = paired_differences(scores_a, scores_b, names=("scores_a", "scores_b"))
    concentration = np.concatenate(([prior], np.ones(diff.n)))
    chunks = []
    for start in range(0, n_draws, 4096):
        w = rng.dirichlet(concentration, size=min(4096, n_draws - start))
        chunks.append(signed_rank_masses(diff.d, w, lo, hi))
    draws = np.vstack(chunks)
    winners = np.bincount(np.argmax(draws, axis=1), minlength=3) / n_draws
    means = draws.mean(axis=0)
    return BayesianSignedRankResult(
        prob_a_better=float(winners[2]),
        prob_rope=float(winners[1]),
        prob_a_worse=float(winners[0]),
        mean_a_better=float(means[2]),
        mean_rope=float(means[1]),
        mean_a_worse=float(means[0]),
        rope=(lo, hi),
        prior=prior,
        n_datasets=diff.n,
        n_draws=n_draws,
        seed_used=seed_used,
        draws=draws,
    )
