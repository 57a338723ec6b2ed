"""``modelcompare report``: the posterior validation report from arrays on disk."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from modelcompare._foundation.io import DataError, read_matrix
from modelcompare.cli import _options as options
from modelcompare.cli._common import emit_report, handle_errors
from modelcompare.cli._exit import EXIT_USAGE
from modelcompare.posterior import REGRESSORS
from modelcompare.workflows import check_names

__all__ = ["report_command"]

# The report's checks whose inputs this command can supply: files, and the estimator itself
# through --flow-pickle (to_latent, log_prob and sampling). It takes no observed data, so the
# misspecification check is left out.
CHECK_NAMES = check_names(
    supplied=(
        "pit",
        "x",
        "two_parameters",
        "ranks",
        "draws",
        "latent",
        "reference",
        "log_prob",
        "x_obs",
    )
)


def _read_array(spec: str | None, name: str) -> Any:
    """A .npy/.npz array of any rank (posterior draws are 3-D), or a matrix file."""
    if spec is None:
        return None
    import numpy as np

    path = Path(spec.split(".npz:")[0] + (".npz" if ".npz:" in spec else ""))
    if path.suffix == ".npy":
        if not path.is_file():
            raise DataError(f"{spec}: no such file.")
        try:
            return np.load(path, allow_pickle=False)
        except (ValueError, EOFError, OSError) as exc:  # click reads a bare EOFError as "Aborted!"
            raise DataError(f"{spec}: not a numeric .npy file ({exc}).") from None
    return read_matrix(spec)


def _check_names(_ctx: click.Context, param: click.Parameter, value: str) -> Any:
    """``all``, or the list of check names (an unknown name is a usage error, exit 2)."""
    if value == "all":
        return value
    names = [c.strip() for c in value.split(",") if c.strip()]
    unknown = [c for c in names if c not in CHECK_NAMES]
    if unknown or not names:
        msg = f"{', '.join(unknown) or repr(value)}: not a check; choose among all, {', '.join(CHECK_NAMES)}."
        raise click.BadParameter(msg, param=param)
    return names


def _table(report: Any) -> str:
    """The checks that ran: p, p adjusted across checks ("<=" where a bound) and effect size.

    The checks that did not run are one line of the summary, with the input that runs them.
    """
    table = report.checks
    table = table[table["skipped"].isna()]
    if table.empty:
        return "no check ran"
    shown = table[["name", "statistic", "pvalue"]].copy()
    shown["pvalue_adjusted"] = [
        ("<=" if b else "") + f"{p:.6g}"
        for p, b in zip(table["pvalue_adjusted"], table["pvalue_bound"])
    ]
    shown["effect_size"] = table["effect_size"]
    return shown.to_string(index=False, na_rep="-")


def _load_flow(path: str) -> Any:
    import pickle

    if not Path(path).is_file():
        raise DataError(f"{path}: no such file.")
    try:
        with Path(path).open("rb") as handle:
            return pickle.load(handle)
    except Exception as exc:  # noqa: BLE001 - unpickling runs arbitrary code; any failure is bad input
        raise DataError(
            f"{path}: not a readable pickle of a flow ({type(exc).__name__}: {exc})."
        ) from None


@click.command(
    "report",
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option(
    "--pit", "pit_file", help="PIT values, (N, m): the global, independence and local PIT checks."
)
@click.option(
    "--x", "x_file", help="Observations x of the calibration pairs, (N, d): the local checks."
)
@options.x_eval()
@options.x_obs(
    help="Observed data sets, (n_obs, d), with --x: the misspecification check, and the local "
    "checks at those rows too."
)
@click.option("--ranks", "ranks_file", help="SBC ranks, (N, m), in 0..S: the SBC test.")
@options.n_posterior_samples(help="S, the draws behind --ranks.")
@click.option(
    "--posterior-samples",
    "posterior_samples_file",
    help="Posterior draws, (N, S, m) .npy, with --theta: TARP (and SBC).",
)
@options.theta()
@click.option(
    "--reference",
    "reference_file",
    help="Exact posterior draws at observations, (K, n, m) or (n, m) .npy: C2ST.",
)
@click.option(
    "--posterior-samples-at-reference",
    "posterior_samples_at_reference_file",
    help="The posterior's draws at the same observations, same shape as --reference.",
)
@click.option(
    "--flow-pickle",
    type=click.Path(exists=True, dir_okay=False),
    help="Unpickle a posterior estimator from this file and run every check on --theta and --x. "
    "Unpickling runs arbitrary code from the file: use it only on files you made yourself.",
)
@click.option(
    "--checks",
    default="all",
    show_default=True,
    callback=_check_names,
    help=f"Comma-separated subset of: {', '.join(CHECK_NAMES)}.",
)
@options.n_resamples(
    help="Null resamples B of each resampling check. Default: per check, the smallest B >= 100 "
    "at which it can reach a Holm-adjusted p <= alpha (--alpha, else 0.05) in this report."
)
@options.regressor(help=f"Regressor of the local checks: {', '.join(REGRESSORS)}.")
@click.option(
    "--html",
    "html_file",
    type=click.Path(dir_okay=False),
    help="Write the self-contained HTML report here.",
)
@options.common_options()
@options.renamed_option("--draws", "--posterior-samples", "posterior_samples_file")
@options.renamed_option(
    "--reference-samples", "--posterior-samples-at-reference", "posterior_samples_at_reference_file"
)
@handle_errors
def report_command(
    pit_file: str | None,
    x_file: str | None,
    x_eval: str | None,
    x_obs: str | None,
    ranks_file: str | None,
    n_posterior_samples: int | None,
    posterior_samples_file: str | None,
    theta: str | None,
    reference_file: str | None,
    posterior_samples_at_reference_file: str | None,
    flow_pickle: str | None,
    checks: Any,
    n_resamples: int | None,
    regressor: str,
    html_file: str | None,
    opts: options.CommonOptions,
) -> None:
    """Validate a posterior estimator: every calibration check, one verdict, one HTML page.

    Which file feeds which check: PIT values (--pit) and their x's (--x) feed the global PIT
    check, the PIT independence test and, with --x, the local coverage and local independence
    tests; SBC ranks (--ranks with --n-posterior-samples) feed SBC; posterior draws
    (--posterior-samples, shape N × S × m) with their θ (--theta) feed TARP, and SBC when no
    ranks are given; reference draws (--reference) with the posterior's draws at the same
    observations (--posterior-samples-at-reference) feed C2ST. L-C2ST-NF needs the estimator itself (--flow-pickle). Checks without their input
    are listed as skipped. With --fail-on-reject, inputs on which no check can run exit with
    code 2 (a gate with nothing checked must not pass).

    \b
    Example (the PIT values of an over-dispersed posterior):
      $ modelcompare example-data
      $ modelcompare report --pit examples/data/pit.npy --x examples/data/x.npy --regressor knn --n-resamples 200 --seed 0 --html report.html
                    name  statistic   pvalue pvalue_adjusted  effect_size
         global_coverage   0.092107 0.000768       0.0030736            -
        pit_independence   0.012164 0.786149               1            -
          local_coverage   0.004568 0.149254        0.447761     3.653134
      local_independence   0.001587 1.000000               1    -0.446801
      Do not trust this posterior yet: 1 of 4 checks reject calibration at alpha = 0.05 (Holm
      across checks): global_coverage (p = 0.00307). Findings: θ₁: the posterior is too wide;
      p = 2.6e-12 by the follow-up dispersion test ... global_coverage rejects in the table. ...
      Not run: misspecification (needs observed data (--x-obs) ...); sbc, sbc_log_gamma ...
      Warnings while building the report: TooFewResamplesWarning: `--n-resamples`=200 is too few ...

    The table lists the checks that ran: each one's p-value, its p-value adjusted by Holm
    across the checks ("<=" where it is a bound, at the floor of the check's resamples) and its
    effect size (the statistic's distance beyond its null, in null standard deviations). The
    findings' p-values come from follow-up tests, labelled as such: they say what is wrong,
    while the table's check decides whether it is. --alpha is the report's level: B is planned
    for it, and the table, summary, page and JSON read it.

    \b
    One check, as JSON:
      $ modelcompare report --pit examples/data/pit.npy --checks global_coverage --seed 0 --json
      {"alpha": 0.05, "checks": [{"effect_size": null, "family": "posterior", "name": "global_coverage", "pvalue": 0.0007684005947437355, ...}],
       "comparison": null, "failures": ["global_coverage"], ..., "seed_used": 0, ..., "test": "report", ...}
    """
    from modelcompare.workflows import report_from_arrays, validate_posterior

    started = time.perf_counter()
    given = (pit_file, x_file, ranks_file, posterior_samples_file, reference_file, flow_pickle)
    if all(f is None for f in given):  # a report of nothing must not pass as a clean one
        raise click.UsageError(
            "no inputs: give --pit, --ranks (with --n-posterior-samples), --posterior-samples "
            "(with --theta), --reference (with --posterior-samples-at-reference), --x with "
            "--x-obs, or --flow-pickle."
        )
    # the report's level: B is planned for it, and the page, summary and JSON read it
    level = opts.level
    x = _read_array(x_file, "x")
    x_eval = _read_array(x_eval, "x_eval")
    x_obs = _read_array(x_obs, "x_obs")
    theta = _read_array(theta, "theta")
    reference = _read_array(reference_file, "reference")
    at_reference = _read_array(
        posterior_samples_at_reference_file, "posterior_samples_at_reference"
    )
    stored = flow_pickle is None and reference is not None  # the posterior's draws come as files
    if stored and (at_reference is None or at_reference.shape != reference.shape):
        got = "none" if at_reference is None else f"shape {at_reference.shape}"
        raise click.UsageError(
            f"--reference (shape {reference.shape}) needs --posterior-samples-at-reference of the "
            f"same shape; got {got}."
        )
    if reference is not None and reference.ndim == 2:
        reference, at_reference = (
            reference[None],
            (None if at_reference is None else at_reference[None]),
        )
    pairs = None if reference is None else [(None, r) for r in reference]
    if flow_pickle is not None:
        if theta is None or x is None:
            raise click.UsageError("--flow-pickle needs --theta and --x.")
        if reference is not None and x_eval is None:
            raise click.UsageError(
                "--reference with --flow-pickle needs --x-eval, the observations the reference "
                "draws are at (one row per reference set)."
            )
        if reference is not None and len(reference) != len(x_eval):
            raise click.UsageError(
                f"--reference has {len(reference)} draw set(s) but --x-eval has {len(x_eval)} "
                "row(s); give one observation per reference set."
            )
        pairs = None if reference is None else [(xo, r) for xo, r in zip(x_eval, reference)]
        report = validate_posterior(
            _load_flow(flow_pickle),
            theta,
            x,
            x_eval=x_eval,
            x_obs=x_obs,
            reference=pairs,
            checks=checks,
            n_resamples=n_resamples,
            alpha=level,
            regressor=regressor,
            seed=opts.seed,
            progress=not opts.quiet,
        )
    else:
        report = report_from_arrays(
            pit_values=_read_array(pit_file, "pit"),
            x=x,
            x_eval=x_eval,
            x_obs=x_obs,
            ranks=_read_array(ranks_file, "ranks"),
            n_posterior_samples=n_posterior_samples,
            posterior_samples=_read_array(posterior_samples_file, "posterior_samples"),
            theta=theta,
            reference=pairs,
            posterior_samples_at_reference=at_reference,
            checks=checks,
            n_resamples=n_resamples,
            alpha=level,
            regressor=regressor,
            seed=opts.seed,
        )
    emit_report(
        opts,
        report,
        test="report",
        started=started,
        noun="report",
        html_file=html_file,
        fields=lambda: {"failures": report.failures(level)},
        show=lambda: _show(report, level),
        reject=lambda: _gate(report, level),
        ensure_ascii=False,
    )


def _show(report: Any, level: float) -> None:
    """The table of the checks that ran, then the summary."""
    click.echo(_table(report))
    # the summary lists the report's warnings, written in the library's argument names
    click.echo(options.cli_message(report.summary(level), click.get_current_context().command))


def _gate(report: Any, level: float) -> bool:
    """Whether the report fails at ``level``; exit 2 when no check could run at all."""
    if not any(o.result is not None and not o.score for o in report.outcomes):
        # a gate with nothing tested must not pass: the inputs fed no test (scores decide nothing)
        click.echo("Error: --fail-on-reject: no check could run on these inputs.", err=True)
        sys.exit(EXIT_USAGE)
    return bool(report.failures(level))
