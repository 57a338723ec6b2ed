"""The global PIT check with simultaneous bands (Linhart et al. 2022)."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import Check, ReportInputs

__all__ = ["CHECK"]


def run(inputs: ReportInputs, rng: np.random.Generator) -> Any:
    """The KS test of each parameter's PIT values, Holm across parameters."""
    from modelcompare.posterior import global_coverage_test

    return global_coverage_test(inputs.pit_values, levels=inputs.levels, seed=rng)


def draw(fig: Any, result: Any) -> None:
    """One PP-curve per parameter (four at most) with its simultaneous band."""
    from modelcompare.posterior import plot_global_pp

    m = len(result.statistics)
    axes = np.atleast_1d(fig.subplots(1, min(m, 4)))
    plot_global_pp(result, axes=axes[:m])


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
