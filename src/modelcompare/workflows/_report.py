"""The posterior validation report: a table of checks, a verdict, and a self-contained HTML page."""

from __future__ import annotations

import base64
import html
import io
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from modelcompare._foundation.errors import TooFewResamplesWarning
from modelcompare._foundation.pvalues import holm_adjust
from modelcompare._foundation.results import Result, check_alpha, result_class, to_builtin
from modelcompare._foundation.validation import check_bool, check_output_path
from modelcompare.workflows._checks._figures import observation_label

__all__ = ["CheckOutcome", "PosteriorValidationResult"]


@result_class
class CheckOutcome(Result):
    """One check of a :class:`PosteriorValidationResult`: its result, or the reason it was skipped.

    ``score`` marks a score rather than a test: it is shown, but never enters
    :meth:`PosteriorValidationResult.failures`, the verdict or the correction across checks. ``family``
    is ``"posterior"`` (Holm across the posterior's checks) or ``"simulator"`` (a family of its
    own: whether the observed data are typical of the simulator).
    """

    name: str
    tests: str
    result: Any
    skipped: str | None
    runtime_s: float
    score: bool = False
    family: str = "posterior"

    @property
    def statistic(self) -> float:
        return math.nan if self.result is None else float(self.result.statistic)

    @property
    def pvalue(self) -> float:
        return math.nan if self.result is None else float(self.result.pvalue)


@result_class
class PosteriorValidationResult(Result):
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
    comparison : object or None
        The :func:`compare_posteriors` result of ``compare_with``.
    warnings : tuple of (str, str)
        (category, message) of every warning raised while the report was built; they are also
        raised to the caller, and listed by :meth:`summary` and the HTML page.
    pit_values : numpy.ndarray or None
        The PIT values the checks read, for the dependence findings (:attr:`findings`).

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
    warnings: tuple[tuple[str, str], ...] = ()
    pit_values: Any = None

    _repr_fields = ("n", "n_params", "seed_used")

    @property
    def results(self) -> dict[str, Any]:
        """The library result of every check that ran, by name."""
        return {o.name: o.result for o in self.outcomes if o.result is not None}

    @property
    def pvalues_adjusted(self) -> dict[str, float]:
        """The overall p-value of every test that ran, Holm-adjusted across the posterior's tests.

        A check of the simulator's family keeps its own p-value (already Holm-adjusted across
        the observations): it is outside the posterior's correction.
        """
        adjusted = {name: float(p) for name, p in zip(self._ran(), self._adjusted())}
        return {o.name: o.pvalue for o in self._simulator()} | adjusted

    @property
    def pvalues_bound(self) -> dict[str, bool]:
        """Whether each check's own p-value (:attr:`CheckOutcome.pvalue`) is only a bound.

        A Monte Carlo p-value at its floor, (tests per point)·E/(B + 1) after the check's own
        corrections (``settings["check_floors"]``), says only p ≤ floor: more resamples could
        show a smaller one.
        """
        from modelcompare.workflows._evidence import at_floor

        floors = self.settings.get("check_floors") or {}
        return {
            o.name: at_floor(o.pvalue, floors.get(o.name))
            for o in self.outcomes
            if o.result is not None
        }

    @property
    def pvalues_adjusted_bound(self) -> dict[str, bool]:
        """Whether each value of :attr:`pvalues_adjusted` is only a bound ("p ≤ …").

        Holm's adjusted value is a bound when the term its running maximum takes came from a
        p-value at its floor (:attr:`pvalues_bound`).
        """
        from modelcompare.workflows._evidence import bound_flags

        own = self.pvalues_bound
        ran = self._ran()
        flags = bound_flags(
            np.array([o.pvalue for o in self.outcomes if o.name in set(ran)]),
            np.array([own[name] for name in ran], dtype=bool),
        )
        return {o.name: own[o.name] for o in self._simulator()} | dict(zip(ran, map(bool, flags)))

    @property
    def effect_sizes(self) -> dict[str, float]:
        """How far each resampling check's statistic lies beyond its null, in null SDs.

        The largest (T − mean T⁽ᵇ⁾)/sd T⁽ᵇ⁾ over the check's tests and evaluation points, read
        off the null draws the check computed (:func:`effect_size`); NaN for a check without
        null draws, whose p-value is exact and has no floor. Two p-values at the same floor
        say "p ≤ floor" alike; the effect size tells a gross failure from a borderline one.
        """
        from modelcompare.workflows._evidence import effect_size

        return {o.name: effect_size(o.result) for o in self.outcomes if o.result is not None}

    @property
    def scores(self) -> Any:
        """The per-parameter scores (pandas DataFrame), or None when no score was computed."""
        result = self.results.get("scores")
        return None if result is None else result.table

    @property
    def checks(self) -> Any:
        """A table (pandas DataFrame), one row per check.

        Columns ``name, statistic, pvalue, pvalue_adjusted`` (Holm across the checks),
        ``pvalue_bound`` (the adjusted p-value is a bound, p ≤ …: see
        :attr:`pvalues_adjusted_bound`), ``effect_size`` (in null SDs: :attr:`effect_sizes`),
        ``tests`` and ``skipped``.
        """
        import pandas as pd

        adjusted, bound = self.pvalues_adjusted, self.pvalues_adjusted_bound
        effects = self.effect_sizes
        rows = [
            {
                "name": o.name,
                "statistic": o.statistic,
                "pvalue": o.pvalue,
                "pvalue_adjusted": adjusted.get(o.name, math.nan),
                "pvalue_bound": bound.get(o.name, False),
                "effect_size": effects.get(o.name, math.nan),
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
        """The posterior's tests that ran (the scores aside): the family of the correction."""
        return [
            o.name
            for o in self.outcomes
            if o.result is not None and not o.score and o.family == "posterior"
        ]

    def _simulator(self) -> list[CheckOutcome]:
        """The simulator's tests that ran (misspecification): a family of their own."""
        return [o for o in self.outcomes if o.result is not None and o.family == "simulator"]

    def _warn_floors(self, alpha: float) -> None:
        """Warn when ``alpha`` is below the level B was planned for and a check cannot reach it."""
        planned = self.settings.get("alpha", alpha)
        floors = self.settings.get("pvalue_floors") or {}
        short = {name: f for name, f in floors.items() if f > alpha and alpha < planned}
        if short:
            listed = ", ".join(f"{name} (smallest p {f:.3g})" for name, f in short.items())
            warnings.warn(
                f"alpha = {alpha:g} is below the level B was planned for ({planned:g}): "
                f"{listed} cannot reject at {alpha:g} after the corrections. Plan for it with "
                f"validate_posterior(..., alpha={alpha:g}).",
                TooFewResamplesWarning,
                stacklevel=3,
            )

    def _adjusted(self) -> np.ndarray:
        ran = set(self._ran())
        return holm_adjust(np.array([o.pvalue for o in self.outcomes if o.name in ran]))

    @property
    def parameter_names(self) -> tuple[str, ...]:
        """The names of θ's coordinates (``settings["parameter_names"]``; θ₁ … θₘ by default)."""
        from modelcompare.workflows._checks._figures import default_parameter_names

        names = self.settings.get("parameter_names")
        return tuple(names) if names else default_parameter_names(self.n_params)

    @property
    def alpha(self) -> float:
        """The report's level (``settings["alpha"]``; 0.05 by default)."""
        return float(self.settings.get("alpha") or 0.05)

    @property
    def findings(self) -> Any:
        """What is wrong, at the report's level: a table (see :meth:`findings_at`)."""
        return self.findings_at(self.alpha)

    def findings_at(self, alpha: float | None = None) -> Any:
        """The findings at level ``alpha``: what is wrong and where (a pandas DataFrame).

        Columns ``check, kind, parameter, where, direction, size, evidence``, as in
        :func:`~modelcompare.posterior.calibration_findings`, run at ``alpha`` on the SBC ranks
        (shift, too_wide, too_narrow) and the PIT values (dependence), plus one row of kind
        ``"local"`` per local check naming the evaluation points where it rejects. A finding is
        listed only where the check behind it rejects at ``alpha`` after Holm's correction
        across the checks (:meth:`failures`): the findings never contradict the table.
        """
        from modelcompare.workflows._findings import report_findings

        return report_findings(self, self._level(alpha)).table

    def _level(self, alpha: float | None) -> float:
        """``alpha``, checked, or the report's own level (:attr:`alpha`) when None."""
        return self.alpha if alpha is None else check_alpha(alpha)

    def failures(self, alpha: float | None = None) -> list[str]:
        """The checks that reject at ``alpha`` after Holm's correction across the checks.

        ``alpha=None`` (default) reads the report's own level (:attr:`alpha`, the level B was
        planned for).

        A check of the simulator's family (``misspecification``) is listed first when it rejects
        at ``alpha`` by its own p-value: it is outside the posterior checks' correction. Warns
        (:class:`TooFewResamplesWarning`, naming the checks) when ``alpha`` is below the level
        the report planned B for and some check's smallest attainable p-value exceeds it.
        """
        alpha = self._level(alpha)
        self._warn_floors(alpha)
        simulator = [o.name for o in self._simulator() if o.pvalue <= alpha]
        return simulator + [name for name, p in zip(self._ran(), self._adjusted()) if p <= alpha]

    def summary(self, alpha: float | None = None) -> str:
        """A short plain-language verdict at level ``alpha``, with the findings and warnings.

        ``alpha=None`` (default) reads the report's own level (:attr:`alpha`); another level
        is stated as such in the verdict.

        When some check rejects, the findings (:meth:`findings_at`) follow with a next step per
        kind; every warning raised while the report was built is listed last.
        """
        return self._verdict(self._level(alpha), details=True)

    def _verdict(self, alpha: float, *, details: bool) -> str:
        """The verdict; with ``details``, the findings and warnings too (the HTML shows those
        in sections of their own)."""
        ran = self._ran()
        failed = [name for name in self.failures(alpha) if name in ran]
        skipped = [o.name for o in self.outcomes if o.result is None]
        scored = [o.name for o in self.outcomes if o.result is not None and o.score]
        if not ran and not self._simulator():
            verdict = "No test ran; scores only." if scored else "No check could run."
        elif not ran:
            verdict = "No posterior check ran."
        elif failed:
            listed = ", ".join(self.evidence(name) for name in failed)
            verdict = (
                f"Do not trust this posterior yet: {len(failed)} of {len(ran)} checks reject "
                f"calibration at alpha = {alpha:g} (Holm across checks): {listed}."
            )
        else:
            verdict = (
                f"No evidence against this posterior: none of {len(ran)} checks rejects at "
                f"alpha = {alpha:g} (Holm across checks). Absence of evidence is not proof: "
                "more calibration pairs give more power."
            )
        if failed and details:
            from modelcompare.workflows._findings import findings_paragraph

            verdict += " " + findings_paragraph(self, alpha)
        elif failed:
            verdict += " What is wrong, and what to do: see the findings below."
        verdict = _simulator_sentence(self._simulator(), alpha) + verdict
        if not math.isclose(alpha, self.alpha):
            verdict = (
                f"Read at alpha = {alpha:g}, not at the level the report was planned for "
                f"({self.alpha:g}). " + verdict
            )
        if skipped:
            verdict += " " + self.not_run() + "."
        if self.comparison is not None:
            verdict += " " + comparison_sentence(self.comparison, alpha)
        if self.warnings and details:
            listed = "; ".join(f"{category}: {message}" for category, message in self.warnings)
            verdict += f" Warnings while building the report: {listed}"
        elif self.warnings:
            verdict += f" {len(self.warnings)} warning(s) while building the report: see below."
        return verdict

    def _result_dict(self, outcome: CheckOutcome, include_arrays: bool) -> dict[str, Any]:
        """A check's result as JSON, its ``seed_used`` the seed of the check's own stream."""
        out = to_builtin(outcome.result, include_arrays=include_arrays)
        seed = (self.settings.get("check_seeds") or {}).get(outcome.name)
        if isinstance(out, dict) and out.get("seed_used") is None and seed is not None:
            out["seed_used"] = seed
        return out

    def evidence(self, name: str) -> str:
        """The check ``name`` with its p-value (Holm across checks) and, where it has one, its
        effect size: ``"lc2st_nf (p ≤ 0.0312, the floor of its resamples; 9.1 null SDs)"``."""
        from modelcompare.workflows._evidence import format_p

        p = self.pvalues_adjusted.get(name, math.nan)
        bound = self.pvalues_adjusted_bound.get(name, False)
        text = format_p(p, bound) + (", the floor of its resamples" if bound else "")
        effect = self.effect_sizes.get(name, math.nan)
        if math.isfinite(effect):
            text += f"; statistic {effect:.3g} null SDs beyond its null"
        return f"{name} ({text})"

    def not_run(self) -> str:
        """One line: the checks that did not run, grouped by the input that would run them."""
        reasons: dict[str, list[str]] = {}
        for o in self.outcomes:
            if o.result is None:
                reasons.setdefault(o.skipped or "not selected", []).append(o.name)
        if not reasons:
            return ""
        return "Not run: " + "; ".join(
            f"{', '.join(names)} ({reason})" for reason, names in reasons.items()
        )

    def to_dict(self, *, include_arrays: bool = True, alpha: float | None = None) -> dict[str, Any]:
        """The report as JSON-safe Python objects: the table, each result, and the footer.

        ``failures``, ``summary`` and ``findings`` are read at ``alpha`` (default: the report's
        own level, :attr:`alpha`), which is stored as ``"alpha"``.
        """
        include_arrays = check_bool(include_arrays, "include_arrays")
        alpha = self._level(alpha)
        adjusted, bound = self.pvalues_adjusted, self.pvalues_adjusted_bound
        own, effects = self.pvalues_bound, self.effect_sizes
        return {
            "checks": [
                {
                    "name": o.name,
                    "tests": o.tests,
                    "statistic": o.statistic,
                    "pvalue": o.pvalue,
                    "pvalue_is_bound": own.get(o.name, False),
                    "pvalue_adjusted": adjusted.get(o.name, math.nan),
                    "pvalue_adjusted_is_bound": bound.get(o.name, False),
                    "effect_size": effects.get(o.name, math.nan),
                    "skipped": o.skipped,
                    "score": o.score,
                    "family": o.family,
                    "runtime_s": o.runtime_s,
                    "result": None if o.result is None else self._result_dict(o, include_arrays),
                }
                for o in self.outcomes
            ],
            "alpha": alpha,
            "planned_alpha": self.alpha,
            "failures": self.failures(alpha),
            "summary": self.summary(alpha),
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
            "warnings": [{"category": c, "message": m} for c, m in self.warnings],
            "findings": to_builtin(self.findings_at(alpha).to_dict("records")),
        }

    def to_json(self, path: str | Path, *, include_arrays: bool = False) -> Path:
        """Write :meth:`to_dict` as JSON (NaN and inf as ``null``); return the path."""
        path = check_output_path(path, "path")
        include_arrays = check_bool(include_arrays, "include_arrays")
        text = json.dumps(
            _nan_to_none(self.to_dict(include_arrays=include_arrays)), indent=1, ensure_ascii=False
        )
        path.write_text(text + "\n", encoding="utf-8")
        return path

    def to_html(self, path: str | Path, *, alpha: float | None = None) -> Path:
        """Write one self-contained HTML page (figures inline, no network resources).

        ``alpha`` defaults to the report's own level (:attr:`alpha`); another level is stated
        on the page.
        """
        path = check_output_path(path, "path")
        path.write_text(render_html(self, alpha=self._level(alpha)), encoding="utf-8")
        return path


def _simulator_sentence(outcomes: list[CheckOutcome], alpha: float) -> str:
    """The sentence that opens the verdict when an observation is atypical of the simulator."""
    flagged = [
        observation_label(o.result.x_obs[i], i)
        for o in outcomes
        for i in o.result.flagged_at(alpha)
    ]
    if not flagged:
        return ""
    return (
        f"The simulator rarely produces data like {'; '.join(flagged)} (misspecification, "
        f"alpha = {alpha:g}, Holm across observations): the posterior checks say nothing there. "
    )


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
.warn li{color:#7d4e00}.pass{background:#dafbe1;border:1px solid #4ac26b}.fail{background:#ffebe9;border:1px solid #ff8182}
table{border-collapse:collapse;width:100%;font-size:.92em}
th,td{border:1px solid #d0d7de;padding:.35em .6em;text-align:left}th{background:#f6f8fa}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.reject{color:#cf222e;font-weight:600}.ok{color:#1a7f37}.skip{color:#6e7781}
figure{margin:1em 0}img{max-width:100%}
.reading{color:#424a53;font-size:.95em}
footer{margin-top:3em;font-size:.85em;color:#57606a;border-top:1px solid #d0d7de;padding-top:1em}
code{background:#f6f8fa;padding:0 .2em;border-radius:3px}
footer code,.verdict{overflow-wrap:anywhere}.scroll{overflow-x:auto}
table.checks td:nth-child(2){min-width:14em}
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


def _draw(outcome: CheckOutcome, report: PosteriorValidationResult, alpha: float) -> Any:
    """A function of a figure drawing one check's result, or None (the check's ``draw``).

    The draw gets a :class:`FigureContext` with the table's decision on the check, so that its
    marks follow the report's correction across checks, not a level of their own.
    """
    from modelcompare.workflows._checks import lookup
    from modelcompare.workflows._checks._figures import call_draw

    check = lookup(outcome.name)
    if check is None or check.draw is None:
        return None
    context = _context(outcome, report, alpha)
    return lambda fig: call_draw(check.draw, fig, outcome.result, context)


def _context(outcome: CheckOutcome, report: PosteriorValidationResult, alpha: float) -> Any:
    from modelcompare.workflows._checks._figures import FigureContext

    x_eval = report.settings.get("x_eval")
    return FigureContext(
        parameter_names=report.parameter_names,
        pvalue=outcome.pvalue,
        # a score is not in the family: its figure shows its own p-value
        pvalue_adjusted=report.pvalues_adjusted.get(outcome.name, outcome.pvalue),
        alpha=alpha,
        x_eval=None if x_eval is None else np.atleast_2d(np.asarray(x_eval, dtype=float)),
    )


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


def _findings_html(report: PosteriorValidationResult, alpha: float) -> str:
    """What is wrong and what to do: one item per finding (nothing when every check passes)."""
    if not report.failures(alpha):
        return ""
    from modelcompare.workflows._findings import report_findings

    lines = report_findings(report, alpha).sentences()
    if not lines:
        return (
            '<section id="findings"><h2>findings</h2><p>No specific finding names what is wrong '
            "(the findings read SBC ranks, PIT values and the local checks); look at the "
            "figures of the rejecting checks.</p></section>"
        )
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return (
        '<section id="findings"><h2>findings: what is wrong, and what to do</h2>'
        f"<ul>{items}</ul></section>"
    )


def _points_html(report: PosteriorValidationResult) -> str:
    """The evaluation points of the local checks, by their rounded and full coordinates."""
    from modelcompare.workflows._checks._figures import point_label

    x_eval = report.settings.get("x_eval")
    if x_eval is None or not any(_is_local(o.result) for o in report.outcomes):
        return ""
    rows = "".join(
        f'<tr><td title="{html.escape(repr(list(map(float, x0))))}">'
        f"{html.escape(point_label(x0))}</td>"
        f"<td><code>{html.escape(', '.join(f'{v:.6g}' for v in x0))}</code></td></tr>"
        for x0 in np.atleast_2d(np.asarray(x_eval, dtype=float))
    )
    return (
        '<section id="evaluation-points"><h2>evaluation points of the local checks</h2>'
        '<div class="scroll">'
        "<table><thead><tr><th>label in the figures</th><th>coordinates</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></div></section>"
    )


def _is_local(result: Any) -> bool:
    """Whether ``result`` is a local check's, with a p-value per evaluation point."""
    return result is not None and getattr(result, "x_eval", None) is not None


def _warnings_html(report: PosteriorValidationResult) -> str:
    """Every warning raised while the report was built."""
    if not report.warnings:
        return ""
    items = "".join(
        f"<li><b>{html.escape(c)}</b>: {html.escape(m)}</li>" for c, m in report.warnings
    )
    return f'<section id="warnings"><h2>warnings</h2><ul class="warn">{items}</ul></section>'


def _p_cell(p: float, bound: bool) -> str:
    """A p-value for the table: ``≤ 0.0312`` for a bound."""
    return "–" if not math.isfinite(p) else ("≤ " if bound else "") + f"{p:.4g}"


def _reproducibility(report: PosteriorValidationResult) -> str:
    """Each check's result as the library returns it, and its run time."""
    esc = html.escape
    items = "".join(
        f"<li><b>{esc(o.name)}</b> ({o.runtime_s:.2f} s): <code>{esc(repr(o.result))}</code></li>"
        for o in report.outcomes
        if o.result is not None
    )
    return f"<details><summary>results and run times</summary><ul>{items}</ul></details>"


def render_html(report: PosteriorValidationResult, *, alpha: float) -> str:
    """The report as one HTML page with inline CSS and base64 PNG figures.

    The table lists the checks that ran, with each one's p-value, its p-value adjusted by Holm
    across the checks (``≤`` where it is a bound, at the floor of the resamples) and its effect
    size; the checks that did not run are one line below it, grouped by the input that would
    run them. A section follows for each check that ran, and nothing for one that did not.
    """
    esc = html.escape
    failed = set(report.failures(alpha))
    adjusted, bound = report.pvalues_adjusted, report.pvalues_adjusted_bound
    own, effects = report.pvalues_bound, report.effect_sizes
    verdict_class = "fail" if failed else "pass"
    ran = [o for o in report.outcomes if o.result is not None]
    rows = []
    for o in ran:
        if o.score:
            status = '<span class="skip">a score, not tested</span>'
        elif o.name in failed:
            status = '<span class="reject">rejects</span>'
        else:
            status = '<span class="ok">passes</span>'
        effect = effects.get(o.name, math.nan)
        rows.append(
            f'<tr><td><a href="#{o.name}">{esc(o.name)}</a></td><td>{esc(o.tests)}</td>'
            f'<td class="num">{_fmt(o.statistic)}</td>'
            f'<td class="num">{_p_cell(o.pvalue, own.get(o.name, False))}</td>'
            f'<td class="num">{_p_cell(adjusted.get(o.name, math.nan), bound.get(o.name, False))}'
            f'</td><td class="num">{_fmt(effect)}</td><td>{status}</td></tr>'
        )
    not_run = report.not_run()
    skipped = f'<p class="skip">{esc(not_run)}.</p>' if not_run else ""
    floors = (
        '<p class="reading">≤: the p-value sits at the floor of its resamples, the smallest '
        "its B and corrections can show; the effect size (the statistic's distance beyond its "
        "null, in null standard deviations) tells a gross failure from a borderline one.</p>"
        if any(bound.values())
        else ""
    )
    sections = []
    for o in ran:
        body = f"<p>Tests that {esc(o.tests)}.</p>"
        draw = _draw(o, report, alpha)
        uri = _figure_uri(draw) if draw is not None else None
        if uri is not None:
            body += f'<figure><img alt="{esc(o.name)} figure" src="{uri}"></figure>'
        decision = "" if o.score else " " + _context(o, report, alpha).decision()
        body += f'<p class="reading"><b>Reading.</b> {esc(_reading(o.name))}{esc(decision)}</p>'
        if not o.score:
            from modelcompare.workflows._evidence import format_p

            body += (
                f"<p>statistic = {_fmt(o.statistic)}; this check's own p-value (after its "
                f"corrections) {esc(format_p(o.pvalue, own.get(o.name, False), 4))}; "
                f"Holm across the checks: {esc(report.evidence(o.name))}.</p>"
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
    extra = _findings_html(report, alpha) + _points_html(report) + _warnings_html(report)
    settings = esc(
        json.dumps(_nan_to_none(to_builtin(report.settings)), sort_keys=True, ensure_ascii=False)
    )
    footer = (
        f"<footer><b>Reproducibility.</b> {esc(versions)}.<br>seed used: {report.seed_used}; "
        f"n = {report.n} calibration pairs, θ in R^{report.n_params}, x in R^{report.n_features}; "
        f"total runtime {sum(o.runtime_s for o in report.outcomes):.2f} s.<br>"
        f"{_reproducibility(report)}"
        f"settings: <code>{settings}</code><br>"
        f"SHA-256 of the inputs: <code>{report.input_hash}</code></footer>"
    )
    table = (
        '<div class="scroll">'
        '<table class="checks"><thead><tr><th>check</th><th>what it tests</th><th>statistic</th><th>p</th>'
        "<th>p (Holm across checks)</th><th>effect (null SDs)</th>"
        f"<th>at alpha = {alpha:g}</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div>"
        if ran
        else ""
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Posterior validation report</title><style>{_CSS}</style></head><body>"
        "<h1>Posterior validation report</h1>"
        f'<div class="verdict {verdict_class}">{esc(report._verdict(alpha, details=False))}</div>'
        + table
        + floors
        + skipped
        + extra
        + "".join(sections)
        + footer
        + "</body></html>"
    )
