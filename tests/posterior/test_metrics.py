"""Parameter recovery, posterior contraction and z-scores, calibration error."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import modelcompare as mc
from modelcompare.posterior import (
    calibration_error,
    parameter_recovery,
    posterior_contraction,
)

# θ ~ N(0, 1), x = θ + ε, ε ~ N(0, σ²) with σ² = 1/2: posterior N(2x/3, 1/3).
POST_VAR = 1.0 / 3.0


def _gaussian_draws(n: int, s: int, c: float = 1.0, seed: int = 0) -> tuple[np.ndarray, ...]:
    """Draws whose per-row mean is exactly the posterior mean and sd is exactly c·√(1/3)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n, 1))
    x = theta + np.sqrt(0.5) * rng.normal(size=(n, 1))
    e = rng.normal(size=(n, s, 1))
    e = (e - e.mean(axis=1, keepdims=True)) / e.std(axis=1, ddof=1, keepdims=True)
    draws = (2.0 / 3.0) * x[:, None, :] + c * np.sqrt(POST_VAR) * e
    return draws, theta


# ---------------------------------------------------------------------------------------------
# parameter recovery


def test_recovery_hand_computed_values() -> None:
    theta = np.array([[0.0], [1.0], [2.0], [3.0]])
    offset = np.array([1.0, -1.0, 1.0, -1.0])[:, None, None]
    draws = theta[:, None, :] + offset + np.array([-0.5, 0.5])[None, :, None]
    res = parameter_recovery(draws, theta)
    assert res.rmse[0] == pytest.approx(1.0)
    assert res.nrmse[0] == pytest.approx(1.0 / 3.0)  # divided by the range 3
    assert res.value == pytest.approx(1.0 / 3.0)
    assert res.r_squared[0] == pytest.approx(1.0 - 4.0 / 5.0)  # Σ(θ - θ̄)² = 5
    std = parameter_recovery(draws, theta, normalize="std")
    assert std.nrmse[0] == pytest.approx(1.0 / np.sqrt(1.25))
    raw = parameter_recovery(draws, theta, normalize="none")
    assert raw.value == pytest.approx(1.0)


def test_recovery_gaussian_known_rmse_and_r2() -> None:
    draws, theta = _gaussian_draws(4000, 50)
    res = parameter_recovery(draws, theta)
    # the posterior mean's error has variance E Var(θ | x) = 1/3, so R² = 1 - 1/3
    assert res.rmse[0] == pytest.approx(np.sqrt(POST_VAR), rel=0.05)
    assert res.r_squared[0] == pytest.approx(2.0 / 3.0, abs=0.03)


def test_recovery_invariant_to_affine_maps_of_theta() -> None:
    draws, theta = _gaussian_draws(300, 20)
    base = parameter_recovery(draws, theta)
    moved = parameter_recovery(3.0 * draws - 7.0, 3.0 * theta - 7.0)
    np.testing.assert_allclose(moved.nrmse, base.nrmse, rtol=1e-12)
    np.testing.assert_allclose(moved.r_squared, base.r_squared, rtol=1e-12)
    np.testing.assert_allclose(moved.rmse, 3.0 * base.rmse, rtol=1e-12)


def test_draw_rmse_is_bayesflows_root_mean_squared_error(rng: np.random.Generator) -> None:
    draws = rng.normal(size=(40, 30, 3))
    theta = rng.normal(size=(40, 3))
    # bayesflow/diagnostics/metrics/root_mean_squared_error.py (normalize="range",
    # aggregation=np.median), written out: the RMSE over the draws of each simulation
    rmse = np.sqrt(np.mean((draws - theta[:, None, :]) ** 2, axis=1))
    expected = np.median(rmse / (theta.max(axis=0) - theta.min(axis=0))[None, :], axis=0)
    np.testing.assert_allclose(parameter_recovery(draws, theta).draw_rmse, expected, rtol=1e-12)


def test_recovery_constant_theta_warns() -> None:
    draws = np.random.default_rng(0).normal(size=(5, 4, 1))
    with pytest.warns(mc.DegenerateDataWarning, match="constant"):
        res = parameter_recovery(draws, np.ones((5, 1)))
    assert np.isnan(res.nrmse[0])
    assert np.isnan(res.r_squared[0])


# ---------------------------------------------------------------------------------------------
# contraction and z-scores


def test_contraction_exact_values() -> None:
    draws, theta = _gaussian_draws(200, 10)
    res = posterior_contraction(draws, theta, prior_variance=[1.0])
    np.testing.assert_allclose(res.contraction, 1.0 - POST_VAR, rtol=1e-12)
    mean = draws.mean(axis=1)
    np.testing.assert_allclose(res.z_scores, (mean - theta) / np.sqrt(POST_VAR), rtol=1e-10)
    assert res.value == pytest.approx(1.0 - POST_VAR)


def test_contraction_matches_bayesflow_when_inside_unit_interval(
    rng: np.random.Generator,
) -> None:
    draws = rng.normal(size=(50, 20, 2)) * np.array([0.3, 0.6])
    theta = rng.normal(size=(50, 2))
    # bayesflow/diagnostics/metrics/posterior_contraction.py and posterior_z_score.py
    post_vars = draws.var(axis=1, ddof=1)
    prior_vars = theta.var(axis=0, keepdims=True, ddof=1)
    bf_contraction = np.median(np.clip(1 - post_vars / prior_vars, 0, 1), axis=0)
    bf_z = np.median((draws.mean(axis=1) - theta) / np.sqrt(post_vars), axis=0)
    res = posterior_contraction(draws, theta)
    np.testing.assert_allclose(res.median_contraction, bf_contraction, rtol=1e-12)
    np.testing.assert_allclose(np.median(res.z_scores, axis=0), bf_z, rtol=1e-12)


def test_contraction_is_not_clipped() -> None:
    draws, theta = _gaussian_draws(50, 10, c=3.0)  # posterior variance 3 > prior variance 1
    res = posterior_contraction(draws, theta, prior_variance=[1.0])
    assert res.value == pytest.approx(1.0 - 9.0 * POST_VAR)


@pytest.mark.parametrize(
    ("c", "word"), [(1.0, "consistent"), (0.5, "too narrow"), (2.0, "too wide")]
)
def test_z_rms_reads_the_dispersion(c: float, word: str) -> None:
    draws, theta = _gaussian_draws(2000, 50, c=c, seed=3)
    res = posterior_contraction(draws, theta)
    # z = (error of the exact mean) / (c sd): E z² = 1/c²
    assert res.z_rms[0] == pytest.approx(1.0 / c, rel=0.06)
    assert res.z_sd[0] == pytest.approx(1.0 / c, rel=0.06)
    assert word in res.reading()[0]
    if c == 1.0:
        assert res.mean_abs_z[0] == pytest.approx(np.sqrt(2 / np.pi), rel=0.06)
        assert res.outlier_share[0] < 0.01


def test_contraction_bad_inputs() -> None:
    draws, theta = _gaussian_draws(10, 5)
    with pytest.raises(ValueError, match="`prior_variance`"):
        posterior_contraction(draws, theta, prior_variance=[0.0])
    with pytest.raises(ValueError, match=r"`posterior_samples`.*all equal"):
        posterior_contraction(np.zeros((10, 5, 1)), theta)
    with pytest.raises(ValueError, match="`posterior_samples` needs at least 2 draws"):
        posterior_contraction(draws[:, :1], theta)
    with pytest.raises(ValueError, match="`tolerance`"):
        posterior_contraction(draws, theta).reading(tolerance=-1.0)


# ---------------------------------------------------------------------------------------------
# calibration error


def _bayesflow_calibration_error(estimates: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """bayesflow/diagnostics/metrics/calibration_error.py with its defaults, written out."""
    alphas = np.linspace(0.005, 0.995, 20)
    lowers = (1 - alphas) / 2
    uppers = 1 - lowers
    lower_bounds, upper_bounds = np.quantile(estimates, [lowers, uppers], axis=1)
    inlier = (lower_bounds <= targets[None]) & (upper_bounds >= targets[None])
    return np.median(np.abs(inlier.mean(axis=1) - alphas[:, None]), axis=0)


def test_calibration_error_matches_bayesflow(rng: np.random.Generator) -> None:
    estimates = rng.normal(size=(60, 40, 3)) * np.array([0.5, 1.0, 2.0])
    targets = rng.normal(size=(60, 3))
    res = calibration_error(estimates, targets, levels=np.linspace(0.005, 0.995, 20))
    np.testing.assert_allclose(res.errors, _bayesflow_calibration_error(estimates, targets))
    assert res.value == pytest.approx(res.errors.max())


@pytest.mark.parametrize("c", [0.6, 1.0, 1.5])
def test_calibration_coverage_follows_the_gaussian_formula(c: float) -> None:
    draws, theta = _gaussian_draws(3000, 400, c=c, seed=5)
    res = calibration_error(draws, theta, levels=9)
    # θ - mean ~ N(0, 1/3) and the interval is mean ± c √(1/3) Φ⁻¹((1 + γ)/2)
    expected = 2 * stats.norm.cdf(c * stats.norm.ppf((1 + res.levels) / 2)) - 1
    np.testing.assert_allclose(res.coverage[:, 0], expected, atol=0.04)


def test_calibration_error_aggregations() -> None:
    theta = np.linspace(-1, 1, 5)[:, None]
    draws = np.zeros((5, 10, 1))
    res = calibration_error(draws, theta, levels=[0.1, 0.5, 0.9], aggregation="max")
    np.testing.assert_allclose(res.coverage[:, 0], 0.2)
    assert res.value == pytest.approx(0.7)
    assert calibration_error(draws, theta, levels=[0.1, 0.5, 0.9], aggregation="mean").value == (
        pytest.approx((0.1 + 0.3 + 0.7) / 3)
    )


# ---------------------------------------------------------------------------------------------
# input validation shared by the three


@pytest.mark.parametrize("fn", [parameter_recovery, posterior_contraction, calibration_error])
def test_bad_inputs_name_the_argument(fn) -> None:
    draws, theta = _gaussian_draws(10, 5)
    bad = draws.copy()
    bad[3, 2, 0] = np.nan
    with pytest.raises(
        ValueError, match=r"`posterior_samples` must be finite; found NaN at simulation 3"
    ):
        fn(bad, theta)
    with pytest.raises(ValueError, match="`posterior_samples` must be 3-D"):
        fn(draws[..., 0], theta)
    with pytest.raises(ValueError, match="number of simulations"):
        fn(draws[:9], theta)
    with pytest.raises(ValueError, match="`theta` must be finite"):
        fn(draws, np.full_like(theta, np.inf))
    with pytest.raises(ValueError, match="`theta` must be 2-D"):
        fn(draws, theta[:, 0])
