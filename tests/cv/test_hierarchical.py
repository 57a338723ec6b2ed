"""The hierarchical Bayesian correlated t-test: the sampler, its diagnostics, calibration, baycomp."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from modelcompare import (
    ConvergenceWarning,
    DegenerateDataWarning,
    HierarchicalTTestResult,
    bayesian_hierarchical_ttest,
)
from modelcompare.cv._gibbs import (
    HierarchicalPriors,
    effective_sample_size,
    sample_hierarchical,
    split_rhat,
)


def _tables(shift: float, q: int = 6, n: int = 10, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    b = 0.8 + 0.02 * rng.standard_normal((q, n))
    return b + shift + 0.01 * rng.standard_normal((q, n)), b


def test_clear_winner_and_equivalence_and_sign():
    a, b = _tables(0.03)
    res = bayesian_hierarchical_ttest(a, b, n_folds=10, seed=0)
    assert isinstance(res, HierarchicalTTestResult)
    assert res.decision() == "a_better"
    assert res.converged
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        flipped = bayesian_hierarchical_ttest(b, a, n_folds=10, n_draws=1000, seed=0)
    assert flipped.decision() == "a_worse"
    a, b = _tables(0.0005, seed=2)
    same = bayesian_hierarchical_ttest(a, b, n_folds=10, rope=0.02, n_draws=2000, seed=0)
    assert same.prob_rope > 0.95
    total = same.predictive_a_better + same.predictive_rope + same.predictive_a_worse
    assert total == pytest.approx(1.0)


@pytest.mark.filterwarnings("ignore::modelcompare.ConvergenceWarning")
def test_seed_reproduces_and_inputs_untouched():
    a, b = _tables(0.01)
    a0 = a.copy()
    r1 = bayesian_hierarchical_ttest(a, b, n_draws=300, n_warmup=200, seed=5)
    r2 = bayesian_hierarchical_ttest(a, b, n_draws=300, n_warmup=200, seed=5)
    assert np.array_equal(r1.delta0, r2.delta0)
    assert np.array_equal(a, a0)
    assert r1.seed_used == 5
    assert r1.delta0.shape == (4 * 300,)


@pytest.mark.filterwarnings("ignore::modelcompare.ConvergenceWarning")
def test_scale_invariance():
    # The model divides the differences by their mean within-row sd, and the ROPE with them.
    a, b = _tables(0.01)
    r1 = bayesian_hierarchical_ttest(a, b, rope=0.01, n_draws=500, seed=1)
    r2 = bayesian_hierarchical_ttest(100 * a, 100 * b, rope=1.0, n_draws=500, seed=1)
    assert r1.prob_a_better == pytest.approx(r2.prob_a_better, abs=1e-12)
    assert r1.predictive_rope == pytest.approx(r2.predictive_rope, abs=1e-9)
    assert np.allclose(100 * r1.delta0, r2.delta0)


@pytest.mark.filterwarnings("ignore::modelcompare.ConvergenceWarning")
def test_zero_variance_row_is_jittered_as_baycomp_does():
    a, b = _tables(0.01)
    a[0] = b[0]  # identical scores on one data set
    with pytest.warns(DegenerateDataWarning, match="zero-variance"):
        res = bayesian_hierarchical_ttest(a, b, n_draws=300, n_warmup=200, seed=0)
    assert math.isfinite(res.prob_a_better)


def test_convergence_warning_for_short_chains():
    a, b = _tables(0.01)
    with pytest.warns(ConvergenceWarning, match="R̂"):
        res = bayesian_hierarchical_ttest(a, b, n_draws=20, n_warmup=0, seed=0)
    assert not res.converged
    assert set(res.rhat) == {"delta0", "std0", "nu"}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_folds": 3}, "divide"),
        ({"rope": -0.1}, "rope"),
        ({"n_chains": 0}, "n_chains"),
    ],
)
def test_bad_arguments(kwargs, match):
    a, b = _tables(0.01)
    with pytest.raises(ValueError, match=match):
        bayesian_hierarchical_ttest(a, b, **kwargs)


def test_bad_shapes():
    a, b = _tables(0.01)
    with pytest.raises(ValueError, match="same shape"):
        bayesian_hierarchical_ttest(a, b[:, :5])
    with pytest.raises(ValueError, match="2-D"):
        bayesian_hierarchical_ttest(a[0], b[0])
    with pytest.raises(ValueError, match="at least 2 data sets"):
        bayesian_hierarchical_ttest(a[:1], b[:1])
    with pytest.raises(ValueError, match="zero variance"):
        bayesian_hierarchical_ttest(a, a)


# -- diagnostics ---------------------------------------------------------------------------------


def test_rhat_and_ess_on_known_chains():
    rng = np.random.default_rng(0)
    iid = rng.standard_normal((4, 2000))
    assert split_rhat(iid) == pytest.approx(1.0, abs=0.01)
    assert effective_sample_size(iid) == pytest.approx(8000, rel=0.15)
    # AR(1) with φ: ESS ≈ N (1 − φ)/(1 + φ)
    phi = 0.9
    ar = np.zeros((4, 4000))
    for t in range(1, 4000):
        ar[:, t] = phi * ar[:, t - 1] + rng.standard_normal(4)
    assert effective_sample_size(ar) == pytest.approx(16000 * 0.1 / 1.9, rel=0.3)
    shifted = iid + np.array([[0.0], [0.0], [0.0], [3.0]])
    assert split_rhat(shifted) > 1.5


# -- the sampler against exact posteriors ----------------------------------------------------------


def test_sampler_conditional_of_delta_given_huge_std0():
    # With many data sets whose δ_i are pinned by long rows, δ₀'s posterior is close to the
    # t-location fit of the row means; its mean must sit near their centre.
    rng = np.random.default_rng(3)
    means = rng.normal(0.5, 0.2, 30)
    x = means[:, None] + 0.05 * rng.standard_normal((30, 50))
    priors = HierarchicalPriors(delta_bound=5.0, std0_max=10.0, sigma_max=10.0)
    draws = sample_hierarchical(
        x, 0.0, priors, n_draws=2000, n_warmup=500, n_chains=2, rng=np.random.default_rng(0)
    )
    xbar = x.mean(axis=1)
    se = xbar.std(ddof=1) / math.sqrt(30)
    assert abs(draws.delta0.mean() - xbar.mean()) < 3 * se
    assert draws.std0.mean() == pytest.approx(xbar.std(ddof=1), rel=0.3)


def test_calibration_of_predictive_probability_small():
    """Simulated from the model with fixed prior bounds: the predictive P(δ_new > r) matches
    how often a new data set's δ falls above r (the full study is in benchmarks/)."""
    rng = np.random.default_rng(11)
    priors = HierarchicalPriors(delta_bound=1.0, std0_max=1.0, sigma_max=2.0)
    r = 0.2
    predicted, happened = [], []
    for _ in range(30):
        d0 = rng.uniform(-1, 1)
        s0 = rng.uniform(0, 1)
        nu = 1 + rng.gamma(rng.uniform(1, 2), 1 / rng.uniform(0.01, 0.1))
        q, n, rho = 8, 10, 0.1
        delta = d0 + s0 * rng.standard_t(nu, q)
        sigma = rng.uniform(0, 2, q)
        cov = (1 - rho) * np.eye(n) + rho
        chol = np.linalg.cholesky(cov)
        x = delta[:, None] + sigma[:, None] * (rng.standard_normal((q, n)) @ chol.T)
        draws = sample_hierarchical(x, rho, priors, n_draws=300, n_warmup=200, n_chains=2, rng=rng)
        p = stats.t.sf(r, draws.nu.ravel(), draws.delta0.ravel(), draws.std0.ravel())
        predicted.append(p.mean())
        happened.append(float(d0 + s0 * rng.standard_t(nu) > r))
    predicted, happened = np.array(predicted), np.array(happened)
    # a calibrated forecast: the mean forecast equals the event rate within binomial noise
    assert abs(predicted.mean() - happened.mean()) < 3 * math.sqrt(0.25 / 30)
    # and it discriminates: events happen more often when the forecast is high
    assert happened[predicted > 0.5].mean() > happened[predicted < 0.5].mean()


# -- baycomp (needs pystan; slow) -----------------------------------------------------------------


@pytest.mark.slow
def test_agrees_with_baycomp_hierarchical(tmp_path, monkeypatch):
    pytest.importorskip("stan")
    from baycomp import HierarchicalTest

    rng = np.random.default_rng(4)
    q, n = 8, 10
    b = 0.8 + 0.02 * rng.standard_normal((q, n))
    a = b + rng.normal(0.006, 0.01, q)[:, None] + 0.01 * rng.standard_normal((q, n))
    monkeypatch.chdir(tmp_path)  # baycomp writes last-sample.pickle into the working directory
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = HierarchicalTest(a, b, rope=0.005, runs=1, nsamples=5000, random_state=0)
    p_left, p_rope, p_right = theirs.probs()
    ours = bayesian_hierarchical_ttest(a, b, rope=0.005, n_folds=n, n_draws=5000, seed=0)
    assert (tmp_path / "last-sample.pickle").exists()
    # baycomp's difference is y − x, so p_left is P(a better); Monte Carlo error of ~4·5000 draws
    # with autocorrelation: a few hundredths
    assert ours.prob_a_better == pytest.approx(p_left, abs=0.05)
    assert ours.prob_rope == pytest.approx(p_rope, abs=0.05)
    assert ours.prob_a_worse == pytest.approx(p_right, abs=0.05)
