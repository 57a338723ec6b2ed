"""``modelcompare cv``: cross-validated models compared from a scores table.

``--test pairwise`` (the default) compares every pair (corrected and Bayesian t-tests); the other
tests are Dietterich's (McNemar, 5×2cv t, Alpaydın's 5×2cv F), the hierarchical Bayesian test
across data sets, and the one-call report.
"""

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


TESTS = ("pairwise", "5x2cv", "5x2cv-f", "mcnemar", "hierarchical", "report")


@click.command("cv")
@click.argument("scores")
@options.choice(
    "--test",
    TESTS,
    dest="which",
    help="pairwise: every pair, corrected + Bayesian t-tests (needs --n-train/--n-test); "
    "5x2cv / 5x2cv-f: Dietterich's t-test / Alpaydın's F-test on a 2-model table of 10 scores "
    "in (replication, fold) order; mcnemar: columns y_true, y_pred_a, y_pred_b (or a 2 × 2 "
    "table); hierarchical: two models' per-split scores on several data sets (columns dataset, "
    "model, split...); report: Friedman, post-hoc, Bayesian view and summary across data sets.",
)
@options.n_train(
    help="Training-set size of one split (--test pairwise, or report --across splits)."
)
@options.n_test(help="Test-set size of one split (--test pairwise, or report --across splits).")
@click.option(
    "--n-folds",
    type=click.IntRange(min=2),
    default=None,
    help="Folds per CV run behind each data set's splits (--test hierarchical; default: one run).",
)
@click.option("--exact", is_flag=True, help="McNemar: the exact binomial test.")
@click.option(
    "--no-continuity-correction",
    is_flag=True,
    help="McNemar: the chi-square statistic without Edwards' correction.",
)
@options.choice(
    "--posthoc", ["nemenyi", "wilcoxon"], help="report: the post-hoc test after Friedman's."
)
@options.choice(
    "--bayesian",
    ["signed-rank", "hierarchical", "none"],
    help="report: the Bayesian view per pair (hierarchical needs per-split scores).",
)
@options.choice(
    "--across",
    ["datasets", "splits"],
    help="report: data sets × models means (or a dataset, model, split... table), or one data "
    "set's models × splits table.",
)
@options.rope()
@options.alternative(help="H1 about E[a - b] for each pair.")
@options.correction(
    default="bonferroni", help="Multiplicity correction over all pairs (column p_adjusted)."
)
@click.option("--loss", is_flag=True, help="Scores are losses (smaller is better).")
@options.choice(
    "--order", ["rank", "given"], help="Pairs best-first by mean score, or in file order."
)
@options.choice("--layout", ["models-by-splits", "splits-by-models"])
@options.nan_policy()
@options.common_options()
@handle_errors
def cv_command(
    scores: str,
    which: str,
    n_train: float | None,
    n_test: float | None,
    n_folds: int | None,
    exact: bool,
    no_continuity_correction: bool,
    posthoc: str,
    bayesian: str,
    across: str,
    rope: float,
    alternative: str,
    correction: str,
    loss: bool,
    order: str,
    layout: str,
    nan_policy: str,
    opts: options.CommonOptions,
) -> None:
    """Compare cross-validated models in SCORES: every pair (default), Dietterich's tests, the
    hierarchical Bayesian test across data sets, or a one-call report.

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

    \b
    Other tests (see --test):
      $ modelcompare cv examples/data/cv_5x2.csv --test 5x2cv
      test             cv 5x2cv
      models           logistic vs naive_bayes
      statistic        1.758...
      pvalue           0.139...
      $ modelcompare cv examples/data/mcnemar_predictions.csv --test mcnemar --exact
      ...
      n01 (a right, b wrong)  13
      n10 (a wrong, b right)  2
      statistic               2
      pvalue                  0.00738...
      $ modelcompare cv examples/data/cv_datasets.csv --test report --seed 0
      Across 8 data sets, Friedman's test does not reject that all 4 models perform alike ...
    """
    started = time.perf_counter()
    params = {
        "test": which,
        "n_train": n_train,
        "n_test": n_test,
        "rope": rope,
        "alternative": alternative,
        "correction": correction,
        "loss": loss,
        "order": order,
        "layout": layout,
        "nan_policy": nan_policy,
    }
    if which != "pairwise":
        _other_test(
            which,
            scores,
            layout,
            params,
            opts,
            loss,
            started=started,
            exact=exact,
            continuity=not no_continuity_correction,
            n_folds=n_folds,
            posthoc=posthoc,
            bayesian=bayesian,
            across=across,
            rope=rope,
            n_train=n_train,
            n_test=n_test,
        )
        return
    from modelcompare.cv import compare_models

    if n_train is None or n_test is None:
        missing = " and ".join(
            o for o, v in (("--n-train", n_train), ("--n-test", n_test)) if v is None
        )
        msg = f"Missing option {missing}: --test pairwise needs the sizes of one split."
        raise click.UsageError(msg)
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
        opts,
        test="cv",
        result=result,
        params={k: v for k, v in params.items() if k != "test"},
        seed=None,
        started=started,
        rows=rows,
        table=_format_table(result.table),
    )


def _two_rows(frame: Any, path: str, what: str) -> tuple[Any, Any, list[str]]:
    if frame.shape[0] != 2:
        msg = f"{path}: {what} needs exactly 2 models (rows); got {frame.shape[0]}."
        raise DataError(msg)
    return frame.iloc[0].to_numpy(), frame.iloc[1].to_numpy(), [str(i) for i in frame.index]


def _read_mcnemar(path: str) -> dict[str, Any]:
    frame = read_table(path) if not path.lower().endswith((".npy", ".npz")) else None
    if frame is not None and {"y_true", "y_pred_a", "y_pred_b"} <= set(map(str, frame.columns)):
        return {k: frame[k].to_numpy() for k in ("y_true", "y_pred_a", "y_pred_b")}
    arr = read_matrix(path) if frame is None else frame.select_dtypes("number").to_numpy()
    if arr.shape != (2, 2):
        msg = (
            f"{path}: --test mcnemar needs columns y_true, y_pred_a and y_pred_b, or a 2 × 2 "
            f"table of counts; got shape {arr.shape}."
        )
        raise DataError(msg)
    return {"table": arr}


def _read_long(path: str) -> tuple[dict[str, Any], list[str]]:
    """A dataset, model, split... table as {data set: models × splits frame}."""
    frame = read_table(path)
    if not {"dataset", "model"} <= set(map(str, frame.columns)):
        msg = f"{path}: per-split scores need columns 'dataset' and 'model', then one per split."
        raise DataError(msg)
    splits = [c for c in frame.columns if c not in ("dataset", "model")]
    cube = {
        str(d): g.set_index("model")[splits].astype(float)
        for d, g in frame.groupby("dataset", sort=False)
    }
    models = [str(m) for m in next(iter(cube.values())).index]
    for d, g in cube.items():
        if [str(m) for m in g.index] != models:
            msg = f"{path}: data set {d!r} lists models {list(g.index)}, not {models}."
            raise DataError(msg)
    return cube, models


def _other_test(
    which: str,
    path: str,
    layout: str,
    params: dict[str, Any],
    opts: options.CommonOptions,
    loss: bool,
    *,
    started: float,
    **kw: Any,
) -> None:
    import modelcompare as mc

    sign = -1.0 if loss else 1.0
    seed = rows = text = reject = None
    if which in ("5x2cv", "5x2cv-f"):
        a, b, names = _two_rows(_read_scores(path, layout), path, f"--test {which}")
        if which == "5x2cv":
            result = mc.paired_ttest_5x2cv(sign * a, sign * b, alternative=params["alternative"])
        else:
            result = mc.combined_ftest_5x2cv(sign * a, sign * b)
        rows = [("models", f"{names[0]} vs {names[1]}"), ("statistic", result.statistic)]
        rows += [("pvalue", result.pvalue), ("mean_difference", sign * result.mean_difference)]
    elif which == "mcnemar":
        result = mc.mcnemar_test(
            **_read_mcnemar(path), exact=kw["exact"], continuity_correction=kw["continuity"]
        )
        params.update(exact=kw["exact"], continuity_correction=kw["continuity"])
        rows = [("n01 (a right, b wrong)", result.n01), ("n10 (a wrong, b right)", result.n10)]
        rows += [("statistic", result.statistic), ("pvalue", result.pvalue)]
    elif which == "hierarchical":
        result, seed, rows = _hierarchical(path, params, opts, sign, kw["rope"], kw["n_folds"])
    else:
        result, seed, text, reject = _report(path, layout, params, opts, loss, kw)
    emit(
        opts,
        test=f"cv {which}",
        result=result,
        params=params,
        seed=seed,
        started=started,
        rows=rows,
        text=text,
        reject=reject,
    )


def _hierarchical(
    path: str,
    params: dict[str, Any],
    opts: options.CommonOptions,
    sign: float,
    rope: float,
    n_folds: int | None,
) -> tuple[dict[str, Any], int | None, list[tuple[str, Any]]]:
    """The hierarchical Bayesian test: its result's fields, seed and rows."""
    import modelcompare as mc

    if opts.alpha is not None or opts.fail_on_reject:
        msg = "--alpha and --fail-on-reject do not apply to a Bayesian test (no p-value)."
        raise click.UsageError(msg)
    cube, models = _read_long(path)
    if len(models) != 2:
        msg = f"{path}: --test hierarchical compares 2 models; got {models}."
        raise DataError(msg)
    a = np.stack([sign * g.iloc[0].to_numpy() for g in cube.values()])
    b = np.stack([sign * g.iloc[1].to_numpy() for g in cube.values()])
    result = mc.bayesian_hierarchical_ttest(a, b, rope=rope or 0.0, n_folds=n_folds, seed=opts.seed)
    params.update(n_folds=n_folds)
    data = result.to_dict(include_arrays=False)
    rows = [("models", f"{models[0]} vs {models[1]}"), ("data sets", result.n_datasets)]
    rows += [(k, data[k]) for k in ("prob_a_better", "prob_rope", "prob_a_worse")]
    rows += [("decision (0.95)", result.decision()), ("converged", result.converged)]
    return data, result.seed_used, rows


def _report(
    path: str,
    layout: str,
    params: dict[str, Any],
    opts: options.CommonOptions,
    loss: bool,
    kw: dict[str, Any],
) -> tuple[dict[str, Any], int | None, Any, bool | None]:
    """The one-call report: its fields, seed, text and decision at --alpha (None without)."""
    import modelcompare as mc

    across = kw["across"]
    bayesian = None if kw["bayesian"] == "none" else kw["bayesian"]
    if across == "splits":
        results: Any = _read_scores(path, layout)
    else:
        table = read_table(path)
        if {"dataset", "model"} <= set(map(str, table.columns)):
            results, _ = _read_long(path)
        else:
            results = _read_scores(path, "models-by-splits")
    report = mc.compare_models_report(
        results,
        across=across,
        alpha=opts.level,
        rope=kw["rope"] or 0.0,
        posthoc=kw["posthoc"],
        bayesian=bayesian,
        n_folds=kw["n_folds"],
        n_train=kw["n_train"],
        n_test=kw["n_test"],
        greater_is_better=not loss,
        seed=opts.seed,
    )
    params.update(posthoc=kw["posthoc"], bayesian=kw["bayesian"], across=across)
    data = report.to_dict(include_arrays=False)
    for key in ("omnibus", "posthoc", "pairwise"):
        data.pop(key, None)
    reject = None
    if opts.alpha is not None:
        data["reject"] = reject = report.decision(opts.alpha)
    return data, report.seed_used, report.to_text, reject
