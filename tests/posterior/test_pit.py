"""Flow protocol, exact affine flow, multivariate PIT and the global check."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr

from modelcompare import (
    AffineGaussianFlow,
    ConditionalFlow,
    ConditionalGaussianModel,
    ModelCompareWarning,
    check_flow,
    global_coverage_test,
    pit,
)
from modelcompare.posterior import ecdf_band, level_grid

NOISE = 0.5 * np.array([[1.0, 0.8], [0.8, 1.0]])


def _ok_rate(k: int, r: int, alpha: float) -> bool:
    return stats.binomtest(k, r, alpha, alternative="greater").pvalue > 0.01


@pytest.fixture(scope="module")
def model() -> ConditionalGaussianModel:
    return ConditionalGaussianModel(NOISE)


def test_exact_posterior_formulas(model):
    s = np.linalg.inv(np.eye(2) + np.linalg.inv(NOISE))
    np.testing.assert_allclose(model.posterior_cov, s, atol=1e-14)
    np.testing.assert_allclose(model.posterior_mean_matrix, s @ np.linalg.inv(NOISE), atol=1e-14)


def test_pit_equals_closed_form(model):
    theta, x = model.simulate(500, seed=0)
    flow = model.exact_flow()
    assert isinstance(flow, ConditionalFlow)
    chol = np.linalg.cholesky(model.posterior_cov)
    expected = ndtr(np.linalg.solve(chol, (theta - x @ model.posterior_mean_matrix.T).T).T)
    np.testing.assert_allclose(pit(flow, theta, x), expected, atol=1e-12)
    np.testing.assert_allclose(pit(flow, theta, x, chunk_size=7), expected, atol=1e-12)


def test_self_check_passes_and_catches_swapped_direction(model):
    theta, x = model.simulate(10, seed=1)
    flow = model.exact_flow()
    res = check_flow(flow, theta, x)
    assert res.passed
    assert res.statistic < 1e-10
    assert res.tolerance == 1e-4
    assert res.logdet_method == "flow"
    assert repr(res).startswith("FlowCheckResult(passed=True, statistic=")
    assert check_flow(flow, theta, x, atol=1e-14).passed is (res.statistic <= 1e-14)

    class FiniteDiff:  # no latent_and_logdet: finite differences of to_latent
        def to_latent(self, t, c):
            return flow.to_latent(t, c)

        def log_prob(self, t, c):
            return flow.log_prob(t, c)

    res = check_flow(FiniteDiff(), theta, x)
    assert res.passed
    assert res.logdet_method == "finite differences"

    class Swapped(FiniteDiff):  # the classic bug: the sampling direction applied to θ
        def to_latent(self, t, c):
            return flow.forward(t, c)

    bad = check_flow(Swapped(), theta, x)
    assert not bad.passed
    assert bad.statistic > 0.1
    theta_big, x_big = model.simulate(1000, seed=2)
    assert global_coverage_test(pit(Swapped(), theta_big, x_big), seed=0).pvalue < 1e-6


def test_affine_flow_sampling_matches_density(model):
    flow = model.exact_flow()
    x = np.array([[0.5, -1.0]])
    draws = flow.sample(x, 20000, seed=3)[0]
    np.testing.assert_allclose(draws.mean(0), flow.mean(x)[0], atol=0.02)
    np.testing.assert_allclose(np.cov(draws.T), model.posterior_cov, atol=0.02)
    np.testing.assert_array_equal(flow.sample(x, 5, seed=4), flow.sample(x, 5, seed=4))


def test_flow_and_pit_input_validation(model):
    flow = model.exact_flow()
    with pytest.raises(ValueError, match="same number of rows"):
        pit(flow, np.zeros((3, 2)), np.zeros((4, 2)))
    with pytest.raises(TypeError, match="to_latent"):
        pit(object(), np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="reshape"):
        pit(flow, np.zeros(3), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="invertible"):
        AffineGaussianFlow(np.eye(2), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="positive definite"):
        ConditionalGaussianModel(-np.eye(2))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        global_coverage_test(np.full((5, 2), 1.5))


def test_level_grid():
    np.testing.assert_allclose(level_grid(None), np.arange(1, 100) / 100)
    np.testing.assert_allclose(level_grid(3), [0.25, 0.5, 0.75])
    with pytest.warns(ModelCompareWarning, match="Dropped"):
        g = level_grid(np.linspace(0, 1, 11))
    assert g.min() > 0
    assert g.max() < 1
    assert g.size == 9
    with pytest.raises(ValueError):
        level_grid([1.5])


def test_band_known_values():
    lo, hi = ecdf_band(1000, [0.1, 0.5], method="pointwise")
    np.testing.assert_allclose(lo, [0.082, 0.469], atol=1e-9)
    np.testing.assert_allclose(hi, [0.119, 0.531], atol=1e-9)
    lo, hi = ecdf_band(1000, [0.5], confidence_level=1 - 0.05 / 4, method="pointwise")
    np.testing.assert_allclose([lo[0], hi[0]], [0.461, 0.539], atol=1e-9)
    lo, hi = ecdf_band(1000, [0.5], method="dkw")
    assert hi[0] - 0.5 == pytest.approx(0.0429, abs=5e-5)
    lo, hi = ecdf_band(1000, [0.5], method="ks")
    assert hi[0] - 0.5 == pytest.approx(stats.kstwo.ppf(0.95, 1000))
    # the simultaneous band is wider than the pointwise one and, unlike DKW, adapts to the tails
    g = level_grid(99)
    p_lo, p_hi = ecdf_band(1000, g, method="pointwise")
    s_lo, s_hi = ecdf_band(1000, g, method="ecdf", seed=0)
    d_lo, d_hi = ecdf_band(1000, g, method="dkw")
    assert np.all(s_hi - s_lo >= p_hi - p_lo)
    assert (s_hi - s_lo)[2] < 0.5 * (d_hi - d_lo)[2]


def test_simultaneous_band_covers_whole_null_ecdf():
    rng = np.random.default_rng(7)
    n, reps, g = 200, 200, level_grid(99)
    lo_s, hi_s = ecdf_band(n, g, method="ecdf", seed=0)
    lo_p, hi_p = ecdf_band(n, g, method="pointwise")
    inside_s = inside_p = 0
    for _ in range(reps):
        ecdf = (rng.uniform(size=n)[:, None] <= g).mean(0)
        inside_s += bool(np.all((ecdf >= lo_s) & (ecdf <= hi_s)))
        inside_p += bool(np.all((ecdf >= lo_p) & (ecdf <= hi_p)))
    misses = reps - inside_s
    assert _ok_rate(misses, reps, 0.05)  # at most ~5 % of null ECDFs leave it
    assert misses >= 2  # and it is not trivially wide
    assert reps - inside_p > 3 * misses  # the pointwise band is not simultaneous


def test_global_size_exact_flow(model):
    flow = model.exact_flow()
    reps, rej = 100, 0
    for seed in range(reps):
        theta, x = model.simulate(300, seed=1000 + seed)
        rej += global_coverage_test(pit(flow, theta, x), seed=0).decision(0.05)
    assert _ok_rate(rej, reps, 0.05)


@pytest.mark.parametrize(
    ("case", "kwargs"),
    [
        ("bias", {"offset": [0.3, 0.0]}),
        ("over", {"scale_factor": 1.3}),
        ("under", {"scale_factor": 0.7}),
    ],
)
def test_global_power_and_pp_shapes(model, case, kwargs):
    flow = model.exact_flow(**kwargs)
    for seed in range(10):
        theta, x = model.simulate(2000, seed=seed)
        res = global_coverage_test(pit(flow, theta, x), seed=0)
        assert res.pvalue < 0.05
        dev = res.pp_values[:, 0] - res.levels
        low, high = res.levels < 0.5, res.levels > 0.5
        if case == "bias":  # P shrinks: the curve sits above the diagonal
            assert dev.mean() > 0.02
        elif case == "over":
            assert dev[low].mean() < 0
            assert dev[high].mean() > 0
        else:
            assert dev[low].mean() > 0
            assert dev[high].mean() < 0
            counts = res.hist_counts[:, 0]
            assert counts[0] > counts[len(counts) // 2]
            assert counts[-1] > counts[len(counts) // 2]


def test_global_result_fields_and_determinism(model):
    theta, x = model.simulate(400, seed=5)
    p = pit(model.exact_flow(), theta, x)
    a = global_coverage_test(p, band_correction="bonferroni", seed=0)
    b = global_coverage_test(p, band_correction="bonferroni", seed=0)
    np.testing.assert_array_equal(a.simultaneous_band[0], b.simultaneous_band[0])
    assert a.seed_used == 0
    assert a.pvalue == pytest.approx(
        min(1, 2 * min(stats.kstest(p[:, i], "uniform").pvalue for i in range(2)))
    )
    assert a.pvalue == a.pvalues_adjusted.min()
    np.testing.assert_allclose(a.pp_values[:, 1], [(p[:, 1] <= t).mean() for t in a.levels])
    assert a.hist_counts.sum(axis=0).tolist() == [400, 400]
    assert "Bonferroni" in a.band_label()
    assert "95 %" in a.band_label("pointwise")
    d = a.to_dict()
    assert d["pvalue"] == a.pvalue
    assert isinstance(d["pp_values"], list)
    assert a.decision(0.05) == (a.pvalue <= 0.05)
    assert "GlobalCoverageResult(" in repr(a)
    fresh = global_coverage_test(p)  # fresh entropy, recorded and reproducible
    again = global_coverage_test(p, seed=fresh.seed_used)
    np.testing.assert_array_equal(fresh.simultaneous_band[1], again.simultaneous_band[1])


def test_pit_refuses_theta_wider_than_the_flow() -> None:
    model = ConditionalGaussianModel(0.5 * np.eye(2))
    theta, x = model.simulate(20, seed=0)
    with pytest.raises(ValueError, match="`theta` has 3 columns but the flow models 2"):
        pit(model.exact_flow(), np.column_stack([theta, theta[:, 0]]), x)


def test_sbc_refuses_theta_wider_than_the_flow() -> None:
    from modelcompare import sbc_ranks

    model = ConditionalGaussianModel(0.5 * np.eye(2))
    theta, x = model.simulate(20, seed=0)
    with pytest.raises(ValueError, match="`theta` has 3 columns but the flow models 2"):
        sbc_ranks(model.exact_flow(), np.column_stack([theta, theta[:, 0]]), x, seed=0)
