"""Hardening of the posterior diagnostics: threads, memory guards, bad inputs."""

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
        res = pit_independence_test(p, method=method)
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
