"""The prior-predictive misspecification test: exact size and power, kNN and MMD."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from modelcompare import ConditionalGaussianModel, misspecification_test

MODEL = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))


def _rate(trials: int, n_obs: int, n_sim: int, alpha: float, **kwargs) -> int:
    rejections = 0
    for t in range(trials):
        _, x = MODEL.simulate(n_obs + n_sim, seed=t)
        res = misspecification_test(x[:n_obs], x[n_obs:], seed=1000 + t, **kwargs)
        rejections += res.decision(alpha)
    return rejections


def test_conformal_pvalue_is_the_rank_among_held_out_scores() -> None:
    _, x_sim = MODEL.simulate(401, seed=0)
    res = misspecification_test(x_sim[:1], x_sim[1:], seed=1)
    count = np.sum(res.null_distribution >= res.statistic)
    assert res.pvalue == pytest.approx((1 + count) / (1 + res.null_distribution.size))
    assert res.null_distribution.size == 200  # the calibration half


def test_single_observation_far_outside_gets_the_smallest_pvalue() -> None:
    _, x_sim = MODEL.simulate(1000, seed=0)
    res = misspecification_test([[6.0, -6.0]], x_sim, seed=2)
    assert res.pvalue == pytest.approx(1 / 501)


def test_a_joint_outlier_inside_the_marginal_ranges() -> None:
    # strongly correlated coordinates; (1.5, -1.5) is typical for each coordinate on its own
    cov = np.array([[1.0, 0.95], [0.95, 1.0]])
    x_sim = np.random.default_rng(0).multivariate_normal(np.zeros(2), cov, size=1000)
    assert misspecification_test([[1.5, -1.5]], x_sim, seed=2).pvalue < 0.01
    assert misspecification_test([[1.5, 1.5]], x_sim, seed=2).pvalue > 0.05


@pytest.mark.parametrize(("method", "n_obs"), [("knn", 1), ("knn", 5), ("mmd", 10)])
def test_size_when_x_obs_comes_from_the_simulator(method: str, n_obs: int) -> None:
    trials, alpha = 100, 0.05
    k = _rate(trials, n_obs, 200, alpha, statistic=method, n_resamples=99)
    assert stats.binomtest(k, trials, alpha, alternative="greater").pvalue > 0.01


@pytest.mark.parametrize(("method", "n_obs"), [("knn", 1), ("knn", 10), ("mmd", 10)])
def test_power_when_x_obs_is_shifted(method: str, n_obs: int) -> None:
    hits = 0
    for t in range(10):
        _, x = MODEL.simulate(n_obs + 400, seed=t)
        shift = 5.0 if n_obs == 1 else 2.0
        res = misspecification_test(
            x[:n_obs] + shift, x[n_obs:], statistic=method, n_resamples=199, seed=t
        )
        hits += res.decision(0.05)
    assert hits >= 9


def test_scale_invariance_of_the_knn_score() -> None:
    _, x = MODEL.simulate(301, seed=3)
    a = misspecification_test(x[:1], x[1:], seed=4)
    scale = np.array([1e3, 1e-3])
    b = misspecification_test(x[:1] * scale, x[1:] * scale, seed=4)
    assert a.pvalue == b.pvalue
    assert a.statistic == pytest.approx(b.statistic)


def test_mmd_statistic_is_the_biased_mmd() -> None:
    _, x = MODEL.simulate(60, seed=5)
    res = misspecification_test(x[:10], x[10:], statistic="mmd", n_resamples=9, seed=6)
    pool = np.concatenate([x[:10], x[10:]])
    pool = (pool - pool.mean(axis=0)) / pool.std(axis=0)
    d2 = ((pool[:, None, :] - pool[None, :, :]) ** 2).sum(axis=2)
    gram = np.exp(-d2 / (2 * res.bandwidth**2))
    a, b = slice(0, 10), slice(10, None)
    expected = gram[a, a].mean() + gram[b, b].mean() - 2 * gram[a, b].mean()
    assert res.statistic == pytest.approx(expected, rel=1e-10)
    assert res.bandwidth == pytest.approx(np.median(np.sqrt(d2[np.tril_indices(60, -1)])))


def test_bad_inputs_name_the_argument() -> None:
    _, x = MODEL.simulate(20, seed=0)
    with pytest.raises(ValueError, match="same number of columns"):
        misspecification_test(np.zeros((1, 3)), x)
    with pytest.raises(ValueError, match="`x_obs` must be finite"):
        misspecification_test([[np.nan, 0.0]], x)
    with pytest.raises(ValueError, match="`x_obs` must be 2-D"):
        misspecification_test(np.zeros(2), x)
    with pytest.raises(ValueError, match="`n_neighbors` must be at most"):
        misspecification_test(x[:1], x, n_neighbors=50)
    with pytest.raises(ValueError, match="`statistic`"):
        misspecification_test(x[:1], x, statistic="c2st")


@pytest.mark.torch
def test_mmd_statistic_equals_sbis_biased_mmd() -> None:
    """sbi.diagnostics.misspecification.compute_rbf_mmd, on the same rows and width."""
    torch = pytest.importorskip("torch")
    misspecification = pytest.importorskip("sbi.diagnostics.misspecification")
    _, x = MODEL.simulate(80, seed=7)
    res = misspecification_test(x[:5], x[5:], statistic="mmd", n_resamples=9, seed=8)
    pool = (x - x.mean(axis=0)) / x.std(axis=0)
    theirs = misspecification.compute_rbf_mmd(
        torch.as_tensor(pool[:5]), torch.as_tensor(pool[5:]), bandwidth=res.bandwidth
    )
    assert res.statistic == pytest.approx(float(theirs), rel=1e-9)
