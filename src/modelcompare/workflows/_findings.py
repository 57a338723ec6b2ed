"""The findings of a posterior report: what is wrong and where, only where the table rejects.

The marginal findings (shift, too wide, too narrow) come from
:func:`~modelcompare.posterior.calibration_findings` on the SBC ranks, the dependence findings
from the same function on the PIT values, and one ``"local"`` finding per local check from the
evaluation points where that check rejects. Every finding is kept only when the check behind
it rejects at the report's level after Holm's correction across the checks.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from modelcompare.workflows._checks._figures import observation_label, point_label
from modelcompare.workflows._evidence import format_p

__all__ = ["COLUMNS", "ReportFindings", "findings_paragraph", "point_pvalues", "report_findings"]

#: The columns of the findings table, those of ``calibration_findings(...).table``.
COLUMNS = ("check", "kind", "parameter", "where", "direction", "size", "evidence")

#: S of the ranks read off PIT values when the report has no SBC ranks.
_PIT_RANKS = 1000

#: The check of the report behind each check of :func:`calibration_findings`.
_BEHIND = {"sbc_location": "sbc", "sbc_dispersion": "sbc", "pit_independence": "pit_independence"}


@dataclass(frozen=True)
class ReportFindings:
    """The findings table and its sentences (one a row, with the next step of its kind)."""

    table: Any
    lines: tuple[str, ...]

    def sentences(self) -> list[str]:
        """The findings in plain language, each with its next step."""
        return list(self.lines)


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


def _is_local(result: Any) -> bool:
    x_eval = getattr(result, "x_eval", None)
    p = getattr(result, "pvalues_adjusted", None)
    return x_eval is not None and p is not None and np.ndim(p) == 1 and len(p) == len(x_eval)


def _marginal(report: Any, alpha: float, failed: set[str]) -> tuple[Any, list[str]]:
    """calibration_findings on the SBC ranks (and PIT values), filtered by the table."""
    import pandas as pd

    from modelcompare.posterior import calibration_findings

    empty = pd.DataFrame(columns=list(COLUMNS)), []
    pit = report.pit_values
    sbc = report.results.get("sbc")
    behind = dict(_BEHIND)
    if sbc is not None:
        ranks, s = np.asarray(sbc.ranks), int(sbc.n_posterior_samples)
    elif pit is not None and "global_coverage" in failed:
        # a PIT value is the limit of the normalised SBC rank as S grows (Talts et al. 2018)
        s = _PIT_RANKS
        ranks = np.clip(np.floor(np.asarray(pit, dtype=float) * (s + 1)), 0, s).astype(int)
        behind |= {"sbc_location": "global_coverage", "sbc_dispersion": "global_coverage"}
    else:
        return empty
    if not (set(behind.values()) & failed) or ranks.shape[0] < 3:
        return empty
    names = list(report.parameter_names[: ranks.shape[1]])
    use_pit = pit is not None and np.ndim(pit) == 2 and np.shape(pit)[1] >= 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate ranks: the SBC check says so already
        res = calibration_findings(
            ranks, s, pit_values=pit if use_pit else None, parameter_names=names, alpha=alpha
        )
    keep = [behind.get(c, c) in failed for c in res.table["check"]]
    table = res.table[keep].reset_index(drop=True)
    # a follow-up's p-value answers another question than its check's: say which test it is
    table["evidence"] = [
        _follow_up(c, behind.get(c, c), e) for c, e in zip(table["check"], table["evidence"])
    ]
    if sbc is None:  # name the check the findings rest on
        table["check"] = table["check"].str.replace("sbc_", "pit_", regex=False)
    return table, _one_step_per_kind(table, dataclasses.replace(res, table=table).sentences())


#: The follow-up test behind each check of :func:`calibration_findings`, as the findings name it.
FOLLOW_UPS = {
    "sbc_location": "follow-up location test (t-test of mean Φ⁻¹(rank) = 0)",
    "sbc_dispersion": "follow-up dispersion test (variance of Φ⁻¹(rank) = 1)",
    "pit_independence": "follow-up Spearman test of each latent pair",
}


def _follow_up(check: str, behind: str, evidence: str) -> str:
    """The evidence of a follow-up finding, labelled with its test and its family.

    The follow-ups (Holm across their own tests) say what is wrong; the rejection itself is
    ``behind``'s, the report's check, with its own p-value in the table.
    """
    test = FOLLOW_UPS.get(check, "follow-up test")
    p, _, rest = evidence.partition(" (")
    how, _, size = rest.partition(")")
    return f"{p} by the {test}, {how} across the follow-ups{size}; {behind} rejects in the table"


def _one_step_per_kind(table: Any, sentences: list[str]) -> list[str]:
    """The sentences with the next step said once per kind, after the last finding of it."""
    kinds = list(table["kind"])
    out = []
    for i, (kind, sentence) in enumerate(zip(kinds, sentences)):
        finding, _, step = sentence.partition(" Next: ")
        last = kind not in kinds[i + 1 :]
        out.append(f"{finding} Next: {step}" if last and step else finding)
    return out


def _misspecified(report: Any, alpha: float) -> tuple[list[dict[str, str]], list[str], np.ndarray]:
    """One finding per observation atypical of the simulator, and those observations."""
    from modelcompare.posterior import NEXT_STEPS

    rows, lines, flagged = [], [], []
    for o in report.outcomes:
        if o.family != "simulator" or o.result is None:
            continue
        for i in o.result.flagged_at(alpha):
            x_obs, p = o.result.x_obs[i], o.result.pvalues_adjusted[i]
            flagged.append(x_obs)
            where = observation_label(x_obs, i)
            evidence = f"p = {p:.3g} (Holm across observations)"
            rows.append(
                {
                    "check": o.name,
                    "kind": "misspecified_observation",
                    "parameter": "",
                    "where": where,
                    "direction": "",
                    "size": f"{o.result.statistics[i]:.3g}",
                    "evidence": evidence,
                }
            )
            lines.append(
                f"{where}: the simulator rarely produces data like it; {evidence}; the posterior "
                f"checks do not apply there. Next: {NEXT_STEPS['misspecified_observation']}"
            )
    return rows, lines, np.array(flagged)


def _local(
    report: Any, alpha: float, failed: set[str], misspecified: np.ndarray
) -> tuple[list[dict[str, str]], list[str]]:
    from modelcompare.posterior import NEXT_STEPS

    rows, lines = [], []
    observed = _observed(report)
    for o in report.outcomes:
        if o.name not in failed or not _is_local(o.result):
            continue
        p = point_pvalues(report, o.name)
        # a point at the check's adjusted p-value shares its bound (p ≤ floor)
        top = report.pvalues_adjusted.get(o.name, 1.0)
        bound = report.pvalues_adjusted_bound.get(o.name, False) & (p <= top * (1 + 1e-9))
        # a verdict at an observation the simulator does not produce does not apply
        applies = [not any(np.array_equal(x0, x) for x in misspecified) for x0 in o.result.x_eval]
        where = [
            f"{_where(x0, observed)} ({format_p(pi, b, 2)})"
            for x0, pi, b, ok in zip(o.result.x_eval, p, bound, applies)
            if pi <= alpha and ok
        ]
        if not where:
            continue
        best = int(np.flatnonzero(applies)[np.argmin(p[applies])])
        evidence = (
            f"{format_p(p[best], bool(bound[best]))} ({o.name}'s own p-value, adjusted across "
            "points and checks)"
        )
        rows.append(
            {
                "check": o.name,
                "kind": "local",
                "parameter": "",
                "where": "; ".join(where),
                "direction": "",
                "size": "",
                "evidence": evidence,
            }
        )
        lines.append(
            f"{o.name}: the posterior is miscalibrated at {'; '.join(where)}; {evidence}. "
            f"Next: {NEXT_STEPS['local']}"
        )
    return rows, lines


def _observed(report: Any) -> np.ndarray | None:
    """The user's observations ``x_obs``, as the misspecification check received them."""
    for o in report.outcomes:
        if o.family == "simulator" and o.result is not None:
            return np.asarray(o.result.x_obs, dtype=float)
    return None


def _where(x0: Any, observed: np.ndarray | None) -> str:
    """An evaluation point by its row of ``x_obs`` where it is one, else by its coordinates."""
    if observed is not None:
        for i, x in enumerate(observed):
            if np.array_equal(x0, x):
                return observation_label(x, i)
    return point_label(x0)


def report_findings(report: Any, alpha: float) -> ReportFindings:
    """The findings of ``report`` at ``alpha``: only those whose check the table rejects.

    Observations atypical of the simulator come first; a local verdict at such an observation
    is left out, since the estimator extrapolates there.
    """
    import pandas as pd

    failed = set(report.failures(alpha))
    first, first_lines, misspecified = _misspecified(report, alpha)
    table, lines = _marginal(report, alpha, failed)
    rows, local_lines = _local(report, alpha, failed, misspecified)
    parts = [
        pd.DataFrame(first, columns=list(COLUMNS)),
        table,
        pd.DataFrame(rows, columns=list(COLUMNS)),
    ]
    # concatenating an empty frame is deprecated in pandas: leave the empty ones out
    parts = [part for part in parts if not part.empty]
    if parts:
        table = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    return ReportFindings(table=table, lines=tuple(first_lines + lines + local_lines))


def findings_paragraph(report: Any, alpha: float) -> str:
    """The findings in words, or why there is none to name (the summary's second part)."""
    lines = report_findings(report, alpha).sentences()
    if not lines:
        return (
            "No specific finding names what is wrong (the findings read SBC ranks, PIT values and "
            "the local checks); look at the figures of the rejecting checks."
        )
    return "Findings: " + " ".join(lines)
