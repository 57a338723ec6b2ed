"""``modelcompare cv``: all-pairs comparison of cross-validated models from a scores table."""

from __future__ import annotations

import time
from typing import Any

import click
import numpy as np

from modelcompare._foundation.io import DataError, read_matrix, read_table
from modelcompare.cli import _options as options
from modelcompare.cli._common import emit, handle_errors


def _read_scores(path: str, layout: str) -> Any:
    import pandas as pd

    if path.split(".npz:")[0].lower().endswith((".npy", ".npz")):
        arr = read_matrix(path)
        if arr.ndim != 2:
            msg = f"{path}: scores must be a 2-D table (models × splits); got shape {arr.shape}."
            raise DataError(msg)
        label = "model_" if layout == "splits-by-models" else "split"
        frame = pd.DataFrame(arr, columns=[f"{label}{j}" for j in range(arr.shape[1])])
    else:
        frame = read_table(path)
    first = frame.columns[0]
    if frame[first].dtype.kind not in "biuf":
        frame = frame.set_index(first)
        frame.index = [str(i) for i in frame.index]
    non_numeric = [c for c in frame.columns if frame[c].dtype.kind not in "biuf"]
    if non_numeric:
        msg = f"{path}: column(s) {non_numeric[:5]} are not numeric scores."
        raise DataError(msg)
    if layout == "splits-by-models":
        frame = frame.T
    elif frame.index.dtype.kind in "iu":  # no name column: default names
        frame.index = [f"model_{i}" for i in range(frame.shape[0])]
    frame.index = [str(i) for i in frame.index]
    return frame.astype(float)


def _format_table(table: Any) -> str:
    shown = table.drop(columns=["degenerate"]).copy()
    for col in (
        "mean_difference",
        "t",
        "p",
        "p_adjusted",
        "prob_a_worse",
        "prob_rope",
        "prob_a_better",
    ):
        shown[col] = [
            f"{v:.4g}" if np.isfinite(v) and abs(v) < 1e4 else f"{v:.3g}" for v in shown[col]
        ]
    shown.loc[table["degenerate"].to_numpy(), "model_b"] += " (degenerate)"
    return shown.to_string(index=False)


@click.command("cv")
@click.argument("scores")
@options.n_train()
@options.n_test()
@options.rope()
@options.alternative(help="H1 about E[a - b] for each pair.")
@options.correction(
    default="bonferroni", help="Multiplicity correction over all pairs (column p_adjusted)."
)
@click.option("--loss", is_flag=True, help="Scores are losses (smaller is better).")
@click.option(
    "--order",
    type=click.Choice(["rank", "given"]),
    default="rank",
    show_default=True,
    help="Pairs best-first by mean score, or in file order.",
)
@click.option(
    "--layout",
    type=click.Choice(["models-by-splits", "splits-by-models"]),
    default="models-by-splits",
    show_default=True,
)
@options.nan_policy()
@options.test_options
@handle_errors
def cv_command(
    scores: str,
    n_train: float,
    n_test: float,
    rope: float,
    alternative: str,
    correction: str,
    loss: bool,
    order: str,
    layout: str,
    nan_policy: str,
    seed: int | None,
    as_json: bool,
    alpha: float | None,
    fail_on_reject: bool,
    quiet: bool,
) -> None:
    """Compare every pair of cross-validated models in SCORES (corrected + Bayesian t-tests).

    SCORES is a .csv/.tsv/.parquet table with one row per model and one column per split (all
    models scored on the same splits, in the same order); a first non-numeric column, with a
    header row, names the models. A .npy/.npz matrix works too (models are then model_0, ...). Use --layout splits-by-models for the transpose. --n-train and
    --n-test are the sizes of one split (Nadeau–Bengio correction). p is the corrected t-test's
    p-value for --alternative; p_adjusted applies --correction over all pairs; prob_* are the
    Bayesian correlated t-test's posterior probabilities with the ROPE ±--rope. The reported
    p-value is the smallest p_adjusted: with --alpha, H0 "no pair differs" is rejected when it is
    at most --alpha.

    \b
    Example (scikit-learn's grid-search example; its printed "p_val" is
    p_adjusted with --alternative greater):
      $ modelcompare example-data
      $ modelcompare cv examples/data/cv_scores.csv --n-train 90 --n-test 10 --json
      {"alternative": "two-sided", "correction": "bonferroni", ...,
       "models": ["rbf", "linear", "3_poly", "2_poly"], "n_splits": 100, ...,
       "pvalue": 8.609989102606747e-05, ..., "statistic": 4.565492560256312,
       "table": [{..., "model_a": "rbf", "model_b": "linear", "n_splits": 100,
       "p": 0.454845942026733, "p_adjusted": 1.0, ..., "t": 0.7503126954482318}, ...], ...}
    """
    from modelcompare.cv import compare_models

    started = time.perf_counter()
    frame = _read_scores(scores, layout)
    result = compare_models(
        frame,
        n_train=n_train,
        n_test=n_test,
        rope=rope if rope > 0 else None,
        correction=options.library_correction(correction),
        alternative=alternative,
        greater_is_better=not loss,
        order=order,
        nan_policy=nan_policy,
    )
    means = ", ".join(f"{m} {v:.4g}" for m, v in result.mean_scores.items())
    rows = [
        ("models (best first)" if order == "rank" else "models", means),
        ("splits", result.n_splits),
        ("n_test/n_train", result.test_train_ratio),
        ("alternative", result.alternative),
        ("correction", correction),
        ("rope", f"[{result.rope[0]:g}, {result.rope[1]:g}]"),
        ("pair with the smallest p", f"{result.model_a} vs {result.model_b}"),
        ("statistic", result.statistic),
        ("pvalue (smallest p_adjusted)", result.pvalue),
    ]
    emit(
        test="cv",
        result=result,
        params={
            "n_train": n_train,
            "n_test": n_test,
            "rope": rope,
            "alternative": alternative,
            "correction": correction,
            "loss": loss,
            "order": order,
            "layout": layout,
            "nan_policy": nan_policy,
        },
        seed=None,
        as_json=as_json,
        alpha=alpha,
        fail_on_reject=fail_on_reject,
        quiet=quiet,
        rows=rows,
        started=started,
        table=_format_table(result.table),
    )
