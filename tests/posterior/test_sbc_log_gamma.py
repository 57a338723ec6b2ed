"""The SBC-ECDF log-gamma test: BayesFlow's formula, its null, size and power."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.stats import binom

from modelcompare import ConditionalGaussianModel, sbc_log_gamma, sbc_ranks


def _bayesflow_gamma(ranks: np.ndarray, num_post_draws: int) -> float:
    """``gamma_discrepancy`` of bayesflow/diagnostics/metrics/calibration_log_gamma.py, as is."""
    num_ranks = len(ranks)
    r_i = np.array([sum(ranks < i) for i in range(1, num_post_draws + 2)])
    z_i = np.arange(1, num_post_draws + 2) / (num_post_draws + 1)
    bin_1 = binom.cdf(r_i, num_ranks, z_i)
    bin_2 = 1 - binom.cdf(r_i - 1, num_ranks, z_i)
    return float(2 * np.min(np.minimum(bin_1, bin_2)))


def _bayesflow_null(num_ranks: int, num_post_draws: int, num_null_draws: int, rng) -> np.ndarray:
    """``gamma_null_distribution`` of the same file, with a seeded generator for np.random."""
    z_i = np.arange(1, num_post_draws + 2) / (num_post_draws + 1)
    gamma = np.empty(num_null_draws)
    for i in range(num_null_draws):
        u = rng.uniform(size=num_ranks)
        f_z = np.mean(u[:, None] < z_i, axis=0)
        bin_1 = binom.cdf(num_ranks * f_z, num_ranks, z_i)
        bin_2 = 1 - binom.cdf(num_ranks * f_z - 1, num_ranks, z_i)
        gamma[i] = 2 * np.min(np.minimum(bin_1, bin_2))
    return gamma


@pytest.mark.parametrize("shape", ["uniform", "peaked", "skewed"])
def test_gamma_equals_bayesflows_formula(shape: str) -> None:
    rng = np.random.default_rng(7)
    s = 30
    if shape == "uniform":
        ranks = rng.integers(0, s + 1, size=(150, 1))
    elif shape == "peaked":
        ranks = np.clip(np.round(rng.normal(s / 2, 4, size=(150, 1))), 0, s)
    else:
        ranks = np.floor(rng.beta(2, 1, size=(150, 1)) * (s + 1))
    res = sbc_log_gamma(ranks, s, n_resamples=9, seed=0)
    expected = _bayesflow_gamma(ranks[:, 0], s)
    assert np.exp(res.log_gammas[0]) == pytest.approx(expected, rel=1e-9)


def test_extreme_ranks_keep_a_finite_log_gamma() -> None:
    ranks = np.zeros((2000, 1))  # every θ below every draw
    res = sbc_log_gamma(ranks, 100, n_resamples=9, seed=0)
    assert np.isfinite(res.log_gammas[0])
    assert res.log_gammas[0] < -1000
    assert res.pvalue == pytest.approx(0.1)  # 1/(1 + B): nothing in the null is as small


def test_null_distribution_matches_bayesflows_continuous_null() -> None:
    """The multinomial null equals BayesFlow's null from continuous uniforms, in law."""
    res = sbc_log_gamma(np.zeros((80, 1)), 15, n_resamples=800, seed=1)
    theirs = np.log(_bayesflow_null(80, 15, 800, np.random.default_rng(2)))
    assert stats.ks_2samp(res.null_distribution, theirs).pvalue > 0.001


def test_pvalue_is_the_monte_carlo_count() -> None:
    rng = np.random.default_rng(3)
    res = sbc_log_gamma(rng.integers(0, 21, size=(100, 3)), 20, n_resamples=99, seed=4)
    for j in range(3):
        count = np.sum(res.null_distribution <= res.log_gammas[j] + 1e-12)
        assert res.pvalues[j] == pytest.approx((1 + count) / 100)
    assert res.pvalue == pytest.approx(min(1.0, 3 * res.pvalues.min()))


def test_relative_log_gamma_is_bayesflows_value() -> None:
    rng = np.random.default_rng(5)
    ranks = rng.integers(0, 11, size=(60, 2))
    res = sbc_log_gamma(ranks, 10, n_resamples=300, seed=6)
    q = np.quantile(np.exp(res.null_distribution), 0.05)
    expected = [np.log(_bayesflow_gamma(ranks[:, j], 10) / q) for j in range(2)]
    np.testing.assert_allclose(res.relative_log_gamma(0.05), expected, rtol=1e-9)
    with pytest.raises(ValueError, match="`alpha`"):
        res.relative_log_gamma(1.5)


def test_size_under_uniform_ranks() -> None:
    rng = np.random.default_rng(8)
    trials, alpha = 100, 0.05
    rejections = sum(
        sbc_log_gamma(rng.integers(0, 21, size=(100, 1)), 20, n_resamples=99, seed=rng).decision(
            alpha
        )
        for _ in range(trials)
    )
    assert stats.binomtest(rejections, trials, alpha, alternative="greater").pvalue > 0.01


@pytest.mark.parametrize("scale", [0.6, 1.6])
def test_power_against_a_mis_scaled_posterior(scale: float) -> None:
    model = ConditionalGaussianModel(0.5 * np.eye(1))
    flow = model.exact_flow(scale_factor=scale)
    hits = 0
    for seed in range(10):
        theta, x = model.simulate(200, seed=seed)
        ranks = sbc_ranks(flow, theta, x, n_posterior_samples=50, seed=100 + seed)
        hits += sbc_log_gamma(ranks, 50, n_resamples=199, seed=seed).decision(0.01)
    assert hits >= 9


def test_same_seed_same_null_and_bad_inputs() -> None:
    ranks = np.random.default_rng(0).integers(0, 11, size=(30, 2))
    a = sbc_log_gamma(ranks, 10, n_resamples=20, seed=3)
    b = sbc_log_gamma(ranks, 10, n_resamples=20, seed=3)
    np.testing.assert_array_equal(a.null_distribution, b.null_distribution)
    with pytest.raises(ValueError, match="`ranks` must be integers in"):
        sbc_log_gamma(ranks, 5)
    with pytest.raises(ValueError, match="`ranks` must be integers in"):
        sbc_log_gamma(ranks + 0.5, 11)
    with pytest.raises(ValueError, match="`ranks` must be finite"):
        sbc_log_gamma(np.full((3, 1), np.nan), 10)
    with pytest.raises(ValueError, match="`n_resamples`"):
        sbc_log_gamma(ranks, 10, n_resamples=0)
