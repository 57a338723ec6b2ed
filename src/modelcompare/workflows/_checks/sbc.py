"""Simulation-based calibration (Talts et al. 2018): the ranks of θ among posterior draws."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import Check, ReportInputs
from modelcompare.workflows._checks._calibration_findings import ranks_findings
from modelcompare.workflows._checks._figures import FigureContext, legend_below

__all__ = ["CHECK"]


def run(inputs: ReportInputs, rng: np.random.Generator) -> Any:
    """SBC on the given ranks, or on ranks of posterior draws at the calibration x's."""
    from modelcompare.posterior import sbc, sbc_test

    if inputs.ranks is not None:
        return sbc_test(inputs.ranks, inputs.n_posterior_samples, seed=rng)
    return sbc(
        inputs.sampler, inputs.theta, inputs.sample_x, n_posterior_samples=inputs.n_draws, seed=rng
    )


def draw(fig: Any, result: Any, context: FigureContext) -> None:
    """The ECDF of the ranks with its band, and their histogram; the legends below the axes."""
    from modelcompare.posterior import plot_sbc

    names = list(context.parameter_names[: np.asarray(result.ranks).shape[1]])
    a, b = fig.subplots(1, 2)
    plot_sbc(result, ax=a, kind="ecdf", labels=names)
    plot_sbc(result, ax=b, kind="hist", labels=names)
    b.get_legend().remove()
    legend_below(fig, a)


CHECK = Check(
    name="sbc",
    tests="ranks of θ among posterior draws are uniform (simulation-based calibration)",
    reading=(
        "A calibrated posterior keeps every ECDF curve inside the band; a ∪ shape means the "
        "posterior is too narrow, a ∩ shape too wide, a tilt a bias."
    ),
    needs=("ranks",),
    run=run,
    draw=draw,
    findings=ranks_findings,
)
