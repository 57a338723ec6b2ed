"""The posterior report speaks with one decision: figures, readings, findings and warnings."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from modelcompare import ConditionalGaussianModel, validate_posterior
from modelcompare._foundation.errors import TooFewResamplesWarning
from modelcompare.workflows import report_from_arrays
from modelcompare.workflows._checks import lookup
from modelcompare.workflows._checks._figures import call_draw, check_parameter_names
from modelcompare.workflows._report_page import _context, render_html

pytest.importorskip("matplotlib")

FAST = ["sbc", "global_coverage", "pit_independence"]


@pytest.fixture(scope="module")
def model():
    return ConditionalGaussianModel(noise_cov=0.5 * np.eye(2))


@pytest.fixture(scope="module")
def pairs(model):
    return model.simulate(600, seed=0)


def _report(flow, pairs, checks=FAST, **kwargs):
    theta, x = pairs
    return validate_posterior(
        flow, theta, x, checks=checks, n_posterior_samples=100, seed=1, **kwargs
    )


def _figure_texts(report, name, alpha=0.05):
    """Every text of the figure of check ``name``: titles, tick labels, annotations."""
    from matplotlib.figure import Figure

    outcome = next(o for o in report.outcomes if o.name == name)
    fig = Figure()
    call_draw(lookup(name).draw, fig, outcome.result, _context(outcome, report, alpha))
    texts = [t.get_text() for t in fig.texts]
    for legend in fig.legends:
        texts += [t.get_text() for t in legend.get_texts()]
    bold = []
    for ax in fig.axes:
        texts += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        for t in ax.texts + ax.get_xticklabels() + ax.get_yticklabels():
            texts.append(t.get_text())
            if t.get_fontweight() == "bold":
                bold.append(t.get_text())
        if ax.get_legend() is not None:
            texts += [t.get_text() for t in ax.get_legend().get_texts()]
    return texts, bold


@pytest.fixture(scope="module")
def local_report(model, pairs):
    """Local checks on a shifted flow: the table decides, some checks pass and some reject."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _report(
            model.exact_flow(offset=[0.6, 0.0]),
            pairs,
            checks=["global_coverage", "local_coverage", "local_independence", "lc2st_nf"],
            n_resamples=99,
        )


def test_figure_marks_follow_the_table(local_report):
    table = local_report.checks.set_index("name")
    failed = set(local_report.failures(0.05))
    assert failed
    assert set(table.index) - failed
    for name in ("local_coverage", "local_independence", "lc2st_nf"):
        texts, bold = _figure_texts(local_report, name)
        assert not any("rejected" in t for t in texts)
        shown = [float(m) for t in texts for m in re.findall(r"p = ([0-9.e-]+)", t)]
        assert min(shown) == pytest.approx(table.loc[name, "pvalue_adjusted"], rel=0.05)
        # a bold (rejecting) point only where the table rejects the check
        assert bool(bold) == (name in failed)


def test_readings_follow_the_table(local_report):
    page = render_html(local_report, alpha=0.05)
    assert "rejected at" not in page
    for name in ("global_coverage", "local_coverage", "local_independence", "lc2st_nf"):
        section = page.split(f'<section id="{name}">')[1].split("</section>")[0]
        verb = "this check rejects" if name in local_report.failures() else "does not reject"
        assert verb in section
        assert "where the posterior is wrong" not in section


def test_points_by_coordinates_and_parameters_by_name(model, pairs):
    theta, x = pairs
    x_eval = np.array([[0.123, -1.0], [1.5, 2.25]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = validate_posterior(
            model.exact_flow(),
            theta,
            x,
            x_eval=x_eval,
            n_posterior_samples=50,
            seed=0,
            checks=["sbc", "global_coverage", "local_coverage", "lc2st_nf"],
            n_resamples=39,
            parameter_names=["mu", "sigma"],
        )
    texts, _ = _figure_texts(report, "local_coverage")
    assert any("x₀=(0.12, -1)" in t for t in texts)
    assert any("x₀=(1.5, 2.2)" in t for t in texts)
    assert any("mu" in t for t in texts)
    assert not any("θ" in t or "z1" in t for t in texts)
    for name in ("sbc", "global_coverage"):
        texts, _ = _figure_texts(report, name)
        assert any("sigma" in t for t in texts)
        assert not any(re.search(r"\bz\d|θ", t) for t in texts)
    texts, _ = _figure_texts(report, "lc2st_nf")
    assert any("latent z" in t for t in texts)
    page = render_html(report, alpha=0.05)
    assert 'title="[0.123, -1.0]"' in page


def test_default_names_and_bad_names():
    assert check_parameter_names(None, 3) == ("θ₁", "θ₂", "θ₃")
    with pytest.raises(ValueError, match="parameter_names"):
        check_parameter_names(["a"], 2)
    with pytest.raises(TypeError, match="parameter_names"):
        check_parameter_names("ab", 2)


def test_legends_sit_outside_the_axes(local_report, model, pairs):
    from matplotlib.figure import Figure

    report = _report(model.exact_flow(), pairs)
    for rep, name in [(report, "sbc"), (report, "global_coverage"), (local_report, "lc2st_nf")]:
        outcome = next(o for o in rep.outcomes if o.name == name)
        fig = Figure()
        call_draw(lookup(name).draw, fig, outcome.result, _context(outcome, rep, 0.05))
        assert all(ax.get_legend() is None for ax in fig.axes)
        assert fig.legends


def test_warnings_are_recorded_and_raised():
    rng = np.random.default_rng(0)
    pit, x = rng.uniform(size=(300, 2)), rng.normal(size=(300, 2))
    with pytest.warns(TooFewResamplesWarning, match="too few"):
        report = report_from_arrays(
            pit_values=pit,
            x=x,
            checks=["global_coverage", "local_coverage"],
            n_resamples=20,
            seed=0,
        )
    assert [c for c, _ in report.warnings] == ["TooFewResamplesWarning"]
    assert "TooFewResamplesWarning" in report.summary()
    page = render_html(report, alpha=0.05)
    assert '<section id="warnings">' in page
    assert "too few" in page
    assert report.to_dict()["warnings"][0]["category"] == "TooFewResamplesWarning"


def test_no_warning_no_warnings_section(model, pairs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = _report(model.exact_flow(), pairs)
    assert report.warnings == ()
    assert '<section id="warnings">' not in render_html(report, alpha=0.05)


@pytest.mark.parametrize(
    ("flow_kwargs", "kind"),
    [({"scale_factor": 1.6}, "too_wide"), ({"offset": [0.8, 0.0]}, "shift"), ({}, None)],
)
def test_findings_name_what_is_wrong(model, pairs, flow_kwargs, kind):
    report = _report(model.exact_flow(**flow_kwargs), pairs)
    findings = report.findings
    assert list(findings.columns) == [
        "check",
        "kind",
        "parameter",
        "where",
        "direction",
        "size",
        "evidence",
    ]
    if kind is None:
        assert report.failures() == []
        assert findings.empty
        assert "Findings" not in report.summary()
        return
    assert "sbc" in report.failures() or "global_coverage" in report.failures()
    assert kind in set(findings["kind"])
    summary = report.summary()
    assert "Findings:" in summary
    assert "Next:" in summary
    page = render_html(report, alpha=0.05)
    assert '<section id="findings">' in page
    assert "Next:" in page


def test_findings_only_where_the_table_rejects(model, pairs):
    report = _report(model.exact_flow(scale_factor=1.6), pairs)
    assert not report.findings_at(1e-300).shape[0]  # nothing rejects at that level
    assert report.findings_at(0.05).shape[0]


def test_local_finding_names_the_points(local_report):
    findings = local_report.findings
    local = findings[findings["kind"] == "local"]
    failed = set(local_report.failures())
    assert set(local["check"]) == failed & {"local_coverage", "local_independence", "lc2st_nf"}
    assert all("x₀=(" in w for w in local["where"])


def test_a_rejecting_local_check_marks_its_points(model, pairs):
    """A local check the table rejects: bold points, a "local" finding, one decision."""
    theta, x = pairs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = validate_posterior(
            model.exact_flow(scale_factor=0.4),
            theta,
            x,
            checks=["local_coverage"],
            n_resamples=None,
            seed=0,
        )
    assert report.failures() == ["local_coverage"]
    _texts, bold = _figure_texts(report, "local_coverage")
    assert bold
    assert all("x₀=(" in t for t in bold)
    local = report.findings[report.findings["kind"] == "local"]
    assert list(local["check"]) == ["local_coverage"]
    assert local["where"].iloc[0]
    assert "this check rejects" in render_html(report, alpha=0.05)
    assert "local_coverage: the posterior is miscalibrated at x₀=(" in report.summary()


@pytest.mark.parametrize("m", [2, 5, 10])
def test_local_coverage_figure_texts_never_overlap(m):
    """Panel titles and point labels keep apart at 2, 5 and 10 parameters and 20 points."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rng = np.random.default_rng(0)
    x, pit = rng.normal(size=(300, 2)), rng.uniform(size=(300, m))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = report_from_arrays(
            pit_values=pit,
            x=x,
            x_eval=rng.normal(size=(20, 2)),
            checks=["local_coverage"],
            n_resamples=20,
            seed=0,
        )
    outcome = report.outcomes[0]
    fig = Figure(figsize=(8.0, 3.4), layout="constrained")
    call_draw(lookup("local_coverage").draw, fig, outcome.result, _context(outcome, report, 0.05))
    FigureCanvasAgg(fig).draw()  # lay the figure out, so that the texts have their places
    titles = [ax.title.get_window_extent() for ax in fig.axes]
    ticks = [t.get_window_extent() for t in fig.axes[-1].get_xticklabels()]
    for boxes in (titles, ticks):
        for i, a in enumerate(boxes):
            assert not any(a.overlaps(b) for b in boxes[i + 1 :])
    assert all(b.y0 >= 0 and b.x0 >= 0 and b.x1 <= fig.bbox.x1 for b in titles + ticks)
    assert len(fig.axes) == m + 1
