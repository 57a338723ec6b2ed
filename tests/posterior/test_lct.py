"""Local coverage tests: formulas, null cache, size, localisation, bands, determinism."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import LogisticRegression

from modelcompare import (
    AmortizedRegressor,
    ConditionalGaussianModel,
    ModelCompareWarning,
    NearestNeighborRegressor,
    PerLevelRegressor,
    TooFewResamplesWarning,
    fit_null_regressors,
    local_coverage_test,
    pit,
)

NOISE = 0.5 * np.array([[1.0, 0.8], [0.8, 1.0]])
MODEL = ConditionalGaussianModel(NOISE)
X0 = np.array([[2.0, 2.0], [-1.0, -1.0]])


def _ok_rate(k: int, r: int, alpha: float) -> bool:
    return stats.binomtest(k, r, alpha, alternative="greater").pvalue > 0.01


def _local_bias_flow(b: float = 1.0):
    return MODEL.exact_flow(offset=lambda x: np.column_stack([b * (x[:, 0] > 1), 0 * x[:, 0]]))


def _knn_reference(p, x, x0, levels, k):
    """Independent recomputation of T_i(x0) with a plain kNN average on z-scored x."""
    xs = (x - x.mean(0)) / x.std(0)
    x0s = (x0 - x.mean(0)) / x.std(0)
    out = np.empty((p.shape[1], len(x0)))
    for e, pt in enumerate(x0s):
        idx = np.argsort(np.sum((xs - pt) ** 2, axis=1), kind="stable")[:k]
        for i in range(p.shape[1]):
            r = np.array([(p[idx, i] <= a).mean() for a in levels])
            out[i, e] = np.mean((r - levels) ** 2)
    return out


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")  # small B on purpose
def test_statistic_and_pvalue_match_independent_recomputation():
    theta, x = MODEL.simulate(400, seed=0)
    p = pit(_local_bias_flow(), theta, x)
    levels = np.linspace(0.05, 0.95, 19)
    res = local_coverage_test(
        p, x, X0, levels=levels, regressor=NearestNeighborRegressor(50), n_resamples=40, seed=1
    )
    np.testing.assert_allclose(res.statistics, _knn_reference(p, x, X0, levels, 50), atol=1e-12)
    expected_p = (1 + (res.null_statistics[:, None, :] >= res.statistics[None]).sum(0)) / 41
    np.testing.assert_allclose(res.covariate_pvalues, expected_p)
    np.testing.assert_allclose(res.pvalues, np.minimum(1, 2 * res.covariate_pvalues.min(0)))
    assert res.pvalue == min(1, 2 * res.pvalues.min())  # Holm across the two points
    assert res.statistic == res.statistics.max()
    harmonic = local_coverage_test(
        p, x, X0, levels=levels, regressor="knn", n_resamples=40, seed=1, combine="harmonic"
    )
    np.testing.assert_allclose(
        harmonic.pvalues, np.minimum(1, 2 / (1 / harmonic.covariate_pvalues).sum(0))
    )
    assert res.pvalues.min() > 0  # the +1 rule never gives 0
    mx = local_coverage_test(
        p, x, X0, levels=levels, regressor="knn", n_resamples=40, seed=1, statistic="max"
    )
    np.testing.assert_allclose(mx.statistics, np.abs(mx.r_hat - levels).max(-1))


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")  # small B on purpose
def test_null_cache_reuse_equals_recomputation_and_is_shared():
    theta, x = MODEL.simulate(200, seed=2)
    p = pit(MODEL.exact_flow(), theta, x)
    kw = {"levels": 9, "regressor": AmortizedRegressor(n_levels_per_sample=2), "n_resamples": 19}
    one = local_coverage_test(p, x, X0, seed=5, **kw)
    null = fit_null_regressors(x, seed=5, **kw)
    two = local_coverage_test(p, x, X0, null=null, seed=5)
    np.testing.assert_array_equal(one.statistics, two.statistics)
    np.testing.assert_array_equal(one.covariate_pvalues, two.covariate_pvalues)
    np.testing.assert_array_equal(one.band_low, two.band_low)
    # the same cache serves another evaluation set and another estimator's PIT values
    single = local_coverage_test(p, x, X0[1:], null=null, seed=5)
    np.testing.assert_array_equal(single.null_statistics[:, 0], one.null_statistics[:, 1])
    other = local_coverage_test(
        pit(MODEL.exact_flow(scale_factor=1.2), theta, x), x, X0, null=null, seed=6
    )
    np.testing.assert_array_equal(other.null_statistics, one.null_statistics)
    with pytest.raises(ValueError, match="different `x`"):
        local_coverage_test(p, x + 1, X0, null=null)
    assert "NullRegressors(n_resamples=19" in repr(null)


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")  # small B on purpose
def test_determinism_same_seed_bit_identical():
    theta, x = MODEL.simulate(200, seed=3)
    p = pit(MODEL.exact_flow(), theta, x)
    reg = AmortizedRegressor(n_levels_per_sample=2)
    a = local_coverage_test(p, x, X0, levels=9, n_resamples=19, seed=11, regressor=reg)
    b = local_coverage_test(p, x, X0, levels=9, n_resamples=19, seed=11, regressor=reg)
    for f in ("statistics", "covariate_pvalues", "band_low", "band_high", "null_statistics"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert a.seed_used == 11


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")  # small B on purpose
def test_amortised_default_is_monotone_cdf_and_localises_bias():
    theta, x = MODEL.simulate(1000, seed=4)
    res = local_coverage_test(
        pit(_local_bias_flow(), theta, x),
        x,
        X0,
        levels=19,
        n_resamples=19,
        regressor=AmortizedRegressor(n_levels_per_sample=2),
        seed=0,
    )
    assert np.all(np.diff(res.r_hat, axis=-1) >= 0)
    assert res.regressor == "amortized-hgb"
    assert (
        res.covariate_pvalues[0, 0] <= 1 / 20 + 1e-12
    )  # inside the region: the most extreme value
    assert res.pvalues[1] > 0.05  # outside the region


def test_localisation_knn_over_seeds():
    flow = _local_bias_flow()
    inside_small, outside_rej, reps = 0, 0, 20
    leaves_in = leaves_out = 0
    for seed in range(reps):
        theta, x = MODEL.simulate(1000, seed=100 + seed)
        res = local_coverage_test(
            pit(flow, theta, x),
            x,
            X0,
            levels=np.linspace(0.05, 0.95, 19),
            regressor="knn",
            n_resamples=400,
            seed=seed,
        )
        inside_small += res.covariate_pvalues[:, 0].min() < 0.01
        outside_rej += res.pvalues[1] <= 0.05
        out = (res.r_hat < res.band_low) | (res.r_hat > res.band_high)
        leaves_in += out[0, 0].mean()  # fraction of levels where the θ_1 curve leaves the band
        leaves_out += out[:, 1].mean()
    assert inside_small >= 0.95 * reps
    assert _ok_rate(outside_rej, reps, 0.05)
    assert leaves_in / reps > 0.5
    assert leaves_out / reps < 0.1


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")  # small B on purpose
def test_size_exact_flow_knn():
    flow = MODEL.exact_flow()
    reps, rej = 60, np.zeros(2, int)
    for seed in range(reps):
        theta, x = MODEL.simulate(500, seed=500 + seed)
        res = local_coverage_test(
            pit(flow, theta, x), x, X0, levels=19, regressor="knn", n_resamples=50, seed=seed
        )
        rej += res.pvalues <= 0.05
    assert all(_ok_rate(int(k), reps, 0.05) for k in rej)


def test_algorithm2_band_coverage_under_null():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(600, 2))
    null = fit_null_regressors(x, levels=19, regressor="knn", n_resamples=400, seed=0)
    hits, total = 0, 0
    for _ in range(40):
        p = rng.uniform(size=(600, 1))
        res = local_coverage_test(p, x, X0, null=null, band_correction=None)
        hits += np.sum((res.r_hat[0] >= res.band_low) & (res.r_hat[0] <= res.band_high))
        total += res.r_hat[0].size
    assert 0.9 <= hits / total <= 0.99
    # the diagonal lies inside the band at every α
    assert np.all((res.band_low <= res.levels) & (res.band_high >= res.levels))


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")  # small B on purpose
def test_per_level_mode_and_degenerate_grid():
    theta, x = MODEL.simulate(300, seed=9)
    p = pit(MODEL.exact_flow(), theta, x)
    with pytest.warns(ModelCompareWarning, match="Dropped"):
        res = local_coverage_test(
            p,
            x,
            X0,
            levels=[0.0, 0.25, 0.5, 0.75, 1.0],
            regressor=PerLevelRegressor(LogisticRegression()),
            n_resamples=40,
            seed=0,
        )
    np.testing.assert_allclose(res.levels, [0.25, 0.5, 0.75])
    assert res.regressor == "per-level-LogisticRegression"
    # constant PIT column: one-class targets are set to exactly 0 or 1, never fitted
    const = np.full_like(p, 0.5)
    res = local_coverage_test(
        const, x, X0, levels=[0.25, 0.75], regressor="logistic", n_resamples=40, seed=0
    )
    np.testing.assert_allclose(res.r_hat[:, :, 0], 0.0)
    np.testing.assert_allclose(res.r_hat[:, :, 1], 1.0)
    np.testing.assert_allclose(res.statistics, 0.0625)


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")  # small B on purpose
def test_eval_correction_and_decision():
    theta, x = MODEL.simulate(400, seed=10)
    p = pit(_local_bias_flow(), theta, x)
    x_eval = np.column_stack([np.linspace(-2, 2, 5)] * 2)
    null = fit_null_regressors(x, levels=19, regressor="knn", n_resamples=50, seed=0)
    for how in ("bonferroni", "holm", "fdr_bh", None):
        res = local_coverage_test(p, x, x_eval, null=null, seed=0, eval_correction=how)
        raw = res.pvalues
        if how == "bonferroni":
            np.testing.assert_allclose(res.pvalues_adjusted, np.minimum(1, 5 * raw))
        elif how == "holm":
            order = np.argsort(raw, kind="stable")
            adj = np.minimum(1, np.maximum.accumulate((5 - np.arange(5)) * raw[order]))
            np.testing.assert_allclose(res.pvalues_adjusted[order], adj)
        elif how == "fdr_bh":
            np.testing.assert_allclose(res.pvalues_adjusted, stats.false_discovery_control(raw))
        else:
            np.testing.assert_array_equal(res.pvalues_adjusted, raw)
        # the overall p-value is Holm's whatever the correction across the points
        assert res.pvalue == min(1, 5 * raw.min())
        if how in ("bonferroni", "holm"):
            assert res.pvalue == res.pvalues_adjusted.min()
            assert res.decision(0.05) is bool(np.any(res.pvalues_adjusted <= 0.05))
        assert res.eval_correction == how
    with pytest.raises(ValueError, match="`eval_correction`"):
        local_coverage_test(p, x, x_eval, null=null, eval_correction="fdr")
    assert res.to_dict(include_arrays=False)["n_resamples"] == 50


def test_combine_across_covariates_and_its_resolution():
    rng = np.random.default_rng(4)
    x, p = rng.normal(size=(200, 2)), rng.uniform(size=(200, 3))
    x_eval = [[0.0, 0.0], [1.0, 1.0]]
    null = fit_null_regressors(x, levels=9, regressor="knn", n_resamples=59, seed=0)
    # Bonferroni over m = 3 covariates and Holm over E = 2 points: 3·2/60 = 0.1 > 0.05, and
    # B = 119 would reach 0.05 (6/120)
    with pytest.warns(TooFewResamplesWarning, match=r"p-value is 0\.1 > 0\.05.*>= 119"):
        bon = local_coverage_test(p, x, x_eval, null=null, seed=0)
    assert bon.combine == "bonferroni"
    np.testing.assert_array_equal(bon.pvalues, np.minimum(1, 3 * bon.covariate_pvalues.min(0)))
    # the harmonic mean of equal p-values is that value: only the E = 2 points count, 2/60 <= 0.05
    with warnings.catch_warnings():
        warnings.simplefilter("error", TooFewResamplesWarning)
        har = local_coverage_test(p, x, x_eval, null=null, seed=0, combine="harmonic")
    assert har.combine == "harmonic"
    np.testing.assert_allclose(har.pvalues, np.minimum(1, 3 / (1 / har.covariate_pvalues).sum(0)))
    assert har.to_dict()["combine"] == "harmonic"
    with pytest.raises(ValueError, match="`combine`"):
        local_coverage_test(p, x, x_eval, null=null, combine="holm")
    with pytest.warns(FutureWarning, match="`combine`"):  # the 0.1 spelling still works
        old = local_coverage_test(p, x, x_eval, null=null, seed=0, correction="harmonic")
    np.testing.assert_array_equal(old.pvalues, har.pvalues)


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")  # small B on purpose
def test_input_validation_and_warnings():
    x = np.random.default_rng(0).normal(size=(50, 2))
    p = np.random.default_rng(1).uniform(size=(50, 2))
    with pytest.raises(ValueError, match="same number of rows"):
        local_coverage_test(p[:40], x, X0, regressor="knn", n_resamples=40)
    with pytest.raises(ValueError, match="same number of columns"):
        local_coverage_test(p, x, np.zeros((1, 3)), regressor="knn", n_resamples=40)
    with pytest.raises(ValueError, match="regressor"):
        local_coverage_test(p, x, X0, regressor="forest", n_resamples=40)
    with pytest.raises(TypeError, match="regressor"):
        local_coverage_test(p, x, X0, regressor=3, n_resamples=40)
    with pytest.raises(ValueError, match="statistic"):
        local_coverage_test(p, x, X0, regressor="knn", n_resamples=40, statistic="l1")
    with pytest.warns(TooFewResamplesWarning):
        local_coverage_test(p, x, X0, regressor="knn", n_resamples=5, seed=0)
    with pytest.raises(TypeError, match="RandomState"):
        local_coverage_test(
            p, x, X0, regressor="knn", n_resamples=40, seed=np.random.RandomState(0)
        )
    p_copy, x_copy = p.copy(), x.copy()
    local_coverage_test(p, x, X0, regressor="knn", n_resamples=40, seed=0)
    np.testing.assert_array_equal(p, p_copy)
    np.testing.assert_array_equal(x, x_copy)


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")  # small B on purpose
def test_n_jobs_gives_bit_identical_results():
    from joblib import parallel_config

    theta, x = MODEL.simulate(300, seed=12)
    p = pit(_local_bias_flow(), theta, x)
    kw = {"levels": 9, "regressor": "knn", "n_resamples": 40, "seed": 4}
    serial = local_coverage_test(p, x, X0, **kw)
    with parallel_config(backend="threading"):
        parallel = local_coverage_test(p, x, X0, n_jobs=2, **kw)
    np.testing.assert_array_equal(serial.null_statistics, parallel.null_statistics)
    np.testing.assert_array_equal(serial.covariate_pvalues, parallel.covariate_pvalues)
