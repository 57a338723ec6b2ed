"""Hardening of the posterior diagnostics: threads, memory guards, bad inputs."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from modelcompare.posterior import (
    AmortizedRegressor,
    fit_null_regressors,
    local_coverage_test,
    local_independence_test,
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
