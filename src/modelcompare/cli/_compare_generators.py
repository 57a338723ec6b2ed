"""``modelcompare compare-generators``: which of two generative models is closer to real data."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from modelcompare._foundation.io import read_matrix
from modelcompare.cli import _options as options
from modelcompare.cli._common import emit_report, handle_errors


def _source(value: str) -> Any:
    """A folder or a .npy file as it is (the library reads both); a table file as features."""
    path = Path(value)
    if path.is_dir() or path.suffix == ".npy":
        return path
    return read_matrix(value)


@click.command("compare-generators")
@click.argument("first")
@click.argument("second")
@click.argument("reference")
@click.option(
    "--names",
    default="first,second",
    show_default=True,
    help="Display names of FIRST and SECOND, separated by a comma.",
)
@click.option(
    "--n-locations",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Rel-UME's optimised test locations J.",
)
@click.option(
    "--html",
    "html_file",
    type=click.Path(dir_okay=False),
    help="Write the self-contained HTML page here (needs the html extra).",
)
@options.common_options()
@handle_errors
def compare_generators_command(
    first: str,
    second: str,
    reference: str,
    names: str,
    n_locations: int,
    html_file: str | None,
    opts: options.CommonOptions,
) -> None:
    """Is generative model FIRST or SECOND closer to the REFERENCE data, and where?

    FIRST, SECOND and REFERENCE are folders of images, .npy files of images (n, h, w[, c]) or of
    features (n, d), or tables of features (CSV, Parquet). Images are compared by their pixels;
    for network features, extract them first and pass the arrays. Rel-UME, Rel-MMD, the relative
    KID and the relative FID each run in both directions; the 8 p-values are Bonferroni-adjusted
    together and one row rejects when its adjusted p-value is at most --alpha (0.05 by default).
    The verdict, the table and the HTML page follow that one rule. --fail-on-reject exits 1 when
    any row rejects.

    \b
    Example (two models of 2-D data: FIRST has a shifted mode, SECOND matches the reference):
      $ modelcompare example-data
      $ modelcompare compare-generators examples/data/rel_p.npy examples/data/rel_q.npy examples/data/rel_ref.npy --names shifted,matched --seed 0 --html generators.html
      matched is closer to the reference (Rel-UME, Rel-MMD, Rel-KID, Rel-FID; at α = 0.05, Bonferroni-adjusted over the 8 p-values of the table).
      ...
    """
    from modelcompare import compare_generators

    started = time.perf_counter()
    pair = tuple(s.strip() for s in names.split(","))
    if len(pair) != 2 or not all(pair) or pair[0] == pair[1]:
        msg = f"--names must be two different names separated by a comma; got {names!r}."
        raise click.BadParameter(msg, param_hint="--names")
    result = compare_generators(
        _source(first),
        _source(second),
        _source(reference),
        names=pair,
        n_locations=n_locations,
        seed=opts.seed,
    )
    level = opts.level
    emit_report(
        opts,
        result,
        test="compare-generators",
        started=started,
        noun="page",
        html_file=html_file,
        fields=lambda: {
            "alpha": level,
            "reject": result.decision(level),
            "verdict": result.verdict(level),
        },
        show=lambda: click.echo(result.summary(level)),
        reject=lambda: result.decision(level),
    )
