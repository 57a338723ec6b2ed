"""``modelcompare relative``: which of two models' samples is closer to the reference sample."""

from __future__ import annotations

import time
from typing import Any

import click

from modelcompare.cli import _options as options
from modelcompare.cli._common import emit, handle_errors
from modelcompare.cli._features import FeatureOptions, feature_options, feature_summary

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
@options.choice(
    "--test",
    TESTS,
    help="ume: Rel-UME; mmd: Rel-MMD (Gaussian kernel); kid: relative KID (the KID kernel's MMD, "
    "U-statistic variance); fid: t-test of FID(P,R) - FID(Q,R) <= 0 at the sample sizes used "
    "(see --scheme).",
)
@options.n_locations()
@options.bandwidth()
@options.optimizer()
@options.subsample()
@options.n_blocks(
    help="fid: groups of the jackknife, or disjoint blocks of the block t-test [default: 10]."
)
@click.option(
    "--scheme",
    type=click.Choice(("jackknife", "blocks")),
    default=None,
    help="fid: jackknife (the full-sample difference, every row used) or blocks (a t-test over "
    "disjoint blocks: the FID at the block size) [default: jackknife].",
)
@feature_options
@options.common_options(columns=True)
@options.renamed_option("--locations", "--n-locations", "n_locations")
@options.renamed_option(
    "--optimize/--no-optimize",
    "--optimizer",
    "optimizer",
    is_flag=True,
    convert=lambda on: "default" if on else "none",
)
@options.renamed_option("--n-resamples", "--n-blocks", "n_blocks")
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
    scheme: str | None,
    features: FeatureOptions,
    opts: options.CommonOptions,
) -> None:
    """Is Q closer to the data REF than P is? Relative goodness-of-fit test.

    H0: P is at least as close to REF as Q; a small p-value says Q fits better. P_SAMPLES,
    Q_SAMPLES and REF_SAMPLES are .npy, .npz[:key], .csv/.tsv or .parquet files of draws (rows) by
    dimensions (columns), e.g. image features, or feature files from `modelcompare features`; with
    --features they may be images (folders, globs, uint8 .npy arrays), turned into features
    first (read from --cache-dir when cached). Results are conditional on the kernel (and, for
    Rel-UME, on the locations). Swap P and Q to ask whether P fits better. With --alpha the
    decision is the library's ``result.decision(alpha)``: reject H0 iff p <= alpha.

    \b
    Example (on the shipped data Q, the second file, is the closer model):
      $ modelcompare example-data
      $ modelcompare relative examples/data/rel_p.npy examples/data/rel_q.npy examples/data/rel_ref.npy --test mmd --seed 0 --json
      {"bandwidth": 1.2439978735342232, ..., "mmd2_p": 0.09301190274096216,
       "mmd2_q": 0.0023600912729094814, "n": 400, ..., "pvalue": 1.741005597531306e-11, ...,
       "seed": 0, ..., "statistic": 1.8130362293610536, ..., "test": "relative-mmd", ...}

    \b
    Example (images: scikit-learn's digits, P with pixel noise, through a small extractor file):
      $ modelcompare relative examples/data/digits_p.npy examples/data/digits_q.npy examples/data/digits_ref.npy --features examples/data/digit_features.py:pixels --test kid --seed 0 --json
      {..., "params": {"features": {"extractor": "examples/data/digit_features.py:pixels",
       "n_images": {"p": 300, "q": 300, "ref": 300}, ...}, ...},
       "pvalue": 1.041795032457404e-18, ...}
    """
    from modelcompare import relative

    _only_for(n_locations, "--n-locations", ("ume",), test)
    _only_for(optimizer, "--optimizer", ("ume",), test)
    _only_for(bandwidth, "--bandwidth", ("ume", "mmd"), test)
    _only_for(subsample, "--subsample", ("ume", "mmd", "kid"), test)
    _only_for(n_blocks, "--n-blocks", ("fid",), test)
    _only_for(scheme, "--scheme", ("fid",), test)

    started = time.perf_counter()
    sets = features.resolve({"p": p_samples, "q": q_samples, "ref": ref_samples}, opts)
    summary = feature_summary(sets)
    x, y, z = (fs.features for fs in sets.values())
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
        result = relative.rel_ume(x, y, z, seed=opts.seed, **params)
    elif test == "mmd":
        params = {"bandwidth": bandwidth, "subsample": bool(subsample)}
        result = relative.rel_mmd(x, y, z, seed=opts.seed, **params)
    elif test == "kid":
        params = {"subsample": bool(subsample)}
        result = relative.rel_kid(x, y, z, seed=opts.seed, **params)
    else:
        params = {
            "n_blocks": 10 if n_blocks is None else n_blocks,
            "scheme": "jackknife" if scheme is None else scheme,
        }
        result = relative.rel_fid(x, y, z, seed=opts.seed, **params)
    rows = None
    if summary["extractor"] != "unknown":
        params["features"] = summary
        data = result.to_dict(include_arrays=False)
        rows = [(k, v) for k, v in data.items() if not isinstance(v, list | dict)]
        rows += [(k, v) for k, v in summary.items()]
    emit(
        opts,
        test=f"relative-{test}",
        result=result,
        params=params,
        seed=getattr(result, "seed_used", opts.seed),
        started=started,
        rows=rows,
    )
