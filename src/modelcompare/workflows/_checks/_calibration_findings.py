"""The calibration findings: shifts and wrong widths from SBC ranks, dependence from PIT values.

:func:`~modelcompare.posterior.calibration_findings` runs its follow-up tests as one family
(Holm across the location and dispersion tests of every parameter and the independence tests of
the latent pairs), so one check asks for them: SBC, with :func:`ranks_findings`, on its ranks;
where SBC did not run, the global PIT check, with :func:`pit_ranks_findings`, on ranks read off
the PIT values. Either way the PIT values feed the dependence follow-ups, whose rejection in the
table is the PIT independence check's.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import CheckFindings, FindingsContext

__all__ = ["FOLLOW_UPS", "pit_ranks_findings", "ranks_findings"]

#: The check whose SBC ranks the findings read; without it, ranks of the PIT values stand in.
RANKS_CHECK = "sbc"

#: The report's check behind the dependence follow-ups of :func:`calibration_findings`.
DEPENDENCE_CHECK = "pit_independence"

#: S of the ranks read off PIT values when the report has no SBC ranks.
_PIT_RANKS = 1000

#: The follow-up test behind each check of :func:`calibration_findings`, as the findings name it.
FOLLOW_UPS = {
    "sbc_location": "follow-up location test (t-test of mean Φ⁻¹(rank) = 0)",
    "sbc_dispersion": "follow-up dispersion test (variance of Φ⁻¹(rank) = 1)",
    "pit_independence": "follow-up Spearman test of each latent pair",
}


def ranks_findings(context: FindingsContext) -> CheckFindings | None:
    """The findings on the ranks of the SBC check whose outcome ``context`` holds."""
    result = context.outcome.result
    ranks, s = np.asarray(result.ranks), int(result.n_posterior_samples)
    return _findings(context, ranks, s, pit_names=False)


def pit_ranks_findings(context: FindingsContext) -> CheckFindings | None:
    """The findings on ranks read off the PIT values, where SBC did not run and this check rejects.

    A PIT value is the limit of the normalised SBC rank as S grows (Talts et al. 2018).
    """
    pit = context.report.pit_values
    if RANKS_CHECK in context.report.results or pit is None:
        return None
    if context.outcome.name not in context.failed:
        return None
    s = _PIT_RANKS
    ranks = np.clip(np.floor(np.asarray(pit, dtype=float) * (s + 1)), 0, s).astype(int)
    return _findings(context, ranks, s, pit_names=True)


def _findings(
    context: FindingsContext, ranks: np.ndarray, s: int, *, pit_names: bool
) -> CheckFindings | None:
    """calibration_findings on ``ranks`` (and the PIT values), filtered by the table.

    The location and dispersion follow-ups rest on the outcome's check; with ``pit_names`` the
    rows name the PIT (``pit_location``) rather than SBC ranks.
    """
    from modelcompare.posterior import calibration_findings

    report, failed = context.report, context.failed
    own = context.outcome.name
    behind = {"sbc_location": own, "sbc_dispersion": own, "pit_independence": DEPENDENCE_CHECK}
    if not (set(behind.values()) & failed) or ranks.shape[0] < 3:
        return None
    pit = report.pit_values
    names = list(report.parameter_names[: ranks.shape[1]])
    use_pit = pit is not None and np.ndim(pit) == 2 and np.shape(pit)[1] >= 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate ranks: the SBC check says so already
        res = calibration_findings(
            ranks,
            s,
            pit_values=pit if use_pit else None,
            parameter_names=names,
            alpha=context.alpha,
        )
    keep = [behind.get(c, c) in failed for c in res.table["check"]]
    table = res.table[keep].reset_index(drop=True)
    # a follow-up's p-value answers another question than its check's: say which test it is
    table["evidence"] = [
        _follow_up(c, behind.get(c, c), e) for c, e in zip(table["check"], table["evidence"])
    ]
    if pit_names:  # name the check the findings rest on
        table["check"] = table["check"].str.replace("sbc_", "pit_", regex=False)
    lines = _one_step_per_kind(table, dataclasses.replace(res, table=table).sentences())
    return CheckFindings(rows=table, lines=tuple(lines))


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
