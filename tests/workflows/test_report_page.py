"""The posterior report's page: the packaged template on the shared base layout, with autoescaping."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from modelcompare import MissingDependencyError
from modelcompare._foundation.results import TestResult, result_class
from modelcompare.workflows import _checks
from modelcompare.workflows._build import build_report
from modelcompare.workflows._checks import REGISTRY, Check, ReportInputs
from modelcompare.workflows._findings import NO_FINDING
from modelcompare.workflows._report_page import render_html

pytest.importorskip("jinja2")


@result_class
class _Fixed(TestResult):
    statistic: float
    pvalue: float


def _report(monkeypatch: pytest.MonkeyPatch, pvalue: float = 0.001, reading: str = "Read it."):
    check = Check(
        name="odd",
        tests="<script>alert('x')</script> & more",
        reading=reading,
        needs=(),
        run=lambda inputs, rng: _Fixed(statistic=1.5, pvalue=pvalue),
    )
    monkeypatch.setattr(_checks, "REGISTRY", (*REGISTRY, check))
    return build_report(ReportInputs(), checks=["odd"], seed=0)


def test_the_page_extends_the_base_layout_with_its_own_style(monkeypatch):
    page = render_html(_report(monkeypatch), alpha=0.05)
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>Posterior validation report</title>" in page
    assert "<h1>Posterior validation report</h1>" in page
    assert "max-width:980px" in page  # the report's style, not the base layout's
    assert "max-width:1100px" not in page
    assert page.rstrip().endswith("</footer>\n</body>\n</html>")
    assert "<footer>\n<b>Reproducibility.</b>" not in page
    assert "<footer><b>Reproducibility.</b>" in page
    assert '<section id="odd"><h2>odd</h2>' in page
    assert '<div class="verdict fail">' in page
    # a rejecting check without findings: the page says none names what is wrong
    assert f'<section id="findings"><h2>findings</h2><p>{NO_FINDING}</p></section>' in page


def test_every_value_is_escaped(monkeypatch):
    report = _report(monkeypatch, reading='x < y & "z"')
    page = render_html(report, alpha=0.05)
    assert "<script>" not in page
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more" in page
    assert "x &lt; y &amp; &#34;z&#34;" in page


def test_a_passing_report_has_no_findings_section(monkeypatch):
    page = render_html(_report(monkeypatch, pvalue=0.5), alpha=0.05)
    assert '<div class="verdict pass">' in page
    assert 'id="findings"' not in page
    assert '<span class="ok">passes</span>' in page


def test_a_missing_jinja2_names_the_html_extra(monkeypatch, tmp_path):
    report = _report(monkeypatch)
    monkeypatch.setitem(sys.modules, "jinja2", None)
    with pytest.raises(MissingDependencyError, match=r"modelcompare\[html\]"):
        report.to_html(tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()
    # everything but the page works without it
    assert report.failures() == ["odd"]
    assert np.isfinite(report.to_dict()["checks"][0]["pvalue"])
