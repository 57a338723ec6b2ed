"""L-C2ST-NF (Linhart et al. 2023) at the evaluation points."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import Check, ReportInputs, quiet_resolution
from modelcompare.workflows._checks._figures import FigureContext, draw_per_point
from modelcompare.workflows._checks._local_findings import local_findings

__all__ = ["CHECK"]

NAME = "lc2st_nf"

#: L-C2ST-NF's classifier for the report's ``classifier``: the cheap screen fits quadratic
#: logistic classifiers (shift, dispersion, correlation; all B + 1 fitted by Newton's method),
#: ``"mlp"`` the paper's neural network.
CLASSIFIER_OF_REPORT = {"logistic": "quadratic", "mlp": "mlp"}


def run(inputs: ReportInputs, rng: np.random.Generator) -> Any:
    """L-C2ST-NF of the flow's latent with the planned B."""
    from modelcompare.posterior import lc2st_nf

    return quiet_resolution(
        lambda: lc2st_nf(
            inputs.flow,
            inputs.theta,
            inputs.x,
            inputs.x_eval,
            n_resamples=inputs.n_resamples[NAME],
            classifier=CLASSIFIER_OF_REPORT[inputs.classifier],
            n_jobs=inputs.n_jobs,
            seed=rng,
        )
    )


def draw(fig: Any, result: Any, context: FigureContext) -> None:
    """The statistic at each evaluation point, with its report-scale p-value."""
    draw_per_point(fig, result, "L-C2ST-NF (the flow's latent z)", context)


CHECK = Check(
    name=NAME,
    tests="the flow's latent is N(0, I) at each evaluation point x (L-C2ST-NF)",
    reading=(
        "Each bar is the classifier statistic at one evaluation point, with the 95 % quantile of "
        "that point's own null as a reference; the p-value below each bar is adjusted across the "
        "points and the checks, and only one at or below alpha marks a point where the latent "
        "is not N(0, I)."
    ),
    needs=("latent", "x"),
    run=run,
    tests_per_point=lambda m: 1,  # one classifier test per evaluation point
    draw=draw,
    findings=local_findings,
)
