"""The report reads its own level, and gives one answer per claim."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest

from modelcompare import ConditionalGaussianModel, validate_posterior
from modelcompare.workflows import report_from_arrays
from modelcompare.workflows._report_page import render_html

pytest.importorskip("matplotlib")

CHECKS = ["sbc", "global_coverage", "pit_independence", "local_coverage"]


@pytest.fixture(scope="module")
def pairs():
    model = ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(400, seed=0)
    return model, theta, x


def _levels(text):
    """Every level a text states, as ``alpha = <number>``."""
    return {float(v) for v in re.findall(r"alpha = ([0-9.e-]+\d)", text)}


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
def test_a_report_states_its_own_level_everywhere(pairs, alpha):
    model, theta, x = pairs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = validate_posterior(
            model.exact_flow(scale_factor=1.3),
            theta,
            x,
            checks=CHECKS,
            n_posterior_samples=50,
            alpha=alpha,
            seed=0,
        )
    assert report.alpha == alpha
    assert _levels(report.summary()) == {alpha}
    page = render_html(report, alpha=report.alpha)
    assert _levels(page) == {alpha}
    data = report.to_dict(include_arrays=False)
    assert data["alpha"] == alpha
    assert _levels(data["summary"]) == {alpha}
    assert data["failures"] == report.failures(alpha)
    # the level B was planned for lets each resampling check reach it
    assert all(f <= alpha for f in report.settings["pvalue_floors"].values())
    json.dumps(data, allow_nan=True)


def test_another_level_at_read_time_is_stated(pairs):
    model, theta, x = pairs
    report = validate_posterior(
        model.exact_flow(), theta, x, checks=["sbc", "global_coverage"], seed=0, alpha=0.01
    )
    text = report.summary(0.1)
    assert "not at the level the report was planned for (0.01)" in text
    assert "not at the level" not in report.summary()


def test_the_arrays_report_plans_at_its_level(pairs):
    _model, theta, x = pairs
    pit = np.random.default_rng(0).uniform(size=theta.shape)
    at = {
        a: report_from_arrays(
            pit_values=pit, x=x, checks=["local_coverage"], alpha=a, seed=0
        ).settings["n_resamples_planned"]["local_coverage"]
        for a in (0.05, 0.01)
    }
    assert at[0.01] > at[0.05]


def test_local_coverage_test_coverage_and_report_agree(pairs, tmp_path):
    """One check, one answer: the library call, ``coverage`` and ``report`` on the same seed."""
    from click.testing import CliRunner

    from modelcompare import local_coverage_test, pit
    from modelcompare.cli import app

    model, theta, x = pairs
    p = pit(model.exact_flow(scale_factor=1.2), theta, x)
    np.save(tmp_path / "pit.npy", p)
    np.save(tmp_path / "x.npy", x)
    report = report_from_arrays(pit_values=p, x=x, seed=0)
    b = report.settings["n_resamples"]["local_coverage"]
    s = report.settings["check_seeds"]["local_coverage"]
    direct = local_coverage_test(p, x, report.settings["x_eval"], n_resamples=b, seed=s)
    assert direct.pvalue == report.results["local_coverage"].pvalue
    files = [str(tmp_path / "pit.npy"), str(tmp_path / "x.npy")]
    out = CliRunner().invoke(app, ["coverage", *files, "--seed", "0", "--json"])
    coverage = json.loads(out.stdout)
    assert coverage["local_coverage"]["pvalue"] == direct.pvalue
    assert coverage["local_coverage"]["n_resamples"] == b
    assert coverage["local_coverage"]["seed_used"] == s
    out = CliRunner().invoke(
        app, ["report", "--pit", files[0], "--x", files[1], "--seed", "0", "--json", "-q"]
    )
    data = json.loads(out.stdout)
    row = next(c for c in data["checks"] if c["name"] == "local_coverage")
    assert row["pvalue"] == direct.pvalue
    assert row["result"]["seed_used"] == s


def test_a_gross_failure_reads_worse_than_a_borderline_one():
    """Both at the floor of their resamples: the bound and the effect size tell them apart."""
    model = ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(1000, seed=0)
    reports = {}
    for factor in (1.3, 3.0):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reports[factor] = validate_posterior(
                model.exact_flow(scale_factor=factor),
                theta,
                x,
                checks=["global_coverage", "local_coverage"],
                seed=0,
            )
    mild, gross = reports[1.3], reports[3.0]
    assert mild.failures() == gross.failures() == ["global_coverage", "local_coverage"]
    # the local check sits at its floor in both: a bound, the same number
    for r in (mild, gross):
        assert r.pvalues_adjusted_bound["local_coverage"]
        assert "p ≤ " in r.summary()
        assert r.to_dict()["checks"][1]["pvalue_adjusted_is_bound"]
        assert "≤ " in render_html(r, alpha=0.05)
    assert mild.pvalues_adjusted["local_coverage"] == gross.pvalues_adjusted["local_coverage"]
    # the effect size and the exact p-value of the global check tell them apart
    assert gross.effect_sizes["local_coverage"] > 2 * mild.effect_sizes["local_coverage"]
    assert gross.pvalues_adjusted["global_coverage"] < mild.pvalues_adjusted["global_coverage"]
    text = {f: r.summary() for f, r in reports.items()}
    effect = {
        f: float(
            re.search(r"local_coverage \(p ≤ [^;]+; statistic ([0-9.e+]+) null SDs", t).group(1)
        )
        for f, t in text.items()
    }
    assert effect[3.0] > effect[1.3]


def test_findings_label_their_follow_up_tests(pairs):
    """A finding's p-value comes from a follow-up test, and says so; the check decides."""
    model, theta, x = pairs
    report = validate_posterior(
        model.exact_flow(scale_factor=1.6),
        theta,
        x,
        checks=["sbc", "global_coverage"],
        n_posterior_samples=50,
        seed=0,
    )
    evidence = list(report.findings["evidence"])
    assert evidence
    for text in evidence:
        assert "by the follow-up" in text
        assert "rejects in the table" in text
    # every p-value on the table's scale of a rejected check is at or below the level
    for name in report.failures():
        assert report.pvalues_adjusted[name] <= report.alpha
