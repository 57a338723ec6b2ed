"""The number of null resamples B of each resampling check of the posterior report.

A Monte Carlo p-value (1 + #{T⁽ᵇ⁾ ≥ T}) / (1 + B) is at least 1/(B + 1); after Bonferroni over
the tests at each evaluation point, Holm over the E points and Holm over the C tests of the
report, the smallest p-value a check can report is (tests per point)·E·C/(B + 1)
(:func:`modelcompare._foundation.pvalues.smallest_adjusted_pvalue`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

from modelcompare._foundation.errors import TooFewResamplesWarning
from modelcompare._foundation.pvalues import resamples_needed, smallest_adjusted_pvalue
from modelcompare.workflows._checks import Check

__all__ = [
    "AUTO_ALPHA",
    "FIRST_STAGE",
    "MIN_RESAMPLES",
    "check_floors",
    "correction_factors",
    "first_stages",
    "plan_resamples",
    "plans",
    "pvalue_floors",
    "stage_decides",
]

#: The fewest null resamples the report uses when it chooses B itself.
MIN_RESAMPLES = 100

#: The level at which the automatic B lets every resampling check reject, unless another is asked.
AUTO_ALPHA = 0.05


def correction_factors(check: Check, m: int, e: int, n_tests: int) -> tuple[int, int, int]:
    """(tests per evaluation point, evaluation points, tests of the report) of a resampling check."""
    assert check.tests_per_point is not None  # only resampling checks are planned
    return (max(check.tests_per_point(m), 1), e if check.local else 1, n_tests)


def plans(check: Check) -> bool:
    """Whether ``check`` enters the plan of B and the correction across the posterior checks."""
    return not check.score and check.family == "posterior"


def pvalue_floors(
    running: Sequence[Check], resamples: Mapping[str, int], *, m: int, e: int
) -> dict[str, float]:
    """The smallest adjusted p-value each planned check can reach with its B in this report.

    Examples
    --------
    >>> from modelcompare.workflows._checks import lookup
    >>> pvalue_floors([lookup("local_coverage")], {"local_coverage": 119}, m=2, e=3)
    {'local_coverage': 0.05}
    """
    n_tests = sum(plans(c) for c in running)
    return {
        c.name: smallest_adjusted_pvalue(resamples[c.name], correction_factors(c, m, e, n_tests))
        for c in running
        if c.name in resamples
    }


#: The fewest resamples of the first stage of the two-stage plan.
FIRST_STAGE = 199

#: How unlikely the first stage's count must be, were the check's smallest raw p-value just at
#: the level its corrections need, for the first stage to decide alone.
STAGE_RISK = 1e-3


def check_floors(
    running: Sequence[Check], resamples: Mapping[str, int], *, m: int, e: int
) -> dict[str, float]:
    """The smallest p-value each resampling check can show with the B it ran with.

    After the check's own corrections (tests per point, the E points), before Holm across the
    checks: a check's p-value at this floor is only a bound, p ≤ floor.

    Examples
    --------
    >>> from modelcompare.workflows._checks import lookup
    >>> check_floors([lookup("local_coverage")], {"local_coverage": 199}, m=2, e=5)
    {'local_coverage': 0.05}
    """
    return {
        c.name: smallest_adjusted_pvalue(resamples[c.name], correction_factors(c, m, e, 1))
        for c in running
        if c.name in resamples
    }


def first_stages(resamples: Mapping[str, int]) -> dict[str, int]:
    """The first stage's B of each check whose planned B is larger: max(199, B/8).

    An eighth of the plan keeps the first stage able to see a check whose many tests
    (m(m − 1)/2 pairs at E points) make its smallest raw p-value small even under the null.

    Examples
    --------
    >>> first_stages({"lc2st_nf": 799, "local_independence": 50399, "sbc_log_gamma": 119})
    {'lc2st_nf': 199, 'local_independence': 6299}
    """
    out = {}
    for name, b in resamples.items():
        first = max(FIRST_STAGE, (b + 1) // 8 - 1)
        if first < b:
            out[name] = first
    return out


def stage_decides(pvalue: float, tests: int, n_resamples: int, alpha: float) -> bool:
    """Whether a first stage's p-value settles that the check cannot reject at ``alpha``.

    The check's p-value is at least ``tests`` (its corrections' product) times its smallest
    raw Monte Carlo p-value (1 + c)/(1 + B); it can reach ``alpha`` only if that raw p-value
    is at most alpha/tests. The first stage decides alone when its count c would be that large
    with probability below :data:`STAGE_RISK` were the raw p-value just alpha/tests: then the
    full B would give the same decision, up to that Monte Carlo error.

    Examples
    --------
    >>> stage_decides(0.8, 10, 199, 0.05), stage_decides(0.05, 10, 199, 0.05)
    (True, False)
    """
    from scipy.stats import binom

    raw = min(pvalue, 1.0) / tests  # a lower bound where the corrections capped p at 1
    count = max(round(raw * (n_resamples + 1)) - 1, 0)
    return bool(binom.sf(count - 1, n_resamples, alpha / tests) < STAGE_RISK)


def plan_resamples(
    running: Sequence[Check],
    n_resamples: int | None,
    *,
    m: int,
    e: int,
    limits: Mapping[str, int],
    alpha: float = AUTO_ALPHA,
    stacklevel: int = 2,
) -> dict[str, int]:
    """The B of each resampling check among ``running``; warn when one cannot reach ``alpha``.

    ``running`` are the checks that will run; only the posterior's tests among them (not the
    scores, nor the simulator's family) count in the correction across checks. With
    ``n_resamples=None`` each check gets the smallest B (at least :data:`MIN_RESAMPLES`) at which
    it can reach a Holm-adjusted p ≤ ``alpha`` in this report, unless ``limits`` (the memory
    guard) caps it.

    Examples
    --------
    >>> from modelcompare.workflows._checks import lookup
    >>> plan_resamples([lookup("global_coverage"), lookup("local_coverage")], None, m=2, e=3,
    ...                limits={})
    {'local_coverage': 239}
    """
    n_tests = sum(plans(c) for c in running)
    factors = {
        c.name: correction_factors(c, m, e, n_tests) for c in running if c.resampling and plans(c)
    }
    needed = {name: resamples_needed(f, alpha=alpha) for name, f in factors.items()}
    if n_resamples is None:
        chosen = {name: max(b, MIN_RESAMPLES) for name, b in needed.items()}
        chosen |= {
            name: max(limits[name], 1)
            for name, b in chosen.items()
            if name in limits and limits[name] < b
        }
    else:
        chosen = dict.fromkeys(needed, n_resamples)
    short = [name for name, b in needed.items() if chosen[name] < b]
    if short:
        _warn_short(short, chosen, needed, factors, n_resamples, n_tests, alpha, stacklevel + 1)
    return chosen


def _warn_short(
    short: Sequence[str],
    chosen: Mapping[str, int],
    needed: Mapping[str, int],
    factors: Mapping[str, tuple[int, int, int]],
    n_resamples: int | None,
    n_tests: int,
    alpha: float,
    stacklevel: int,
) -> None:
    lacking = "; ".join(
        f"{name} runs with B={chosen[name]} (smallest attainable p "
        f"{smallest_adjusted_pvalue(chosen[name], factors[name]):.3g}) and needs "
        f"n_resamples >= {needed[name]}"
        for name in short
    )
    cause, remedy = (
        (
            "The memory limit of the null regressions caps B",
            "Raise the limit with the environment variable MODELCOMPARE_MAX_MEMORY.",
        )
        if n_resamples is None
        else (
            f"`n_resamples`={n_resamples} is too few",
            "Pass `n_resamples=None` to choose B per check.",
        )
    )
    warnings.warn(
        f"{cause}: some resampling checks cannot reach a Holm-adjusted p <= {alpha:g} "
        f"in this report of {n_tests} checks: {lacking}. {remedy}",
        TooFewResamplesWarning,
        stacklevel=stacklevel,
    )
