"""``modelcompare relative``: which of two models' samples is closer to the reference sample."""

from __future__ import annotations

import time
from typing import Any

import click

from modelcompare._foundation.io import read_matrix
from modelcompare.cli import _options as options
from modelcompare.cli._common import emit, handle_errors

TESTS = ("ume", "mmd", "kid", "fid")


def _only_for(value: Any, option: str, allowed: tuple[str, ...], test: str) -> None:
    if value is not None and test not in allowed:
        names = "|".join(allowed)
        msg = f"{option} applies to --test {names} only; got --test {test}."
        raise click.UsageError(msg)


@click.command("relative")
@click.argument("p_samples")
@click.argument("q_samples")
@click.argument("ref_samples")
@click.option(
    "--test",
    "test",
    type=click.Choice(TESTS),
    default="ume",
    show_default=True,
    help="ume: Rel-UME; mmd: Rel-MMD (Gaussian kernel); kid: relative KID (Rel-MMD with the KID "
    "kernel); fid: bootstrap test of FID(P,R) - FID(Q,R) <= 0.",
)
@options.n_locations()
@options.bandwidth()
@options.optimizer()
@options.subsample()
@options.n_blocks(help="fid: number of disjoint blocks of the t-test [default: 10].")
@options.columns()
@options.test_options
@handle_errors
def relative_command(
    p_samples: str,
    q_samples: str,
    ref_samples: str,
    test: str,
    n_locations: int | None,
    bandwidth: float | None,
    optimizer: str | None,
    subsample: bool | None,
    n_blocks: int | None,
    columns: str | None,
    seed: int | None,
    as_json: bool,
    alpha: float | None,
    fail_on_reject: bool,
    quiet: bool,
) -> None:
    """Is Q closer to the data REF than P is? Relative goodness-of-fit test.

    H0: P is at least as close to REF as Q; a small p-value says Q fits better. P_SAMPLES,
    Q_SAMPLES and REF_SAMPLES are .npy, .npz[:key], .csv/.tsv or .parquet files of draws (rows) by
    dimensions (columns), e.g. image features. Results are conditional on the kernel (and, for
    Rel-UME, on the locations). Swap P and Q to ask whether P fits better. With --alpha the
    decision is the library's ``result.decision(alpha)``: reject H0 iff p <= alpha.

    \b
    Example (on the shipped data Q, the second file, is the closer model):
      $ modelcompare example-data
      $ modelcompare relative examples/data/rel_p.npy examples/data/rel_q.npy examples/data/rel_ref.npy --test mmd --seed 0 --json
      {"bandwidth": 1.2439978735342232, ..., "mmd2_p": 0.09301190274096216,
       "mmd2_q": 0.0023600912729094814, "n": 400, ..., "pvalue": 1.741005597531306e-11, ...,
       "seed": 0, ..., "statistic": 1.8130362293610536, ..., "test": "relative-mmd", ...}
    """
    from modelcompare import relative

    _only_for(n_locations, "--n-locations", ("ume",), test)
    _only_for(optimizer, "--optimizer", ("ume",), test)
    _only_for(bandwidth, "--bandwidth", ("ume", "mmd"), test)
    _only_for(subsample, "--subsample", ("ume", "mmd", "kid"), test)
    _only_for(n_blocks, "--n-blocks", ("fid",), test)

    started = time.perf_counter()
    cols = columns.split(",") if columns else None
    x = read_matrix(p_samples, columns=cols)
    y = read_matrix(q_samples, columns=cols)
    z = read_matrix(ref_samples, columns=cols)
    params: dict[str, Any]
    if test == "ume":
        params = {
            "n_locations": 5 if n_locations is None else n_locations,
            "bandwidth": bandwidth,
            "optimizer": (
                "default" if optimizer is None else None if optimizer == "none" else optimizer
            ),
        }
        if subsample:
            params["subsample"] = True
        result = relative.rel_ume(x, y, z, seed=seed, **params)
    elif test == "mmd":
        params = {"bandwidth": bandwidth, "subsample": bool(subsample)}
        result = relative.rel_mmd(x, y, z, seed=seed, **params)
    elif test == "kid":
        params = {"subsample": bool(subsample)}
        result = relative.relative_kid(x, y, z, seed=seed, **params)
    else:
        params = {"n_blocks": 10 if n_blocks is None else n_blocks}
        result = relative.relative_fid(x, y, z, seed=seed, **params)
    emit(
        test=f"relative-{test}",
        result=result,
        params=params,
        seed=getattr(result, "seed_used", seed),
        as_json=as_json,
        alpha=alpha,
        fail_on_reject=fail_on_reject,
        quiet=quiet,
        started=started,
    )
