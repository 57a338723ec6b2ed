"""``modelcompare c2st``: classifier two-sample test between two sample files."""

from __future__ import annotations

import time
from typing import Any

import click

from modelcompare._foundation.io import read_matrix
from modelcompare.cli import _options as options
from modelcompare.cli._common import emit, handle_errors
from modelcompare.twosample import CLASSIFIERS


class _LazyBar:
    """A tqdm bar of training epochs, opened at the first update (a refused run shows none)."""

    def __init__(self) -> None:
        self.bar: Any = None

    def __call__(self, n: int) -> None:
        if self.bar is None:
            from tqdm.auto import tqdm

            self.bar = tqdm(desc="training MLP (epochs, all folds)", unit="epoch", leave=False)
        self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _progress_bar(quiet: bool) -> _LazyBar | None:
    return None if quiet else _LazyBar()


@click.command("c2st")
@click.argument("reference")
@click.argument("samples")
@options.classifier(choices=CLASSIFIERS)
@options.n_folds()
@click.option("--noise-scale", type=click.FloatRange(min=0), default=None)
@click.option(
    "--hidden", type=str, default=None, help="Hidden widths, comma-separated (e.g. 50,50)."
)
@click.option("--max-epochs", type=click.IntRange(min=1), default=10000, show_default=True)
@options.device()
@options.common_options(columns=True)
@handle_errors
def c2st_command(
    reference: str,
    samples: str,
    classifier: str,
    n_folds: int,
    noise_scale: float | None,
    hidden: str | None,
    max_epochs: int,
    device: str,
    opts: options.CommonOptions,
) -> None:
    """Classifier two-sample test of REFERENCE against SAMPLES (sbibm's C2ST).

    REFERENCE and SAMPLES are .npy, .npz[:key], .csv/.tsv or .parquet files of draws (rows) by
    dimensions (columns). The reference sets the z-score scale. The statistic is the mean
    held-out accuracy of the classifier; the p-value is one-sided (H0: same distribution), and
    --alpha reports the decision: reject H0 iff p <= alpha. The "reading" line states the
    accuracy in binomial standard errors from 0.5 and the p-value; with --alpha it adds the
    verdict at that level (without --alpha, no verdict is printed).

    \b
    Example (on the example data; the default MLP needs torch):
      $ modelcompare example-data
      $ modelcompare c2st examples/data/reference.npy examples/data/samples.npy --seed 0 --json
      {"auc": 0.5738052742589947, ..., "pvalue": 0.000149752527069103, ..., "seed": 0,
       "seed_used": 0, "statistic": 0.5585, "test": "c2st", ...}

    \b
    As a gate in a script (exit code 1 when H0 is rejected at --alpha):
      $ modelcompare c2st examples/data/reference.npy examples/data/samples.npy --classifier logistic --seed 0 --alpha 0.05 --fail-on-reject   # exits 1
      test                  c2st
      classifier            logistic
      statistic (accuracy)  0.5485
      95% CI (corrected)    [0.4989, 0.5981]
      auc                   0.56873
      pvalue                0.00155677
      ...
      decision              reject H0 at 0.05
    """
    from modelcompare import c2st

    started = time.perf_counter()
    x = read_matrix(reference, columns=opts.column_names)
    y = read_matrix(samples, columns=opts.column_names)
    try:
        hidden_widths = None if hidden is None else tuple(int(h) for h in hidden.split(","))
    except ValueError:
        raise click.BadParameter(f"expected comma-separated ints; got {hidden!r}") from None
    bar = _progress_bar(opts.quiet) if classifier == "mlp" else None
    try:
        result = c2st(
            x,
            y,
            n_folds=n_folds,
            seed=opts.seed,
            classifier=classifier,
            noise_scale=noise_scale,
            hidden=hidden_widths,
            max_epochs=max_epochs,
            device=device,
            progress=bar if bar is not None else False,
        )
    finally:
        if bar is not None:
            bar.close()
    ci = result.confidence_interval()
    rows = [
        ("classifier", result.classifier),
        ("statistic (accuracy)", result.statistic),
        ("95% CI (corrected)", f"[{ci.low:.4f}, {ci.high:.4f}]"),
        ("auc", result.auc),
        ("pvalue", result.pvalue),
        ("n per class", result.n_per_class),
        ("reading", result.summary(opts.alpha)),
    ]
    if any(result.epochs):  # a classifier trained in epochs (the MLP); logistic has none
        rows.insert(-1, ("epochs per fold", ", ".join(str(e) for e in result.epochs)))
    emit(
        opts,
        test="c2st",
        result=result,
        params={
            "classifier": classifier,
            "n_folds": n_folds,
            "noise_scale": noise_scale,
            "hidden": list(result.hidden),
            "max_epochs": max_epochs,
            "device": device,
        },
        seed=result.seed_used,
        started=started,
        rows=rows,
    )
