"""The local coverage test (Zhao et al. 2021) at the evaluation points."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import Check, ReportInputs, quiet_resolution

__all__ = ["CHECK"]

NAME = "local_coverage"


def run(inputs: ReportInputs, rng: np.random.Generator) -> Any:
    """The local coverage test with the planned B (the report warns about B itself)."""
    from modelcompare.posterior import local_coverage_test

    return quiet_resolution(
        lambda: local_coverage_test(
            inputs.pit_values,
            inputs.x,
            inputs.x_eval,
            levels=inputs.levels,
            statistic=inputs.statistic,
            regressor=inputs.regressor,
            eval_correction=inputs.eval_correction,
            n_resamples=inputs.n_resamples[NAME],
            n_jobs=inputs.n_jobs,
            seed=rng,
        )
    )


def resample_limit(inputs: ReportInputs) -> int:
    """The largest B the memory guard of the null regressions allows."""
    from modelcompare.posterior import level_grid, max_null_resamples

    return max_null_resamples(inputs.n, inputs.n_features, level_grid(inputs.levels).size)


def draw(fig: Any, result: Any) -> None:
    """The local PP-curves at the evaluation point with the least support, and the statistics."""
    from modelcompare.posterior import plot_local_pp, plot_local_statistics

    m = np.asarray(result.statistics).shape[0]
    axes = np.atleast_1d(fig.subplots(1, m + 1))
    worst = int(np.argmin(result.pvalues))
    plot_local_pp(result, worst, axes=axes[:m])
    plot_local_statistics(result, ax=axes[m])
    # the band's label is wider than a PP panel: one legend below the row instead
    legend = axes[0].get_legend()
    handles, labels = axes[0].get_legend_handles_labels()
    if legend is not None:
        legend.remove()
        fig.legend(handles, labels, loc="outside lower center", fontsize="small", frameon=False)


CHECK = Check(
    name=NAME,
    tests="PIT values are uniform at each evaluation point x (local coverage test)",
    reading=(
        "The local PP-curve should stay inside the band at every evaluation point; the statistics "
        "along x show where coverage fails."
    ),
    needs=("pit", "x"),
    run=run,
    tests_per_point=lambda m: m,  # Bonferroni over the m covariates
    resample_limit=resample_limit,
    draw=draw,
)
