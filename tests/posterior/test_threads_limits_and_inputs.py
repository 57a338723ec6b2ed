"""The posterior diagnostics under thread pools, memory limits and bad inputs."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from modelcompare._foundation.errors import DegenerateDataWarning, ResourceLimitError
from modelcompare.posterior import (
    AmortizedRegressor,
    fit_null_regressors,
    global_coverage_test,
    level_grid,
    local_coverage_test,
    local_independence_test,
    pit_independence_test,
    sbc,
    sbc_ranks,
    tarp,
)


def _pool_sizes() -> list[int]:
    return sorted(int(lib["num_threads"]) for lib in threadpool_info())


class _RecordingRegressor:
    """A knn-like regressor that records the BLAS/OpenMP pool sizes seen in each fit."""

    name = "recording"

    def __init__(self) -> None:
        self.seen: list[list[int]] = []

    def fit(self, x, u, levels, seed):
        self.seen.append(_pool_sizes())
        value = float(np.mean(u <= 0.5))
        return _Const(value, levels.size)


class _Const:
    def __init__(self, value, g):
        self.value, self.g = value, g

    def predict(self, x_eval):
        return np.full((x_eval.shape[0], self.g), self.value)


@pytest.fixture
def two_thread_pools():
    if not threadpool_info():
        pytest.skip("no BLAS/OpenMP pool to limit")
    with threadpool_limits(limits=2):
        before = _pool_sizes()
        assert max(before) == 2
        yield before


def _data(n=120, m=2, d=1, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(size=(n, m)), rng.normal(size=(n, d))


def test_local_coverage_runs_fits_in_one_thread_and_restores(two_thread_pools):
    p, x = _data()
    reg = _RecordingRegressor()
    local_coverage_test(p, x, [[0.0]], regressor=reg, n_resamples=39, levels=5, seed=0)
    assert reg.seen
    assert all(max(sizes) == 1 for sizes in reg.seen)
    assert _pool_sizes() == two_thread_pools


def test_fit_null_regressors_restores_threads(two_thread_pools):
    _, x = _data()
    reg = _RecordingRegressor()
    null = fit_null_regressors(x, levels=5, regressor=reg, n_resamples=39, seed=0)
    null.predict([[0.0]])
    assert all(max(sizes) == 1 for sizes in reg.seen)
    assert _pool_sizes() == two_thread_pools


def test_local_independence_and_regressors_restore_threads(two_thread_pools):
    p, x = _data()
    local_independence_test(p, x, [[0.0]], regressor="knn", n_resamples=39, seed=0)
    assert _pool_sizes() == two_thread_pools
    u = np.random.default_rng(1).uniform(size=x.shape[0])
    AmortizedRegressor(n_levels_per_sample=1).fit(x, u, np.array([0.5]), seed=0).predict(x[:2])
    assert _pool_sizes() == two_thread_pools


# ------------------------------------------------------------------------------- memory guards
@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setenv("MODELCOMPARE_MAX_MEMORY", "64M")


def test_local_coverage_huge_grid_refused(small_limit):
    p, x = _data(n=60)
    with pytest.raises(ResourceLimitError, match="`levels`"):
        local_coverage_test(p, x, x, levels=1_000_000, regressor="knn", n_resamples=100, seed=0)


def test_fit_null_regressors_huge_grid_refused(small_limit):
    _, x = _data(n=60)
    with pytest.raises(ResourceLimitError, match="`levels`"):
        fit_null_regressors(x, levels=1_000_000, regressor="knn", n_resamples=100, seed=0)


def test_global_coverage_huge_grid_refused(small_limit):
    p, _ = _data(n=60)
    with pytest.raises(ResourceLimitError, match="`levels`"):
        global_coverage_test(p, levels=1_000_000, seed=0)


def test_level_grid_size_refused(small_limit):
    with pytest.raises(ResourceLimitError, match="`levels`"):
        level_grid(10**12)


class _CountingFlow:
    def __init__(self, m=2, value=0.0):
        self.m, self.value, self.calls = m, value, 0

    def sample(self, x, n, seed):
        self.calls += 1
        return np.full((x.shape[0], n, self.m), self.value)


@pytest.mark.parametrize("func", [sbc_ranks, tarp])
def test_posterior_draws_refused_before_sampling(small_limit, func):
    rng = np.random.default_rng(0)
    theta, x = rng.normal(size=(1000, 2)), rng.normal(size=(1000, 1))
    flow = _CountingFlow()
    with pytest.raises(ResourceLimitError, match="`n_posterior_samples`"):
        func(flow, theta, x, n_posterior_samples=100_000, seed=0)
    assert flow.calls == 0


def test_tarp_huge_level_grid_refused(small_limit):
    rng = np.random.default_rng(0)
    theta, x = rng.normal(size=(1000, 2)), rng.normal(size=(1000, 1))
    with pytest.raises(ResourceLimitError, match="`n_levels`"):
        tarp(_CountingFlow(), theta, x, n_posterior_samples=10, n_levels=10**6, seed=0)


# ------------------------------------------------------------------------------ non-finite draws
@pytest.mark.parametrize("func", [sbc, tarp])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_flow_samples_refused(func, bad):
    rng = np.random.default_rng(0)
    theta, x = rng.normal(size=(50, 2)), rng.normal(size=(50, 1))
    with pytest.raises(ValueError, match=r"flow.s .*samples"):
        func(_CountingFlow(value=bad), theta, x, n_posterior_samples=10, seed=0)


# ---------------------------------------------------------------------- constant PIT column
@pytest.mark.parametrize("method", ["spearman", "kendall", "chi2"])
def test_pit_independence_constant_column_is_degenerate(method):
    p = np.random.default_rng(0).uniform(size=(200, 2))
    p[:, 1] = 0.5
    with pytest.warns(DegenerateDataWarning, match="constant"):
        res = pit_independence_test(p, statistic=method)
    assert res.degenerate is True
    assert res.pvalue == 1.0
    assert np.isfinite(res.statistic)
    assert res.decision(0.999) is False


def test_pit_independence_regular_not_degenerate():
    res = pit_independence_test(np.random.default_rng(0).uniform(size=(200, 3)))
    assert res.degenerate is False


# ------------------------------------------------------------------------- plots: wrong result
@pytest.mark.parametrize(
    ("plot", "expected"),
    [
        ("plot_global_pp", "GlobalCoverageResult"),
        ("plot_global_histograms", "GlobalCoverageResult"),
        ("plot_local_pp", "LocalCoverageResult"),
        ("plot_local_statistics", "LocalCoverageResult"),
    ],
)
def test_plots_refuse_wrong_result(plot, expected):
    import modelcompare.posterior as post

    func = getattr(post, plot)
    other = pit_independence_test(np.random.default_rng(0).uniform(size=(50, 2)))
    extra = (0,) if plot == "plot_local_pp" else ()
    for bad in (None, np.zeros((5, 2)), other):
        with pytest.raises(TypeError, match=rf"`result`.*{expected}"):
            func(bad, *extra)


# ------------------------------------------------------------- memory of the null classifiers
def test_null_regressions_count_their_generators(monkeypatch):
    # 2000 null fits on 2 rows and 1 level hold 32 KB of curves, but 2000 spawned generators
    monkeypatch.setenv("MODELCOMPARE_MAX_MEMORY", "1M")
    _, x = _data(n=2)
    with pytest.raises(ResourceLimitError, match="`n_resamples`"):
        fit_null_regressors(x, levels=1, regressor="knn", n_resamples=2000, seed=0)


class _LatentFlow:
    """to_latent returns z = θ (or a fixed array), counting its calls."""

    def __init__(self, z=None):
        self.z, self.calls = z, 0

    def to_latent(self, theta, x):
        self.calls += 1
        return theta if self.z is None else self.z


def test_lc2st_classifiers_refused_before_the_flow_runs(monkeypatch):
    from modelcompare import lc2st_nf

    monkeypatch.setenv("MODELCOMPARE_MAX_MEMORY", "64M")
    rng = np.random.default_rng(0)
    theta, x = rng.normal(size=(200, 2)), rng.normal(size=(200, 1))
    flow = _LatentFlow()
    # 1000 batched MLPs hold ~0.3 GB of training state: refused on the default engine only
    with pytest.raises(ResourceLimitError, match="`n_resamples` or `n_eval`"):
        lc2st_nf(flow, theta, x, [[0.0]], n_resamples=1000, n_eval=10, seed=0)
    with pytest.raises(ResourceLimitError, match="`n_resamples` or `n_eval`"):
        lc2st_nf(flow, theta, x, [[0.0]] * 100, n_eval=10**5, classifier="quadratic")
    assert flow.calls == 0


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_lc2st_refuses_non_finite_latents(bad):
    from modelcompare import lc2st_nf

    rng = np.random.default_rng(0)
    theta, x = rng.normal(size=(50, 2)), rng.normal(size=(50, 1))
    z = theta.copy()
    z[3, 1] = bad
    with pytest.raises(ValueError, match=r"`flow\.to_latent` returned NaN or inf"):
        lc2st_nf(_LatentFlow(z), theta, x, [[0.0]], classifier="quadratic", n_resamples=19)
    with pytest.raises(ValueError, match=r"returned shape \(50, 1\); expected \(50, 2\)"):
        lc2st_nf(_LatentFlow(z[:, :1]), theta, x, [[0.0]], classifier="quadratic")


def test_lc2st_refuses_latents_beyond_float32():
    from modelcompare import lc2st_nf

    rng = np.random.default_rng(0)
    theta, x = rng.normal(size=(50, 2)), rng.normal(size=(50, 1))
    with pytest.raises(
        ValueError, match=r"latent z .* of `theta` given `x` .*float32.*\|value\| \S+e\+39"
    ):
        lc2st_nf(_LatentFlow(), theta * 1e39, x, [[0.0]], classifier="quadratic")
    with pytest.raises(ValueError, match=r"`x_eval` after the z-score by `x`'s scale .*float32"):
        lc2st_nf(_LatentFlow(), theta, x, [[1e39]], classifier="quadratic")


def test_huge_x_is_standardised_not_flattened():
    # x near the float64 limit: its variance overflows, yet the z-scored x must be the same
    from modelcompare import NearestNeighborRegressor

    p, x = _data(n=300, d=1)
    x_eval = np.array([[-1.0], [0.0], [1.0]])
    options = {
        "regressor": NearestNeighborRegressor(30),
        "n_resamples": 199,
        "levels": 9,
        "seed": 0,
    }
    small = local_coverage_test(p, x, x_eval, **options)
    huge = local_coverage_test(p, x * 1e300, x_eval * 1e300, **options)
    assert np.ptp(small.statistics, axis=1).min() > 0  # the statistics depend on x₀
    np.testing.assert_allclose(huge.statistics, small.statistics, rtol=1e-9)
    np.testing.assert_array_equal(huge.pvalues, small.pvalues)


# --------------------------------------------------------------------------------- pairs
@pytest.mark.parametrize(
    ("pairs", "error", "message"),
    [
        ([(0,)], TypeError, r"`pairs\[0\]` must be a pair \(i, j\)"),
        ([(0, 1), "01"], TypeError, r"`pairs\[1\]` must be a pair \(i, j\)"),
        ([(0, 1.5)], TypeError, r"`pairs\[0\]` must be an int"),
        ([(0, None)], TypeError, r"`pairs\[0\]` must be an int"),
        ([], ValueError, "`pairs` must not be empty"),
        ([(1, 1)], ValueError, "`pairs` must hold distinct column indices"),
    ],
)
def test_pairs_are_validated(pairs, error, message):
    p, x = _data(n=60)
    with pytest.raises(error, match=message):
        pit_independence_test(p, pairs=pairs)
    with pytest.raises(error, match=message):
        local_independence_test(p, x, [[0.0]], pairs=pairs, regressor="knn", n_resamples=19)


def test_pairs_accept_numpy_indices():
    p, _ = _data(n=60, m=3)
    res = pit_independence_test(p, pairs=np.array([[0, 2], [1, 2]]))
    assert res.pairs == [(0, 2), (1, 2)]
    assert all(type(i) is int for pair in res.pairs for i in pair)


# ------------------------------------------------------------------------------- check_flow
class _DensityFlow:
    """An exact standard-normal flow z = θ whose log_prob can be overridden row by row."""

    def __init__(self, log_q=None, z=None):
        self.log_q, self.z = log_q, z

    def to_latent(self, theta, x):
        return theta if self.z is None else self.z

    def log_prob(self, theta, x):
        if self.log_q is not None:
            return self.log_q
        with np.errstate(over="ignore"):
            return -0.5 * np.sum(theta**2, axis=1) - theta.shape[1] * 0.5 * np.log(2 * np.pi)


def test_check_flow_refuses_rows_without_finite_densities():
    from modelcompare import check_flow

    rng = np.random.default_rng(0)
    theta, x = rng.normal(size=(6, 2)), rng.normal(size=(6, 1))
    assert check_flow(_DensityFlow(), theta, x).passed
    log_q = _DensityFlow().log_prob(theta, x)
    log_q[4] = -np.inf  # the flow puts no mass where the latent says it should
    with pytest.raises(ValueError, match=r"at row 4 of `theta` and `x` are not finite .*-inf"):
        check_flow(_DensityFlow(log_q=log_q), theta, x)
    huge = theta.copy()
    huge[2] = 1e200  # |z|² overflows
    with pytest.raises(ValueError, match=r"at row 2 of `theta` and `x` are not finite"):
        check_flow(_DensityFlow(), huge, x)


def test_check_flow_checks_shapes():
    from modelcompare import check_flow

    rng = np.random.default_rng(0)
    theta, x = rng.normal(size=(6, 2)), rng.normal(size=(6, 1))
    with pytest.raises(ValueError, match=r"latent has shape \(6, 1\); expected \(6, 2\)"):
        check_flow(_DensityFlow(z=theta[:, :1]), theta, x)
    with pytest.raises(ValueError, match=r"one value per row \(6\); got 3 and 6"):
        check_flow(_DensityFlow(log_q=np.zeros(3)), theta, x)

    class NoLatent:
        def log_prob(self, theta, x):
            return np.zeros(len(theta))

    with pytest.raises(TypeError, match="`flow` must have a `to_latent"):
        check_flow(NoLatent(), theta, x)
