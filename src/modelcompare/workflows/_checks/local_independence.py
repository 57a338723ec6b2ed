"""The local independence test of the PIT values at the evaluation points."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import Check, ReportInputs, quiet_resolution
from modelcompare.workflows._checks._figures import FigureContext, draw_per_point
from modelcompare.workflows._checks._local_findings import local_findings

__all__ = ["CHECK"]

NAME = "local_independence"


def run(inputs: ReportInputs, rng: np.random.Generator) -> Any:
    """The local independence test with the planned B (the report warns about B itself)."""
    from modelcompare.posterior import local_independence_test

    return quiet_resolution(
        lambda: local_independence_test(
            inputs.pit_values,
            inputs.x,
            inputs.x_eval,
            regressor=inputs.regressor,
            eval_correction=inputs.eval_correction,
            n_resamples=inputs.n_resamples[NAME],
            n_jobs=inputs.n_jobs,
            seed=rng,
        )
    )


def refuse(inputs: ReportInputs) -> str | None:
    """A classifier regressor has no counterpart here: the test regresses products."""
    from modelcompare.posterior import (
        INDEPENDENCE_REGRESSORS,
        AmortizedRegressor,
        PerLevelRegressor,
    )

    regressor = inputs.regressor
    if isinstance(regressor, AmortizedRegressor | PerLevelRegressor):
        regressor = type(regressor).__name__
    elif not isinstance(regressor, str):
        return None
    if regressor not in INDEPENDENCE_REGRESSORS:
        return (
            f"regressor {regressor!r} classifies; the local independence test regresses "
            f"and takes {' or '.join(map(repr, INDEPENDENCE_REGRESSORS))}"
        )
    return None


def draw(fig: Any, result: Any, context: FigureContext) -> None:
    """The statistic at each evaluation point, with its report-scale p-value."""
    draw_per_point(fig, result, "local independence of the PIT values", context)


CHECK = Check(
    name=NAME,
    tests="PIT values of different parameters are independent at each evaluation point x",
    reading=(
        "Each bar is the largest pairwise statistic at one evaluation point; the p-value below "
        "it is adjusted across the pairs, the points and the checks, and only one at or below "
        "alpha marks a point where the dependence between parameters is wrong."
    ),
    needs=("pit", "two_parameters", "x"),
    run=run,
    tests_per_point=lambda m: m * (m - 1) // 2,  # Bonferroni over the K pairs
    refuse=refuse,
    draw=draw,
    findings=local_findings,
)
