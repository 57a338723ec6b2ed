"""The global PIT check with simultaneous bands (Linhart et al. 2022)."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import Check, ReportInputs
from modelcompare.workflows._checks._calibration_findings import pit_ranks_findings
from modelcompare.workflows._checks._figures import FigureContext, legend_below

__all__ = ["CHECK"]


def run(inputs: ReportInputs, rng: np.random.Generator) -> Any:
    """The KS test of each parameter's PIT values, Holm across parameters."""
    from modelcompare.posterior import global_coverage_test

    return global_coverage_test(inputs.pit_values, levels=inputs.levels, seed=rng)


def draw(fig: Any, result: Any, context: FigureContext) -> None:
    """One PP-curve per parameter, five to a row, with its simultaneous band, legend below."""
    import math

    from modelcompare.posterior import plot_global_pp

    m = len(result.statistics)
    cols = min(m, 5)
    rows = math.ceil(m / cols)
    if rows > 1:  # room for every row's titles and ticks
        fig.set_size_inches(fig.get_figwidth(), 2.4 * rows + 1.0)
    grid = np.atleast_1d(fig.subplots(rows, cols)).ravel()
    for ax in grid[m:]:
        ax.set_visible(False)
    axes = grid[:m]
    names = list(context.parameter_names[:m])
    plot_global_pp(result, ax=axes, labels=names)
    adjusted = context.point_pvalues(result.pvalues_adjusted)
    for i, ax in enumerate(axes):
        ax.set_title(f"{names[i]} (adjusted p = {adjusted[i]:.2g})", fontsize=8)
        if m > 2:
            ax.tick_params(labelsize="x-small")
            ax.xaxis.label.set_fontsize(7)
            ax.yaxis.label.set_fontsize(7)
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
    findings=pit_ranks_findings,
)
