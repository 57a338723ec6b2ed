"""``modelcompare metrics``: FD, FD∞, KID, CMMD and precision/recall/density/coverage."""

from __future__ import annotations

import time
from typing import Any

import click

from modelcompare._foundation.seeds import check_seed
from modelcompare.cli import _options as options
from modelcompare.cli._common import emit, handle_errors
from modelcompare.cli._features import FeatureOptions, feature_options, feature_summary

METRICS = ("fd", "fd-infinity", "kid", "cmmd", "prdc")


def _metric_list(_ctx: click.Context, _param: click.Parameter, value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    bad = [n for n in names if n not in METRICS]
    if bad or not names:
        msg = f"--metrics takes a comma-separated list of {', '.join(METRICS)}; got {value!r}."
        raise click.BadParameter(msg)
    return names


@click.command("metrics")
@click.argument("generated")
@click.argument("reference")
@click.option(
    "--metrics",
    "metrics",
    default="fd",
    show_default=True,
    callback=_metric_list,
    help=f"Comma-separated: {', '.join(METRICS)}. fd on DINOv2 features is FD-DINOv2; cmmd "
    "expects CLIP features.",
)
@click.option(
    "--n-resamples",
    default=50,
    show_default=True,
    type=click.IntRange(0),
    help="fd, fd-infinity: bootstrap resamples for the standard error.",
)
@click.option(
    "--n-subsets",
    default=20,
    show_default=True,
    type=click.IntRange(0),
    help="prdc: half-size subsets for the standard errors.",
)
@click.option(
    "--nearest-k",
    default=5,
    show_default=True,
    type=click.IntRange(1),
    help="prdc: k of the k-NN balls.",
)
@feature_options
@options.common_options(columns=True, decision=False)
@handle_errors
def metrics_command(
    generated: str,
    reference: str,
    metrics: list[str],
    n_resamples: int,
    n_subsets: int,
    nearest_k: int,
    features: FeatureOptions,
    opts: options.CommonOptions,
) -> None:
    """Scores of GENERATED against REFERENCE, each with its standard error.

    GENERATED and REFERENCE are feature files (.npz from `modelcompare features`, or .npy,
    .csv, ...) or images (folders, globs, uint8 .npy arrays) with --features. These are scores,
    not tests: to ask which of two models is closer to the data, use `modelcompare relative`.

    \b
    Example (two shipped samples of features):
      $ modelcompare example-data
      $ modelcompare metrics examples/data/rel_p.npy examples/data/rel_ref.npy --metrics fd,prdc --seed 0 --json
      {"extractor": "unknown", "fd": {"mean_term": 0.832732782383833, ...,
       "std_error": 0.12000420700094089, "value": 0.8347091514972291}, ...,
       "prdc": {"coverage": 0.9275, ..., "precision": 0.99, "recall": 0.99, ...}
    """
    from modelcompare import relative

    started = time.perf_counter()
    sets = features.resolve({"generated": generated, "reference": reference}, opts)
    x, z = sets["generated"].features, sets["reference"].features
    out: dict[str, Any] = feature_summary(sets)
    rows: list[tuple[str, Any]] = list(out.items())
    rng0, seed_used = check_seed(opts.seed)
    seeds = iter(rng0.spawn(len(metrics)))
    for name in metrics:
        rng = next(seeds)
        if name == "fd":
            res: Any = relative.fd(x, z, n_resamples=n_resamples, seed=rng)
            shown = [("fd", res.value), ("fd std error", res.std_error)]
        elif name == "fd-infinity":
            res = relative.fd_infinity(x, z, n_resamples=n_resamples, seed=rng)
            shown = [("fd-infinity", res.value), ("fd-infinity std error", res.std_error)]
        elif name == "kid":
            res = relative.kid(x, z, seed=rng)
            shown = [("kid", res.value), ("kid std", res.std)]
        elif name == "cmmd":
            res = relative.cmmd(x, z)
            shown = [("cmmd", res.value), ("cmmd std error", res.std_error)]
        else:
            res = relative.prdc(
                x, z, nearest_k=nearest_k, n_subsets=n_subsets, seed=rng, device=features.device
            )
            shown = [(m, getattr(res, m)) for m in ("precision", "recall", "density", "coverage")]
            shown += [(f"{m} std error", v) for m, v in res.std_errors.items()]
        out[name] = res.to_dict(include_arrays=False)
        rows += shown
    emit(
        opts,
        test="metrics",
        result=out,
        params={
            "metrics": metrics,
            "n_resamples": n_resamples,
            "n_subsets": n_subsets,
            "nearest_k": nearest_k,
        },
        seed=seed_used,
        started=started,
        rows=rows,
    )
