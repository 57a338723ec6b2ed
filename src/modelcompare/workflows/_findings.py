"""The findings of a posterior report: what is wrong and where, only where the table rejects.

Each registered check may carry a findings hook (:attr:`Check.findings
<modelcompare.workflows._checks.Check>`); the report's findings are those of its checks that ran,
in the report's order. Every finding is kept only when the check behind it rejects at the
report's level after Holm's correction across the checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from modelcompare.workflows._checks._base import FINDING_COLUMNS, FindingsContext
from modelcompare.workflows._checks._calibration_findings import FOLLOW_UPS
from modelcompare.workflows._checks._local_findings import point_pvalues

__all__ = [
    "COLUMNS",
    "FOLLOW_UPS",
    "NO_FINDING",
    "ReportFindings",
    "findings_paragraph",
    "point_pvalues",
    "report_findings",
]

#: The columns of the findings table, those of ``calibration_findings(...).table``.
COLUMNS = FINDING_COLUMNS

#: What a report says when some check rejects but no finding names what is wrong.
NO_FINDING = (
    "No specific finding names what is wrong (the findings read SBC ranks, PIT values and the "
    "local checks); look at the figures of the rejecting checks."
)


@dataclass(frozen=True)
class ReportFindings:
    """The findings table and its sentences (one a row, with the next step of its kind)."""

    table: Any
    lines: tuple[str, ...]

    def sentences(self) -> list[str]:
        """The findings in plain language, each with its next step."""
        return list(self.lines)


def report_findings(report: Any, alpha: float) -> ReportFindings:
    """The findings of ``report`` at ``alpha``: only those whose check the table rejects.

    Each check that ran is asked for its findings by its registered hook, in the report's order
    (observations atypical of the simulator first: that check comes first).
    """
    import pandas as pd

    from modelcompare.workflows._checks import lookup

    failed = frozenset(report.failures(alpha))
    parts, lines = [], []
    for outcome in report.outcomes:
        check = lookup(outcome.name)
        if outcome.result is None or check is None or check.findings is None:
            continue
        found = check.findings(FindingsContext(report, outcome, alpha, failed))
        if found is None:
            continue
        rows = found.rows
        parts.append(
            rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows, columns=list(COLUMNS))
        )
        lines += found.lines
    # concatenating an empty frame is deprecated in pandas: leave the empty ones out
    parts = [part for part in parts if not part.empty]
    if not parts:
        table = pd.DataFrame(columns=list(COLUMNS))
    else:
        table = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    return ReportFindings(table=table, lines=tuple(lines))


def findings_paragraph(report: Any, alpha: float) -> str:
    """The findings in words, or why there is none to name (the summary's second part)."""
    lines = report_findings(report, alpha).sentences()
    return "Findings: " + " ".join(lines) if lines else NO_FINDING
