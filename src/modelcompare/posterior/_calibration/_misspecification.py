"""Is the observation something the simulator produces? A prior-predictive typicality test.

Two statistics: the distance from x_obs to its k-th nearest simulated neighbour, ranked among the
same distances of held-out simulations (a conformal p-value), and the MMD between x_obs and the
simulations with a permutation null, as sbi's ``calc_misspecification_mmd`` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from modelcompare._foundation.deprecation import renamed_parameters
from modelcompare._foundation.pvalues import monte_carlo_pvalue
from modelcompare._foundation.resources import check_memory, estimate_array_bytes
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    check_choice,
    check_int,
    check_same_width,
    check_samples,
)
from modelcompare.kernels import meddistance, sq_distances

__all__ = ["MisspecificationResult", "misspecification_test"]

_METHODS = ("knn", "mmd")
#: Cells of the permutation blocks of the MMD null (bounds memory).
_BLOCK_CELLS = 2**22


@result_class
class MisspecificationResult(TestResult):
    """Result of :func:`misspecification_test`.

    Attributes
    ----------
    statistic : float
        ``"knn"``: the mean over the rows of ``x_obs`` of the distance to the k-th nearest
        reference simulation (standardised units). ``"mmd"``: the biased MMD² between ``x_obs``
        and ``x_sim``.
    pvalue : float
        ``"knn"`` with one observation: the conformal p-value (1 + #{i : s_i ≥ s_obs})/(1 + n_cal);
        otherwise the Monte Carlo permutation p-value (1 + #{b : T_b ≥ T})/(1 + B).
    null_distribution : numpy.ndarray
        ``"knn"`` with one observation: the scores s_i of the n_cal held-out simulations;
        otherwise the B permutation statistics.
    method : str
        ``"knn"`` or ``"mmd"``.
    n_obs, n_sim : int
        Rows of ``x_obs`` and of ``x_sim``.
    n_neighbors : int
        k of the ``"knn"`` score (0 for ``"mmd"``).
    bandwidth : float
        The Gaussian width of ``"mmd"`` (median heuristic on the pooled, standardised rows); NaN
        for ``"knn"``.
    seed_used : int or None
        The seed of the split (``"knn"``), the permutations and the bandwidth subsample.

    Examples
    --------
    >>> import numpy as np
    >>> x_sim = np.random.default_rng(0).normal(size=(500, 3))
    >>> misspecification_test(np.full((1, 3), 6.0), x_sim, seed=1).decision(0.01)
    True
    """

    statistic: float
    pvalue: float
    null_distribution: np.ndarray
    method: str
    n_obs: int
    n_sim: int
    n_neighbors: int
    bandwidth: float
    seed_used: int | None

    _repr_fields = ("statistic", "pvalue", "method", "n_obs")


def _standardise(ref: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
    """Scale by the mean and sd of ``ref`` (a constant column is only centred)."""
    mean, sd = ref.mean(axis=0), ref.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return [(a - mean) / sd for a in arrays]


def _knn_test(
    x_obs: np.ndarray, x_sim: np.ndarray, k: int, b: int, rng: np.random.Generator
) -> tuple[float, float, np.ndarray]:
    order = rng.permutation(x_sim.shape[0])
    n_ref = x_sim.shape[0] // 2
    ref, cal = x_sim[order[:n_ref]], x_sim[order[n_ref:]]
    if k > n_ref:
        msg = f"`n_neighbors` must be at most half the rows of `x_sim` ({n_ref}); got {k}."
        raise ValueError(msg)
    ref, cal, obs = _standardise(ref, ref, cal, x_obs)
    tree = cKDTree(ref)
    s_cal = tree.query(cal, k=[k])[0][:, 0]
    s_obs = tree.query(obs, k=[k])[0][:, 0]
    t = float(s_obs.mean())
    if not (np.isfinite(t) and np.isfinite(s_cal).all()):
        msg = (
            "`x_obs` and `x_sim` give distances that overflow float64 once standardised by the "
            "reference simulations (values near 1e154 or more); rescale them."
        )
        raise ValueError(msg)
    if x_obs.shape[0] == 1:
        return t, float(monte_carlo_pvalue(t, s_cal)), s_cal
    # Given the reference half, the scores of x_obs and of the held-out simulations are
    # exchangeable under H0, so permuting the pooled scores gives a valid null for their mean.
    pool = np.concatenate([s_obs, s_cal])
    null = np.empty(b)
    n1 = s_obs.size
    block = max(1, _BLOCK_CELLS // pool.size)
    for start in range(0, b, block):
        size = min(block, b - start)
        idx = rng.random((size, pool.size)).argsort(axis=1)[:, :n1]
        null[start : start + size] = pool[idx].mean(axis=1)
    return t, float(monte_carlo_pvalue(t, null)), null


def _mmd_test(
    x_obs: np.ndarray, x_sim: np.ndarray, b: int, rng: np.random.Generator
) -> tuple[float, float, np.ndarray, float]:
    pool = np.concatenate([x_obs, x_sim])
    n, n1 = pool.shape[0], x_obs.shape[0]
    n2 = n - n1
    check_memory(estimate_array_bytes((n, n)) * 2, "the MMD kernel matrix", "x_sim")
    # Standardising and choosing the width on the pooled rows keeps both invariant under the
    # permutations, so the permutation p-value stays exact.
    (pool,) = _standardise(pool, pool)
    s_width, s_perm = rng.spawn(2)
    width = meddistance(pool, seed=s_width)
    gram = np.exp(-sq_distances(pool, pool) / (2.0 * width**2))
    row = gram.sum(axis=1)
    total = row.sum()

    def mmd2(idx: np.ndarray) -> np.ndarray:
        aa = gram[idx[:, :, None], idx[:, None, :]].sum(axis=(1, 2))
        ra = row[idx].sum(axis=1)
        ab, bb = ra - aa, total - 2 * ra + aa
        return aa / n1**2 + bb / n2**2 - 2 * ab / (n1 * n2)

    t = float(mmd2(np.arange(n1)[None, :])[0])
    null = np.empty(b)
    block = max(1, _BLOCK_CELLS // max(n, n1 * n1))
    for start in range(0, b, block):
        size = min(block, b - start)
        idx = s_perm.random((size, n)).argsort(axis=1)[:, :n1]
        null[start : start + size] = mmd2(idx)
    return t, float(monte_carlo_pvalue(t, null)), null, float(width)


@renamed_parameters(method="statistic")
def misspecification_test(
    x_obs: Any,
    x_sim: Any,
    *,
    statistic: str = "knn",
    n_neighbors: int = 5,
    n_resamples: int = 999,
    seed: SeedLike = None,
) -> MisspecificationResult:
    """Test whether the observation(s) ``x_obs`` look like draws of the simulator (its prior predictive).

    Parameters
    ----------
    x_obs : array-like, shape (n_obs, d)
        The observed data, one row per observation (often a single row).
    x_sim : array-like, shape (n_sim, d)
        Data simulated from the prior predictive: θ from the prior, then x from the simulator.
    statistic : {"knn", "mmd"}
        ``"knn"``: a conformal test on the distance to the k-th nearest simulation, exact for any
        number of observations. ``"mmd"``: a permutation test of the MMD between ``x_obs`` and
        ``x_sim``, the statistic of sbi's ``calc_misspecification_mmd``; it needs several
        observations to have power.
    n_neighbors : int
        k of the ``"knn"`` score.
    n_resamples : int
        B permutations: for ``"mmd"``, and for ``"knn"`` with several observations.
    seed : int, Generator or None
        Seeds the split of ``x_sim``, the permutations and the bandwidth's subsample.

    Returns
    -------
    MisspecificationResult

    Raises
    ------
    ValueError
        If ``x_obs`` and ``x_sim`` differ in width, hold NaN/inf, or ``x_sim`` has too few rows
        for ``n_neighbors``.

    Notes
    -----
    H0: the rows of ``x_obs`` are draws of the same distribution as the rows of ``x_sim``,
    independent of them. Rejecting says that the simulator (with its prior) does not produce
    data like ``x_obs``, so an amortised posterior evaluated there extrapolates.

    ``"knn"`` (conformal). ``x_sim`` is split at random into a reference half R and a calibration
    half C, every row is standardised with R's mean and sd, and each row y is scored by
    s(y) = the distance from y to its k-th nearest neighbour in R. With one observation,
    p = (1 + #{c ∈ C : s(c) ≥ s(x_obs)}) / (1 + |C|): given R, s(x_obs) and the s(c) are
    exchangeable under H0, so P(p ≤ α) ≤ α exactly (split conformal prediction; Vovk et al.
    2005). With several observations the statistic is the mean score of the rows of ``x_obs``,
    and its null comes from B random reassignments of the pooled scores.

    ``"mmd"`` (permutation). The rows of ``x_obs`` and ``x_sim`` are pooled and standardised, the
    Gaussian width is the median pairwise distance of the pool, and the biased MMD² between the
    two groups is compared with its value over B random relabellings of the pool. sbi's
    ``calc_misspecification_mmd`` compares instead MMD(x_obs, first 1000 rows of x_sim) with
    MMDs between disjoint random subsets of x_sim, with the width recomputed per pair and the
    p-value #{T_b ≥ T}/B; this is the exact form of the same idea. With one observation the MMD
    compares a single point with a sample, and the ``"knn"`` score has more power.

    References
    ----------
    Schmitt, M., Bürkner, P.-C., Köthe, U., and Radev, S. T. (2023). Detecting model
    misspecification in amortized Bayesian inference with neural networks. GCPR 2023.
    Vovk, V., Gammerman, A., and Shafer, G. (2005). Algorithmic Learning in a Random World.
    Springer.
    Gretton, A., Borgwardt, K. M., Rasch, M. J., Schölkopf, B., and Smola, A. (2012). A kernel
    two-sample test. JMLR 13, 723-773.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> _, x_sim = model.simulate(1000, seed=0)
    >>> _, x_new = model.simulate(1, seed=1)
    >>> misspecification_test(x_new, x_sim, seed=2).decision(0.05)
    False
    >>> far = np.array([[8.0, -8.0]])
    >>> misspecification_test(far, x_sim, seed=2).pvalue  # the smallest possible, 1/(1 + 500)
    0.001996007984031936
    """
    x_obs = check_samples(x_obs, "x_obs", min_samples=1)
    x_sim = check_samples(x_sim, "x_sim", min_samples=2)
    check_same_width([("x_obs", x_obs), ("x_sim", x_sim)], what="a misspecification test")
    method = check_choice(statistic, "statistic", _METHODS)
    k = check_int(n_neighbors, "n_neighbors", low=1)
    b = check_int(n_resamples, "n_resamples", low=1)
    rng, seed_used = check_seed(seed)
    check_memory(estimate_array_bytes(b) * 2, "the null distribution", "n_resamples")
    if method == "knn":
        t, p, null = _knn_test(x_obs, x_sim, k, b, rng)
        width = float("nan")
    else:
        t, p, null, width = _mmd_test(x_obs, x_sim, b, rng)
        k = 0
    return MisspecificationResult(
        statistic=t,
        pvalue=p,
        null_distribution=null,
        method=method,
        n_obs=x_obs.shape[0],
        n_sim=x_sim.shape[0],
        n_neighbors=k,
        bandwidth=width,
        seed_used=seed_used,
    )
