"""``modelcompare coverage``: global and local coverage diagnostics from precomputed PIT values."""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from modelcompare._foundation.errors import ResourceLimitError
from modelcompare._foundation.io import DataError, read_matrix
from modelcompare._foundation.seeds import check_seed
from modelcompare.cli._common import EXIT_REJECT, common_options, decide, emit, handle_errors


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
@click.option("--n-resamples", type=click.IntRange(min=1), default=100, show_default=True)
@click.option(
    "--n-levels",
    type=click.IntRange(min=1),
    default=99,
    show_default=True,
    help="Credibility levels k/(K+1), k=1..K.",
)
@click.option("--statistic", type=click.Choice(["mse", "max"]), default="mse", show_default=True)
@click.option(
    "--eval-correction",
    type=click.Choice(["holm", "bonferroni"]),
    default="holm",
    show_default=True,
    help="Correction of the local p-values across evaluation points.",
)
@common_options
@handle_errors
def coverage_command(
    pit_values: str,
    x: str,
    x_eval: str | None,
    regressor: str,
    n_resamples: int,
    n_levels: int,
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
    set); X the matching (N, d) observations. Runs global_coverage_test (KS per covariate, Holm),
    pit_independence_test (when m > 1) and, with --x-eval, local_coverage_test at each x₀. The JSON
    output holds each test's result keyed by its name; with --alpha, `decisions` holds each test's
    decision at that level, and --fail-on-reject exits with 1 when any test rejects.

    \b
    Example (the PIT values of an over-dispersed posterior, and three evaluation points):
      $ modelcompare coverage examples/data/pit.npy examples/data/x.npy --x-eval examples/data/x_eval.npy --regressor knn --n-resamples 200 --seed 0
      test                       coverage
      n, m                       500, 2
      global_coverage statistic  0.0921068
      global_coverage pvalue     0.000768401
      independence statistic     0.0121635
      independence pvalue        0.786149
      local_coverage statistic   0.00437464
      local_coverage pvalue      0.119403
      ...
      x0  T_z1       T_z2       pvalue   adjusted (holm)
      0   0.00408   0.00373   0.0597   0.1194
      1   0.00437   0.00385   0.0398   0.1194
      2   0.00216   0.00294   0.1493   0.1493
    """
    started = time.perf_counter()
    try:
        _run(
            pit_values,
            x,
            x_eval,
            regressor,
            n_resamples,
            n_levels,
            statistic,
            eval_correction,
            seed,
            as_json,
            alpha,
            fail_on_reject,
            quiet,
            started,
        )
    except ResourceLimitError as exc:  # name the CLI options, not the Python arguments
        text = (
            str(exc).replace("`levels`", "`--n-levels`").replace("`n_resamples`", "`--n-resamples`")
        )
        raise ResourceLimitError(text) from None


def _run(
    pit_values: str,
    x: str,
    x_eval: str | None,
    regressor: str,
    n_resamples: int,
    n_levels: int,
    statistic: str,
    eval_correction: str,
    seed: int | None,
    as_json: bool,
    alpha: float | None,
    fail_on_reject: bool,
    quiet: bool,
    started: float,
) -> None:
    from modelcompare import global_coverage_test, local_coverage_test, pit_independence_test

    p = read_matrix(pit_values)
    xs = read_matrix(x)
    if p.shape[0] != xs.shape[0]:
        raise DataError(
            f"PIT_VALUES and X must have the same number of rows; got {p.shape[0]} and {xs.shape[0]}."
        )
    _, seed_used = check_seed(seed)
    results: dict[str, Any] = {
        "global_coverage": global_coverage_test(p, levels=n_levels, seed=seed_used)
    }
    if p.shape[1] > 1:
        results["independence"] = pit_independence_test(p)
    if x_eval is not None:
        results["local_coverage"] = local_coverage_test(
            p,
            xs,
            read_matrix(x_eval),
            levels=n_levels,
            regressor=regressor,
            n_resamples=n_resamples,
            statistic=statistic,
            eval_correction=eval_correction,
            seed=seed_used,
        )
    payload: dict[str, Any] = {name: res.to_dict() for name, res in results.items()}
    rows: list[tuple[str, Any]] = [("n, m", f"{p.shape[0]}, {p.shape[1]}")]
    for name, res in results.items():
        rows += [(f"{name} statistic", res.statistic), (f"{name} pvalue", res.pvalue)]
    decisions: dict[str, bool] = {}
    if alpha is not None:
        decisions = {name: bool(decide(res, alpha)[0]) for name, res in results.items()}
        payload["alpha"] = alpha
        payload["decisions"] = decisions
        rows += [
            (f"{name} decision", f"{'reject' if rej else 'do not reject'} H0 at {alpha}")
            for name, rej in decisions.items()
        ]
    table = None
    local = results.get("local_coverage")
    if local is not None:
        head = (
            "x0  "
            + "  ".join(f"T_z{i + 1:<6}" for i in range(p.shape[1]))
            + f"  pvalue   adjusted ({local.eval_correction})"
        )
        lines = [head]
        for e in range(local.statistics.shape[1]):
            ts = "  ".join(f"{t:<8.3g}" for t in local.statistics[:, e])
            lines.append(f"{e:<3} {ts}  {local.pvalues[e]:<8.4g} {local.pvalues_adjusted[e]:.4g}")
        table = "\n".join(lines)
    elif not quiet:
        click.echo("hint: pass --x-eval FILE to run the local coverage test.", err=True)
    emit(
        test="coverage",
        result=payload,
        params={
            "regressor": regressor,
            "n_resamples": n_resamples,
            "n_levels": n_levels,
            "statistic": statistic,
            "eval_correction": eval_correction,
            "x_eval": x_eval,
        },
        seed=seed_used,
        as_json=as_json,
        quiet=quiet,
        rows=rows,
        started=started,
        table=table,
    )
    if fail_on_reject and any(decisions.values()):
        sys.exit(EXIT_REJECT)
