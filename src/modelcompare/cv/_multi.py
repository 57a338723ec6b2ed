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
from modelcompare._foundation.results import Result, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    as_numpy,
    check_choice,
    check_fraction,
    check_int,
    check_positive,
)
from modelcompare.cv._bayes import check_rope
from modelcompare.cv._pairwise import adjust_pvalues

__all__ = [
    "BayesianSignedRankResult",
    "FriedmanResult",
    "PosthocResult",
    "bayesian_signed_rank",
    "friedman_test",
    "nemenyi_test",
    "wilcoxon_holm",
]


def _scores_table(scores: Any, names: Any, greater_is_better: bool) -> tuple[np.ndarray, list[str]]:
    """Validate a data sets × models table; return (scores oriented greater-is-better, names)."""
    columns = getattr(scores, "columns", None)
    index = getattr(scores, "index", None)
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
        row = index[i] if index is not None else i
        msg = f"`scores` must be finite; data set {row!r}, model {names[j]!r} is {arr[i, j]}."
        raise ValueError(msg)
    return (arr if greater_is_better else -arr), names


def _average_ranks(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks within each data set (1 = best, ties averaged) and their column means."""
    ranks = stats.rankdata(-arr, axis=1)
    return ranks, ranks.mean(axis=0)


@result_class
class FriedmanResult(Result):
    """Result of :func:`friedman_test`.

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
        (Demšar 2006 recommends it).
    n_datasets, n_models : int
    degenerate : bool
        True when every data set ties all models (statistic 0, p = 1).
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

    Notes
    -----
    With R_j the average rank of model j over N data sets and k models,
    χ²_F = 12N/(k(k+1)) [Σ_j R_j² − k(k+1)²/4], divided by the tie correction
    1 − Σ(t³ − t)/(N k (k² − 1)); p from χ²_{k−1}. Folds of one data set are not data sets.

    References
    ----------
    .. [1] J. Demšar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7, 2006.
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
        if denom <= 0:
            f, pf = math.inf, 0.0
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


@result_class
class PosthocResult(Result):
    """Result of :func:`nemenyi_test` and :func:`wilcoxon_holm`.

    Attributes
    ----------
    pvalues : numpy.ndarray of shape (k, k)
        Pairwise (adjusted, for Wilcoxon) p-values, 1 on the diagonal, in ``names`` order.
    names : tuple of str
    average_ranks : numpy.ndarray of shape (k,)
        Mean rank per model (1 = best), in ``names`` order.
    cliques : list of list of str
        Maximal groups of rank-adjacent models with no significant pair at ``alpha`` (the bars of
        a critical-difference diagram).
    method : str
        ``"nemenyi"`` or ``"wilcoxon-holm"`` (or the chosen adjustment).
    alpha : float
    critical_difference : float or None
        Nemenyi's CD = q_α/√2·√(k(k+1)/(6N)); None for Wilcoxon.
    n_datasets : int
    """

    pvalues: np.ndarray
    names: tuple[str, ...]
    average_ranks: np.ndarray
    cliques: list[list[str]]
    method: str
    alpha: float
    critical_difference: float | None
    n_datasets: int

    _repr_fields: ClassVar[tuple[str, ...]] = (
        "method",
        "alpha",
        "critical_difference",
        "n_datasets",
    )

    def to_frame(self) -> Any:
        """The p-value matrix as a square pandas DataFrame (scikit-posthocs layout)."""
        import pandas as pd

        return pd.DataFrame(self.pvalues, index=list(self.names), columns=list(self.names))

    def significant(self) -> np.ndarray:
        """Boolean matrix: pair differs at ``alpha`` (p ≤ alpha)."""
        sig = self.pvalues <= self.alpha
        np.fill_diagonal(sig, False)
        return sig


def _posthoc(names, avg, pvals, alpha, method, cd, n) -> PosthocResult:
    np.fill_diagonal(pvals, 1.0)
    sig = pvals <= alpha
    np.fill_diagonal(sig, False)
    cliques = [[names[i] for i in c] for c in _cliques(avg, sig)]
    return PosthocResult(
        pvalues=pvals,
        names=tuple(names),
        average_ranks=avg,
        cliques=cliques,
        method=method,
        alpha=alpha,
        critical_difference=cd,
        n_datasets=n,
    )


def nemenyi_test(
    scores: Any, *, names: Any = None, greater_is_better: bool = True, alpha: float = 0.05
) -> PosthocResult:
    """Nemenyi post-hoc test after Friedman: all pairs, from the average ranks.

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_models)
        One score per model per data set.
    names : sequence of str, optional
    greater_is_better : bool
    alpha : float
        Level for the critical difference and the cliques.

    Returns
    -------
    PosthocResult
        p-values p_ij = P(Q_{k,∞} > √2·|R_i − R_j| / √(k(k+1)/(6N))) (as scikit-posthocs'
        ``posthoc_nemenyi_friedman``), the critical difference and the cliques.

    References
    ----------
    .. [1] J. Demšar, JMLR 7, 2006, section 3.2.2.
    """
    alpha = check_fraction(alpha, "alpha")
    arr, names = _scores_table(scores, names, greater_is_better)
    n, k = arr.shape
    _, avg = _average_ranks(arr)
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    q = np.abs(avg[:, None] - avg[None, :]) / se * math.sqrt(2.0)
    pvals = np.ones((k, k))
    for i, j in itertools.combinations(range(k), 2):
        pvals[i, j] = pvals[j, i] = float(stats.studentized_range.sf(q[i, j], k, np.inf))
    cd = float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0) * se)
    return _posthoc(names, avg, np.clip(pvals, 0.0, 1.0), alpha, "nemenyi", cd, n)


def wilcoxon_holm(
    scores: Any,
    *,
    names: Any = None,
    greater_is_better: bool = True,
    alpha: float = 0.05,
    p_adjust: str | None = "holm",
    zero_method: str = "wilcox",
) -> PosthocResult:
    """Pairwise two-sided Wilcoxon signed-rank tests over data sets, Holm-adjusted.

    Today's usual replacement for Nemenyi (aeon ≥ 0.6, Benavoli et al. 2016): each pair is tested
    on its own differences, so the verdict on a pair does not depend on the other models.

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_models)
    names : sequence of str, optional
    greater_is_better : bool
    alpha : float
        Level for the cliques.
    p_adjust : {"holm", "bonferroni", None}
    zero_method : {"wilcox", "pratt", "zsplit"}
        scipy's handling of zero differences (common: scores are quantised).

    Returns
    -------
    PosthocResult
        Adjusted p-values, average ranks (for the diagram) and cliques; a pair whose differences
        are all zero gets p = 1 (before adjustment).
    """
    alpha = check_fraction(alpha, "alpha")
    check_choice(zero_method, "zero_method", ("wilcox", "pratt", "zsplit"))
    arr, names = _scores_table(scores, names, greater_is_better)
    n, k = arr.shape
    _, avg = _average_ranks(arr)
    pairs = list(itertools.combinations(range(k), 2))
    raw = []
    for i, j in pairs:
        d = arr[:, i] - arr[:, j]
        if not np.any(d != 0):
            raw.append(1.0)
            continue
        raw.append(float(stats.wilcoxon(d, zero_method=zero_method).pvalue))
    adj = adjust_pvalues(np.asarray(raw), p_adjust)
    pvals = np.ones((k, k))
    for (i, j), p in zip(pairs, adj):
        pvals[i, j] = pvals[j, i] = p
    method = "wilcoxon" + (f"-{p_adjust}" if p_adjust else "")
    return _posthoc(names, avg, pvals, alpha, method, None, n)


@result_class
class BayesianSignedRankResult(Result):
    """Result of :func:`bayesian_signed_rank`.

    Attributes
    ----------
    prob_a_worse, prob_rope, prob_a_better : float
        Posterior probability that each region (b practically better, equivalent, a practically
        better) is the most probable one: the share of Monte Carlo draws in which it has the
        largest mass (baycomp's ``probs``).
    mean_a_worse, mean_rope, mean_a_better : float
        Posterior means of the three masses.
    rope : tuple of float
    prior : float
        Strength of the Dirichlet-process prior's pseudo-observation at 0.
    n_samples : int
    seed_used : int or None
    samples : numpy.ndarray of shape (n_samples, 3)
        Draws of (mass a worse, mass rope, mass a better).
    """

    prob_a_worse: float
    prob_rope: float
    prob_a_better: float
    mean_a_worse: float
    mean_rope: float
    mean_a_better: float
    rope: tuple[float, float]
    prior: float
    n_datasets: int
    n_samples: int
    seed_used: int | None
    samples: np.ndarray

    _repr_fields: ClassVar[tuple[str, ...]] = ("prob_a_worse", "prob_rope", "prob_a_better")


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
    n_samples: int = 50_000,
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
    n_samples : int
        Monte Carlo draws of the Dirichlet weights.
    seed : int, numpy.random.Generator or None
        Seed of the Monte Carlo draws; same seed, same result.

    Returns
    -------
    BayesianSignedRankResult

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
    .. [2] A. Benavoli, G. Corani, J. Demšar and M. Zaffalon, JMLR 18, 2017.
    """
    from modelcompare.cv._core import paired_differences

    lo, hi = check_rope(rope)
    prior = check_positive(prior, "prior")
    n_samples = check_int(n_samples, "n_samples", low=1)
    rng, seed_used = check_seed(seed)
    diff = paired_differences(scores_a, scores_b, names=("scores_a", "scores_b"))
    alpha = np.concatenate(([prior], np.ones(diff.n)))
    chunks = []
    for start in range(0, n_samples, 4096):
        w = rng.dirichlet(alpha, size=min(4096, n_samples - start))
        chunks.append(signed_rank_masses(diff.d, w, lo, hi))
    samples = np.vstack(chunks)
    winners = np.bincount(np.argmax(samples, axis=1), minlength=3) / n_samples
    means = samples.mean(axis=0)
    return BayesianSignedRankResult(
        prob_a_worse=float(winners[0]),
        prob_rope=float(winners[1]),
        prob_a_better=float(winners[2]),
        mean_a_worse=float(means[0]),
        mean_rope=float(means[1]),
        mean_a_better=float(means[2]),
        rope=(lo, hi),
        prior=prior,
        n_datasets=diff.n,
        n_samples=n_samples,
        seed_used=seed_used,
        samples=samples,
    )
