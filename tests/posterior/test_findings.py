"""Calibration findings: which parameter is wrong, and how, on conditional-Gaussian flows."""

from __future__ import annotations

import dataclasses
import json
import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtri

import modelcompare
from modelcompare import (
    AffineGaussianFlow,
    CalibrationFindingsResult,
    ConditionalGaussianModel,
    DegenerateDataWarning,
    adjust_pvalues,
    calibration_findings,
    pit,
    sbc_ranks,
)
from modelcompare.posterior import FINDING_KINDS, NEXT_STEPS
from modelcompare.posterior._calibration._findings import _RankMoments

S = 100
CORRELATED = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
DIAGONAL = ConditionalGaussianModel(0.5 * np.eye(2))


def _ranks(model, flow, n=1000, seed=0, s=S):
    theta, x = model.simulate(n, seed=seed)
    return sbc_ranks(flow, theta, x, n_posterior_samples=s, seed=seed + 1000)


def _found(res):
    return sorted(zip(res.table["kind"], res.table["parameter"]))


def _rotation(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def _ok_rate(k, r, alpha):
    return stats.binomtest(k, r, alpha, alternative="greater").pvalue > 0.01


# ---------------------------------------------------------------------------- the null
def test_exact_flow_has_no_finding():
    """Holm keeps the family-wise rate at α: about one seed in twenty may show a false finding."""
    flow = CORRELATED.exact_flow()
    with_findings = 0
    for seed in range(10):
        theta, x = CORRELATED.simulate(500, seed=seed)
        ranks = sbc_ranks(flow, theta, x, n_posterior_samples=S, seed=seed + 100)
        res = calibration_findings(ranks, S, pit_values=pit(flow, theta, x))
        with_findings += len(res.table) > 0
        assert res.decision(0.05) is (len(res.table) > 0)
        assert len(res.sentences()) == len(res.table)
    assert with_findings <= 2


def test_familywise_rate_under_uniform_ranks():
    """Exactly uniform ranks and PIT: any finding is a false one; their rate is at most α."""
    rng = np.random.default_rng(7)
    reps, hits = 200, 0
    for _ in range(reps):
        ranks = rng.integers(0, 21, size=(200, 2))
        res = calibration_findings(ranks, 20, pit_values=rng.uniform(size=(200, 2)))
        hits += len(res.table) > 0
        assert res.decision(0.05) is (len(res.table) > 0)  # Holm: overall = any finding
    assert _ok_rate(hits, reps, 0.05)


@pytest.mark.parametrize("s", [1, 5, 20, 100, 1000])
def test_rank_model_at_zero_shift_is_the_uniform_null(s):
    model = _RankMoments(s)
    q0 = model.values(np.arange(s + 1))
    var, influence = model.dispersion_null(0.0)
    assert model.mean(0.0) == pytest.approx(0.0, abs=1e-9)
    assert var == pytest.approx(np.mean(q0**2), rel=1e-6)
    assert influence == pytest.approx(np.mean(q0**4) - np.mean(q0**2) ** 2, rel=1e-5, abs=1e-9)


@pytest.mark.parametrize("a", [0.0, 1.0, -2.5])
def test_rank_model_for_many_draws_is_the_continuous_limit(a):
    """Already at S = 2000 (the limit is used beyond S = 10,000 only)."""
    exact, limit = _RankMoments(2000), _RankMoments(2000, exact_max=1000)
    assert limit.mean(a) == pytest.approx(exact.mean(a), abs=0.02)
    for got, want in zip(limit.dispersion_null(a), exact.dispersion_null(a)):
        assert got == pytest.approx(want, rel=0.03)


def test_huge_number_of_draws_is_cheap():
    ranks = np.random.default_rng(0).integers(0, 10**12 + 1, size=(300, 2))
    res = calibration_findings(ranks, 10**12)
    assert np.isfinite(res.tests["pvalue"]).all()


# ---------------------------------------------------------------------------- dispersion
def test_over_dispersed_flow_is_too_wide():
    res = calibration_findings(_ranks(CORRELATED, CORRELATED.exact_flow(scale_factor=1.5)), S)
    assert _found(res) == [("too_wide", "θ₁"), ("too_wide", "θ₂")]
    assert (res.table["direction"] == "over-dispersed").all()
    assert (res.table["size"] < 0.7).all()  # about (1/1.5)² = 0.44


def test_under_dispersed_flow_is_too_narrow():
    res = calibration_findings(_ranks(CORRELATED, CORRELATED.exact_flow(scale_factor=0.6)), S)
    assert _found(res) == [("too_narrow", "θ₁"), ("too_narrow", "θ₂")]
    assert (res.table["size"] > 1.5).all()
    assert res.sentences()[0].startswith("θ₁: the posterior is too narrow; p = ")
    assert "Holm" in res.sentences()[0]
    assert NEXT_STEPS["too_narrow"] in res.sentences()[0]


# ---------------------------------------------------------------------------- location
@pytest.mark.parametrize(("offset", "direction"), [(0.5, "above"), (-0.5, "below")])
def test_shifted_flow_names_the_parameter_and_direction(offset, direction):
    sd = np.sqrt(np.diag(CORRELATED.posterior_cov))
    flow = CORRELATED.exact_flow(offset=np.array([0.0, offset * sd[1]]))
    res = calibration_findings(_ranks(CORRELATED, flow), S)
    assert _found(res) == [("shift", "θ₂")]
    row = res.table.iloc[0]
    assert row["direction"] == direction
    assert row["where"] == "marginal"
    # size = mean Φ⁻¹(rank): about minus the offset in posterior standard deviations
    assert row["size"] == pytest.approx(-offset, abs=0.12)
    assert "mean Φ⁻¹(rank) = " in row["evidence"]


def test_large_pure_shift_is_not_a_dispersion_error():
    """Ranks pile at 0 under a large shift, lowering var Φ⁻¹(rank); that is not 'too wide'."""
    sd = np.sqrt(np.diag(DIAGONAL.posterior_cov))
    flow = DIAGONAL.exact_flow(offset=np.array([2.0 * sd[0], 0.0]))
    ranks = _ranks(DIAGONAL, flow, n=2000)
    res = calibration_findings(ranks, S)
    assert _found(res) == [("shift", "θ₁")]
    q = ndtri((ranks[:, 0] + 0.5) / (S + 1))
    assert np.var(q) < 0.7  # compared with the null's variance it would read as too wide
    tests = res.tests.set_index(["check", "parameter"])
    assert tests.loc[("sbc_dispersion", "θ₁"), "size"] == pytest.approx(1.0, abs=0.1)


@pytest.mark.parametrize(("s", "shift", "n"), [(10, 1.0, 300), (20, 1.5, 1000), (100, 2.5, 2000)])
def test_dispersion_test_keeps_its_size_under_a_pure_shift(s, shift, n):
    """Ranks of a right-width posterior whose mean is ``shift`` sds above the truth."""
    rng = np.random.default_rng(11)
    reps, wrong = 40, 0
    for _ in range(reps):
        u = stats.norm.cdf(rng.standard_normal(n) - shift)
        res = calibration_findings(rng.binomial(s, u)[:, None], s)
        assert ("shift", "θ₁") in _found(res)
        wrong += len(res.table) > 1
    assert _ok_rate(wrong, reps, 0.05)


@pytest.mark.parametrize("width", [0.6, 1.6])
def test_location_test_keeps_its_size_under_a_pure_width_error(width):
    """Ranks of a centred posterior ``width`` times too wide: the mean of Φ⁻¹(rank) stays 0."""
    rng = np.random.default_rng(12)
    reps, shifts = 40, 0
    for _ in range(reps):
        u = stats.norm.cdf(rng.standard_normal(300) / width)
        res = calibration_findings(rng.binomial(S, u)[:, None], S)
        shifts += "shift" in set(res.table["kind"])
    assert _ok_rate(shifts, reps, 0.05)


def test_one_latent_column_tests_no_dependence():
    ranks = np.random.default_rng(2).integers(0, 11, size=(60, 1))
    res = calibration_findings(ranks, 10, pit_values=np.random.default_rng(3).uniform(size=(60, 1)))
    assert list(res.tests["check"]) == ["sbc_location", "sbc_dispersion"]


def test_shift_and_width_errors_are_told_apart():
    sd = np.sqrt(np.diag(DIAGONAL.posterior_cov))
    flow = AffineGaussianFlow(
        DIAGONAL.posterior_mean_matrix,
        np.diag([sd[0], 0.6 * sd[1]]),
        offset=np.array([0.7 * sd[0], 0.0]),
    )
    res = calibration_findings(_ranks(DIAGONAL, flow, n=1500), S)
    assert _found(res) == [("shift", "θ₁"), ("too_narrow", "θ₂")]


# ---------------------------------------------------------------------- latent ≠ parameter
def test_permuted_latent_names_the_parameter_not_the_latent_coordinate():
    """The flow's z₁ is θ₂ (exact) and z₂ is θ₁ (too wide), as after sbi's permutations."""
    sd = np.sqrt(np.diag(DIAGONAL.posterior_cov))
    scale = np.diag([1.6 * sd[0], sd[1]]) @ np.array([[0.0, 1.0], [1.0, 0.0]])
    flow = AffineGaussianFlow(DIAGONAL.posterior_mean_matrix, scale)
    theta, x = DIAGONAL.simulate(1000, seed=3)
    z = ndtri(pit(flow, theta, x))
    assert np.var(z[:, 0]) == pytest.approx(1.0, abs=0.15)  # a latent rule blames z₂ ...
    assert np.var(z[:, 1]) < 0.6
    ranks = sbc_ranks(flow, theta, x, n_posterior_samples=S, seed=4)
    res = calibration_findings(ranks, S, pit_values=pit(flow, theta, x))
    assert _found(res) == [("too_wide", "θ₁")]  # ... the marginal rule names θ₁


def test_rotated_latent_names_the_overdispersed_parameter():
    """A non-triangular scale (a 45° rotation) mixes θ₁ and θ₂ in every latent coordinate."""
    chol = np.linalg.cholesky(CORRELATED.posterior_cov)
    scale = np.diag([1.6, 1.0]) @ chol @ _rotation(np.pi / 4)
    assert not np.allclose(scale, np.tril(scale))
    flow = AffineGaussianFlow(CORRELATED.posterior_mean_matrix, scale)
    cov = scale @ scale.T  # only θ₁'s marginal is wider
    assert cov[1, 1] == pytest.approx(CORRELATED.posterior_cov[1, 1])
    res = calibration_findings(_ranks(CORRELATED, flow, seed=5), S)
    assert _found(res) == [("too_wide", "θ₁")]


# ---------------------------------------------------------------------------- dependence
def test_wrong_correlation_is_a_dependence_finding():
    sd = np.sqrt(np.diag(CORRELATED.posterior_cov))
    flow = AffineGaussianFlow(CORRELATED.posterior_mean_matrix, np.diag(sd))
    theta, x = CORRELATED.simulate(1000, seed=6)
    ranks = sbc_ranks(flow, theta, x, n_posterior_samples=S, seed=7)
    res = calibration_findings(ranks, S, pit_values=pit(flow, theta, x))
    assert _found(res) == [("dependence", "z₁, z₂")]
    row = res.table.iloc[0]
    assert (row["where"], row["direction"], row["check"]) == (
        "latent",
        "positive",
        "pit_independence",
    )
    assert row["size"] > 0.3
    assert "Spearman" in row["evidence"]
    assert "latent coordinates are dependent" in res.sentences()[0]


# ---------------------------------------------------------------------------- the family
def test_adjusted_pvalues_are_the_family_correction():
    ranks = _ranks(CORRELATED, CORRELATED.exact_flow(scale_factor=1.1), n=300)
    pits = np.random.default_rng(0).uniform(size=(300, 3))
    for correction in ("holm", "bonferroni", "fdr_bh", None):
        res = calibration_findings(ranks, S, pit_values=pits, correction=correction)
        assert len(res.tests) == 2 * 2 + 3
        expected = adjust_pvalues(res.tests["pvalue"].to_numpy(), correction)
        np.testing.assert_allclose(res.tests["pvalue_adjusted"], expected)
        assert len(res.table) == int((expected <= 0.05).sum())
        assert res.pvalue == pytest.approx(min(1.0, 7 * res.tests["pvalue"].min()))


def test_alpha_sets_the_findings():
    ranks = _ranks(CORRELATED, CORRELATED.exact_flow(scale_factor=1.15), n=400)
    strict = calibration_findings(ranks, S, alpha=1e-12)
    loose = calibration_findings(ranks, S, alpha=0.5)
    assert len(strict.table) <= len(loose.table)
    assert loose.alpha == 0.5


# ---------------------------------------------------------------------------- the result
def test_result_protocol_and_names():
    ranks = _ranks(CORRELATED, CORRELATED.exact_flow(scale_factor=0.6), n=300)
    res = calibration_findings(ranks, S, parameter_names=["mass", "radius"])
    assert isinstance(res, CalibrationFindingsResult)
    assert list(res.table.columns) == [
        "check",
        "kind",
        "parameter",
        "where",
        "direction",
        "size",
        "evidence",
    ]
    assert set(res.table["parameter"]) == {"mass", "radius"}
    assert set(res.table["kind"]) <= set(FINDING_KINDS)
    data = res.to_dict()
    json.dumps(data)
    assert data["table"][0]["kind"] == "too_narrow"
    assert repr(res).startswith("CalibrationFindingsResult(pvalue=")
    assert "too_narrow" in str(res)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.alpha = 0.1  # type: ignore[misc]


def test_vocabulary_has_six_kinds_each_with_a_next_step():
    assert list(FINDING_KINDS) == [
        "shift",
        "too_wide",
        "too_narrow",
        "dependence",
        "local",
        "misspecified_observation",
    ]
    assert set(NEXT_STEPS) == set(FINDING_KINDS)
    assert all(isinstance(v, str) and v for v in NEXT_STEPS.values())
    with pytest.raises(TypeError):
        NEXT_STEPS["shift"] = "retrain"  # type: ignore[index]


def test_default_names_use_subscripts():
    ranks = np.random.default_rng(1).integers(0, 11, size=(50, 12))
    res = calibration_findings(ranks, 10)
    assert res.parameter_names[:2] == ["θ₁", "θ₂"]
    assert res.parameter_names[-1] == "θ₁₂"


def test_constant_ranks_are_degenerate():
    ranks = np.column_stack([np.zeros(50, dtype=int), np.arange(50) % 11])
    with pytest.warns(DegenerateDataWarning, match="all equal"):
        res = calibration_findings(ranks, 10)
    assert res.degenerate
    assert ("shift", "θ₁") in _found(res)
    assert np.isfinite(res.tests["pvalue"]).all()


def test_lazy_export():
    assert modelcompare.calibration_findings is calibration_findings
    assert "calibration_findings" in modelcompare.__all__


# ---------------------------------------------------------------------------- a real sbi MAF
#: posterior sd of each θ_j in DIAGONAL: (1 + 1/0.5)^(-1/2)
POSTERIOR_SD = float(np.sqrt(1 / 3))


class _ShiftedFlow:
    """A trained posterior with a known flaw: its mass moved by ``offset`` (the adapter's flow).

    Draws are the base flow's plus ``offset``, and the latent and density follow them, so the
    flaw reaches SBC, the PIT and ``log_prob`` alike.
    """

    def __init__(self, flow, offset):
        self.flow, self.offset = flow, np.asarray(offset, dtype=float)
        self.n_params = flow.n_params

    def to_latent(self, theta, x):
        return self.flow.to_latent(np.asarray(theta) - self.offset, x)

    def sample(self, x, n, seed=None):
        return self.flow.sample(x, n, seed) + self.offset

    def log_prob(self, theta, x):
        return self.flow.log_prob(np.asarray(theta) - self.offset, x)


@pytest.fixture(scope="module")
def sbi_maf(tmp_path_factory):
    """sbi's default NPE estimator (a MAF), trained briefly on 2000 simulations of DIAGONAL."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("sbi")
    from sbi.inference import NPE
    from sbi.neural_nets import posterior_nn

    theta, x = DIAGONAL.simulate(2000, seed=0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with (
            pytest.MonkeyPatch.context() as mp,
            torch.random.fork_rng(devices=[]),
            warnings.catch_warnings(),
        ):
            mp.chdir(tmp_path_factory.mktemp("sbi"))  # sbi writes sbi-logs/ where it runs
            warnings.simplefilter("ignore")  # sbi's notes on priors and epochs
            torch.manual_seed(0)
            prior = torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))
            builder = posterior_nn(model="maf", hidden_features=16, num_transforms=2)
            inference = NPE(prior=prior, density_estimator=builder, show_progress_bars=False)
            estimator = inference.append_simulations(
                torch.as_tensor(theta, dtype=torch.float32), torch.as_tensor(x, dtype=torch.float32)
            ).train(
                max_num_epochs=20,
                training_batch_size=200,
                learning_rate=5e-3,
                show_train_summary=False,
            )
            posterior = inference.build_posterior(estimator)
    finally:
        torch.set_num_threads(threads)
    return modelcompare.SbiFlow(posterior)


def _maf_report(flow):
    theta, x = DIAGONAL.simulate(1000, seed=1)
    return modelcompare.validate_posterior(
        flow, theta, x, checks=["sbc", "global_coverage", "pit_independence"], seed=0
    )


@pytest.mark.slow  # about 10 s: training the MAF
@pytest.mark.torch
def test_a_trained_sbi_maf_has_no_finding(sbi_maf):
    report = _maf_report(sbi_maf)
    assert report.failures(0.05) == []
    assert report.findings.empty


@pytest.mark.slow
@pytest.mark.torch
@pytest.mark.parametrize(("sign", "direction"), [(1.0, "above"), (-1.0, "below")])
def test_a_trained_sbi_maf_shifted_in_theta1_is_named(sbi_maf, sign, direction):
    """Draws moved by ± half a posterior sd in θ₁: a shift of θ₁, above or below the truth."""
    flow = _ShiftedFlow(sbi_maf, [sign * 0.5 * POSTERIOR_SD, 0.0])
    report = _maf_report(flow)
    assert "sbc" in report.failures(0.05)
    found = report.findings
    assert sorted(zip(found["kind"], found["parameter"])) == [("shift", "θ₁")]
    assert list(found["direction"]) == [direction]
    # the same from the SBC ranks alone
    ranks = report.results["sbc"].ranks
    res = calibration_findings(ranks, report.results["sbc"].n_posterior_samples)
    assert _found(res) == [("shift", "θ₁")]
    assert list(res.table["direction"]) == [direction]


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"parameter_names": ["a"]}, ValueError, "parameter_names"),
        ({"parameter_names": "ab"}, TypeError, "parameter_names"),
        ({"parameter_names": ["a", 1]}, TypeError, "parameter_names"),
        ({"parameter_names": ["a", "a"]}, ValueError, "distinct"),
        ({"alpha": 1.5}, ValueError, "alpha"),
        ({"correction": "sidak"}, ValueError, "correction"),
        ({"pit_values": np.full((10, 2), 2.0)}, ValueError, "pit_values"),
    ],
)
def test_bad_options(kwargs, error, match):
    ranks = np.random.default_rng(0).integers(0, 11, size=(30, 2))
    with pytest.raises(error, match=match):
        calibration_findings(ranks, 10, **kwargs)


@pytest.mark.parametrize(
    ("ranks", "s", "match"),
    [
        (np.full((10, 2), 11), 10, "ranks"),
        (np.full((10, 2), 0.5), 10, "ranks"),
        (np.zeros(10), 10, "ranks"),
        (np.zeros((10, 2)), 0, "n_posterior_samples"),
    ],
)
def test_bad_ranks(ranks, s, match):
    with pytest.raises(ValueError, match=match):
        calibration_findings(ranks, s)
