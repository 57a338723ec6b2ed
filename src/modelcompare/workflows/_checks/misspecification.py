"""Whether each observed data set is typical of the simulator (a family of its own)."""

from __future__ import annotations

import numpy as np

from modelcompare._foundation.pvalues import holm_adjust
from modelcompare._foundation.results import TestResult, result_class
from modelcompare.workflows._checks._base import (
    Check,
    CheckFindings,
    FindingsContext,
    ReportInputs,
)
from modelcompare.workflows._checks._figures import observation_label

__all__ = ["CHECK", "N_RESAMPLES", "MisspecificationCheckResult"]

#: B of the permutation test (only used by ``misspecification_test`` for several rows).
N_RESAMPLES = 999


@result_class
class MisspecificationCheckResult(TestResult):
    """One misspecification test per observation, Holm-adjusted across the observations.

    Attributes
    ----------
    statistic : float
        The largest kNN score over the observations.
    pvalue : float
        The smallest Holm-adjusted p-value over the observations.
    statistics, pvalues, pvalues_adjusted : numpy.ndarray, shape (n_obs,)
        Each observation's score, conformal p-value and Holm-adjusted p-value.
    n_obs, n_sim : int
        Observations, and simulations they are compared with.
    x_obs : numpy.ndarray, shape (n_obs, d)
        The observations.
    """

    statistic: float
    pvalue: float
    statistics: np.ndarray
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    n_obs: int
    n_sim: int
    x_obs: np.ndarray

    _repr_fields = ("statistic", "pvalue", "n_obs")

    def flagged_at(self, alpha: float = 0.05) -> list[int]:
        """The rows of ``x_obs`` that are atypical of the simulator at ``alpha``."""
        return [int(i) for i in np.flatnonzero(self.pvalues_adjusted <= alpha)]


def run(inputs: ReportInputs, rng: np.random.Generator) -> MisspecificationCheckResult:
    """:func:`misspecification_test` at each row of ``x_obs`` against the calibration x's."""
    from modelcompare.posterior import misspecification_test

    x_obs, x_sim = inputs.x_obs, inputs.x
    assert x_obs is not None  # guaranteed by `needs`
    assert x_sim is not None
    results = [
        misspecification_test(row[None], x_sim, n_resamples=N_RESAMPLES, seed=child)
        for row, child in zip(x_obs, rng.spawn(x_obs.shape[0]))
    ]
    pvalues = np.array([r.pvalue for r in results])
    adjusted = holm_adjust(pvalues)
    statistics = np.array([r.statistic for r in results])
    return MisspecificationCheckResult(
        statistic=float(statistics.max()),
        pvalue=float(adjusted.min()),
        statistics=statistics,
        pvalues=pvalues,
        pvalues_adjusted=adjusted,
        n_obs=int(x_obs.shape[0]),
        n_sim=int(x_sim.shape[0]),
        x_obs=x_obs.copy(),
    )


def refuse(inputs: ReportInputs) -> str | None:
    """Why the calibration x's are too few to compare an observation with (None if they suffice)."""
    return None if inputs.n >= 20 else "needs at least 20 calibration x's as the simulator's data"


def findings(context: FindingsContext) -> CheckFindings:
    """One finding per observation atypical of the simulator at the report's level."""
    from modelcompare.posterior import NEXT_STEPS

    result = context.outcome.result
    rows, lines = [], []
    for i in result.flagged_at(context.alpha):
        where = observation_label(result.x_obs[i], i)
        evidence = f"p = {result.pvalues_adjusted[i]:.3g} (Holm across observations)"
        rows.append(
            {
                "check": context.outcome.name,
                "kind": "misspecified_observation",
                "parameter": "",
                "where": where,
                "direction": "",
                "size": f"{result.statistics[i]:.3g}",
                "evidence": evidence,
            }
        )
        lines.append(
            f"{where}: the simulator rarely produces data like it; {evidence}; the posterior "
            f"checks do not apply there. Next: {NEXT_STEPS['misspecified_observation']}"
        )
    return CheckFindings(rows=rows, lines=tuple(lines))


CHECK = Check(
    name="misspecification",
    tests=(
        "each observed x_obs is typical of the simulator's x under the prior "
        "(kNN conformal test, Holm across observations; a family of its own)"
    ),
    reading=(
        "A flagged observation lies where the simulator rarely puts data: every posterior check "
        "is then silent about it, since the estimator extrapolates there."
    ),
    needs=("x_obs",),
    run=run,
    refuse=refuse,
    family="simulator",
    findings=findings,
)
