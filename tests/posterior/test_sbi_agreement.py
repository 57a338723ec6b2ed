"""SBC ranks, TARP coverage, HPD ranks and misspecification verdicts agree with sbi's diagnostics.

Both libraries are fed identical draws: a stand-in flow whose ``sample`` returns stored draws for
ours, and a stand-in posterior whose ``sample_batched`` returns the same draws (in sbi's
(S, N, m) layout) for sbi's ``run_sbc`` and ``run_tarp``. The values are float32-representable so
that single and double precision see the same numbers, and some draws are set equal to θ, so that
the strict comparisons (``<``, not ``<=``) are exercised.
"""

from __future__ import annotations

import numpy as np
import pytest

from modelcompare import (
    ConditionalGaussianModel,
    sbc,
    sbc_ranks,
    sbc_test,
    tarp,
    validate_posterior,
)

torch = pytest.importorskip("torch")
diagnostics = pytest.importorskip("sbi.diagnostics")
pytestmark = pytest.mark.torch

N, S = 500, 100


class StoredFlow:
    """A flow whose ``sample`` returns stored draws, shape (N, S, m)."""

    def __init__(self, draws: np.ndarray) -> None:
        self.draws = draws

    def sample(self, x: np.ndarray, n: int, seed: object = None) -> np.ndarray:
        assert (x.shape[0], n) == self.draws.shape[:2]
        return self.draws


class StoredPosterior:
    """An sbi posterior stand-in: ``sample_batched`` returns the same draws, shape (S, N, m)."""

    def __init__(self, draws: np.ndarray) -> None:
        self.draws = torch.as_tensor(draws.transpose(1, 0, 2), dtype=torch.float32)

    def sample_batched(self, sample_shape, x, show_progress_bars: bool = False):
        assert tuple(sample_shape) == (self.draws.shape[0],)
        assert x.shape[0] == self.draws.shape[1]
        return self.draws


def _f32(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float32).astype(np.float64)


@pytest.fixture(scope="module")
def pairs() -> dict[str, np.ndarray]:
    """An over-dispersed posterior's draws, with ties: draw 0 of every 7th pair equals θ.

    Pair 1's reference is θ_1 (f_1 = 0) and pair 2's draws are its reference (f_2 = 1), so the
    coverage values span [0, 1] and many of them lie exactly on the edges of sbi's histogram.
    """
    model = ConditionalGaussianModel(0.5 * np.eye(2))
    theta, x = model.simulate(N, seed=0)
    draws = model.exact_flow(scale_factor=1.3).sample(x, S, seed=1)
    draws[::7, 0, :] = theta[::7]
    lo, hi = theta.min(axis=0), theta.max(axis=0)
    references = lo + (hi - lo) * np.random.default_rng(2).uniform(size=theta.shape)
    references[1] = theta[1]
    draws[2] = references[2]
    theta, x, draws, references = (_f32(a) for a in (theta, x, draws, references))
    return {"theta": theta, "x": x, "draws": draws, "references": references}


def _tensor(a: np.ndarray):
    return torch.as_tensor(a, dtype=torch.float32)


def _sbi_tarp(pairs, **kwargs):
    """sbi's ``run_tarp``, and the coverage values it histograms (spied on ``torch.histogram``)."""
    seen = []
    histogram = torch.histogram

    def spy(values, *args, **kw):
        seen.append(values.clone())
        return histogram(values, *args, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(torch, "histogram", spy)
        ecp, alpha = diagnostics.run_tarp(
            _tensor(pairs["theta"]),
            _tensor(pairs["x"]),
            StoredPosterior(pairs["draws"]),
            references=_tensor(pairs["references"]),
            num_posterior_samples=S,
            show_progress_bar=False,
            **kwargs,
        )
    (coverage,) = seen
    return ecp.numpy().astype(float), alpha.numpy().astype(float), coverage.numpy().astype(float)


def _ours(pairs, **kwargs):
    return tarp(
        StoredFlow(pairs["draws"]),
        pairs["theta"],
        pairs["x"],
        n_posterior_samples=S,
        reference_points=pairs["references"],
        seed=0,
        **kwargs,
    )


# --- SBC ----------------------------------------------------------------------------------------


def test_sbc_ranks_equal_run_sbc(pairs):
    sbi_ranks, dap = diagnostics.run_sbc(
        _tensor(pairs["theta"]),
        _tensor(pairs["x"]),
        StoredPosterior(pairs["draws"]),
        num_posterior_samples=S,
        show_progress_bar=False,
    )
    sbi_ranks = sbi_ranks.numpy()
    np.testing.assert_array_equal(dap.numpy(), pairs["draws"][:, 0, :])  # the layouts agree
    flow = StoredFlow(pairs["draws"])
    ours = sbc_ranks(flow, pairs["theta"], pairs["x"], n_posterior_samples=S, seed=0)
    np.testing.assert_array_equal(ours, sbi_ranks)
    np.testing.assert_array_equal(
        sbc(flow, pairs["theta"], pairs["x"], n_posterior_samples=S, seed=0).ranks, sbi_ranks
    )
    # sbc_test takes sbi's ranks as they come (a float tensor) and tests the same ranks.
    a = sbc_test(torch.as_tensor(sbi_ranks), S, seed=3)
    b = sbc_test(ours, S, seed=3)
    assert (a.statistic, a.pvalue) == (b.statistic, b.pvalue)
    # The ties make `<` and `<=` disagree, so a rank counted with `<=` would fail above.
    assert np.any(np.sum(pairs["draws"] <= pairs["theta"][:, None, :], axis=1) != ours)


# --- TARP ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("z_score", "n_bins"), [(True, None), (False, None), (True, 30), (False, 25)]
)
def test_tarp_sbi_convention_equals_run_tarp(pairs, z_score, n_bins):
    ecp, alpha, coverage = _sbi_tarp(pairs, z_score_theta=z_score, num_bins=n_bins)
    n_levels = None if n_bins is None else n_bins + 1
    res = _ours(pairs, convention="sbi", z_score=z_score, n_levels=n_levels)
    assert res.levels.size == (N // 10 if n_bins is None else n_bins) + 1
    np.testing.assert_array_equal(res.levels, alpha)
    np.testing.assert_allclose(res.ecp, ecp, rtol=0, atol=1e-6)
    np.testing.assert_allclose(res.coverage_values, coverage, rtol=0, atol=1e-7)
    # Coverage values c/S lie exactly on interior edges k/K of [0, 1], where exact arithmetic and
    # sbi's single-precision edges put them in different bins: a plain histogram would fail here.
    counts, k = np.round(coverage * S), res.levels.size - 1
    assert (coverage.min(), coverage.max()) == (0.0, 1.0)
    assert np.any((counts * k % S == 0) & (counts > 0) & (counts < S))
    exact = (counts[:, None] * k < np.arange(k + 1) * S).mean(axis=0)
    exact[-1] = 1.0
    assert np.max(np.abs(exact - ecp)) > 1 / N


@pytest.mark.parametrize("coverage", [0.0, 1.0])
def test_tarp_sbi_convention_equals_run_tarp_when_coverage_is_constant(pairs, coverage):
    """All f_n equal: torch widens the histogram's range to f ± 0.5."""
    constant = dict(pairs)
    if coverage == 0.0:  # every reference is its θ: no draw is closer
        constant["references"] = pairs["theta"]
    else:  # every draw is its reference
        constant["references"] = pairs["references"].copy()
        constant["references"][1] += 0.125  # pair 1's reference, θ_1 in `pairs`, moves off θ_1
        constant["draws"] = np.repeat(constant["references"][:, None, :], S, axis=1)
    ecp, alpha, sbi_coverage = _sbi_tarp(constant, z_score_theta=True, num_bins=4)
    res = _ours(constant, convention="sbi", n_levels=5)
    assert np.all(sbi_coverage == coverage)
    np.testing.assert_array_equal(res.levels, alpha)
    np.testing.assert_allclose(res.ecp, ecp, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(res.levels, coverage + np.linspace(-0.5, 0.5, 5))


def test_tarp_default_convention_coverage_equals_sbi_without_rescaling(pairs):
    _, _, coverage = _sbi_tarp(pairs, z_score_theta=False)
    ours = _ours(pairs, z_score=False)
    np.testing.assert_allclose(ours.coverage_values, coverage, rtol=0, atol=1e-7)
    # ECP(γ) = (1/N) #{n : f_n < γ} on the fixed grid, from the same coverage values.
    f = np.round(coverage * S) / S
    np.testing.assert_array_equal(ours.ecp, (f[:, None] < ours.levels).mean(axis=0))
    assert (ours.levels[0], ours.levels[-1], ours.levels.size) == (0.0, 1.0, 101)


def test_tarp_rescalings_differ(pairs):
    """The two rescalings give different coverage values: the tests above can tell them apart."""
    _, alpha, coverage = _sbi_tarp(pairs, z_score_theta=True)
    ours = _ours(pairs)  # z-scored by mean and standard deviation
    assert np.max(np.abs(ours.coverage_values - coverage)) > 0.01
    sbi_style = _ours(pairs, convention="sbi")
    assert not np.array_equal(ours.levels, alpha)
    np.testing.assert_array_equal(sbi_style.levels, alpha)
    # The KS test is the same one-sample test of the randomised coverage values in both.
    assert 0 <= sbi_style.pvalue <= 1
    assert sbi_style.statistic != ours.statistic


# --- Expected coverage (HPD ranks) --------------------------------------------------------------

#: The density the fixture's draws follow: N(K x, 1.3² S), S = 1/3 I and K = 2/3 I for the model
#: with noise 0.5 I and a standard normal prior.
_MEAN, _SD = 2.0 / 3.0, 1.3 / np.sqrt(3.0)


def _log_density(theta: np.ndarray, x: np.ndarray) -> np.ndarray:
    """An elementwise formula, so that a row gets the same value in any batch (ties stay ties)."""
    r = (theta - _MEAN * x) / _SD
    return -0.5 * np.sum(r * r, axis=-1) - theta.shape[-1] * np.log(_SD * np.sqrt(2 * np.pi))


class StoredFlowWithDensity(StoredFlow):
    """The stored draws, and the estimator's log-density."""

    def log_prob(self, theta: np.ndarray, x: np.ndarray) -> np.ndarray:
        return _log_density(np.asarray(theta, dtype=float), np.asarray(x, dtype=float))


class StoredPosteriorWithDensity(StoredPosterior):
    """sbi's stand-in with ``log_prob(theta, x)`` for one x, as ``run_sbc``'s reduce_fns calls it."""

    def log_prob(self, theta, x):
        theta = theta.detach().numpy().astype(float)
        x = np.broadcast_to(x.detach().numpy().astype(float), theta.shape)
        return torch.as_tensor(_log_density(theta, x))


def test_expected_coverage_ranks_equal_run_sbc_with_the_log_density(pairs):
    draws = pairs["draws"]
    report = validate_posterior(
        StoredFlowWithDensity(draws),
        pairs["theta"],
        pairs["x"],
        checks="expected_coverage",
        n_posterior_samples=S,
        seed=0,
    )
    above = report.results["expected_coverage"].hpd_ranks * S  # draws of larger log q than θ
    posterior = StoredPosteriorWithDensity(draws)

    def sbi_ranks(reduce):
        ranks, _ = diagnostics.run_sbc(
            _tensor(pairs["theta"]),
            _tensor(pairs["x"]),
            posterior,
            num_posterior_samples=S,
            reduce_fns=reduce,
            show_progress_bar=False,
        )
        return ranks.numpy()[:, 0]

    by_log_prob = sbi_ranks(posterior.log_prob)
    by_minus_log_prob = sbi_ranks(lambda theta, x: -posterior.log_prob(theta, x))
    # -log q: sbi counts the draws with a larger log-density, the report's rank
    np.testing.assert_array_equal(np.round(above), by_minus_log_prob)
    np.testing.assert_allclose(above, by_minus_log_prob, rtol=0, atol=1e-9)
    # log q: sbi counts those with a smaller one, S minus the larger and the tied ones
    log_q_draws = _log_density(draws, pairs["x"][:, None, :])
    tied = np.sum(log_q_draws == _log_density(pairs["theta"], pairs["x"])[:, None], axis=1)
    assert tied[::7].min() >= 1  # the draws set equal to θ: ties, so `<` and `<=` differ
    np.testing.assert_array_equal(S - np.round(above) - tied, by_log_prob)


# --- Misspecification ---------------------------------------------------------------------------


class _PriorPredictive:
    """The exact marginal of x, N(0, (1 + 0.5) I), as sbi's marginal estimator stand-in."""

    sd = float(np.sqrt(1.5))

    def log_prob(self, x):
        x = x.detach().double()
        return -0.5 * (x / self.sd).pow(2).sum(-1) - x.shape[-1] * np.log(
            self.sd * np.sqrt(2 * np.pi)
        )

    def sample(self, sample_shape):
        return self.sd * torch.randn(*tuple(sample_shape), 2, dtype=torch.float32)


def test_misspecification_verdicts_agree_with_sbi_on_clear_cases(pairs, monkeypatch):
    """The report's check and sbi's MMD and log-prob tests, on a typical and an absurd x_obs.

    sbi's MMD p-value, 1 − #{baseline < MMD}/n_shuffle, can be 0, and its log-prob p-value is a
    share of validation rows: the verdicts at α = 0.05 are compared, not the numbers. The
    log-prob test gets the exact marginal of x, so sbi's C2ST check of that estimator (seconds
    of MLP training, only a warning) is skipped.
    """
    x = pairs["x"]
    x_obs = np.array([[0.0, 0.0], [6.0, -6.0]])  # the centre of p(x), and 5 sd out in each
    report = validate_posterior(
        StoredFlowWithDensity(pairs["draws"]),
        pairs["theta"],
        x,
        x_obs=x_obs,
        checks="misspecification",
        seed=0,
    )
    ours = report.results["misspecification"]
    assert ours.flagged_at(0.05) == [1]
    assert report.failures(0.05) == ["misspecification"]
    misspecification = pytest.importorskip("sbi.diagnostics.misspecification")
    monkeypatch.setattr(misspecification, "check_c2st", lambda *args, **kwargs: None)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        mmd = [
            misspecification.calc_misspecification_mmd(
                _tensor(row[None]), _tensor(x), n_shuffle=200
            )[0]
            for row in x_obs
        ]
        logprob = [
            misspecification.calc_misspecification_logprob(
                _tensor(x), _tensor(row[None]), _PriorPredictive()
            )
            for row in x_obs
        ]
    assert [p <= 0.05 for p in mmd] == [False, True] == [bool(r) for _, r in logprob]
    assert [p <= 0.05 for p in ours.pvalues_adjusted] == [False, True]
