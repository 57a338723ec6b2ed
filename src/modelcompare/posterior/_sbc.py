"""Simulation-based calibration (Talts et al. 2018): ranks of θ among posterior draws, and their test."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from scipy import stats

from modelcompare._foundation.results import Result, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import check_choice, check_int, check_samples
from modelcompare.posterior._flows import _pair_iv

__all__ = ["SBCResult", "draw_posterior", "sbc", "sbc_ranks", "sbc_test"]


def draw_posterior(flow: Any, x: np.ndarray, n_samples: int, seed: SeedLike) -> np.ndarray:
    """``flow.sample(x, n, seed)`` with shape checks: returns ``(N, n_samples, m)``."""
    if not hasattr(flow, "sample"):
        msg = f"`flow` needs a `sample(x, n, seed)` method for SBC/TARP; {type(flow).__name__} has none."
        raise TypeError(msg)
    draws = np.asarray(flow.sample(x, n_samples, seed), dtype=float)
    if draws.ndim != 3 or draws.shape[:2] != (x.shape[0], n_samples):
        msg = f"`flow.sample` must return shape (N, n, m) = ({x.shape[0]}, {n_samples}, m); got {draws.shape}."
        raise ValueError(msg)
    return draws


def sbc_ranks(
    flow: Any, theta: Any, x: Any, *, n_samples: int = 100, seed: SeedLike = None
) -> np.ndarray:
    """SBC ranks r_{n,j} = #{s : θ̃_{n,s,j} < θ_{n,j}} ∈ {0..S} with θ̃_{n,s} ~ q(·|x_n).

    Parameters
    ----------
    flow : object with ``sample(x, n, seed)``
    theta, x : array-like, shapes (N, m) and (N, d)
        Pairs drawn from the prior and the simulator.
    n_samples : int
        S, posterior draws per pair.
    seed : int, Generator or None

    Returns
    -------
    numpy.ndarray of int, shape (N, m)
    """
    theta, x = _pair_iv(theta, x)
    n_samples = check_int(n_samples, "n_samples", low=1)
    draws = draw_posterior(flow, x, n_samples, seed)
    return np.sum(draws < theta[:, None, :], axis=1)


@result_class
class SBCResult(Result):
    """Result of :func:`sbc_test`: uniformity of the ranks per dimension, Bonferroni-combined."""

    statistic: float
    pvalue: float
    statistics: np.ndarray
    pvalues: np.ndarray
    ranks: np.ndarray
    n_samples: int
    method: str
    n: int
    seed_used: int | None

    _repr_fields = ("statistic", "pvalue", "method", "n")


def _rank_uniformity(
    r: np.ndarray, n_samples: int, method: str, n_bins: int, rng: np.random.Generator
) -> tuple[float, float]:
    if method == "ks":
        u = (r + rng.uniform(size=r.shape)) / (n_samples + 1)
        res = stats.kstest(u, "uniform")
        return float(res.statistic), float(res.pvalue)
    groups = np.array_split(np.arange(n_samples + 1), min(n_bins, n_samples + 1))
    sizes = np.array([g.size for g in groups])
    edges = np.concatenate([[g[0] for g in groups], [n_samples + 1]])
    obs = np.histogram(r, bins=edges - 0.5)[0]
    exp = r.size * sizes / (n_samples + 1)
    res = stats.chisquare(obs, exp)
    return float(res.statistic), float(res.pvalue)


def sbc_test(
    ranks: Any, n_samples: int, *, method: str = "ks", n_bins: int = 20, seed: SeedLike = 0
) -> SBCResult:
    """Test the discrete uniformity of SBC ranks on {0..S}, per dimension, with Bonferroni.

    Parameters
    ----------
    ranks : array-like, shape (N, m)
        From :func:`sbc_ranks`.
    n_samples : int
        S.
    method : {"ks", "chi2"}
        ``"ks"``: KS of the randomised ranks (r + V)/(S + 1), V ~ U(0, 1), which are exactly
        U(0, 1) under calibration (sbi compares the raw ranks with a continuous U(0, S), which is not
        exact for discrete ranks). ``"chi2"``: Pearson χ² on ``n_bins`` groups of consecutive ranks.
    n_bins : int
        Groups for ``"chi2"``.
    seed : int, Generator or None
        The jitter of ``"ks"`` (fixed by default).

    Returns
    -------
    SBCResult
    """
    r = check_samples(ranks, "ranks", min_samples=2)
    n_samples = check_int(n_samples, "n_samples", low=1)
    if r.min() < 0 or r.max() > n_samples or np.any(r != np.round(r)):
        msg = f"`ranks` must be integers in [0, {n_samples}]."
        raise ValueError(msg)
    method = check_choice(method, "method", ("ks", "chi2"))
    n_bins = check_int(n_bins, "n_bins", low=2)
    rng, seed_used = check_seed(seed)
    res = [_rank_uniformity(r[:, j], n_samples, method, n_bins, rng) for j in range(r.shape[1])]
    st = np.array([a for a, _ in res])
    pv = np.array([b for _, b in res])
    return SBCResult(
        statistic=float(st.max()),
        pvalue=float(min(1.0, r.shape[1] * pv.min())),
        statistics=st,
        pvalues=pv,
        ranks=r.astype(int),
        n_samples=n_samples,
        method=method,
        n=r.shape[0],
        seed_used=seed_used,
    )


def sbc(
    flow: Any,
    theta: Any,
    x: Any,
    *,
    n_samples: int = 100,
    method: str = "ks",
    seed: SeedLike = None,
) -> SBCResult:
    """SBC in one call: ranks from ``flow.sample`` and their uniformity test.

    SBC is univariate and global: it checks each θ_j marginally, averaged over the prior predictive,
    so it can pass where the flow PIT fails (the paper's Figure 1).

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(300, seed=0)
    >>> res = sbc(model.exact_flow(), theta, x, n_samples=50, seed=1)
    >>> res.ranks.shape
    (300, 2)
    """
    rng, seed_used = check_seed(seed)
    a, b = rng.spawn(2)
    ranks = sbc_ranks(flow, theta, x, n_samples=n_samples, seed=a)
    res = sbc_test(ranks, n_samples, method=method, seed=b)
    return dataclasses.replace(res, seed_used=seed_used)
