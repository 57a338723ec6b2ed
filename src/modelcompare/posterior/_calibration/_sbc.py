"""Simulation-based calibration (Talts et al. 2018): ranks of θ among posterior draws, and their test."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from scipy import stats

from modelcompare._foundation.deprecation import renamed_parameters
from modelcompare._foundation.pvalues import adjust_pvalues, familywise_pvalue
from modelcompare._foundation.resources import check_memory, estimate_array_bytes
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import check_choice, check_int, check_samples
from modelcompare.posterior._flows._adapters import adapt_sampler
from modelcompare.posterior._flows._flows import check_flow_width, check_pairs

__all__ = ["SBCResult", "draw_posterior", "sbc", "sbc_ranks", "sbc_test"]


def draw_posterior(
    flow: Any, x: np.ndarray, n_posterior_samples: int, seed: SeedLike, m: int = 1
) -> np.ndarray:
    """``flow.sample(x, n, seed)`` with shape checks: returns ``(N, n_posterior_samples, m)``.

    The N × S × m draws are checked against the memory limit before the flow is asked for them
    (``m`` is the expected parameter dimension), and non-finite draws are refused. sbi, zuko and
    nflows estimators are wrapped by :func:`adapt_sampler` (sbi's own ``sample`` has another
    signature).
    """
    flow = adapt_sampler(flow, "flow")
    if not hasattr(flow, "sample"):
        msg = f"`flow` needs a `sample(x, n, seed)` method for SBC/TARP; {type(flow).__name__} has none."
        raise TypeError(msg)
    check_flow_width(flow, np.empty((0, m)))
    s = n_posterior_samples
    check_memory(
        2 * estimate_array_bytes((x.shape[0], s, m)), "the posterior draws", "n_posterior_samples"
    )
    draws = np.asarray(flow.sample(x, s, seed), dtype=float)
    if draws.ndim != 3 or draws.shape != (x.shape[0], s, m):
        msg = (
            f"`flow.sample` must return shape (N, n, m) = ({x.shape[0]}, {s}, {m}), m the columns "
            f"of `theta`; got {draws.shape}."
        )
        raise ValueError(msg)
    finite = np.isfinite(draws)
    if not finite.all():
        bad = int(draws.size - np.count_nonzero(finite))
        msg = (
            f"`flow.sample` returned {bad} non-finite value(s) (NaN or inf) among the flow's "
            f"{draws.size} posterior samples; the flow's samples must be finite (check the flow's "
            "training, or its inputs `x`)."
        )
        raise ValueError(msg)
    return draws


def sbc_ranks(
    flow: Any, theta: Any, x: Any, *, n_posterior_samples: int = 100, seed: SeedLike = None
) -> np.ndarray:
    """SBC ranks r_{n,j} = #{s : θ̃_{n,s,j} < θ_{n,j}} ∈ {0..S} with θ̃_{n,s} ~ q(·|x_n).

    Parameters
    ----------
    flow : object with ``sample(x, n, seed)``
        The estimated posterior.
    theta, x : array-like, shapes (N, m) and (N, d)
        Pairs drawn from the prior and the simulator.
    n_posterior_samples : int
        S, posterior draws per pair.
    seed : int, Generator or None
        Seeds the posterior draws.

    Returns
    -------
    numpy.ndarray of int, shape (N, m)
        The rank of each θ_{n,j} among its S posterior draws.

    References
    ----------
    .. [1] S. Talts et al. (2018). Validating Bayesian Inference Algorithms with Simulation-Based
       Calibration. arXiv:1804.06788.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(100, seed=0)
    >>> ranks = sbc_ranks(model.exact_flow(), theta, x, n_posterior_samples=20, seed=1)
    >>> ranks.shape, int(ranks.min()) >= 0, int(ranks.max()) <= 20
    ((100, 2), True, True)
    """
    theta, x = check_pairs(theta, x)
    n_posterior_samples = check_int(n_posterior_samples, "n_posterior_samples", low=1)
    draws = draw_posterior(flow, x, n_posterior_samples, seed, theta.shape[1])
    return np.sum(draws < theta[:, None, :], axis=1)


@result_class
class SBCResult(TestResult):
    """Result of :func:`sbc_test`: uniformity of the SBC ranks per dimension, Holm over dimensions.

    Attributes
    ----------
    statistic : float
        The largest per-dimension statistic (KS distance or χ²).
    pvalue : float
        The smallest Holm-adjusted p-value over the m dimensions, min(1, m · min_j p_j) (equal to
        Bonferroni's): ``decision(alpha)`` is Holm's family-wise decision.
    statistics, pvalues : numpy.ndarray, shape (m,)
        Statistic and p-value of each dimension.
    pvalues_adjusted : numpy.ndarray, shape (m,)
        ``pvalues`` Holm-adjusted over the dimensions.
    ranks : numpy.ndarray of int, shape (N, m)
        The tested ranks.
    n_posterior_samples : int
        S, so that the ranks lie in {0..S}.
    method : str
        ``"ks"`` or ``"chi2"``.
    n : int
        Number of pairs.
    seed_used : int or None
        The seed of the KS jitter (and of the draws, from :func:`sbc`).

    Examples
    --------
    >>> import numpy as np
    >>> ranks = np.random.default_rng(0).integers(0, 51, size=(200, 2))
    >>> res = sbc_test(ranks, 50, seed=1)
    >>> res.decision(0.05)
    False
    """

    statistic: float
    pvalue: float
    statistics: np.ndarray
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    ranks: np.ndarray
    n_posterior_samples: int
    method: str
    n: int
    seed_used: int | None

    _repr_fields = ("statistic", "pvalue", "method", "n")


def _rank_uniformity(
    r: np.ndarray, n_posterior_samples: int, method: str, n_bins: int, rng: np.random.Generator
) -> tuple[float, float]:
    s = n_posterior_samples
    if method == "ks":
        u = (r + rng.uniform(size=r.shape)) / (s + 1)
        res = stats.kstest(u, "uniform")
        return float(res.statistic), float(res.pvalue)
    groups = np.array_split(np.arange(s + 1), min(n_bins, s + 1))
    sizes = np.array([g.size for g in groups])
    edges = np.concatenate([[g[0] for g in groups], [s + 1]])
    obs = np.histogram(r, bins=edges - 0.5)[0]
    exp = r.size * sizes / (s + 1)
    res = stats.chisquare(obs, exp)
    return float(res.statistic), float(res.pvalue)


@renamed_parameters(method="statistic")
def sbc_test(
    ranks: Any,
    n_posterior_samples: int,
    *,
    statistic: str = "ks",
    n_bins: int = 20,
    seed: SeedLike = None,
) -> SBCResult:
    """Test the discrete uniformity of SBC ranks on {0..S}, per dimension, with Holm.

    Parameters
    ----------
    ranks : array-like, shape (N, m)
        From :func:`sbc_ranks`.
    n_posterior_samples : int
        S, the posterior draws behind each rank.
    statistic : {"ks", "chi2"}
        ``"ks"``: KS of the randomised ranks (r + V)/(S + 1), V ~ U(0, 1), which are exactly
        U(0, 1) under calibration (sbi compares the raw ranks with a continuous U(0, S), which is not
        exact for discrete ranks). ``"chi2"``: Pearson χ² on ``n_bins`` groups of consecutive ranks.
    n_bins : int
        Groups for ``"chi2"``.
    seed : int, Generator or None
        The jitter V of ``"ks"``; an int makes the test reproducible.

    Returns
    -------
    SBCResult

    References
    ----------
    .. [1] S. Talts et al. (2018). Validating Bayesian Inference Algorithms with Simulation-Based
       Calibration. arXiv:1804.06788.

    Examples
    --------
    >>> import numpy as np
    >>> ranks = np.random.default_rng(0).integers(0, 51, size=(200, 2))
    >>> res = sbc_test(ranks, 50, seed=1)
    >>> res.statistics.shape, bool(res.pvalue > 0.05)
    ((2,), True)
    >>> bool(sbc_test(ranks, 50, statistic="chi2").pvalue > 0.05)
    True
    """
    r = check_samples(ranks, "ranks", min_samples=2)
    s = check_int(n_posterior_samples, "n_posterior_samples", low=1)
    if r.min() < 0 or r.max() > s or np.any(r != np.round(r)):
        msg = f"`ranks` must be integers in [0, {s}]."
        raise ValueError(msg)
    method = check_choice(statistic, "statistic", ("ks", "chi2"))
    n_bins = check_int(n_bins, "n_bins", low=2)
    rng, seed_used = check_seed(seed)
    res = [_rank_uniformity(r[:, j], s, method, n_bins, rng) for j in range(r.shape[1])]
    st = np.array([a for a, _ in res])
    pv = np.array([b for _, b in res])
    return SBCResult(
        statistic=float(st.max()),
        pvalue=familywise_pvalue(pv),
        statistics=st,
        pvalues=pv,
        pvalues_adjusted=adjust_pvalues(pv, "holm"),
        ranks=r.astype(int),
        n_posterior_samples=s,
        method=method,
        n=r.shape[0],
        seed_used=seed_used,
    )


@renamed_parameters(method="statistic")
def sbc(
    flow: Any,
    theta: Any,
    x: Any,
    *,
    n_posterior_samples: int = 100,
    statistic: str = "ks",
    seed: SeedLike = None,
) -> SBCResult:
    """SBC in one call: ranks from ``flow.sample`` and their uniformity test.

    SBC is univariate and global: it checks each θ_j marginally, averaged over the prior predictive,
    so it can pass where the flow PIT fails (Linhart et al. 2022, Figure 1).

    Parameters
    ----------
    flow : object with ``sample(x, n, seed)``
        The estimated posterior.
    theta, x : array-like, shapes (N, m) and (N, d)
        Pairs drawn from the prior and the simulator.
    n_posterior_samples : int
        S, posterior draws per pair.
    statistic : {"ks", "chi2"}
        See :func:`sbc_test`.
    seed : int, Generator or None
        Seeds the posterior draws and the test.

    Returns
    -------
    SBCResult

    References
    ----------
    .. [1] S. Talts et al. (2018). Validating Bayesian Inference Algorithms with Simulation-Based
       Calibration. arXiv:1804.06788.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(300, seed=0)
    >>> res = sbc(model.exact_flow(), theta, x, n_posterior_samples=50, seed=1)
    >>> res.ranks.shape
    (300, 2)
    """
    rng, seed_used = check_seed(seed)
    a, b = rng.spawn(2)
    ranks = sbc_ranks(flow, theta, x, n_posterior_samples=n_posterior_samples, seed=a)
    res = sbc_test(ranks, n_posterior_samples, statistic=statistic, seed=b)
    return dataclasses.replace(res, seed_used=seed_used)
