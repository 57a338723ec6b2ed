"""Gibbs sampler of the hierarchical correlated t-test model, and MCMC convergence diagnostics.

The model (Corani, Benavoli, Demšar, Mangili & Zaffalon 2017; baycomp's Stan program): for data
set i with n correlated CV differences x_i,

    x_i ~ MVN(δ_i·1, σ_i² M),  M = (1 − ρ) I + ρ 11ᵀ,
    δ_i ~ t_ν(δ₀, s₀),  ν − 1 ~ Gamma(α, rate β),  α ~ U(a_lo, a_hi),  β ~ U(b_lo, b_hi),
    δ₀ ~ U(−d, d),  s₀ ~ U(0, s₀_max),  σ_i ~ U(0, σ_max).

Because M is compound-symmetric the likelihood of δ_i and σ_i depends on x_i only through its mean
x̄_i and its sum of squares SS_i: (x − δ1)ᵀM⁻¹(x − δ1) = SS_i/(1 − ρ) + c (x̄_i − δ)² with
c = n / (1 + (n − 1)ρ). The Student-t is written as a scale mixture of normals,
δ_i | λ_i ~ N(δ₀, s₀²/λ_i), λ_i ~ Gamma(ν/2, rate ν/2), so every conditional is a (truncated)
normal or gamma draw, except those of ν (a random-walk Metropolis step on log(ν − 1), with the
λ_i integrated out and then redrawn) and α (an independence Metropolis step from its prior).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

__all__ = [
    "GibbsDraws",
    "HierarchicalPriors",
    "effective_sample_size",
    "sample_hierarchical",
    "split_rhat",
]


@dataclass(frozen=True)
class HierarchicalPriors:
    """Bounds of the uniform priors (baycomp's defaults for α and β)."""

    delta_bound: float  # δ₀ ~ U(−delta_bound, delta_bound)
    std0_max: float  # s₀ ~ U(0, std0_max)
    sigma_max: float  # σ_i ~ U(0, sigma_max)
    alpha_low: float = 1.0
    alpha_high: float = 2.0
    beta_low: float = 0.01
    beta_high: float = 0.1


@dataclass(frozen=True)
class GibbsDraws:
    """Draws of the hyper-parameters, shape (n_chains, n_draws) each."""

    delta0: np.ndarray
    std0: np.ndarray
    nu: np.ndarray
    accept_nu: float


def _gamma_above(
    rng: np.random.Generator, shape: np.ndarray, rate: np.ndarray, low: np.ndarray
) -> np.ndarray:
    """Gamma(shape, rate) draws truncated to [low, ∞).

    One plain draw, and an inverse-survival draw where it fell below ``low``: the mixture is
    exactly the truncated law, and the common case (no truncation in effect) stays fast.
    """
    out = rng.gamma(shape, 1.0 / rate)
    bad = out < low
    if np.any(bad):
        sh, rt = np.broadcast_to(shape, out.shape)[bad], np.broadcast_to(rate, out.shape)[bad]
        lo = np.broadcast_to(low, out.shape)[bad]
        tail = special.gammaincc(sh, lo * rt)
        u = rng.uniform(size=tail.shape)
        out[bad] = np.maximum(special.gammainccinv(sh, u * tail) / rt, lo)
    return out


def _gamma_between(
    rng: np.random.Generator, shape: np.ndarray, rate: np.ndarray, low: float, high: float
) -> np.ndarray:
    """Gamma(shape, rate) draws truncated to [low, high] by inverse CDF."""
    # scipy.special directly: stats.gamma's argument checks would dominate the sampler's time
    f_lo = special.gammainc(shape, low * rate)
    f_hi = special.gammainc(shape, high * rate)
    u = f_lo + rng.uniform(size=np.shape(rate)) * (f_hi - f_lo)
    out = special.gammaincinv(shape, u) / rate
    # when the window holds almost no mass the cdf is flat to double precision: fall back to uniform
    flat = ~np.isfinite(out) | (f_hi - f_lo <= 1e-300)
    if np.any(flat):
        out = np.where(flat, rng.uniform(low, high, size=np.shape(out)), out)
    return np.clip(out, low, high)


def _normal_between(
    rng: np.random.Generator, mean: np.ndarray, sd: np.ndarray, bound: float
) -> np.ndarray:
    """N(mean, sd²) draws truncated to [−bound, bound] (plain draw, exact fallback outside)."""
    out = rng.normal(mean, sd)
    bad = np.abs(out) > bound
    if np.any(bad):
        m, s = mean[bad], sd[bad]
        a, b = (-bound - m) / s, (bound - m) / s
        out[bad] = stats.truncnorm.rvs(a, b, loc=m, scale=s, random_state=rng)
    return out


def _t_loglik(nu: np.ndarray, z2: np.ndarray) -> np.ndarray:
    """Σ_i log t_ν density of standardised δ_i (z2 = ((δ_i − δ₀)/s₀)², the s₀ term dropped)."""
    q = z2.shape[1]
    half = 0.5 * (nu + 1.0)
    const = special.gammaln(half) - special.gammaln(0.5 * nu) - 0.5 * np.log(nu * math.pi)
    return q * const - (half[:, None] * np.log1p(z2 / nu[:, None])).sum(axis=1)


def _log_nu_target(
    u: np.ndarray, nu: np.ndarray, z2: np.ndarray, alpha: np.ndarray, beta: np.ndarray
) -> np.ndarray:
    """log p(u = log(ν − 1) | δ, δ₀, s₀, α, β): the t likelihood and the Gamma(α, β) density of
    ν − 1 = e^u times the Jacobian e^u."""
    return _t_loglik(nu, z2) + alpha * u - beta * np.exp(u)


def _log_alpha(alpha: np.ndarray, beta: np.ndarray, log_nu1: np.ndarray) -> np.ndarray:
    """log p(α | ν, β) up to a constant: the Gamma(α, rate β) density of ν − 1 as a function of α."""
    return alpha * np.log(beta) - special.gammaln(alpha) + (alpha - 1.0) * log_nu1


def sample_hierarchical(
    x: np.ndarray,
    rho: float,
    priors: HierarchicalPriors,
    *,
    n_draws: int,
    n_warmup: int,
    n_chains: int,
    rng: np.random.Generator,
) -> GibbsDraws:
    """Run ``n_chains`` chains (vectorised) and return the post-warm-up hyper-parameter draws."""
    q, n = x.shape
    xbar = x.mean(axis=1)
    ss = ((x - xbar[:, None]) ** 2).sum(axis=1)
    c = n / (1.0 + (n - 1) * rho)
    resid_ss = ss / (1.0 - rho)
    k = n_chains
    # over-dispersed starting points, one per chain
    spread = float(np.std(xbar)) + float(np.mean(np.sqrt(ss / n))) + 1e-12
    delta = xbar[None, :] + spread * rng.standard_normal((k, q))
    delta0 = np.clip(
        rng.uniform(-1, 1, k) * min(priors.delta_bound, 2 * spread),
        -priors.delta_bound,
        priors.delta_bound,
    )
    std0 = np.minimum(rng.uniform(0.1, 2.0, k) * spread, priors.std0_max)
    sigma2 = np.tile(ss / max(n - 1, 1), (k, 1)) + 1e-12
    nu = 1.0 + rng.gamma(1.5, 1.0 / 0.05, size=k)
    alpha = rng.uniform(priors.alpha_low, priors.alpha_high, k)
    beta = rng.uniform(priors.beta_low, priors.beta_high, k)
    lam = np.ones((k, q))
    total = n_warmup + n_draws
    keep_d0, keep_s0, keep_nu = (np.empty((k, n_draws)) for _ in range(3))
    step = np.full(k, 1.0)  # random-walk scale on log(ν − 1), adapted during warm-up
    accepted = 0
    for it in range(total):
        # δ_i | rest: normal (likelihood c/σ_i² around x̄_i, prior λ_i/s₀² around δ₀)
        prec_lik = c / sigma2
        prec_pri = lam / std0[:, None] ** 2
        prec = prec_lik + prec_pri
        mean = (prec_lik * xbar[None, :] + prec_pri * delta0[:, None]) / prec
        delta = mean + rng.standard_normal((k, q)) / np.sqrt(prec)
        # σ_i² | rest: 1/σ² ~ Gamma((n − 1)/2, rate B/2) truncated to σ < σ_max (uniform prior on σ)
        b = resid_ss[None, :] + c * (xbar[None, :] - delta) ** 2
        tau = _gamma_above(
            rng, np.full((k, q), 0.5 * (n - 1)), 0.5 * b, np.full((k, q), priors.sigma_max**-2)
        )
        sigma2 = 1.0 / tau
        # δ₀ | rest: normal, truncated to the prior's box
        w = lam.sum(axis=1)
        delta0 = _normal_between(
            rng, (lam * delta).sum(axis=1) / w, std0 / np.sqrt(w), priors.delta_bound
        )
        # s₀ | rest: 1/s₀² ~ Gamma((q − 1)/2, rate A/2) truncated to s₀ < s₀_max
        a = (lam * (delta - delta0[:, None]) ** 2).sum(axis=1)
        tau0 = _gamma_above(
            rng,
            np.full(k, 0.5 * (q - 1)),
            0.5 * np.maximum(a, 1e-300),
            np.full(k, priors.std0_max**-2),
        )
        std0 = 1.0 / np.sqrt(tau0)
        # ν | δ, δ₀, s₀, α, β (λ integrated out): Metropolis on u = log(ν − 1)
        z2 = ((delta - delta0[:, None]) / std0[:, None]) ** 2
        u = np.log(nu - 1.0)
        u_new = u + step * rng.standard_normal(k)
        nu_new = 1.0 + np.exp(u_new)

        log_ratio = _log_nu_target(u_new, nu_new, z2, alpha, beta) - _log_nu_target(
            u, nu, z2, alpha, beta
        )
        acc = np.log(rng.uniform(size=k)) < log_ratio
        nu = np.where(acc, nu_new, nu)
        if it < n_warmup:  # Robbins–Monro adaptation towards a 0.44 acceptance rate
            step *= np.exp((acc - 0.44) / math.sqrt(it + 1.0))
        else:
            accepted += int(acc.sum())
        # λ_i | ν, δ: Gamma((ν + 1)/2, rate (ν + z²)/2)
        lam = rng.gamma(0.5 * (nu[:, None] + 1.0), 2.0 / (nu[:, None] + z2))
        # α | ν, β: independence Metropolis from its uniform prior
        alpha_new = rng.uniform(priors.alpha_low, priors.alpha_high, k)
        log_nu1 = np.log(nu - 1.0)

        alpha = np.where(
            np.log(rng.uniform(size=k))
            < _log_alpha(alpha_new, beta, log_nu1) - _log_alpha(alpha, beta, log_nu1),
            alpha_new,
            alpha,
        )
        # β | ν, α: Gamma(α + 1, rate ν − 1) truncated to the prior's interval
        beta = _gamma_between(rng, alpha + 1.0, nu - 1.0, priors.beta_low, priors.beta_high)
        if it >= n_warmup:
            j = it - n_warmup
            keep_d0[:, j], keep_s0[:, j], keep_nu[:, j] = delta0, std0, nu
    return GibbsDraws(keep_d0, keep_s0, keep_nu, accepted / max(k * n_draws, 1))


def split_rhat(draws: np.ndarray) -> float:
    """Split-R̂ (Gelman et al., BDA3 §11.4) of draws of shape (n_chains, n_draws)."""
    half = draws.shape[1] // 2
    parts = np.concatenate([draws[:, :half], draws[:, half : 2 * half]], axis=0)
    n = parts.shape[1]
    means = parts.mean(axis=1)
    within = parts.var(axis=1, ddof=1).mean()
    between = n * means.var(ddof=1)
    if within <= 0:
        return 1.0 if between <= 0 else math.inf
    var_plus = (n - 1) / n * within + between / n
    return float(math.sqrt(var_plus / within))


def effective_sample_size(draws: np.ndarray) -> float:
    """Effective sample size over chains (BDA3 §11.5, Geyer's initial monotone sequence)."""
    m, n = draws.shape
    centred = draws - draws.mean(axis=1, keepdims=True)
    size = 1 << (2 * n - 1).bit_length()
    f = np.fft.rfft(centred, size, axis=1)
    acov = np.fft.irfft(f * np.conj(f), size, axis=1)[:, :n] / n
    chain_var = acov[:, 0] * n / (n - 1.0)
    within = chain_var.mean()
    var_plus = within * (n - 1.0) / n + (draws.mean(axis=1).var(ddof=1) if m > 1 else 0.0)
    if var_plus <= 0:
        return float(m * n)
    rho = 1.0 - (within - acov.mean(axis=0)) / var_plus
    rho[0] = 1.0
    # Geyer: sum pairs while positive, and make them monotone
    total, prev = 0.0, math.inf
    for t in range(0, n - 1, 2):
        pair = rho[t] + rho[t + 1]
        if pair < 0:
            break
        pair = min(pair, prev)
        prev = pair
        total += pair
    tau = max(-1.0 + 2.0 * total, 1.0 / math.log10(m * n + 10))
    return float(m * n / tau)
