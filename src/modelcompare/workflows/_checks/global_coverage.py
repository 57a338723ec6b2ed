"""The global PIT check with simultaneous bands (Linhart et al. 2022)."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import Check, ReportInputs
from modelcompare.workflows._checks._figures import FigureContext, legend_below

__all__ = ["CHECK"]


def run(inputs: ReportInputs, rng: np.random.Generator) -> Any:
    """The KS test of each parameter's PIT values, Holm across parameters."""
    from modelcompare.posterior import global_coverage_test

    return global_coverage_test(inputs.pit_values, levels=inputs.levels, seed=rng)


def draw(fig: Any, result: Any, context: FigureContext) -> None:
    """One PP-curve per parameter (four at most) with its simultaneous band, legend below."""
    from modelcompare.posterior import plot_global_pp

    m = min(len(result.statistics), 4)
    axes = np.atleast_1d(fig.subplots(1, m))
    names = list(context.parameter_names[: len(result.statistics)])
    plot_global_pp(result, ax=axes[:m], labels=names[:m])
    adjusted = context.point_pvalues(result.pvalues_adjusted)
    for i, ax in enumerate(axes[:m]):
        ax.set_title(f"{names[i]} (adjusted p = {adjusted[i]:.2g})", fontsize=9)
    legend_below(fig, axes[0])


CHECK = Check(
    name="global_coverage",
    tests="PIT values of each parameter are uniform over the calibration set",
    reading=(
        "Each PP-curve should stay inside the simultaneous band; an S shape means the posterior "
        "is too wide or too narrow, a curve above or below the diagonal a bias."
    ),
    needs=("pit",),
    run=run,
    draw=draw,
)
