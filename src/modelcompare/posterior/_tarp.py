"""TARP coverage (Lemos et al. 2023), with a fixed level grid in [0, 1] and a one-sample KS test."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from modelcompare._foundation.resources import check_memory, estimate_array_bytes
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import check_bool, check_int, check_samples
from modelcompare.posterior._flows import _pair_iv
from modelcompare.posterior._sbc import draw_posterior

__all__ = ["TARPResult", "tarp"]


@result_class
class TARPResult(TestResult):
    """Result of :func:`tarp`.

    Attributes
    ----------
    statistic : float
        KS distance of the randomised coverage values from U(0, 1).
    pvalue : float
        Its one-sample KS p-value (exact under calibration).
    atc : float
        ∫₀¹ (ECP(γ) − γ) dγ (trapezoid on ``levels``): > 0 when the credible regions cover too often
        (over-dispersed posterior), < 0 when too rarely (under-dispersed or biased).
    levels, ecp : numpy.ndarray
        ECP(γ) = (1/N) Σ_n 1{f_n < γ} on a fixed grid of credibility levels γ in [0, 1].
    coverage_values : numpy.ndarray, shape (N,)
        f_n = (1/S) #{s : d(θ̃_{n,s}, θ_r) < d(θ_n, θ_r)}.
    n : int
        Number of pairs.
    n_posterior_samples : int
        S, posterior draws per pair.
    seed_used : int or None
        The seed of the draws, the references and the KS jitter.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(200, seed=0)
    >>> res = tarp(model.exact_flow(), theta, x, n_posterior_samples=50, seed=1)
    >>> res.decision(0.01)
    False
    """

    statistic: float
    pvalue: float
    atc: float
    levels: np.ndarray
    ecp: np.ndarray
    coverage_values: np.ndarray
    n: int
    n_posterior_samples: int
    seed_used: int | None

    _repr_fields = ("statistic", "pvalue", "atc", "n")


def tarp(
    flow: Any,
    theta: Any,
    x: Any,
    *,
    n_posterior_samples: int = 100,
    references: Any = None,
    n_levels: int = 101,
    z_score: bool = True,
    seed: SeedLike = None,
) -> TARPResult:
    """Tests of Accuracy with Random Points (TARP), from draws of ``flow.sample``.

    Parameters
    ----------
    flow : object with ``sample(x, n, seed)``
        The estimated posterior.
    theta, x : array-like, shapes (N, m) and (N, d)
        Pairs drawn from the prior and the simulator.
    n_posterior_samples : int
        S posterior draws per pair.
    references : array-like, shape (N, m), optional
        θ_r per pair; default uniform over the bounding box of ``theta`` (as sbi does).
    n_levels : int
        Points of the fixed ECP grid of credibility levels linspace(0, 1, n_levels).
    z_score : bool
        Measure distances after z-scoring θ with the calibration mean and std.
    seed : int, Generator or None
        Seeds the draws, the references and the KS jitter.

    Returns
    -------
    TARPResult

    Notes
    -----
    TARP is the SBC rank (divided by S) of the reduce function d(·, θ_r). Under calibration f_n is
    uniform on {0, 1/S, ..., 1}; the KS test uses (S f_n + V)/(S + 1), V ~ U(0, 1), which is exactly
    U(0, 1). Unlike sbi, the level grid spans [0, 1] (not [min f, max f]) and the KS test is
    one-sample.

    References
    ----------
    Lemos, Coogan, Hezaveh, Perreault-Levasseur (2023). Sampling-based accuracy testing of posterior
    estimators for general inference. ICML.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(200, seed=0)
    >>> res = tarp(model.exact_flow(), theta, x, n_posterior_samples=50, n_levels=11, seed=1)
    >>> res.levels.size, bool(abs(res.atc) < 0.1)
    (11, True)
    """
    theta, x = _pair_iv(theta, x)
    s = check_int(n_posterior_samples, "n_posterior_samples", low=1)
    n_levels = check_int(n_levels, "n_levels", low=2)
    rng, seed_used = check_seed(seed)
    s_draws, s_ref, s_jit = rng.spawn(3)
    z_score = check_bool(z_score, "z_score")
    check_memory(
        estimate_array_bytes((theta.shape[0], n_levels), bool), "the ECP curve", "n_levels"
    )
    draws = draw_posterior(flow, x, s, s_draws, theta.shape[1])
    if references is None:
        lo, hi = theta.min(axis=0), theta.max(axis=0)
        refs = lo + (hi - lo) * s_ref.uniform(size=theta.shape)
    else:
        refs = check_samples(references, "references", min_samples=1)
        if refs.shape != theta.shape:
            msg = f"`references` must have shape {theta.shape}; got {refs.shape}."
            raise ValueError(msg)
    if z_score:
        mu, sd = theta.mean(axis=0), theta.std(axis=0)
        sd = np.where(sd > 0, sd, 1.0)
        theta, refs, draws = (theta - mu) / sd, (refs - mu) / sd, (draws - mu) / sd
    d_true = np.linalg.norm(theta - refs, axis=1)
    d_draw = np.linalg.norm(draws - refs[:, None, :], axis=2)
    counts = np.sum(d_draw < d_true[:, None], axis=1)
    f = counts / s
    levels = np.linspace(0, 1, n_levels)
    ecp = (f[:, None] < levels[None, :]).mean(axis=0)
    u = (counts + s_jit.uniform(size=counts.shape)) / (s + 1)
    ks = stats.kstest(u, "uniform")
    return TARPResult(
        statistic=float(ks.statistic),
        pvalue=float(ks.pvalue),
        atc=float(np.trapezoid(ecp - levels, levels)),
        levels=levels,
        ecp=ecp,
        coverage_values=f,
        n=theta.shape[0],
        n_posterior_samples=s,
        seed_used=seed_used,
    )
