"""The registry of the posterior report's checks: one module per check, one line per check here.

A check is a :class:`Check` (its name, what it tests, what it needs, its multiplicity, how it
runs, its figure and its findings); :func:`modelcompare.workflows._build.build_report` runs the
registered checks on one :class:`ReportInputs`, and the report's findings ask each check that ran
for its own. To add a check, findings included, write its module (a ``CHECK = Check(...)``) and
add one line to :data:`REGISTRY`. The functions here read :data:`REGISTRY` when called, so a
registry patched at run time (a test's) is the one they see.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from modelcompare.workflows._checks import (
    c2st,
    expected_coverage,
    global_coverage,
    lc2st_nf,
    local_coverage,
    local_independence,
    misspecification,
    pit_independence,
    sbc,
    sbc_log_gamma,
    scores,
    tarp,
)
from modelcompare.workflows._checks._base import (
    FAMILIES,
    NEEDS,
    Check,
    CheckFindings,
    FindingsContext,
    ReportInputs,
)

__all__ = [
    "FAMILIES",
    "NEEDS",
    "REGISTRY",
    "Check",
    "CheckFindings",
    "FindingsContext",
    "ReportInputs",
    "check_names",
    "lookup",
    "select",
]

#: The checks of the posterior report, in the order the report lists them.
REGISTRY: tuple[Check, ...] = (
    misspecification.CHECK,
    sbc.CHECK,
    sbc_log_gamma.CHECK,
    tarp.CHECK,
    global_coverage.CHECK,
    expected_coverage.CHECK,
    pit_independence.CHECK,
    local_coverage.CHECK,
    local_independence.CHECK,
    lc2st_nf.CHECK,
    c2st.CHECK,
    scores.CHECK,
)


def _registered(registry: Sequence[Check] | None) -> Sequence[Check]:
    """``registry``, or :data:`REGISTRY` as it is now when None."""
    return REGISTRY if registry is None else registry


def check_names(
    supplied: Collection[str] | None = None, registry: Sequence[Check] | None = None
) -> tuple[str, ...]:
    """The names of the registered checks, or of those whose every need is in ``supplied``.

    Examples
    --------
    >>> check_names()[:3]
    ('misspecification', 'sbc', 'sbc_log_gamma')
    >>> check_names({"pit", "two_parameters"})
    ('global_coverage', 'pit_independence')
    """
    registry = _registered(registry)
    if supplied is None:
        return tuple(c.name for c in registry)
    return tuple(c.name for c in registry if set(c.needs) <= set(supplied))


def lookup(name: str, registry: Sequence[Check] | None = None) -> Check | None:
    """The registered check called ``name``, or None."""
    return next((c for c in _registered(registry) if c.name == name), None)


def select(checks: Any, registry: Sequence[Check] | None = None) -> list[Check]:
    """The checks named by ``checks`` ('all', a name or a list of names), in registry order.

    ``"all"`` is every check but the opt-in ones (``default=False``), which run when named.
    """
    registry = _registered(registry)
    names = check_names(registry=registry)
    if isinstance(checks, str) and checks == "all":
        return [c for c in registry if c.default]
    if not isinstance(checks, str) and not hasattr(checks, "__iter__"):
        msg = f"`checks` must be 'all', a check name or a list of names; got {checks!r}."
        raise TypeError(msg)
    wanted = [checks] if isinstance(checks, str) else list(checks)
    unknown = [c for c in wanted if c not in names]
    if unknown or not wanted:
        msg = f"`checks` must be 'all' or names among {list(names)}; got {checks!r}."
        raise ValueError(msg)
    return [c for c in registry if c.name in wanted]
