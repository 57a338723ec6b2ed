"""``modelcompare fid``: the Fréchet distance of a sample's features to a reference's."""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

import click

from modelcompare._foundation.io import read_matrix
from modelcompare.cli import _options as options
from modelcompare.cli._common import emit, handle_errors

METHODS = ("eigh", "sqrtm", "eigvals")


def _is_stats_archive(spec: str) -> bool:
    """True for an ``.npz`` (no ``:key``) that holds ``mu`` and ``sigma``: FID statistics."""
    path = Path(spec)
    if path.suffix != ".npz" or not path.is_file():
        return False
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except zipfile.BadZipFile:
        return False
    return {"mu.npy", "sigma.npy"} <= names


@click.command("fid")
@click.argument("samples")
@click.argument("ref_samples")
@options.method(choices=METHODS, default="eigh")
@options.common_options(columns=True, seed=False, decision=False)
@handle_errors
def fid_command(
    samples: str,
    ref_samples: str,
    method: str,
    opts: options.CommonOptions,
) -> None:
    """Fréchet (Inception) distance of SAMPLES' features to REF_SAMPLES'.

    SAMPLES and REF_SAMPLES are .npy, .npz[:key], .csv/.tsv or .parquet files of rows (draws) by
    features, e.g. Inception pool3 features. REF_SAMPLES may instead be an .npz of reference
    statistics with the arrays mu and sigma, as clean-fid and pytorch-fid store them. FID is a
    score with no threshold: to ask which of two models is closer to the data, use
    `modelcompare relative --test fid`. A warning says when a sample has no more rows than
    features (the FID is then mostly bias).

    \b
    Example (the shipped reference and a model's draws, 400 rows of 2 features):
      $ modelcompare example-data
      $ modelcompare fid examples/data/rel_p.npy examples/data/rel_ref.npy --json
      {"mean_term": 0.8327..., "method": "eigh", "n_x": 400, "n_z": 400, ..., "test": "fid", "value": 0.8347...
    """
    from modelcompare import relative

    started = time.perf_counter()
    x = read_matrix(samples, columns=opts.column_names)
    z = (
        relative.load_fid_stats(ref_samples)
        if _is_stats_archive(ref_samples)
        else read_matrix(ref_samples, columns=opts.column_names)
    )
    result = relative.fid(x, z, method=method)
    emit(opts, test="fid", result=result, params={"method": method}, seed=None, started=started)
