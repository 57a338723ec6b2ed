"""TARP (Lemos et al. 2023): expected coverage of random-point credible regions."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import Check, ReportInputs

__all__ = ["CHECK"]


def run(inputs: ReportInputs, rng: np.random.Generator) -> Any:
    """TARP on posterior draws at the calibration x's."""
    from modelcompare.posterior import tarp

    return tarp(
        inputs.sampler, inputs.theta, inputs.sample_x, n_posterior_samples=inputs.n_draws, seed=rng
    )


def draw(fig: Any, result: Any) -> None:
    """The expected coverage against the credibility level."""
    from modelcompare.posterior import plot_tarp

    ax = plot_tarp(result, ax=fig.subplots())
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)


CHECK = Check(
    name="tarp",
    tests="expected coverage of random-point credible regions equals the credibility level",
    reading=(
        "A calibrated posterior follows the diagonal; below it the posterior is over-confident, "
        "above it under-confident."
    ),
    needs=("draws",),
    run=run,
    draw=draw,
)
