"""Expected coverage of highest-density regions (Hermans et al. 2022) from the flow's log_prob."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import Check, ReportInputs

__all__ = ["CHECK"]


def run(inputs: ReportInputs, rng: np.random.Generator) -> Any:
    """HPD ranks of θ among the flow's draws at the calibration x's, and their KS test."""
    from modelcompare.posterior import hpd_coverage

    return hpd_coverage(
        inputs.flow, inputs.theta, inputs.x, n_posterior_samples=inputs.n_draws, seed=rng
    )


def draw(fig: Any, result: Any) -> None:
    """The expected-coverage curve against the diagonal."""
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], color="0.6", linestyle="--", label="calibrated")
    ax.plot(result.levels, result.coverage, label="expected coverage")
    ax.set_xlabel("credibility level γ of the highest-density region")
    ax.set_ylabel("share of θ inside")
    ax.legend(loc="upper left", fontsize="small", frameon=False)


CHECK = Check(
    name="expected_coverage",
    tests=(
        "θ falls in the estimated γ highest-density region with probability γ "
        "(expected coverage; uniform HPD ranks)"
    ),
    reading=(
        "A calibrated posterior follows the diagonal; a curve below it means regions that cover "
        "too rarely (too narrow, or biased), above it too often (too wide)."
    ),
    needs=("log_prob",),
    run=run,
    draw=draw,
    default=False,  # opt-in: another C in Holm raises every resampling check's B (see validate_posterior)
)
