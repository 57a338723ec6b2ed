"""The posterior validation report: a table of checks, a verdict, and a self-contained HTML page."""

from __future__ import annotations

import base64
import html
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from modelcompare._foundation.pvalues import holm_adjust
from modelcompare._foundation.results import Result, check_alpha, result_class, to_builtin
from modelcompare._foundation.validation import check_bool, check_output_path

__all__ = ["CheckOutcome", "PosteriorReport"]


@result_class
class CheckOutcome(Result):
    """One check of a :class:`PosteriorReport`: its result, or the reason it was skipped.

    ``score`` marks a score rather than a test: it is shown, but never enters
    :meth:`PosteriorReport.failures`, the verdict or the correction across checks.
    """

    name: str
    tests: str
    result: Any
    skipped: str | None
    runtime_s: float
    score: bool = False

    @property
    def statistic(self) -> float:
        return math.nan if self.result is None else float(self.result.statistic)

    @property
    def pvalue(self) -> float:
        return math.nan if self.result is None else float(self.result.pvalue)


@result_class
class PosteriorReport(Result):
    """The checks of a posterior estimator, with one verdict (the report protocol).

    Attributes
    ----------
    outcomes : tuple of CheckOutcome
        One per check, in the order they ran; skipped checks say why.
    n : int
        Calibration pairs.
    n_params, n_features : int
        Widths of θ and x.
    seed_used : int or None
        The seed every random choice derives from (``None`` for a Generator).
    settings : dict
        The options the checks ran with; ``settings["n_resamples"]`` maps each resampling check
        to the B it ran with.
    versions : dict
        Library versions.
    input_hash : str
        SHA-256 of the inputs (θ, x, evaluation points and reference draws).

    Notes
    -----
    :meth:`failures` corrects across checks with Holm's method: each check's overall p-value
    (itself Holm-corrected across its parameters or evaluation points) is adjusted over the checks
    that ran (:attr:`pvalues_adjusted`), so that the family-wise error rate of the whole report is
    at most ``alpha``. A resampling check with B null resamples can reach an adjusted p-value no
    smaller than its number of corrected tests times the number of checks, over B + 1.
    """

    outcomes: tuple[CheckOutcome, ...]
    n: int
    n_params: int
    n_features: int
    seed_used: int | None
    settings: dict[str, Any]
    versions: dict[str, str]
    input_hash: str
    comparison: Any = None

    _repr_fields = ("n", "n_params", "seed_used")

    @property
    def results(self) -> dict[str, Any]:
        """The library result of every check that ran, by name."""
        return {o.name: o.result for o in self.outcomes if o.result is not None}

    @property
    def pvalues_adjusted(self) -> dict[str, float]:
        """The overall p-value of every test that ran, Holm-adjusted across those tests."""
        return {name: float(p) for name, p in zip(self._ran(), self._adjusted())}

    @property
    def checks(self) -> Any:
        """A table (pandas DataFrame): name, statistic, pvalue, pvalue_adjusted, tests, skipped."""
        import pandas as pd

        adjusted = self.pvalues_adjusted
        rows = [
            {
                "name": o.name,
                "statistic": o.statistic,
                "pvalue": o.pvalue,
                "pvalue_adjusted": adjusted.get(o.name, math.nan),
                "tests": o.tests,
                "skipped": o.skipped,
            }
            for o in self.outcomes
        ]
        table = pd.DataFrame(rows)
        # object dtype keeps None for the checks that ran (a string column would show NaN)
        table["skipped"] = pd.Series([o.skipped for o in self.outcomes], dtype=object)
        return table

    def _ran(self) -> list[str]:
        """The tests that ran (the scores aside): the family of the correction across checks."""
        return [o.name for o in self.outcomes if o.result is not None and not o.score]

    def _adjusted(self) -> np.ndarray:
        ran = set(self._ran())
        return holm_adjust(np.array([o.pvalue for o in self.outcomes if o.name in ran]))

    def failures(self, alpha: float = 0.05) -> list[str]:
        """The checks that reject at ``alpha`` after Holm's correction across the checks."""
        alpha = check_alpha(alpha)
        return [name for name, p in zip(self._ran(), self._adjusted()) if p <= alpha]

    def summary(self, alpha: float = 0.05) -> str:
        """A short plain-language verdict at level ``alpha``."""
        failed = self.failures(alpha)
        ran = self._ran()
        skipped = [o.name for o in self.outcomes if o.result is None]
        scored = [o.name for o in self.outcomes if o.result is not None and o.score]
        if not ran:
            verdict = "No test ran; scores only." if scored else "No check could run."
        elif failed:
            verdict = (
                f"Do not trust this posterior yet: {len(failed)} of {len(ran)} checks reject "
                f"calibration at alpha = {alpha:g} (Holm across checks): {', '.join(failed)}."
            )
        else:
            verdict = (
                f"No evidence against this posterior: none of {len(ran)} checks rejects at "
                f"alpha = {alpha:g} (Holm across checks). Absence of evidence is not proof: "
                "more calibration pairs give more power."
            )
        if skipped:
            verdict += f" Skipped: {', '.join(skipped)}."
        if self.comparison is not None:
            verdict += " " + comparison_sentence(self.comparison, alpha)
        return verdict

    def to_dict(self, *, include_arrays: bool = True) -> dict[str, Any]:
        """The report as JSON-safe Python objects: the table, each result, and the footer."""
        include_arrays = check_bool(include_arrays, "include_arrays")
        adjusted = self.pvalues_adjusted
        return {
            "checks": [
                {
                    "name": o.name,
                    "tests": o.tests,
                    "statistic": o.statistic,
                    "pvalue": o.pvalue,
                    "pvalue_adjusted": adjusted.get(o.name, math.nan),
                    "skipped": o.skipped,
                    "score": o.score,
                    "runtime_s": o.runtime_s,
                    "result": None
                    if o.result is None
                    else to_builtin(o.result, include_arrays=include_arrays),
                }
                for o in self.outcomes
            ],
            "failures": self.failures(),
            "summary": self.summary(),
            "n": self.n,
            "n_params": self.n_params,
            "n_features": self.n_features,
            "seed_used": self.seed_used,
            "settings": to_builtin(self.settings),
            "versions": dict(self.versions),
            "input_hash": self.input_hash,
            "comparison": None
            if self.comparison is None
            else to_builtin(self.comparison, include_arrays=include_arrays),
        }

    def to_json(self, path: str | Path, *, include_arrays: bool = False) -> Path:
        """Write :meth:`to_dict` as JSON (NaN and inf as ``null``); return the path."""
        path = check_output_path(path, "path")
        include_arrays = check_bool(include_arrays, "include_arrays")
        text = json.dumps(_nan_to_none(self.to_dict(include_arrays=include_arrays)), indent=1)
        path.write_text(text + "\n", encoding="utf-8")
        return path

    def to_html(self, path: str | Path, *, alpha: float = 0.05) -> Path:
        """Write one self-contained HTML page (figures inline, no network resources)."""
        path = check_output_path(path, "path")
        path.write_text(render_html(self, alpha=check_alpha(alpha)), encoding="utf-8")
        return path


def _nan_to_none(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _nan_to_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_to_none(v) for v in value]
    return value


# --------------------------------------------------------------------------------------------------
# HTML

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:980px;margin:2em auto;
padding:0 1em;color:#1f2328;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;border-bottom:1px solid #d0d7de;
padding-bottom:.2em;margin-top:2em}
.verdict{padding:.8em 1em;border-radius:6px;margin:1em 0;font-weight:500}
.pass{background:#dafbe1;border:1px solid #4ac26b}.fail{background:#ffebe9;border:1px solid #ff8182}
table{border-collapse:collapse;width:100%;font-size:.92em}
th,td{border:1px solid #d0d7de;padding:.35em .6em;text-align:left}th{background:#f6f8fa}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.reject{color:#cf222e;font-weight:600}.ok{color:#1a7f37}.skip{color:#6e7781}
figure{margin:1em 0}img{max-width:100%}
.reading{color:#424a53;font-size:.95em}
footer{margin-top:3em;font-size:.85em;color:#57606a;border-top:1px solid #d0d7de;padding-top:1em}
code{background:#f6f8fa;padding:0 .2em;border-radius:3px}
"""


def _figure_uri(draw: Any) -> str | None:
    """Render ``draw(fig)`` to a base64 PNG data URI (Agg, no display)."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        from matplotlib.figure import Figure
    except ImportError:
        return None
    fig = Figure(figsize=(8.0, 3.4), layout="constrained")
    draw(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _draw(outcome: CheckOutcome) -> Any:
    """A function of a figure drawing one check's result, or None (the check's ``draw``)."""
    from modelcompare.workflows._checks import lookup

    check = lookup(outcome.name)
    if check is None or check.draw is None:
        return None
    return lambda fig: check.draw(fig, outcome.result)


def _reading(name: str) -> str:
    """How to read the figure of the check ``name`` (empty for an unregistered check)."""
    from modelcompare.workflows._checks import lookup

    check = lookup(name)
    return "" if check is None else check.reading


def _fmt(value: float) -> str:
    return "–" if not math.isfinite(value) else f"{value:.4g}"


def comparison_sentence(comparison: Any, alpha: float) -> str:
    """One sentence on a :func:`compare_posteriors` result: which estimator is closer, if any."""
    if not comparison.decision(alpha):
        return (
            f"Comparison: neither estimator is shown to be closer to the true posterior at "
            f"alpha = {alpha:g} (p = {comparison.pvalue:.3g})."
        )
    who = "this posterior" if comparison.statistic > 0 else "the compared estimator"
    return (
        f"Comparison: {who} is closer to the true posterior (mean log-score difference "
        f"{comparison.statistic:.3g} nats per pair, p = {comparison.pvalue:.3g})."
    )


def render_html(report: PosteriorReport, *, alpha: float) -> str:
    """The report as one HTML page with inline CSS and base64 PNG figures."""
    esc = html.escape
    failed = set(report.failures(alpha))
    adjusted = report.pvalues_adjusted
    verdict_class = "fail" if failed else "pass"
    rows = []
    for o in report.outcomes:
        if o.result is None:
            status = f'<span class="skip">skipped: {esc(o.skipped or "")}</span>'
        elif o.score:
            status = '<span class="skip">a score, not tested</span>'
        elif o.name in failed:
            status = '<span class="reject">rejects</span>'
        else:
            status = '<span class="ok">passes</span>'
        rows.append(
            f'<tr><td><a href="#{o.name}">{esc(o.name)}</a></td><td>{esc(o.tests)}</td>'
            f'<td class="num">{_fmt(o.statistic)}</td><td class="num">{_fmt(o.pvalue)}</td>'
            f'<td class="num">{_fmt(adjusted.get(o.name, math.nan))}</td><td>{status}</td></tr>'
        )
    sections = []
    for o in report.outcomes:
        reading = _reading(o.name)
        body = f"<p>Tests that {esc(o.tests)}.</p>"
        if o.result is None:
            body += f'<p class="skip">Skipped: {esc(o.skipped or "")}</p>'
        else:
            draw = _draw(o)
            uri = _figure_uri(draw) if draw is not None else None
            if uri is not None:
                body += f'<figure><img alt="{esc(o.name)} figure" src="{uri}"></figure>'
            body += f'<p class="reading"><b>Reading.</b> {esc(reading)}</p>'
            body += (
                f"<p>statistic = {_fmt(o.statistic)}, p = {_fmt(o.pvalue)}, runtime "
                f"{o.runtime_s:.2f} s. <code>{esc(repr(o.result))}</code></p>"
            )
        sections.append(f'<section id="{o.name}"><h2>{esc(o.name)}</h2>{body}</section>')
    if report.comparison is not None:
        c = report.comparison
        ci = c.confidence_interval()
        sections.append(
            '<section id="comparison"><h2>comparison with a second estimator</h2>'
            f"<p>{esc(comparison_sentence(c, alpha))} Mean log-score difference "
            f"{c.statistic:.4g} nats per pair (95 % CI [{ci.low:.4g}, {ci.high:.4g}]), "
            f"p = {c.pvalue:.3g}; by evaluation point: {esc(', '.join(c.where(alpha)))}. "
            "A section, not a check: outside the Holm correction across checks.</p></section>"
        )
    versions = ", ".join(f"{k} {v}" for k, v in report.versions.items())
    settings = esc(json.dumps(_nan_to_none(to_builtin(report.settings)), sort_keys=True))
    footer = (
        f"<footer><b>Reproducibility.</b> {esc(versions)}.<br>seed used: {report.seed_used}; "
        f"n = {report.n} calibration pairs, θ in R^{report.n_params}, x in R^{report.n_features}; "
        f"total runtime {sum(o.runtime_s for o in report.outcomes):.2f} s.<br>"
        f"settings: <code>{settings}</code><br>"
        f"SHA-256 of the inputs: <code>{report.input_hash}</code></footer>"
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Posterior validation report</title><style>{_CSS}</style></head><body>"
        "<h1>Posterior validation report</h1>"
        f'<div class="verdict {verdict_class}">{esc(report.summary(alpha))}</div>'
        "<table><thead><tr><th>check</th><th>what it tests</th><th>statistic</th><th>p</th>"
        f"<th>p (Holm across checks)</th><th>at alpha = {alpha:g}</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
        + "".join(sections)
        + footer
        + "</body></html>"
    )
