"""The posterior-draw diagnostics against BayesFlow 2.1's own ``bayesflow.diagnostics.metrics``.

Both libraries get the same seeded arrays: draws of shape (N, S, m) and true parameters of shape
(N, m), from a calibrated posterior, too narrow and too wide ones, a biased one, a skewed one and
one rounded to a grid (so that draws tie with θ and with each other). What is deterministic must
agree to rounding: the RMSE, the contraction, the z-scores, the calibration error per level and
aggregated, and the gamma discrepancy of the ranks. BayesFlow draws the null of its log-gamma
statistic from the global ``numpy.random`` state, so that part is compared in law, and the
mapping of ``relative_log_gamma`` onto ``calibration_log_gamma`` is checked exactly by feeding it
BayesFlow's own null.

Conventions that differ, and the mapping tested for each:

- ``posterior_contraction`` clips to [0, 1] in BayesFlow and not here: BayesFlow's values are
  ``numpy.clip`` of ours (the median commutes with the clip).
- ``root_mean_squared_error`` is ``ParameterRecoveryResult.draw_rmse`` (the RMSE over each
  simulation's draws, then the median over simulations), for ``normalize`` "range", "std" and
  None (here "none"). BayesFlow's default ``normalize="prior"`` is a random bootstrap of the
  true values, with no counterpart here.
- ``gamma_discrepancy`` takes the upper tail as 1 − cdf, which is exact only to about 2e-16
  absolute (for γ near 1e-14 that is a relative error of 1 %); ``sbc_log_gamma`` takes both
  tails in log space. Below γ ≈ 1e-6 the two are compared with that allowance. For extreme
  ranks BayesFlow's γ underflows to 0, where ours stays a finite, very negative log γ.
- ``gamma_null_distribution`` rounds N · (k/N) down, which for many N (49 here) is k − 1 at some
  counts and gives the wrong binomial tail; ``sbc_log_gamma``'s null is the exact law of N
  uniform ranks, so the two nulls are compared at an N where N · (k/N) = k for every k, and at
  N = 49 against ``gamma_discrepancy`` of uniform ranks.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator

import numpy as np
import pytest
from scipy import stats

from modelcompare import sbc_log_gamma
from modelcompare.posterior import calibration_error, parameter_recovery, posterior_contraction

os.environ.setdefault("KERAS_BACKEND", "torch")
pytest.importorskip("bayesflow")
bf = pytest.importorskip("bayesflow.diagnostics.metrics")
bf_gamma = pytest.importorskip("bayesflow.diagnostics.metrics.calibration_log_gamma")

pytestmark = pytest.mark.slow

# θ ~ N(0, I), x = θ + N(0, σ² I) with σ² = 1/2: the posterior is N(2x/3, 1/3) per coordinate.
POST_SD = np.sqrt(1.0 / 3.0)


def _gaussian(
    n: int, s: int, m: int, seed: int, *, scale: float = 1.0, shift: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n, m))
    x = theta + np.sqrt(0.5) * rng.normal(size=(n, m))
    draws = (2.0 / 3.0) * x[:, None, :] + shift + scale * POST_SD * rng.normal(size=(n, s, m))
    return draws, theta


def _skewed(n: int, s: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Gamma(2) draws around a noisy location: skewed posteriors with several scales."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n, m)) * np.arange(1, m + 1)
    loc = theta + rng.normal(size=(n, m))
    return loc[:, None, :] + rng.gamma(2.0, 0.5, size=(n, s, m)) - 1.0, theta


def _rounded(n: int, s: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Draws and θ on a grid of 0.25: ties between draws, and draws equal to θ."""
    draws, theta = _gaussian(n, s, m, seed, scale=1.3)
    return np.round(4 * draws) / 4, np.round(4 * theta) / 4


CASES = {
    "calibrated (200, 100, 2)": lambda: _gaussian(200, 100, 2, 0),
    "too narrow, 0.5x (150, 50, 3)": lambda: _gaussian(150, 50, 3, 1, scale=0.5),
    "too wide, 3x (80, 30, 1)": lambda: _gaussian(80, 30, 1, 2, scale=3.0),
    "biased by 0.5 (120, 40, 2)": lambda: _gaussian(120, 40, 2, 3, shift=0.5),
    "skewed (25, 10, 4)": lambda: _skewed(25, 10, 4, 4),
    "rounded, ties (60, 20, 2)": lambda: _rounded(60, 20, 2, 5),
}


@pytest.fixture(params=list(CASES), scope="module")
def case(request: pytest.FixtureRequest) -> tuple[np.ndarray, np.ndarray]:
    return CASES[request.param]()


def _ranks(draws: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """The ranks BayesFlow's ``calibration_log_gamma`` takes: #{s : draw < θ}."""
    return np.sum(draws < theta[:, None, :], axis=1)


def _assert_log_gamma_close(ours: np.ndarray, theirs: np.ndarray, log_q: float = 0.0) -> None:
    """Equal logs, up to BayesFlow's rounding of its upper tail 1 − cdf (about 2e-16 absolute).

    ``log_q`` is what was subtracted from both (the log of the null quantile), so that the
    allowance applies to γ itself.
    """
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    under = np.isneginf(theirs)  # BayesFlow's γ underflowed to 0: ours is below its allowance
    assert np.all(ours[under] + log_q < np.log(4e-16)), (ours, theirs)
    gamma = np.exp(theirs[~under] + log_q)
    tol = 1e-9 + 4e-16 / np.maximum(gamma, 1e-300)
    assert np.all(np.abs(ours[~under] - theirs[~under]) <= tol), (ours, theirs)


@contextlib.contextmanager
def _global_seed(seed: int) -> Iterator[None]:
    """Seed numpy's global state, which BayesFlow's null draws from, and restore it after."""
    saved = np.random.get_state()  # noqa: NPY002
    np.random.seed(seed)  # noqa: NPY002
    try:
        yield
    finally:
        np.random.set_state(saved)  # noqa: NPY002


def _exact_n(n: int) -> bool:
    """Whether BayesFlow's null computes N · (k/N) = k exactly for every count k."""
    k = np.arange(n + 1)
    return bool(np.all(np.floor(n * (k / n)) == k))


# ---------------------------------------------------------------------------------------------
# parameter recovery


@pytest.mark.parametrize("normalize", ["range", "std", None])
def test_rmse_is_bayesflows_root_mean_squared_error(case, normalize) -> None:
    draws, theta = case
    theirs = bf.root_mean_squared_error(draws, theta, normalize=normalize)
    ours = parameter_recovery(draws, theta, normalize=normalize or "none")
    np.testing.assert_allclose(ours.draw_rmse, theirs["values"], rtol=1e-12, atol=0)
    assert theirs["metric_name"] == ("NRMSE" if normalize else "RMSE")


# ---------------------------------------------------------------------------------------------
# contraction and z-scores


def test_contraction_is_bayesflows_after_clipping(case) -> None:
    draws, theta = case
    ours = posterior_contraction(draws, theta)
    each = bf.posterior_contraction(draws, theta, aggregation=None)["values"]
    np.testing.assert_allclose(np.clip(ours.contraction, 0, 1), each, rtol=1e-12, atol=1e-15)
    median = bf.posterior_contraction(draws, theta)["values"]
    np.testing.assert_allclose(
        np.clip(ours.median_contraction, 0, 1), median, rtol=1e-12, atol=1e-15
    )
    mean = bf.posterior_contraction(draws, theta, aggregation=np.mean)["values"]
    np.testing.assert_allclose(np.clip(ours.contraction, 0, 1).mean(axis=0), mean, rtol=1e-12)


def test_contraction_differs_only_by_the_clip_when_wider_than_the_prior() -> None:
    draws, theta = CASES["too wide, 3x (80, 30, 1)"]()
    ours = posterior_contraction(draws, theta)
    theirs = bf.posterior_contraction(draws, theta)["values"]
    # posterior variance 3 > the prior's 1: ours is negative, BayesFlow's clipped to 0
    assert ours.median_contraction[0] == pytest.approx(1 - 3.0, abs=0.3)
    assert theirs[0] == 0.0


def test_z_scores_are_bayesflows(case) -> None:
    draws, theta = case
    ours = posterior_contraction(draws, theta)
    each = bf.posterior_z_score(draws, theta, aggregation=None)["values"]
    np.testing.assert_allclose(ours.z_scores, each, rtol=1e-12, atol=1e-13)
    median = bf.posterior_z_score(draws, theta)["values"]
    np.testing.assert_allclose(np.median(ours.z_scores, axis=0), median, rtol=1e-12, atol=1e-13)
    mean = bf.posterior_z_score(draws, theta, aggregation=np.mean)["values"]
    np.testing.assert_allclose(ours.z_mean, mean, rtol=1e-12, atol=1e-13)


# ---------------------------------------------------------------------------------------------
# calibration error


@pytest.mark.parametrize(
    ("resolution", "lo", "hi"), [(20, 0.005, 0.995), (7, 0.1, 0.9), (99, 0.01, 0.99)]
)
def test_calibration_error_is_bayesflows(case, resolution, lo, hi) -> None:
    draws, theta = case
    grid = np.linspace(lo, hi, resolution)
    kw = {"resolution": resolution, "min_quantile": lo, "max_quantile": hi}
    per_level = bf.calibration_error(draws, theta, aggregation=None, **kw)["values"]
    ours = calibration_error(draws, theta, levels=grid)
    np.testing.assert_allclose(ours.levels, grid, rtol=0, atol=0)
    np.testing.assert_allclose(np.abs(ours.coverage - grid[:, None]), per_level, atol=1e-12)
    for agg, fn in [("median", np.median), ("mean", np.mean), ("max", np.max)]:
        theirs = bf.calibration_error(draws, theta, aggregation=fn, **kw)["values"]
        mine = calibration_error(draws, theta, levels=grid, aggregation=agg).errors
        np.testing.assert_allclose(mine, theirs, atol=1e-12)


def test_calibration_error_default_grid_is_bayesflows() -> None:
    draws, theta = CASES["too narrow, 0.5x (150, 50, 3)"]()
    theirs = bf.calibration_error(draws, theta)["values"]  # 20 levels, median
    ours = calibration_error(draws, theta, levels=np.linspace(0.005, 0.995, 20))
    np.testing.assert_allclose(ours.errors, theirs, atol=1e-12)
    assert ours.value > 0.2  # an estimator this narrow is far from calibrated


# ---------------------------------------------------------------------------------------------
# the log-gamma statistic


def test_gamma_is_bayesflows_gamma_discrepancy(case) -> None:
    draws, theta = case
    _, s, m = draws.shape
    ranks = _ranks(draws, theta)
    ours = sbc_log_gamma(ranks, s, n_resamples=9, seed=0)
    theirs = [bf_gamma.gamma_discrepancy(ranks[:, j], num_post_draws=s) for j in range(m)]
    # BayesFlow's upper tail is 1 − cdf, exact to about one float64 ulp of 1
    np.testing.assert_allclose(np.exp(ours.log_gammas), theirs, rtol=1e-9, atol=4e-16)


def test_gamma_of_a_miscalibrated_estimator_is_small_on_both_sides() -> None:
    draws, theta = CASES["too narrow, 0.5x (150, 50, 3)"]()
    ranks = _ranks(draws, theta)
    ours = sbc_log_gamma(ranks, 50, n_resamples=9, seed=0)
    theirs = np.array([bf_gamma.gamma_discrepancy(ranks[:, j], 50) for j in range(3)])
    assert np.all(theirs < 1e-6)
    _assert_log_gamma_close(ours.log_gammas, np.log(theirs))


def test_extreme_ranks_underflow_in_bayesflow_only() -> None:
    ranks = np.zeros((2000, 1), dtype=int)
    assert bf_gamma.gamma_discrepancy(ranks[:, 0], 100) == 0.0
    ours = sbc_log_gamma(ranks, 100, n_resamples=9, seed=0)
    assert np.isfinite(ours.log_gammas[0])
    assert ours.log_gammas[0] < -1000


def test_relative_log_gamma_is_calibration_log_gamma_given_its_null(case) -> None:
    """With BayesFlow's own null draws, ``relative_log_gamma`` is its value to rounding."""
    draws, theta = case
    n, s, _ = draws.shape
    b = 300
    # BayesFlow draws its null from the global state; its γ underflows to 0 for the biased case
    with _global_seed(11), np.errstate(divide="ignore"):
        theirs = bf.calibration_log_gamma(draws, theta, num_null_draws=b)["values"]
    with _global_seed(11):
        null = bf_gamma.gamma_null_distribution(n, s, b)
    ours = sbc_log_gamma(_ranks(draws, theta), s, n_resamples=b, seed=0)
    with_their_null = dataclasses.replace(ours, null_distribution=np.log(null))
    log_q = np.log(np.quantile(null, 0.05))
    _assert_log_gamma_close(with_their_null.relative_log_gamma(0.05), theirs, log_q)
    # and at another level, where BayesFlow's `quantile` is passed on
    with _global_seed(12), np.errstate(divide="ignore"):
        theirs_10 = bf.calibration_log_gamma(draws, theta, num_null_draws=b, quantile=0.1)
    theirs_10 = theirs_10["values"]
    with _global_seed(12):
        null_10 = np.log(bf_gamma.gamma_null_distribution(n, s, b))
    _assert_log_gamma_close(
        dataclasses.replace(ours, null_distribution=null_10).relative_log_gamma(0.1),
        theirs_10,
        np.quantile(null_10, 0.1),
    )


@pytest.mark.parametrize(("n", "s"), [(80, 30), (64, 100), (25, 10)])
def test_null_distribution_is_bayesflows_in_law(n: int, s: int) -> None:
    assert _exact_n(n)  # N · (k/N) = k: BayesFlow's null is the exact law at this N
    b = 2000
    ours = sbc_log_gamma(np.zeros((n, 1), dtype=int), s, n_resamples=b, seed=21)
    with _global_seed(22):
        theirs = np.log(bf_gamma.gamma_null_distribution(n, s, b))
    assert stats.ks_2samp(ours.null_distribution, theirs).pvalue > 1e-3
    # BayesFlow's 5 % quantile lies in the distribution-free 99.9 % interval of ours
    lo, hi = stats.binom.ppf([0.0005, 0.9995], b, 0.05).astype(int)
    ordered = np.sort(ours.null_distribution)
    assert ordered[lo - 1] <= np.quantile(theirs, 0.05) <= ordered[hi]


def test_calibration_log_gamma_differs_by_one_constant_within_monte_carlo_error() -> None:
    """With independent nulls, ours and BayesFlow's differ by log(q_BF / q_ours) only."""
    draws, theta = _gaussian(80, 30, 4, 6, scale=0.8)
    assert _exact_n(80)
    b = 2000
    with _global_seed(31):
        theirs = bf.calibration_log_gamma(draws, theta, num_null_draws=b)["values"]
    ours = sbc_log_gamma(_ranks(draws, theta), 30, n_resamples=b, seed=32).relative_log_gamma()
    shift = ours - theirs
    np.testing.assert_allclose(shift, shift[0], atol=1e-9)  # the same for every parameter
    # the 5 % quantile of 2,000 draws: log q is known to about ±0.1 at this N
    assert abs(shift[0]) < 0.25


def _bayesflow_null_and_exact(n: int, s: int, b: int, seed: int) -> tuple[np.ndarray, ...]:
    """BayesFlow's null draws, and the exact γ of the same uniforms' ranks floor(u (S + 1))."""
    with _global_seed(seed):
        theirs = bf_gamma.gamma_null_distribution(n, s, b)
    uniforms = np.random.RandomState(seed)  # the same uniforms as BayesFlow, n per draw
    exact = [
        bf_gamma.gamma_discrepancy(np.floor(uniforms.uniform(size=n) * (s + 1)), s)
        for _ in range(b)
    ]
    return np.log(theirs), np.log(exact)


def test_bayesflows_null_is_the_exact_law_where_n_k_over_n_is_k() -> None:
    theirs, exact = _bayesflow_null_and_exact(80, 30, 300, 51)
    np.testing.assert_allclose(theirs, exact, rtol=1e-12)


def test_our_null_is_the_exact_law_where_bayesflows_rounds_counts() -> None:
    """At N = 49, BayesFlow's null rounds N · (k/N) down to k − 1 at seven counts."""
    n, s, b = 49, 20, 1000
    assert not _exact_n(n)
    theirs, exact = _bayesflow_null_and_exact(n, s, b, 43)
    wrong = ~np.isclose(theirs, exact, rtol=1e-12, atol=0)
    assert wrong.mean() > 0.1  # BayesFlow's own draws, recomputed from their integer ranks
    ours = sbc_log_gamma(np.zeros((n, 1), dtype=int), s, n_resamples=b, seed=42)
    assert stats.ks_2samp(ours.null_distribution, exact).pvalue > 1e-3
