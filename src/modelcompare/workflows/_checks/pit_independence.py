"""Pairwise independence of the PIT values of different parameters."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import Check, ReportInputs
from modelcompare.workflows._checks._figures import FigureContext

__all__ = ["CHECK"]


def run(inputs: ReportInputs, rng: np.random.Generator) -> Any:
    """The independence test of the PIT values (deterministic: ``rng`` is not used)."""
    from modelcompare.posterior import pit_independence_test

    return pit_independence_test(inputs.pit_values)


def draw(fig: Any, result: Any, context: FigureContext) -> None:
    """The correlation matrix of the Gaussianised PIT values, named by parameter."""
    from modelcompare.posterior import plot_pit_correlations

    m = 1 + max(max(pair) for pair in result.pairs)
    plot_pit_correlations(result, ax=fig.subplots(), labels=list(context.parameter_names[:m]))


CHECK = Check(
    name="pit_independence",
    tests="PIT values of different parameters are independent (the joint, not only the marginals)",
    reading=(
        "Off-diagonal entries near 0 are expected; a strong correlation means the estimator "
        "misses the dependence between parameters."
    ),
    needs=("pit", "two_parameters"),
    run=run,
    draw=draw,
    # no hook of its own: its follow-ups (which latent pairs) are in the one family of the
    # calibration findings, asked for by SBC or the global PIT check (_calibration_findings)
)
