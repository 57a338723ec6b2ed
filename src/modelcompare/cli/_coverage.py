"""``modelcompare coverage``: global and local coverage diagnostics from precomputed PIT values."""

from __future__ import annotations

import time
from typing import Any

import click

from modelcompare._foundation.io import DataError, read_matrix
from modelcompare._foundation.results import Result, result_class
from modelcompare.cli._common import common_options, emit, handle_errors


@result_class
class CoverageReport(Result):
    """What the CLI prints: the global check, the independence check and (optionally) the local test."""

    pvalue: float
    global_check: Any
    independence: Any
    local: Any


@click.command("coverage")
@click.argument("pit_values")
@click.argument("x")
@click.option(
    "--x-eval",
    "x_eval",
    default=None,
    help="File of evaluation points x₀ (rows) for the local test.",
)
@click.option(
    "--regressor",
    type=click.Choice(["hgb", "knn", "logistic", "mlp"]),
    default="hgb",
    show_default=True,
)
@click.option("--n-null", type=click.IntRange(min=1), default=100, show_default=True)
@click.option(
    "--n-alphas",
    type=click.IntRange(min=1),
    default=99,
    show_default=True,
    help="α grid k/(K+1), k=1..K.",
)
@click.option("--statistic", type=click.Choice(["mse", "max"]), default="mse", show_default=True)
@click.option(
    "--eval-correction",
    type=click.Choice(["none", "bonferroni", "holm"]),
    default="none",
    show_default=True,
)
@common_options
@handle_errors
def coverage_command(
    pit_values: str,
    x: str,
    x_eval: str | None,
    regressor: str,
    n_null: int,
    n_alphas: int,
    statistic: str,
    eval_correction: str,
    seed: int | None,
    as_json: bool,
    alpha: float | None,
    fail_on_reject: bool,
    quiet: bool,
) -> None:
    """Coverage diagnostics of a posterior from PIT values (Linhart et al. 2022; Zhao et al. 2021).

    PIT_VALUES is an (N, m) file of PIT values in [0, 1] (e.g. modelcompare.pit on a calibration
    set); X the matching (N, d) observations. Runs the global KS check per covariate (Bonferroni),
    the pairwise independence test and, with --x-eval, the local coverage test at each x₀. The
    reported p-value (and --alpha decision) is the global uniformity test's.

    \b
    Example:
      $ modelcompare coverage pit.npy x.npy --x-eval path.npy --regressor knn --seed 0 --json
      {"global_check": {...}, "local": {"pvalue": [...], ...}, "pvalue": 0.41, "seed": 0, ...}
    """
    from modelcompare import global_coverage_test, local_coverage_test, pit_independence_test

    started = time.perf_counter()
    p = read_matrix(pit_values)
    xs = read_matrix(x)
    if p.shape[0] != xs.shape[0]:
        raise DataError(
            f"PIT_VALUES and X must have the same number of rows; got {p.shape[0]} and {xs.shape[0]}."
        )
    glob = global_coverage_test(p, alphas=n_alphas)
    indep = pit_independence_test(p) if p.shape[1] > 1 else None
    local = None
    if x_eval is not None:
        xe = read_matrix(x_eval)
        local = local_coverage_test(
            p,
            xs,
            xe,
            alphas=n_alphas,
            regressor=regressor,
            n_null=n_null,
            statistic=statistic,
            eval_correction=None if eval_correction == "none" else eval_correction,
            seed=seed,
        )
    report = CoverageReport(
        pvalue=glob.pvalue,
        global_check={
            k: v
            for k, v in glob.to_dict().items()
            if k in ("statistic", "pvalue", "statistics", "pvalues", "n")
        },
        independence=None if indep is None else indep.to_dict(),
        local=None
        if local is None
        else {
            k: v
            for k, v in local.to_dict().items()
            if k not in ("r_hat", "band_low", "band_high", "null_statistic")
        },
    )
    rows: list[tuple[str, Any]] = [("n, m", f"{p.shape[0]}, {p.shape[1]}")]
    rows += [(f"global KS p (z{i + 1})", float(v)) for i, v in enumerate(glob.pvalues)]
    rows.append(("global pvalue (Bonferroni)", glob.pvalue))
    if indep is not None:
        rows.append(("independence p (Spearman, Bonferroni)", indep.pvalue))
    table = None
    if local is not None:
        adj = local.pvalue_adjusted
        head = (
            "x0  "
            + "  ".join(f"T_z{i + 1:<6}" for i in range(p.shape[1]))
            + "  pvalue"
            + ("   adjusted" if adj is not None else "")
        )
        lines = [head]
        for e in range(local.statistic.shape[1]):
            ts = "  ".join(f"{t:<8.3g}" for t in local.statistic[:, e])
            extra = f"   {adj[e]:.4g}" if adj is not None else ""
            lines.append(f"{e:<3} {ts}  {local.pvalue[e]:.4g}{extra}")
        table = "\n".join(lines)
    elif not quiet:
        click.echo("hint: pass --x-eval FILE to run the local coverage test.", err=True)
    emit(
        test="coverage",
        result=report,
        params={
            "regressor": regressor,
            "n_null": n_null,
            "n_alphas": n_alphas,
            "statistic": statistic,
            "eval_correction": eval_correction,
            "x_eval": x_eval,
        },
        seed=None if local is None else local.seed_used,
        as_json=as_json,
        alpha=alpha,
        fail_on_reject=fail_on_reject,
        quiet=quiet,
        rows=rows,
        started=started,
        table=table,
    )
