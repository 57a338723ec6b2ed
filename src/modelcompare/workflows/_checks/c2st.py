"""C2ST of the posterior's draws against reference draws (Lopez-Paz & Oquab 2017, as in sbibm)."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import Check, ReportInputs
from modelcompare.workflows._checks._figures import legend_below

__all__ = ["CHECK"]


def run(inputs: ReportInputs, rng: np.random.Generator) -> Any:
    """One C2ST per reference observation, Holm across them."""
    from modelcompare.workflows._reference_c2st import reference_c2st

    return reference_c2st(inputs.draws_at_reference, inputs.reference, rng, inputs.classifier)


def draw(fig: Any, result: Any) -> None:
    """The held-out accuracy at each observation against chance."""
    ax = fig.subplots()
    ax.bar(range(len(result.statistics)), result.statistics, color="C0")
    ax.axhline(0.5, color="k", ls="--", lw=0.8, label="chance (0.5)")
    ax.set(xlabel="observation", ylabel="C2ST accuracy", ylim=(0.4, 1.0), title="C2ST")
    ax.set_xticks(range(len(result.statistics)))
    legend_below(fig, ax)


CHECK = Check(
    name="c2st",
    tests="posterior draws match reference draws at the given observations (C2ST)",
    reading="Accuracies near 0.5 mean the classifier cannot tell the posterior from the reference.",
    needs=("reference",),
    run=run,
    draw=draw,
)
