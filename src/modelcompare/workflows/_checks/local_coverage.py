"""The local coverage test (Zhao et al. 2021) at the evaluation points."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import Check, ReportInputs, quiet_resolution
from modelcompare.workflows._checks._figures import FigureContext, label_points
from modelcompare.workflows._checks._local_findings import local_findings

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


#: PP panels per row: four keep a panel's two-line title within its width at 8 inches
_PANELS_PER_ROW = 4


def draw(fig: Any, result: Any, context: FigureContext) -> None:
    """The local PP-curves at the evaluation point with the least support, and the statistics.

    The statistics panel carries no verdict of its own: each point is labelled by its
    coordinates and its p-value on the report's scale (adjusted across the covariates, the
    points and the checks), bold only where the report's table rejects.

    Up to two parameters share one row with a statistics panel of up to five points. Otherwise
    the PP panels wrap into rows of at most four and the statistics panel spans the width below
    them, so that titles and point labels keep their room at any number of parameters and
    points.
    """
    from modelcompare.posterior import plot_local_pp, plot_local_statistics

    m = np.asarray(result.statistics).shape[0]
    names = list(context.parameter_names[:m])
    pp_axes, stat_ax, one_row = _layout(fig, m, len(result.pvalues))
    worst = int(np.argmin(result.pvalues))
    plot_local_pp(result, worst, ax=pp_axes, labels=names)
    # Bonferroni over the covariates, then the check's correction across the points and checks
    covariate = np.minimum(1.0, m * np.asarray(result.covariate_pvalues, dtype=float)[:, worst])
    point_p = context.point_pvalues(result.pvalues_adjusted)
    ncols = m if one_row else pp_axes[0].get_gridspec().ncols
    ylabel = pp_axes[0].get_ylabel()
    for i, ax in enumerate(pp_axes):
        p = max(float(context.point_pvalues([covariate[i]])[0]), float(point_p[worst]))
        ax.set_title(f"{names[i]}\n(adjusted p = {p:.2g})", fontsize=9)
        # labels on the outer panels only: the panels share their axes
        if i % ncols:
            ax.set_ylabel("")
            ax.tick_params(labelleft=False)
        else:
            ax.set_ylabel(ylabel)
        if i + ncols < m:
            ax.set_xlabel("")
            ax.tick_params(labelbottom=False)
    fig.suptitle(
        f"local PP-curves at {context.label(worst)}, the point with the smallest p-value",
        fontsize=9,
    )
    ax = plot_local_statistics(result, ax=stat_ax, alpha=None, labels=names)
    label_points(ax, context, point_p, narrow=one_row)
    ax.set_xlabel("evaluation point (p adjusted)", fontsize=8)
    ax.set_title("T at each evaluation point", fontsize=9)
    handles, labels = [], []
    for a in (pp_axes[0], ax):
        h, lab = a.get_legend_handles_labels()
        handles, labels = handles + h, labels + lab
        if a.get_legend() is not None:
            a.get_legend().remove()
    # the legends are wider than a panel: one legend below the panels instead
    fig.legend(
        handles,
        labels,
        loc="outside lower center",
        fontsize="small",
        frameon=False,
        ncol=min(len(labels), 4),
    )


def _layout(fig: Any, m: int, n_points: int) -> tuple[list[Any], Any, bool]:
    """The m PP axes, the statistics axes and whether they share one row.

    One row holds at most two PP panels and a statistics panel of at most five points (a third
    of the width holds five vertical point labels, not twenty).

    The figure grows in height with the rows of PP panels, so that each keeps its size.
    """
    if m <= 2 and n_points <= 5:
        axes = list(np.atleast_1d(fig.subplots(1, m + 1)))
        for ax in axes[1:m]:
            ax.sharex(axes[0])
            ax.sharey(axes[0])
        return axes[:m], axes[m], True
    rows = -(-m // _PANELS_PER_ROW)
    ncols = -(-m // rows)  # balanced rows: five panels as 3 + 2, not 4 + 1
    fig.set_size_inches(fig.get_figwidth(), 2.2 * rows + 3.4)
    grid = fig.add_gridspec(rows + 1, ncols, height_ratios=[1.0] * rows + [1.3])
    first = fig.add_subplot(grid[0, 0])
    pp = [first] + [
        fig.add_subplot(grid[i // ncols, i % ncols], sharex=first, sharey=first)
        for i in range(1, m)
    ]
    return pp, fig.add_subplot(grid[rows, :]), False


CHECK = Check(
    name=NAME,
    tests="PIT values are uniform at each evaluation point x (local coverage test)",
    reading=(
        "Left: the local PP-curves at the evaluation point with the smallest p-value, which "
        "stay inside the band for a calibrated posterior. Right: the statistic at each "
        "evaluation point with its p-value adjusted across the covariates, the points and the "
        "checks; only one at or below alpha marks a point where coverage fails."
    ),
    needs=("pit", "x"),
    run=run,
    tests_per_point=lambda m: m,  # Bonferroni over the m covariates
    resample_limit=resample_limit,
    draw=draw,
    findings=local_findings,
)
