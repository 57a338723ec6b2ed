"""``modelcompare coverage``: the coverage checks of the posterior report, in a compact view."""

from __future__ import annotations

import time
from typing import Any

import click

from modelcompare._foundation.io import DataError, read_matrix
from modelcompare.cli import _options as options
from modelcompare.cli._common import emit, handle_errors
from modelcompare.posterior import REGRESSORS

__all__ = ["coverage_command"]

# The report's checks this command runs, and their keys in its output: the four checks
# `modelcompare report` runs on the same two files, so that the two commands plan the same B,
# correct across the same checks and give the same p-values.
CHECKS = {
    "global_coverage": "global_coverage",
    "pit_independence": "independence",
    "local_coverage": "local_coverage",
    "local_independence": "local_independence",
}


@click.command("coverage")
@click.argument("pit_values")
@click.argument("x")
@options.x_eval(
    help="File of evaluation points x₀ (rows) for the local test. Default: the row of X nearest "
    "its centre and rows on both sides of it along up to three principal directions, as in "
    "`modelcompare report`."
)
@options.regressor(choices=REGRESSORS)
@options.n_resamples(
    help="Null resamples B of the local tests. Default: the smallest B >= 100 at which each "
    "can reach a Holm-adjusted p <= 0.05 across the checks, in two stages."
)
@options.n_levels()
@options.choice("--statistic", ["mse", "max"])
@options.eval_correction()
@options.common_options()
@handle_errors
def coverage_command(
    pit_values: str,
    x: str,
    x_eval: str | None,
    regressor: str,
    n_resamples: int | None,
    n_levels: int,
    statistic: str,
    eval_correction: str,
    opts: options.CommonOptions,
) -> None:
    """Coverage diagnostics of a posterior from PIT values (Linhart et al. 2022; Zhao et al. 2021).

    PIT_VALUES is an (N, m) file of PIT values in [0, 1] (e.g. modelcompare.pit on a calibration
    set); X the matching (N, d) observations. Runs the checks `modelcompare report` runs on the
    same two files: global_coverage_test (KS per covariate, Holm), pit_independence_test and
    local_independence_test (when m > 1) and local_coverage_test at each evaluation point x₀,
    and adjusts their p-values by Holm across the checks (`pvalues_adjusted`). Same files, same
    seed: the same B and the same p-values as `modelcompare report`. The B of each resampling
    check is planned in two stages (see validate_posterior) and shown in the JSON's
    params.n_resamples; each result's seed_used is the seed of that check's own stream, with
    which local_coverage_test(..., n_resamples=B, seed=seed_used) gives the same p-value. The JSON output holds each test's result keyed by its name;
    with --alpha, `decisions` holds each test's decision at that level after the adjustment, and
    --fail-on-reject exits with 1 when any test rejects.

    \b
    Example (the PIT values of an over-dispersed posterior, three evaluation points):
      $ modelcompare example-data
      $ modelcompare coverage examples/data/pit.npy examples/data/x.npy --x-eval examples/data/x_eval.npy --seed 0
      test                                            coverage
      n, m                                            500, 2
      global_coverage statistic                       0.0921068
      global_coverage pvalue                          0.000768401
      global_coverage pvalue (Holm across checks)     0.0030736
      ...
      x0  coordinates      T_z1      T_z2      pvalue   adjusted (holm)
      0   (-1.16, -0.403)  0.00408   0.00373   0.04167  0.1125
      1   (-2.27, 0.122)   0.00437   0.00385   0.0375   0.1125
      2   (1.56, 0.103)    0.00216   0.00294   0.1208   0.1208

    \b
    As a gate, at the report's default evaluation points:
      $ modelcompare coverage examples/data/pit.npy examples/data/x.npy --seed 0 --alpha 0.05 --json
      {"alpha": 0.05, "decisions": {"global_coverage": true, "independence": false, "local_coverage": false, "local_independence": false}, ...}
    """
    from modelcompare.workflows import report_from_arrays

    started = time.perf_counter()

    p = read_matrix(pit_values)
    xs = read_matrix(x)
    if p.shape[0] != xs.shape[0]:
        raise DataError(
            f"PIT_VALUES and X must have the same number of rows; got {p.shape[0]} and {xs.shape[0]}."
        )
    report = report_from_arrays(
        pit_values=p,
        x=xs,
        x_eval=None if x_eval is None else read_matrix(x_eval),
        checks=list(CHECKS),
        n_resamples=n_resamples,
        regressor=regressor,
        levels=n_levels,
        statistic=statistic,
        eval_correction=options.library_correction(eval_correction),
        seed=opts.seed,
    )
    results = {CHECKS[name]: res for name, res in report.results.items()}
    adjusted = {CHECKS[name]: p for name, p in report.pvalues_adjusted.items()}
    seeds = {CHECKS[name]: s for name, s in report.settings.get("check_seeds", {}).items()}
    payload: dict[str, Any] = {
        # the seed of each check's own stream: the library call with it reproduces the result
        name: _with_seed(res.to_dict(), seeds.get(name, report.seed_used))
        for name, res in results.items()
    }
    payload["pvalues_adjusted"] = adjusted
    rows: list[tuple[str, Any]] = [("n, m", f"{p.shape[0]}, {p.shape[1]}")]
    for name, res in results.items():
        rows += [
            (f"{name} statistic", res.statistic),
            (f"{name} pvalue", res.pvalue),
            (f"{name} pvalue (Holm across checks)", adjusted[name]),
        ]
    decisions: dict[str, bool] = {}
    if opts.alpha is not None:
        failed = {CHECKS[name] for name in report.failures(opts.alpha)}
        decisions = {name: name in failed for name in results}
        payload["alpha"] = opts.alpha
        payload["decisions"] = decisions
        rows += [
            (f"{name} decision", f"{'reject' if rej else 'do not reject'} H0 at {opts.alpha}")
            for name, rej in decisions.items()
        ]
    local = results["local_coverage"]
    if x_eval is None and not opts.quiet:
        click.echo(
            "evaluation points: the row of X nearest its centre and rows on both sides of it "
            "along up to three principal directions (--x-eval FILE to choose them).",
            err=True,
        )
    emit(
        opts,
        test="coverage",
        result=payload,
        params={
            "regressor": regressor,
            "n_resamples": report.settings["n_resamples"]["local_coverage"],
            "n_resamples_by_check": report.settings["n_resamples"],
            "n_levels": n_levels,
            "statistic": statistic,
            "eval_correction": eval_correction,
            "x_eval": x_eval,
        },
        seed=report.seed_used,
        started=started,
        rows=rows,
        table=_local_table(local, p.shape[1]),
        reject=any(decisions.values()),
    )


def _with_seed(data: dict[str, Any], seed: int | None) -> dict[str, Any]:
    """A result's dict with ``seed_used`` filled where the test draws at random."""
    if "seed_used" in data and data["seed_used"] is None:
        data["seed_used"] = seed
    return data


def _local_table(local: Any, m: int) -> str:
    """One row per evaluation point: its coordinates, T_z per covariate, p and adjusted p."""
    points = ["(" + ", ".join(f"{v:.3g}" for v in row) + ")" for row in local.x_eval.tolist()]
    width = max(len(p) for p in points)
    head = (
        f"x0  {'coordinates':<{width}}  "
        + "  ".join(f"{f'T_z{i + 1}':<8}" for i in range(m))
        + f"  pvalue   adjusted ({local.eval_correction or 'none'})"
    )
    lines = [head]
    for e, point in enumerate(points):
        ts = "  ".join(f"{t:<8.3g}" for t in local.statistics[:, e])
        lines.append(
            f"{e:<3} {point:<{width}}  {ts}  {local.pvalues[e]:<8.4g} "
            f"{local.pvalues_adjusted[e]:.4g}"
        )
    return "\n".join(lines)
