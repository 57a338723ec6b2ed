"""Size, power, interval coverage and localisation of compare_posteriors, by simulation.

Size: pairs of *different* estimators with equal expected divergence to the posterior, for both
rules: a scale pair c1 < 1 < c2 (skewed d_n), a lighter-tailed estimator against a wider Gaussian
(heavy-tailed d_n) and, for the energy rule, a symmetric shift pair. Power and coverage: the exact
posterior against shifted, over- and under-dispersed flows, whose KL divergences are known in
closed form. Each rate is checked with binomtest(k, R, α, alternative="greater").pvalue > 0.01.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import binomtest

import modelcompare as mc
from tests.workflows._posterior_pairs import (
    MODEL,
    GeneralisedNormal,
    equal_energy_scale,
    equal_kl_gaussian_scale,
    equal_kl_scale,
    kl_generalised_normal,
    simulate,
)

ALPHA = 0.05


def _not_above(k: int, trials: int, rate: float = ALPHA) -> bool:
    return binomtest(k, trials, rate, alternative="greater").pvalue > 0.01


def _rejections(first, second, *, trials, n, **kwargs) -> int:
    k = 0
    for r in range(trials):
        theta, x = simulate(n, seed=1000 + r)
        result = mc.compare_posteriors(first, second, theta, x, seed=r, **kwargs)
        k += result.decision(ALPHA)
    return k


SCALE_1 = 0.8
SCALE_2 = equal_kl_scale(SCALE_1)
LIGHT = GeneralisedNormal(beta=4.0, alpha=1.2)
LIGHT_MATCH = equal_kl_gaussian_scale(kl_generalised_normal(4.0, 1.2))


def test_the_pairs_have_equal_divergences() -> None:
    assert math.log(SCALE_1) + 0.5 / SCALE_1**2 == pytest.approx(
        math.log(SCALE_2) + 0.5 / SCALE_2**2
    )
    assert SCALE_1 < 1 < SCALE_2
    # the lighter-tailed pair, checked by Monte Carlo on many pairs
    theta, x = simulate(400_000, seed=7)
    exact = MODEL.exact_flow().log_prob(theta, x)
    kl_light = np.mean(exact - LIGHT.log_prob(theta, x))
    kl_gauss = np.mean(exact - MODEL.exact_flow(scale_factor=LIGHT_MATCH).log_prob(theta, x))
    assert kl_light == pytest.approx(kl_gauss, abs=0.03)


@pytest.mark.parametrize(
    ("pair", "method", "trials", "n"),
    [
        ("scale", "t", 400, 200),
        ("scale", "bootstrap", 200, 100),
        # heavy-tailed d_n need more pairs: at N = 300 the level is about 0.12 (see the docstring)
        ("light_tails", "t", 300, 1500),
        ("light_tails", "bootstrap", 150, 1000),
    ],
)
def test_size_log_rule(pair: str, method: str, trials: int, n: int) -> None:
    if pair == "scale":
        first = MODEL.exact_flow(scale_factor=SCALE_1)
        second = MODEL.exact_flow(scale_factor=SCALE_2)
    else:
        first, second = LIGHT, MODEL.exact_flow(scale_factor=LIGHT_MATCH)
    k = _rejections(first, second, trials=trials, n=n, method=method, n_resamples=199)
    assert _not_above(k, trials), f"{k}/{trials} rejections"
    assert k > 0  # not a test that never rejects


ENERGY_1 = 0.7
ENERGY_2 = equal_energy_scale(ENERGY_1)


@pytest.mark.parametrize("pair", ["scale", "shift"])
def test_size_energy_rule(pair: str) -> None:
    if pair == "scale":
        first = MODEL.exact_flow(scale_factor=ENERGY_1)
        second = MODEL.exact_flow(scale_factor=ENERGY_2)
    else:
        first = MODEL.exact_flow(offset=[0.4])
        second = MODEL.exact_flow(offset=[-0.4])
    trials = 300
    k = _rejections(
        first, second, trials=trials, n=150, scoring_rule="energy", n_posterior_samples=10
    )
    assert _not_above(k, trials), f"{k}/{trials} rejections"


def test_plug_in_energy_score_would_break_size() -> None:
    """The plug-in second term (÷ 2S²) biases the comparison; the U-statistic (÷ 2S(S−1)) does not."""
    from modelcompare.posterior.comparison._posterior_scores import energy_from_draws

    theta, _x = simulate(20_000, seed=3)
    x = _x
    rng = np.random.default_rng(0)
    s = 5
    narrow = MODEL.exact_flow(scale_factor=ENERGY_1).sample(x, s, seed=rng)
    wide = MODEL.exact_flow(scale_factor=ENERGY_2).sample(x, s, seed=rng)

    def spread(y: np.ndarray) -> np.ndarray:
        return np.abs(y[:, :, None, 0] - y[:, None, :, 0]).sum(axis=(1, 2))

    d = energy_from_draws(narrow, theta) - energy_from_draws(wide, theta)
    # plug-in: the same first term, the spread divided by 2S² instead of 2S(S − 1)
    shrink = (spread(narrow) - spread(wide)) * (1 / (2 * s * s) - 1 / (2 * s * (s - 1)))
    d_plug_in = d + shrink
    se = d.std() / math.sqrt(d.size)
    assert abs(d.mean()) < 3 * se
    assert abs(d_plug_in.mean()) > 5 * se


# --------------------------------------------------------------------------------------------
# power, direction and coverage on the two-dimensional conditional-Gaussian model

MODEL2 = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
SHIFT = np.array([0.3, -0.2])


def _kl(which: str) -> float:
    m = 2
    if which == "shift":
        return float(0.5 * SHIFT @ np.linalg.solve(MODEL2.posterior_cov, SHIFT))
    c = 1.3 if which == "over" else 0.8
    return m * (math.log(c) + 1 / (2 * c * c) - 0.5)


def _flow(which: str):
    if which == "shift":
        return MODEL2.exact_flow(offset=SHIFT)
    return MODEL2.exact_flow(scale_factor=1.3 if which == "over" else 0.8)


@pytest.mark.parametrize("which", ["shift", "over", "under"])
def test_power_direction_and_coverage(which: str) -> None:
    exact, other, truth = MODEL2.exact_flow(), _flow(which), _kl(which)
    trials, misses, rejections = 200, 0, 0
    for r in range(trials):
        theta, x = MODEL2.simulate(300, seed=5000 + r)
        result = mc.compare_posteriors(exact, other, theta, x, seed=r)
        ci = result.confidence_interval(0.95)
        misses += not (ci.low <= truth <= ci.high)
        rejections += result.decision(ALPHA) and result.statistic > 0
        # swapping the estimators flips the sign exactly
        if r < 3:
            swapped = mc.compare_posteriors(other, exact, theta, x, seed=r)
            np.testing.assert_allclose(swapped.differences, -result.differences)
    assert _not_above(misses, trials), f"{misses}/{trials} intervals miss {truth}"
    assert rejections >= 0.9 * trials


def test_energy_rule_power_and_direction() -> None:
    theta, x = MODEL2.simulate(3000, seed=11)
    for which in ("shift", "over", "under"):
        result = mc.compare_posteriors(
            MODEL2.exact_flow(),
            _flow(which),
            theta,
            x,
            scoring_rule="energy",
            n_posterior_samples=20,
            seed=0,
        )
        assert result.statistic > 0, which
        assert result.decision(ALPHA), which


# --------------------------------------------------------------------------------------------
# localisation and the size of the local test


def _biased_where_x1_above_1(x: np.ndarray) -> np.ndarray:
    return np.where(x[:, :1] > 1.0, 1.0, 0.0) * np.ones((1, 2))


def test_localisation() -> None:
    theta, x = MODEL2.simulate(6000, seed=21)
    exact = MODEL2.exact_flow()
    local = MODEL2.exact_flow(offset=_biased_where_x1_above_1)
    x_eval = np.array([[-2.0, 0.0], [-1.0, 0.5], [0.0, 0.0], [0.3, -1.0], [2.0, 0.0], [2.8, 1.0]])
    result = mc.compare_posteriors(exact, local, theta, x, x_eval=x_eval, seed=0)
    assert result.where(ALPHA).tolist() == ["neither"] * 4 + ["first"] * 2
    assert result.local_pvalues_adjusted.shape == (6,)


def test_local_test_size() -> None:
    """Equal KL at every x: each point's unadjusted local test rejects at rate ≤ α.

    The d_n of the scale pair are skewed (an affine function of a χ²₁ draw), so the local t-test
    needs enough neighbours: its level is about 0.070 at k = 72, 0.061 at k = 150 and 0.054 at
    k = 600 (direct simulation of 20 000 t-tests). N = 2000 gives the default k = 159.
    """
    first = MODEL.exact_flow(scale_factor=SCALE_1)
    second = MODEL.exact_flow(scale_factor=SCALE_2)
    x_eval = np.array([[-2.0], [0.0], [1.5]])
    trials = 300
    counts = np.zeros(3, dtype=int)
    any_adjusted = 0
    for r in range(trials):
        theta, x = simulate(2000, seed=9000 + r)
        result = mc.compare_posteriors(first, second, theta, x, x_eval=x_eval, seed=r)
        counts += result.local_pvalues <= ALPHA
        any_adjusted += bool((result.local_pvalues_adjusted <= ALPHA).any())
    for k in counts:
        assert _not_above(int(k), trials), counts
    assert _not_above(any_adjusted, trials), any_adjusted


def test_degenerate_when_identical() -> None:
    theta, x = simulate(50, seed=0)
    flow = MODEL.exact_flow()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = mc.compare_posteriors(flow, flow, theta, x, seed=0)
    assert result.degenerate
    assert result.pvalue == 1.0
    assert result.statistic == 0.0
    assert any(issubclass(w.category, mc.DegenerateDataWarning) for w in caught)
