"""The registry of the report's checks: every check everywhere by name, streams keyed by name,
scores outside the verdict, findings carried by the checks."""

from __future__ import annotations

import inspect
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import modelcompare as mc
from modelcompare._foundation.results import TestResult, result_class
from modelcompare.cli._report import CHECK_NAMES
from modelcompare.workflows import _checks, _findings
from modelcompare.workflows._build import build_report
from modelcompare.workflows._checks import (
    NEEDS,
    REGISTRY,
    Check,
    CheckFindings,
    FindingsContext,
    ReportInputs,
    check_names,
)


@result_class
class _Draw(TestResult):
    statistic: float
    pvalue: float


def _fake(name: str, *, score: bool = False, pvalue: float | None = None) -> Check:
    """A check whose statistic is the first uniform draw of its stream."""

    def run(inputs: ReportInputs, rng: np.random.Generator) -> _Draw:
        u = float(rng.random())
        return _Draw(statistic=u, pvalue=u if pvalue is None else pvalue)

    return Check(name=name, tests=f"fake {name}", reading="", needs=(), run=run, score=score)


def _statistics(registry, checks="all", seed=7) -> dict[str, float]:
    report = build_report(ReportInputs(), checks=checks, seed=seed, registry=registry)
    return {o.name: o.statistic for o in report.outcomes}


def test_a_checks_stream_depends_on_its_name_not_its_position() -> None:
    a, b = _fake("a"), _fake("b")
    both = _statistics([a, b])
    assert _statistics([b, a]) == both
    assert _statistics([a]) == {"a": both["a"]}
    assert _statistics([a, b], checks=["b"]) == {"b": both["b"]}
    assert both["a"] != both["b"]
    assert _statistics([a, b], seed=8) != both


def test_real_checks_keep_their_seeded_results_whatever_else_runs() -> None:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(200, seed=0)
    flow = model.exact_flow()
    kwargs = {"n_posterior_samples": 30, "n_resamples": 20, "seed": 5}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mc.TooFewResamplesWarning)
        many = mc.validate_posterior(
            flow, theta, x, checks=["sbc", "tarp", "global_coverage"], **kwargs
        )
        for name in ("sbc", "tarp", "global_coverage"):
            alone = mc.validate_posterior(flow, theta, x, checks=[name], **kwargs)
            assert alone.results[name].pvalue == many.results[name].pvalue
            assert alone.results[name].statistic == many.results[name].statistic


def test_a_score_is_shown_but_never_decides() -> None:
    test, score = _fake("a_test", pvalue=0.01), _fake("a_score", score=True, pvalue=1e-9)
    report = build_report(ReportInputs(), seed=0, registry=[test, score])
    assert [o.name for o in report.outcomes] == ["a_test", "a_score"]
    assert report.failures(0.05) == ["a_test"]  # the score's tiny p is not a rejection
    assert set(report.pvalues_adjusted) == {"a_test"}
    assert report.pvalues_adjusted["a_test"] == 0.01  # Holm over one test, not two
    assert "1 of 1 checks" in report.summary()
    rows = {row["name"]: row for row in report.to_dict()["checks"]}
    assert rows["a_score"]["score"] is True
    assert rows["a_test"]["score"] is False
    assert np.isnan(rows["a_score"]["pvalue_adjusted"])
    only = build_report(ReportInputs(), seed=0, registry=[score])
    assert only.failures(0.05) == []
    assert only.summary().startswith("No test ran; scores only.")


def test_a_score_does_not_enter_the_plan_of_b() -> None:
    resampling = Check(
        name="resampling",
        tests="fake resampling",
        reading="",
        needs=(),
        run=lambda inputs, rng: _Draw(statistic=0.0, pvalue=1.0),
        tests_per_point=lambda m: m,
    )
    inputs = ReportInputs(n_params=2, x_eval=np.zeros((3, 1)))
    alone = build_report(inputs, seed=0, registry=[resampling])
    scored = build_report(inputs, seed=0, registry=[resampling, _fake("s", score=True)])
    tested = build_report(inputs, seed=0, registry=[resampling, _fake("t")])
    # B + 1 >= 20 · m · E · C: C counts the tests, not the scores
    assert alone.settings["n_resamples"] == {"resampling": 119} == scored.settings["n_resamples"]
    assert tested.settings["n_resamples"] == {"resampling": 239}


def test_a_check_needs_known_inputs_and_a_score_plans_no_resamples() -> None:
    with pytest.raises(ValueError, match="`needs`"):
        Check(name="bad", tests="", reading="", needs=("a_flux_capacitor",), run=print)
    with pytest.raises(ValueError, match="a score has no resamples"):
        Check(
            name="bad", tests="", reading="", needs=(), run=print, score=True, tests_per_point=len
        )


def test_a_missing_need_skips_with_the_front_doors_reason() -> None:
    check = Check(name="c", tests="fake", reading="", needs=("pit",), run=print)
    report = build_report(ReportInputs(missing={"pit": "no PIT here"}), registry=[check])
    assert report.outcomes[0].skipped == "no PIT here"


def test_the_registry_names_are_unique_and_their_needs_known() -> None:
    names = [c.name for c in REGISTRY]
    assert len(set(names)) == len(names)
    assert all(set(c.needs) <= set(NEEDS) for c in REGISTRY)
    assert all(c.tests and c.reading for c in REGISTRY)


def test_the_cli_choices_read_the_registry() -> None:
    # the command line supplies every input: files (observed data through --x-obs) and the
    # estimator through --flow-pickle
    assert check_names(set(NEEDS)) == CHECK_NAMES
    assert set(check_names()) == set(CHECK_NAMES)
    # a check needing what the inputs cannot give is left out of such a list
    assert "lc2st_nf" not in check_names(set(NEEDS) - {"latent"})
    from click.testing import CliRunner

    from modelcompare.cli import app

    text = " ".join(CliRunner().invoke(app, ["report", "--help"]).output.split())
    assert ", ".join(CHECK_NAMES) in text


@pytest.fixture(scope="module")
def full_report() -> mc.PosteriorValidationResult:
    """A report where every registered check runs (cheap settings)."""
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(150, seed=0)
    flow = model.exact_flow()
    x_o = x[:1]
    reference = [(x_o, flow.sample(x_o, 100, seed=1)[0])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mc.validate_posterior(
            flow,
            theta,
            x,
            x_eval=x[:1],
            x_obs=x[1:2],
            reference=reference,
            checks=list(check_names()),  # the opt-in checks too
            n_posterior_samples=20,
            n_resamples=5,
            seed=0,
        )


def test_every_registered_check_is_in_the_table_the_json_and_the_html(
    full_report: mc.PosteriorValidationResult, tmp_path: Path
) -> None:
    names = list(check_names())
    assert list(full_report.checks["name"]) == names
    assert full_report.checks["skipped"].isna().all()  # every check ran
    tests = {c.name: c.tests for c in REGISTRY}
    assert dict(zip(full_report.checks["name"], full_report.checks["tests"])) == tests
    data = json.loads(full_report.to_json(tmp_path / "r.json").read_text())
    assert [row["name"] for row in data["checks"]] == names
    page = full_report.to_html(tmp_path / "r.html").read_text(encoding="utf-8")
    for name in names:
        assert f'<section id="{name}"><h2>{name}</h2>' in page
        assert f'<a href="#{name}">{name}</a>' in page
    for name in names:
        assert name in CHECK_NAMES


_ROW = {
    "check": "drift",
    "kind": "shift",
    "parameter": "θ₁",
    "where": "marginal",
    "direction": "above",
    "size": "0.5",
    "evidence": "p = 0.001 (the drift test)",
}


def _drift_findings(context: FindingsContext) -> CheckFindings | None:
    """The findings of the new check: one shift, only where the table rejects it."""
    if context.outcome.name not in context.failed:
        return None
    return CheckFindings(rows=[_ROW], lines=("θ₁: the posterior drifts. Next: retrain.",))


#: A new check, findings included, in one place (its module, in the library).
_DRIFT = Check(
    name="drift",
    tests="the posterior does not drift",
    reading="Read the drift.",
    needs=(),
    run=lambda inputs, rng: _Draw(statistic=2.0, pvalue=0.001),
    findings=_drift_findings,
)


def test_a_new_check_brings_its_findings_with_one_registry_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_checks, "REGISTRY", (*REGISTRY, _DRIFT))  # the one registry line
    assert "drift" in check_names()
    report = build_report(ReportInputs(), checks=["drift"], seed=0)
    assert report.failures() == ["drift"]
    assert report.findings.to_dict("records") == [_ROW]
    assert report.to_dict()["findings"] == [_ROW]
    assert "Findings: θ₁: the posterior drifts. Next: retrain." in report.summary()
    page = report.to_html(tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<li>θ₁: the posterior drifts. Next: retrain.</li>" in page
    assert "Read the drift." in page
    # a check the table does not reject has no findings
    passing = Check(
        name="drift",
        tests="",
        reading="",
        needs=(),
        run=lambda inputs, rng: _Draw(1.0, 0.5),
        findings=_drift_findings,
    )
    monkeypatch.setattr(_checks, "REGISTRY", (*REGISTRY, passing))
    assert build_report(ReportInputs(), checks=["drift"], seed=0).findings.empty


def test_the_findings_name_no_check() -> None:
    source = inspect.getsource(_findings)
    assert not [c.name for c in REGISTRY if f'"{c.name}"' in source or f"'{c.name}'" in source]
    carriers = [c.name for c in REGISTRY if c.findings is not None]
    assert carriers == [
        "misspecification",
        "sbc",
        "global_coverage",
        "local_coverage",
        "local_independence",
        "lc2st_nf",
    ]
