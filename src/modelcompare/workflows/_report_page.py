"""The HTML page of :class:`PosteriorValidationResult`, from the packaged template.

This module reads the report into plain values (numbers formatted, figures as data URIs); the
template ``posterior_report.html``, on the shared base layout, holds the markup, and Jinja2
escapes every value. The figures follow the table's rule: a check's marks and reading carry the
table's decision on it (Holm across the checks), never a level of their own.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from modelcompare._foundation.html import figure_uri, render_page
from modelcompare._foundation.results import to_builtin
from modelcompare.workflows._findings import NO_FINDING, report_findings
from modelcompare.workflows._report_text import comparison_sentence, nan_to_none

__all__ = ["render_html"]

_TITLE = "Posterior validation report"


def render_html(report: Any, *, alpha: float) -> str:
    """The report as one HTML page with inline CSS and base64 PNG figures.

    The table lists the checks that ran, with each one's p-value, its p-value adjusted by Holm
    across the checks (``≤`` where it is a bound, at the floor of the resamples) and its effect
    size; the checks that did not run are one line below it, grouped by the input that would
    run them. A section follows for each check that ran, and nothing for one that did not.

    Raises
    ------
    MissingDependencyError
        When Jinja2 is not installed (the ``html`` extra).
    """
    failed = set(report.failures(alpha))
    ran = [o for o in report.outcomes if o.result is not None]
    columns = _Columns(report)
    return render_page(
        "posterior_report.html",
        title=_TITLE,
        alpha=f"{alpha:g}",
        failed=bool(failed),
        verdict=report._verdict(alpha, details=False),
        rows=[columns.row(o, o.name in failed) for o in ran],
        floors=any(columns.bound.values()),
        not_run=report.not_run(),
        findings=_findings(report, alpha, failed),
        no_finding=NO_FINDING,
        points=_points(report),
        warnings=list(report.warnings),
        sections=[_section(o, report, alpha, columns.own) for o in ran],
        comparison=_comparison(report.comparison, alpha),
        **_footer(report),
    )


class _Columns:
    """The table's columns of every check, read once off the report."""

    def __init__(self, report: Any) -> None:
        self.own, self.effects = report.pvalues_bound, report.effect_sizes
        self.adjusted, self.bound = report.pvalues_adjusted, report.pvalues_adjusted_bound

    def row(self, outcome: Any, rejects: bool) -> dict[str, Any]:
        """The check's row of the table."""
        name = outcome.name
        return {
            "name": name,
            "tests": outcome.tests,
            "statistic": _fmt(outcome.statistic),
            "pvalue": _p_cell(outcome.pvalue, self.own.get(name, False)),
            "pvalue_adjusted": _p_cell(
                self.adjusted.get(name, math.nan), self.bound.get(name, False)
            ),
            "effect": _fmt(self.effects.get(name, math.nan)),
            "score": outcome.score,
            "rejects": rejects,
        }


def _section(outcome: Any, report: Any, alpha: float, bounds: dict[str, bool]) -> dict[str, Any]:
    """The check's section: its figure, how to read it, and its p-values."""
    from modelcompare.workflows._evidence import format_p

    draw = _draw(outcome, report, alpha)
    decision = "" if outcome.score else " " + _context(outcome, report, alpha).decision()
    own = bounds.get(outcome.name, False)
    return {
        "name": outcome.name,
        "tests": outcome.tests,
        "uri": _figure_uri(draw) if draw is not None else None,
        "reading": _reading(outcome.name) + decision,
        "score": outcome.score,
        "statistic": _fmt(outcome.statistic),
        "pvalue": format_p(outcome.pvalue, own, 4),
        "evidence": report.evidence(outcome.name),
    }


def _figure_uri(draw: Any) -> str | None:
    """Render ``draw(fig)`` to a base64 PNG data URI (Agg, no display); None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
    except ImportError:
        return None
    return figure_uri(draw)


def _draw(outcome: Any, report: Any, alpha: float) -> Any:
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


def _context(outcome: Any, report: Any, alpha: float) -> Any:
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


def _findings(report: Any, alpha: float, failed: set[str]) -> list[str] | None:
    """What is wrong and what to do, one line a finding; None when every check passes."""
    if not failed:
        return None
    return report_findings(report, alpha).sentences()


def _points(report: Any) -> list[dict[str, str]]:
    """The evaluation points of the local checks, by their rounded and full coordinates."""
    from modelcompare.workflows._checks._figures import point_label

    x_eval = report.settings.get("x_eval")
    if x_eval is None or not any(_is_local(o.result) for o in report.outcomes):
        return []
    return [
        {
            "full": repr(list(map(float, x0))),
            "label": point_label(x0),
            "coordinates": ", ".join(f"{v:.6g}" for v in x0),
        }
        for x0 in np.atleast_2d(np.asarray(x_eval, dtype=float))
    ]


def _is_local(result: Any) -> bool:
    """Whether ``result`` is a local check's, with a p-value per evaluation point."""
    return result is not None and getattr(result, "x_eval", None) is not None


def _comparison(comparison: Any, alpha: float) -> dict[str, str] | None:
    """The section on a :func:`compare_posteriors` result (None without one)."""
    if comparison is None:
        return None
    ci = comparison.confidence_interval()
    return {
        "sentence": comparison_sentence(comparison, alpha),
        "statistic": f"{comparison.statistic:.4g}",
        "low": f"{ci.low:.4g}",
        "high": f"{ci.high:.4g}",
        "pvalue": f"{comparison.pvalue:.3g}",
        "where": ", ".join(comparison.where(alpha)),
    }


def _footer(report: Any) -> dict[str, Any]:
    """What reproduces the report: versions, seed, sizes, each result and its run time."""
    settings = json.dumps(
        nan_to_none(to_builtin(report.settings)), sort_keys=True, ensure_ascii=False
    )
    return {
        "versions": ", ".join(f"{k} {v}" for k, v in report.versions.items()),
        "seed_used": report.seed_used,
        "n": report.n,
        "n_params": report.n_params,
        "n_features": report.n_features,
        "runtime": f"{sum(o.runtime_s for o in report.outcomes):.2f}",
        "results": [
            {"name": o.name, "runtime": f"{o.runtime_s:.2f}", "repr": repr(o.result)}
            for o in report.outcomes
            if o.result is not None
        ],
        "settings": settings,
        "input_hash": report.input_hash,
    }


def _fmt(value: float) -> str:
    return "–" if not math.isfinite(value) else f"{value:.4g}"


def _p_cell(p: float, bound: bool) -> str:
    """A p-value for the table: ``≤ 0.0312`` for a bound."""
    return "–" if not math.isfinite(p) else ("≤ " if bound else "") + f"{p:.4g}"
