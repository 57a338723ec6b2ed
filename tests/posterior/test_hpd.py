"""Expected coverage of highest-density regions."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy import stats

from modelcompare import (
    AffineGaussianFlow,
    ConditionalGaussianModel,
    hpd_coverage,
    hpd_coverage_test,
    sbc,
)

NOISE = 0.5 * np.array([[1.0, 0.8], [0.8, 1.0]])


def _log_q(flow, theta, x, s, seed):
    draws = flow.sample(x, s, seed=seed)
    n, m = theta.shape
    log_q_draws = flow.log_prob(draws.reshape(n * s, m), np.repeat(x, s, axis=0)).reshape(n, s)
    return log_q_draws, flow.log_prob(theta, x)


def test_hand_computed_ranks_and_coverage() -> None:
    res = hpd_coverage_test(
        [[1.0, 2.0, 3.0, 4.0]] * 2, [2.5, 0.0], levels=[0.25, 0.5, 0.75], seed=0
    )
    np.testing.assert_allclose(res.hpd_ranks, [0.5, 1.0])  # 2 of 4 draws above; all 4 above
    np.testing.assert_allclose(res.coverage, [0.0, 0.0, 0.5])
    # ∫ (coverage - γ) on 0, .25, .5, .75, 1 with the curve 0, 0, 0, .5, 1
    grid = np.array([0, 0.25, 0.5, 0.75, 1])
    assert res.atc == pytest.approx(np.trapezoid(np.array([0, 0, 0, 0.5, 1]) - grid, grid))


def test_ties_are_randomised_to_exact_uniformity() -> None:
    # every draw ties with the truth: the randomised ranks are plain U(0, 1)
    flat = np.zeros((500, 20))
    res = hpd_coverage_test(flat, np.zeros(500), seed=1)
    assert res.pvalue > 0.01
    np.testing.assert_array_equal(res.hpd_ranks, 0.0)


def test_size_on_the_exact_flow() -> None:
    model = ConditionalGaussianModel(NOISE)
    flow = model.exact_flow()
    trials, alpha = 60, 0.05
    rejections = 0
    for seed in range(trials):
        theta, x = model.simulate(150, seed=seed)
        rejections += hpd_coverage(flow, theta, x, n_posterior_samples=30, seed=seed).decision(
            alpha
        )
    assert stats.binomtest(rejections, trials, alpha, alternative="greater").pvalue > 0.01


@pytest.mark.parametrize(("scale", "sign"), [(0.7, -1), (1.4, 1)])
def test_power_and_direction_for_mis_scaled_flows(scale: float, sign: int) -> None:
    model = ConditionalGaussianModel(NOISE)
    theta, x = model.simulate(1000, seed=0)
    res = hpd_coverage(model.exact_flow(scale_factor=scale), theta, x, seed=1)
    assert res.pvalue < 1e-4
    assert np.sign(res.atc) == sign  # too narrow covers too rarely, too wide too often


def test_detects_a_wrong_correlation_that_marginal_sbc_misses() -> None:
    model = ConditionalGaussianModel(NOISE)
    exact = model.exact_flow()
    nocorr = AffineGaussianFlow(exact.mean_matrix, np.diag(np.sqrt(np.diag(model.posterior_cov))))
    theta, x = model.simulate(1000, seed=2)
    assert hpd_coverage(nocorr, theta, x, seed=3).pvalue < 1e-3
    assert sbc(nocorr, theta, x, seed=3).pvalue > 0.01


def test_flow_convenience_equals_the_array_form() -> None:
    model = ConditionalGaussianModel(NOISE)
    flow = model.exact_flow(scale_factor=0.8)
    theta, x = model.simulate(100, seed=4)
    res = hpd_coverage(flow, theta, x, n_posterior_samples=20, seed=5)
    s_draws, s_test = np.random.default_rng(5).spawn(2)
    arrays = hpd_coverage_test(*_log_q(flow, theta, x, 20, s_draws), seed=s_test)
    for f in dataclasses.fields(res):
        if f.name != "seed_used":
            np.testing.assert_array_equal(getattr(res, f.name), getattr(arrays, f.name))
    assert res.seed_used == 5


def test_bad_inputs_name_the_argument() -> None:
    with pytest.raises(ValueError, match="`log_q_draws` and `log_q_true`"):
        hpd_coverage_test(np.zeros((5, 3)), np.zeros(4))
    with pytest.raises(ValueError, match="`log_q_true` must be finite"):
        hpd_coverage_test(np.zeros((2, 3)), [0.0, np.nan])
    with pytest.raises(ValueError, match="`log_q_draws` must be finite"):
        hpd_coverage_test(np.full((2, 3), -np.inf), [0.0, 0.0])
    with pytest.raises(ValueError, match="`log_q_draws` must be 2-D"):
        hpd_coverage_test(np.zeros(3), [0.0])

    class NoDensity:
        def sample(self, x, n, seed=None):
            return np.zeros((len(x), n, 1))

    with pytest.raises(TypeError, match="`flow` needs a `log_prob"):
        hpd_coverage(NoDensity(), np.zeros((3, 1)), np.zeros((3, 1)))


@pytest.mark.torch
def test_a_zuko_flow_is_calibrated_against_its_own_draws() -> None:
    """θ drawn from the flow itself: the HPD ranks of any flow are then uniform."""
    torch = pytest.importorskip("torch")
    zuko = pytest.importorskip("zuko")
    from modelcompare import ZukoFlow

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        flow = ZukoFlow(zuko.flows.NSF(2, 2, transforms=2, hidden_features=[16]))
    x = np.random.default_rng(0).normal(size=(300, 2))
    theta = flow.sample(x, 1, seed=1)[:, 0]
    res = hpd_coverage(flow, theta, x, n_posterior_samples=30, seed=2)
    assert res.pvalue > 0.001
    assert abs(res.atc) < 0.06
