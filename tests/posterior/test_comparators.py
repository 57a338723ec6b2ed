"""SBC, TARP and L-C2ST-NF comparators."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from modelcompare import ConditionalGaussianModel, lc2st_nf, pit, sbc, sbc_ranks, sbc_test, tarp

MODEL = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))


def test_sbc_exact_flow_and_pit_consistency():
    theta, x = MODEL.simulate(300, seed=0)
    flow = MODEL.exact_flow()
    s = 400
    ranks = sbc_ranks(flow, theta, x, n_posterior_samples=s, seed=1)
    assert ranks.min() >= 0
    assert ranks.max() <= s
    # the triangular flow: P_1 is the marginal CDF of θ_1, so it matches rank/S within O(1/√S)
    p1 = pit(flow, theta, x)[:, 0]
    assert np.max(np.abs(ranks[:, 0] / s - p1)) < 3 / np.sqrt(s)
    res = sbc_test(ranks, s, seed=0)
    assert res.pvalue > 0.01
    assert res.ranks.shape == (300, 2)
    assert res.pvalue == min(1, 2 * res.pvalues.min()) == res.pvalues_adjusted.min()
    assert res.n_posterior_samples == s
    assert sbc_test(ranks, s, statistic="chi2", seed=0).pvalue > 0.01
    fresh = sbc_test(ranks, s)  # fresh entropy, recorded and reproducible
    assert sbc_test(ranks, s, seed=fresh.seed_used).pvalue == fresh.pvalue


def test_sbc_size_and_power():
    flow = MODEL.exact_flow()
    reps, rej = 40, 0
    for seed in range(reps):
        theta, x = MODEL.simulate(200, seed=100 + seed)
        rej += sbc(flow, theta, x, n_posterior_samples=50, seed=seed).decision(0.05)
    assert stats.binomtest(rej, reps, 0.05, alternative="greater").pvalue > 0.01
    theta, x = MODEL.simulate(1000, seed=7)
    under = MODEL.exact_flow(scale_factor=0.7)
    assert sbc(under, theta, x, n_posterior_samples=50, seed=0).pvalue < 1e-4
    a = sbc(flow, theta, x, n_posterior_samples=20, seed=3)
    b = sbc(flow, theta, x, n_posterior_samples=20, seed=3)
    np.testing.assert_array_equal(a.ranks, b.ranks)
    assert a.seed_used == 3
    with pytest.raises(ValueError, match="integers"):
        sbc_test(np.full((5, 2), 30), 20, seed=0)


def test_tarp_exact_and_dispersion_errors():
    theta, x = MODEL.simulate(1000, seed=1)
    exact = tarp(MODEL.exact_flow(), theta, x, n_posterior_samples=100, seed=0)
    assert exact.pvalue > 0.01
    assert abs(exact.atc) < 0.03
    assert exact.ecp[0] == 0
    assert exact.ecp[-1] <= 1
    assert np.all(np.diff(exact.ecp) >= 0)
    over = tarp(MODEL.exact_flow(scale_factor=1.5), theta, x, n_posterior_samples=100, seed=0)
    under = tarp(MODEL.exact_flow(scale_factor=0.6), theta, x, n_posterior_samples=100, seed=0)
    assert over.pvalue < 1e-3
    assert over.atc > 0
    assert under.pvalue < 1e-3
    assert under.atc < 0
    assert exact.levels.size == 101
    assert exact.n_posterior_samples == 100
    with pytest.raises(TypeError, match="`flow`"):
        tarp(object(), theta, x)


def test_tarp_sbi_convention():
    theta, x = MODEL.simulate(400, seed=2)
    flow = MODEL.exact_flow(scale_factor=1.5)
    ours = tarp(flow, theta, x, n_posterior_samples=50, z_score=False, seed=0)
    sbi = tarp(flow, theta, x, n_posterior_samples=50, z_score=False, convention="sbi", seed=0)
    # Without rescaling the conventions differ only in the grid: same f_n, same KS test.
    np.testing.assert_array_equal(sbi.coverage_values, ours.coverage_values)
    assert (sbi.statistic, sbi.pvalue) == (ours.statistic, ours.pvalue)
    f = ours.coverage_values
    assert sbi.levels.size == 400 // 10 + 1
    assert (sbi.levels[0], sbi.levels[-1]) == pytest.approx((f.min(), f.max()), abs=1e-7)
    assert (sbi.ecp[0], sbi.ecp[-1]) == (0.0, 1.0)
    assert np.all(np.diff(sbi.ecp) >= 0)
    assert (ours.convention, sbi.convention) == ("modelcompare", "sbi")
    # Both ATCs approximate ∫₀¹ (ECP(γ) − γ) dγ = 1/2 − mean(f): positive for a wide posterior.
    assert sbi.atc > 0.01
    assert sbi.atc == pytest.approx(0.5 - f.mean(), abs=0.02)
    assert ours.atc == pytest.approx(0.5 - f.mean(), abs=0.02)
    assert (
        tarp(
            flow, theta, x, n_posterior_samples=50, convention="sbi", n_levels=31, seed=0
        ).levels.size
        == 31
    )
    # With rescaling the conventions measure different distances (mean/std against min–max).
    scaled = tarp(flow, theta, x, n_posterior_samples=50, seed=0)
    minmax = tarp(flow, theta, x, n_posterior_samples=50, convention="sbi", seed=0)
    assert not np.array_equal(scaled.coverage_values, minmax.coverage_values)
    assert minmax.pvalue < 1e-3
    # Few pairs: sbi's N // 10 bins, at least one.
    assert (
        tarp(flow, theta[:5], x[:5], n_posterior_samples=10, convention="sbi", seed=0).levels.size
        == 2
    )


@pytest.mark.parametrize("convention", ["SBI", "lemos", "", None, 1])
def test_tarp_wrong_convention(convention):
    theta, x = MODEL.simulate(20, seed=0)
    with pytest.raises(ValueError, match=r"`convention` must be one of 'modelcompare', 'sbi'"):
        tarp(MODEL.exact_flow(), theta, x, n_posterior_samples=10, convention=convention)


def test_lc2st_nf_quadratic_detects_local_bias_only_where_it_is():
    theta, x = MODEL.simulate(1000, seed=2)
    x0 = np.array([[2.0, 2.0], [-1.0, -1.0]])
    bias = MODEL.exact_flow(offset=lambda c: np.column_stack([1.0 * (c[:, 0] > 1), 0 * c[:, 0]]))
    kw = {"classifier": "quadratic", "n_resamples": 39, "n_eval": 500, "seed": 0}
    res = lc2st_nf(bias, theta, x, x0, **kw)
    assert res.pvalues[0] <= 1 / 40 + 1e-12
    ok = lc2st_nf(MODEL.exact_flow(), theta, x, x0, **kw)
    assert np.all(ok.pvalues > 0.05)
    assert res.statistic == res.statistics.max()
    assert res.pvalue == min(1, 2 * res.pvalues.min()) == res.pvalues_adjusted.min()
    assert not ok.decision(0.05)
    # the null classifiers do not depend on the flow: same seed, same null
    np.testing.assert_array_equal(res.null_statistics, ok.null_statistics)
