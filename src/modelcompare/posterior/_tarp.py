"""TARP coverage (Lemos et al. 2023), with a fixed α grid in [0, 1] and a one-sample KS test."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from modelcompare._foundation.results import Result, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import check_int, check_samples
from modelcompare.posterior._flows import _pair_iv
from modelcompare.posterior._sbc import draw_posterior

__all__ = ["TARPResult", "tarp"]


@result_class
class TARPResult(Result):
    """Result of :func:`tarp`.

    Attributes
    ----------
    statistic : float
        KS distance of the randomised coverage values from U(0, 1).
    pvalue : float
        Its one-sample KS p-value (exact under calibration).
    atc : float
        ∫₀¹ (ECP(α) − α) dα (trapezoid on ``alphas``): > 0 when the credible regions cover too often
        (over-dispersed posterior), < 0 when too rarely (under-dispersed or biased).
    alphas, ecp : numpy.ndarray
        ECP(α) = (1/N) Σ_n 1{f_n < α} on a fixed grid in [0, 1].
    coverage_values : numpy.ndarray, shape (N,)
        f_n = (1/S) #{s : d(θ̃_{n,s}, θ_r) < d(θ_n, θ_r)}.
    """

    statistic: float
    pvalue: float
    atc: float
    alphas: np.ndarray
    ecp: np.ndarray
    coverage_values: np.ndarray
    n: int
    n_samples: int
    seed_used: int | None

    _repr_fields = ("statistic", "pvalue", "atc", "n")


def tarp(
    flow: Any,
    theta: Any,
    x: Any,
    *,
    n_samples: int = 100,
    references: Any = None,
    n_alphas: int = 101,
    z_score: bool = True,
    seed: SeedLike = None,
) -> TARPResult:
    """Tests of Accuracy with Random Points (TARP), from draws of ``flow.sample``.

    Parameters
    ----------
    flow : object with ``sample(x, n, seed)``
    theta, x : array-like, shapes (N, m) and (N, d)
    n_samples : int
        S posterior draws per pair.
    references : array-like, shape (N, m), optional
        θ_r per pair; default uniform over the bounding box of ``theta`` (as sbi does).
    n_alphas : int
        Points of the fixed ECP grid linspace(0, 1, n_alphas).
    z_score : bool
        Measure distances after z-scoring θ with the calibration mean and std.
    seed : int, Generator or None

    Returns
    -------
    TARPResult

    Notes
    -----
    TARP is the SBC rank (divided by S) of the reduce function d(·, θ_r). Under calibration f_n is
    uniform on {0, 1/S, ..., 1}; the KS test uses (S f_n + V)/(S + 1), V ~ U(0, 1), which is exactly
    U(0, 1). Unlike sbi, the α grid spans [0, 1] (not [min f, max f]) and the KS test is one-sample.
    """
    theta, x = _pair_iv(theta, x)
    n_samples = check_int(n_samples, "n_samples", low=1)
    n_alphas = check_int(n_alphas, "n_alphas", low=2)
    rng, seed_used = check_seed(seed)
    s_draws, s_ref, s_jit = rng.spawn(3)
    draws = draw_posterior(flow, x, n_samples, s_draws)
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
    f = counts / n_samples
    alphas = np.linspace(0, 1, n_alphas)
    ecp = (f[:, None] < alphas[None, :]).mean(axis=0)
    u = (counts + s_jit.uniform(size=counts.shape)) / (n_samples + 1)
    ks = stats.kstest(u, "uniform")
    return TARPResult(
        statistic=float(ks.statistic),
        pvalue=float(ks.pvalue),
        atc=float(np.trapezoid(ecp - alphas, alphas)),
        alphas=alphas,
        ecp=ecp,
        coverage_values=f,
        n=theta.shape[0],
        n_samples=n_samples,
        seed_used=seed_used,
    )
