"""The report's newer entries: expected coverage, SBC log-gamma, the scores, the misspecification
family of x_obs, B planned at the asked alpha."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import modelcompare as mc
from modelcompare.workflows._build import build_report
from modelcompare.workflows._checks import ReportInputs, lookup
from modelcompare.workflows._planning import plan_resamples

MODEL = mc.ConditionalGaussianModel(noise_cov=np.eye(2))


@pytest.fixture(scope="module")
def pairs() -> tuple[np.ndarray, np.ndarray]:
    return MODEL.simulate(300, seed=0)


def _quiet(**kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mc.TooFewResamplesWarning)
        return mc.validate_posterior(**kwargs)


def test_new_checks_run_on_an_exact_flow_and_pass(pairs) -> None:
    theta, x = pairs
    report = mc.validate_posterior(
        MODEL.exact_flow(),
        theta,
        x,
        checks=["sbc_log_gamma", "expected_coverage", "scores"],
        n_posterior_samples=50,
        seed=0,
    )
    assert report.failures(0.05) == []
    assert report.settings["n_resamples"] == {"sbc_log_gamma": 100}  # 20 · m · C - 1 = 79 < 100
    table = report.scores
    assert list(table.columns) == [
        "parameter",
        "nrmse",
        "r_squared",
        "contraction",
        "z_mean",
        "z_sd",
    ]
    assert len(table) == 2
    # posterior variance 1/2 of a prior variance 1: contraction ≈ 0.5, z-scores ≈ N(0, 1)
    assert np.allclose(table["contraction"], 0.5, atol=0.1)
    assert np.allclose(table["z_sd"], 1.0, atol=0.15)
    assert "scores" not in report.pvalues_adjusted


def test_a_too_narrow_flow_fails_the_new_tests(pairs) -> None:
    theta, x = pairs
    report = mc.validate_posterior(
        MODEL.exact_flow(scale_factor=0.6),
        theta,
        x,
        checks=["sbc_log_gamma", "expected_coverage", "scores"],
        n_posterior_samples=50,
        seed=0,
    )
    assert report.failures(0.05) == ["sbc_log_gamma", "expected_coverage"]


def test_scores_are_none_when_not_computed_and_log_prob_is_needed(pairs) -> None:
    theta, x = pairs

    class SampleOnly:
        def sample(self, x, n, seed=None):
            return MODEL.exact_flow().sample(x, n, seed=seed)

    report = mc.validate_posterior(
        SampleOnly(), theta, x, checks=["sbc", "expected_coverage"], n_posterior_samples=20, seed=0
    )
    assert report.scores is None
    assert "log_prob" in report.checks.set_index("name").loc["expected_coverage", "skipped"]


def test_sbc_log_gamma_is_global_in_the_plan() -> None:
    # m = 2 parameters, E = 3 points: local coverage is corrected over the points, log-gamma not
    plan = plan_resamples(
        [lookup("sbc_log_gamma"), lookup("local_coverage")], None, m=2, e=3, limits={}
    )
    assert plan == {"sbc_log_gamma": 100, "local_coverage": 239}  # 20·2·2 - 1 = 79 < 100


def _misspecification(x_sim: np.ndarray, x_obs: np.ndarray, seed: int):
    inputs = ReportInputs(n=x_sim.shape[0], x=x_sim, x_obs=x_obs)
    return build_report(inputs, seed=seed, registry=[lookup("misspecification")])


def test_misspecification_keeps_its_size_and_flags_a_far_observation() -> None:
    rejections = 0
    n_rep = 60
    for rep in range(n_rep):
        _, x = MODEL.simulate(203, seed=100 + rep)
        report = _misspecification(x[:200], x[200:], seed=rep)  # three typical observations
        rejections += report.failures(0.05) == ["misspecification"]
    # at most α in expectation: allow the binomial noise of 60 repetitions
    assert rejections / n_rep <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / n_rep)
    _, x = MODEL.simulate(200, seed=1)
    far = np.vstack([x[:1] * 0 + 12.0, x[1:2]])
    report = _misspecification(x, far, seed=0)
    assert report.failures(0.05) == ["misspecification"]
    assert report.results["misspecification"].flagged_at(0.05) == [0]
    assert report.summary().startswith("The simulator rarely produces data like x_obs row 1 = (12")
    first = report.findings.iloc[0]
    assert (first["kind"], first["where"]) == ("misspecified_observation", "x_obs row 1 = (12, 12)")


def test_a_local_verdict_at_a_misspecified_observation_is_not_a_finding(pairs) -> None:
    theta, x = pairs
    flow = MODEL.exact_flow(scale_factor=0.5)  # too narrow everywhere, so every point rejects
    x_obs = np.array([[0.0, 0.0], [12.0, -12.0]])
    report = mc.validate_posterior(
        flow, theta, x, x_obs=x_obs, checks=["misspecification", "local_coverage"], seed=0
    )
    assert report.failures(0.05) == ["misspecification", "local_coverage"]
    kinds = list(report.findings["kind"])
    assert kinds == ["misspecified_observation", "local"]
    local = report.findings.iloc[1]["where"]
    assert "x_obs row 1 = (0, 0)" in local  # the user's own observation, by its row
    assert "x_obs row 2" not in local
    assert "12" not in local


def test_misspecification_is_a_family_of_its_own(pairs) -> None:
    theta, x = pairs
    x_obs = np.full((1, 2), 12.0)
    kwargs = {"checks": ["misspecification", "global_coverage", "local_coverage"], "seed": 0}
    report = mc.validate_posterior(MODEL.exact_flow(), theta, x, x_obs=x_obs, **kwargs)
    # the local checks run at x_obs only; B counts the two posterior checks, not the simulator's
    assert report.settings["n_eval_points"] == 1
    assert report.settings["n_resamples"] == {"local_coverage": 100}  # 20 · 2 · 1 · 2 - 1 < 100
    assert report.failures(0.05)[0] == "misspecification"
    rows = {row["name"]: row for row in report.to_dict()["checks"]}
    assert rows["misspecification"]["family"] == "simulator"
    assert rows["global_coverage"]["family"] == "posterior"
    alone = mc.validate_posterior(
        MODEL.exact_flow(), theta, x, x_eval=x_obs, checks=kwargs["checks"][1:], seed=0
    )
    # the posterior checks' Holm correction is the same with or without the simulator's check
    for name in ("global_coverage", "local_coverage"):
        assert report.pvalues_adjusted[name] == alone.pvalues_adjusted[name]


def test_x_obs_joins_x_eval_and_is_checked(pairs) -> None:
    theta, x = pairs
    report = mc.validate_posterior(
        MODEL.exact_flow(), theta, x, x_eval=x[:2], x_obs=x[2:3], checks=["local_coverage"], seed=0
    )
    assert report.settings["n_eval_points"] == 3
    with pytest.raises(ValueError, match="`x_obs`"):
        mc.validate_posterior(MODEL.exact_flow(), theta, x, x_obs=np.zeros((1, 3)))
    skipped = mc.validate_posterior(MODEL.exact_flow(), theta, x, checks="misspecification")
    assert "x_obs" in skipped.outcomes[0].skipped


def test_alpha_plans_b_and_a_stricter_alpha_warns(pairs) -> None:
    theta, x = pairs
    kwargs = {"checks": ["global_coverage", "local_coverage"], "seed": 0}
    report = mc.validate_posterior(MODEL.exact_flow(), theta, x, **kwargs)
    assert report.settings["n_resamples_planned"] == {"local_coverage": 399}  # 20 · 2 · 5 · 2 - 1
    with pytest.warns(mc.TooFewResamplesWarning, match="local_coverage"):
        report.failures(0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report.failures(0.05)  # the planned level: no warning
    strict = mc.validate_posterior(MODEL.exact_flow(), theta, x, alpha=0.01, **kwargs)
    assert strict.settings["n_resamples_planned"] == {"local_coverage": 1999}  # 100 · 2 · 5 · 2 - 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        strict.failures(0.01)
    with pytest.raises(ValueError, match="alpha"):
        mc.validate_posterior(MODEL.exact_flow(), theta, x, alpha=1.5, **kwargs)


def test_all_leaves_the_opt_in_check_out() -> None:
    from modelcompare.workflows._checks import select

    names = [c.name for c in select("all")]
    assert "expected_coverage" not in names
    assert {"sbc_log_gamma", "scores", "misspecification"} <= set(names)
    assert [c.name for c in select("expected_coverage")] == ["expected_coverage"]
