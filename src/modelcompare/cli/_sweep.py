"""``modelcompare sweep``: run a grid of tests over data files, resumably, locally or on Dask."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import click

from modelcompare.cli import _options as options
from modelcompare.cli._common import echo_json, handle_errors


def _scheduler(address: str | None) -> Any:
    """A context that sends joblib work to Dask (an address, or ``local`` for a LocalCluster)."""
    stack = contextlib.ExitStack()
    if address is None:
        return stack
    import joblib

    from modelcompare._foundation.optional import import_optional

    distributed = import_optional("distributed", purpose="--scheduler (running on a Dask cluster)")
    if address == "local":
        cluster = stack.enter_context(distributed.LocalCluster(dashboard_address=None))
        client = stack.enter_context(distributed.Client(cluster))
    else:
        try:
            client = stack.enter_context(distributed.Client(address, timeout="10s"))
        except (OSError, TimeoutError) as exc:
            stack.close()
            msg = f"could not reach the Dask scheduler at {address!r} ({exc})."
            raise OSError(msg) from None
    stack.enter_context(joblib.parallel_config(backend="dask"))
    del client
    return stack


@click.command("sweep")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Results file (.parquet or .csv). Default: the config's `out`, else CONFIG.results.parquet "
    "(.csv without pyarrow).",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="Dask scheduler address (tcp://host:8786), or `local` for a local cluster.",
)
@options.n_jobs(help="joblib workers, a non-zero int; -1: all cores (default: the config's).")
@options.seed(help="Base seed.")
@click.option(
    "--retry-failed/--keep-failed",
    default=True,
    show_default=True,
    help="Rerun tasks that failed in an earlier run, or keep their recorded error.",
)
@options.common_options(seed=False, decision=False)
@handle_errors
def sweep_command(
    config: str,
    out: str | None,
    scheduler: str | None,
    n_jobs: int | None,
    retry_failed: bool,
    opts: options.CommonOptions,
) -> None:
    """Run the grid of tests in CONFIG (.yaml or .json) over the data files it lists.

    Each finished task is saved at once (under OUT.parts/); rerunning the same command skips what
    is done, so an interrupted sweep loses nothing that finished. A failing task is recorded with
    its error. Every data file is read once before the first task. One sweep at a time writes an
    OUT (it holds OUT.lock); a second one on the same OUT is refused. Failed tasks are in the
    table and counted on stderr, and the sweep still exits 0; an invalid config, an unreadable
    file, an OUT in use by another sweep or an unreachable scheduler exit 3 (invalid input).

    \b
    Example config (examples/data/sweep.yaml, shortened; data paths are relative to the file):
      seed: 0
      data: {ref: reference.npy, samples: samples.npy, rel_ref: rel_ref.npy, ...}
      tests:
        - test: c2st
          x: ref
          y: [samples]
          options: {classifier: logistic}
          grid: {n_folds: [5, 10]}
        ...

    \b
    Example (four tasks; --scheduler tcp://host:8786 would run them on a Dask cluster):
      $ modelcompare example-data
      $ modelcompare sweep examples/data/sweep.yaml --out results.csv --seed 0
      test       x       y  n_folds classifier  replicate  statistic       pvalue error
      c2st     ref samples        5   logistic          0    0.54300 2.213038e-03  None
      c2st     ref samples       10   logistic          0    0.55400 2.604131e-04  None
      c2st rel_ref       p        5   logistic          0    0.66875 9.114647e-11  None
      c2st rel_ref       q        5   logistic          0    0.51750 2.111153e-01  None

    \b
    The same command again skips the finished tasks:
      $ modelcompare sweep examples/data/sweep.yaml --out results.csv --seed 0 --json
      {"n_failed": 0, "n_run": 0, "n_skipped": 4, "out": "results.csv", "rows": [...], ...}
    """
    from modelcompare import __version__
    from modelcompare.experiments import load_config, run_config

    cfg = load_config(config)
    if out is None and cfg.get("out") is None:
        try:
            import pyarrow  # noqa: F401

            suffix = ".parquet"
        except ImportError:
            suffix = ".csv"
        out = str(Path(config).with_suffix("")) + ".results" + suffix
    with _scheduler(scheduler):
        table = run_config(
            cfg,
            out=out,
            seed=opts.seed,
            n_jobs=n_jobs,
            progress=not opts.quiet,
            retry_failed=retry_failed,
            base_dir=Path(config).parent,
        )
    out_path = table.attrs["out"]
    n_failed = int(table["error"].notna().sum())
    if not opts.quiet:
        click.echo(f"seed used: {table.attrs['seed_used']}", err=True)
        click.echo(
            f"{len(table)} tasks: {table.attrs['n_run']} run, {table.attrs['n_skipped']} already "
            f"done, {n_failed} failed; results in {out_path}",
            err=True,
        )
        if n_failed:
            first = table.loc[table["error"].notna(), "error"].iloc[0]
            click.echo(f"first error: {first}", err=True)
    if opts.as_json:
        from modelcompare._foundation.results import to_builtin

        payload = {
            "test": "sweep",
            "out": str(out_path),
            "seed": table.attrs["seed_used"],
            "n_run": table.attrs["n_run"],
            "n_skipped": table.attrs["n_skipped"],
            "n_failed": n_failed,
            "rows": to_builtin(table.astype(object).where(table.notna(), None)),
            "version": __version__,
        }
        echo_json(payload)
        return
    shown = [*table.attrs["config_columns"]]
    shown += [c for c in ("statistic", "pvalue", "error") if c in table.columns]
    click.echo(table[shown].to_string(index=False, max_colwidth=60))
