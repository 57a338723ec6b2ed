"""The findings of a local check: the evaluation points where it rejects, one row a check.

A local check (a p-value per evaluation point, ``x_eval`` and ``pvalues_adjusted`` of one length)
carries :func:`local_findings` as its hook. The per-point p-values are put on the report's scale
(:func:`point_pvalues`), and a verdict at an observation the simulator does not produce (the
simulator family's rejections, :func:`flagged_observations`) is left out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import CheckFindings, FindingsContext
from modelcompare.workflows._checks._figures import observation_label, point_label

__all__ = ["flagged_observations", "is_local", "local_findings", "point_pvalues"]


def point_pvalues(report: Any, name: str) -> np.ndarray:
    """The per-point p-values of the local check ``name`` on the report's scale.

    Adjusted across the points by the check, then by the factor Holm's step across the checks
    applied to the check's own p-value, floored at the table's p-value.
    """
    outcome = next(o for o in report.outcomes if o.name == name)
    within = np.asarray(outcome.result.pvalues_adjusted, dtype=float)
    adjusted = report.pvalues_adjusted.get(name, 1.0)
    factor = adjusted / outcome.pvalue if outcome.pvalue > 0 else 1.0
    return np.clip(np.maximum(within * factor, adjusted), 0.0, 1.0)


def is_local(result: Any) -> bool:
    """Whether ``result`` has a p-value per evaluation point."""
    x_eval = getattr(result, "x_eval", None)
    p = getattr(result, "pvalues_adjusted", None)
    return x_eval is not None and p is not None and np.ndim(p) == 1 and len(p) == len(x_eval)


def flagged_observations(report: Any, alpha: float) -> np.ndarray:
    """The observations the simulator's family of checks finds atypical at ``alpha``."""
    return np.array(
        [o.result.x_obs[i] for o in _simulator(report) for i in o.result.flagged_at(alpha)]
    )


def _simulator(report: Any) -> list[Any]:
    return [o for o in report.outcomes if o.family == "simulator" and o.result is not None]


def _observed(report: Any) -> np.ndarray | None:
    """The user's observations ``x_obs``, as the simulator's check received them."""
    for o in _simulator(report):
        return np.asarray(o.result.x_obs, dtype=float)
    return None


def _where(x0: Any, observed: np.ndarray | None) -> str:
    """An evaluation point by its row of ``x_obs`` where it is one, else by its coordinates."""
    if observed is not None:
        for i, x in enumerate(observed):
            if np.array_equal(x0, x):
                return observation_label(x, i)
    return point_label(x0)


def local_findings(context: FindingsContext) -> CheckFindings | None:
    """One ``"local"`` finding naming the points where the check rejects, if the table does."""
    from modelcompare.posterior import NEXT_STEPS
    from modelcompare.workflows._evidence import format_p

    report, o = context.report, context.outcome
    if o.name not in context.failed or not is_local(o.result):
        return None
    p = point_pvalues(report, o.name)
    # a point at the check's adjusted p-value shares its bound (p ≤ floor)
    top = report.pvalues_adjusted.get(o.name, 1.0)
    bound = report.pvalues_adjusted_bound.get(o.name, False) & (p <= top * (1 + 1e-9))
    # a verdict at an observation the simulator does not produce does not apply
    misspecified = flagged_observations(report, context.alpha)
    applies = [not any(np.array_equal(x0, x) for x in misspecified) for x0 in o.result.x_eval]
    observed = _observed(report)
    where = [
        f"{_where(x0, observed)} ({format_p(pi, b, 2)})"
        for x0, pi, b, ok in zip(o.result.x_eval, p, bound, applies)
        if pi <= context.alpha and ok
    ]
    if not where:
        return None
    best = int(np.flatnonzero(applies)[np.argmin(p[applies])])
    evidence = (
        f"{format_p(p[best], bool(bound[best]))} ({o.name}'s own p-value, adjusted across "
        "points and checks)"
    )
    row = {
        "check": o.name,
        "kind": "local",
        "parameter": "",
        "where": "; ".join(where),
        "direction": "",
        "size": "",
        "evidence": evidence,
    }
    line = (
        f"{o.name}: the posterior is miscalibrated at {'; '.join(where)}; {evidence}. "
        f"Next: {NEXT_STEPS['local']}"
    )
    return CheckFindings(rows=[row], lines=(line,))
