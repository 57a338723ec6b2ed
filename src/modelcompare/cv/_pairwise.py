"""All-pairs comparison of cross-validated models in one tidy table."""

from __future__ import annotations

import itertools
import warnings
from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.pvalues import adjust_pvalues, check_correction, familywise_pvalue
from modelcompare._foundation.results import CollectionTestResult, result_class
from modelcompare._foundation.validation import check_choice
from modelcompare.cv._bayes import check_rope, posterior_probs
from modelcompare.cv._core import (
    ALTERNATIVES,
    NAN_POLICIES,
    check_flag,
    paired_differences,
    resolve_ratio,
    t_pvalue,
)
from modelcompare.cv._scores import extract_scores, split_sizes

__all__ = ["ModelComparisonResult", "compare_models", "family_pvalue"]

COLUMNS = [
    "model_a",
    "model_b",
    "mean_difference",
    "t",
    "df",
    "p",
    "p_adjusted",
    "prob_a_worse",
    "prob_rope",
    "prob_a_better",
    "n_splits",
    "degenerate",
]


@result_class
class ModelComparisonResult(CollectionTestResult):
    """Result of :func:`compare_models`: the pairwise table and its family-wise test.

    A collection with a family-wise test: ``table`` holds one row per pair of models, and
    ``pvalue`` / ``decision(alpha)`` test H0 "every pair of models has equal expected scores".
    ``print(result)`` shows the table; the repr is one line.

    Attributes
    ----------
    statistic : float
        The corrected t statistic (column ``t``) of the pair with the smallest p-value (the first
        such row of the table).
    pvalue : float
        Holm's family-wise p-value of the table, min(1, K · min p) over its K pairs (column
        ``p``), whatever ``correction`` shaped ``p_adjusted``: ``decision(alpha)`` controls the
        family-wise error of "some pair differs" at ``alpha``. It equals the smallest
        ``p_adjusted`` with Holm or Bonferroni; Benjamini–Hochberg (``"fdr_bh"``) controls the
        false discovery rate instead, and its smallest value (Simes' p-value) is valid only under
        positive dependence, so it never becomes ``pvalue``.
    table : pandas.DataFrame
        One row per pair (``itertools.combinations`` of the ordered models) with columns
        ``model_a, model_b, mean_difference, t, df, p, p_adjusted, prob_a_worse, prob_rope,
        prob_a_better, n_splits, degenerate``. ``mean_difference`` and ``t`` are positive when
        model a is better.
    model_a, model_b : str
        The pair with the smallest p-value.
    models : list of str
        The models, in the table's order (best first with ``order="rank"``).
    mean_scores : dict of str to float
        Mean score per model, in the scores' own orientation (losses stay losses).
    test_train_ratio : float
        n_test / n_train used in the correction.
    ratio_source : str
        Where the ratio came from (``"given n_train/n_test"``, ``"given test_train_ratio"`` or
        ``"mean over the search's splits"``).
    rope : tuple of float
        The ROPE (low, high) of the Bayesian columns; (0.0, 0.0) when none.
    alternative : str
        H1 of each pair's test.
    correction : str or None
        The multiplicity correction of ``p_adjusted``.
    greater_is_better : bool
        False when the scores were losses (negated before the tests).
    n_splits : int
        Splits per model.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import compare_models
    >>> rng = np.random.default_rng(0)
    >>> scores = {m: mu + 0.02 * rng.standard_normal(30) for m, mu in [("a", 0.9), ("b", 0.8)]}
    >>> res = compare_models(scores, n_train=90, n_test=10)
    >>> (res.model_a, res.model_b), res.decision(alpha=0.05)
    (('a', 'b'), True)
    >>> res.table[["model_a", "model_b", "p_adjusted"]].round(3).to_string(index=False)
    'model_a model_b  p_adjusted\\n      a       b         0.0'
    """

    statistic: float
    pvalue: float
    table: Any
    model_a: str
    model_b: str
    models: list[str]
    mean_scores: dict[str, float]
    test_train_ratio: float
    ratio_source: str
    rope: tuple[float, float]
    alternative: str
    correction: str | None
    greater_is_better: bool
    n_splits: int

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "model_a", "model_b")


def family_pvalue(raw: np.ndarray, correction: str | None) -> tuple[int, float]:
    """The pair with the smallest raw p-value and the family-wise p-value of the family.

    Holm's smallest adjusted p-value, min(1, m·p_min), whatever ``correction`` shaped the
    per-pair values: the family-wise p-value is never built from Benjamini–Hochberg.
    """
    best = int(np.argmin(raw))
    return best, familywise_pvalue(raw)


def _halving_rows(search: Any) -> int | None:
    """Rows the last iteration of a successive-halving search split, or None for other searches."""
    resources = getattr(search, "n_resources_", None)
    if resources is None or getattr(search, "resource", "n_samples") != "n_samples":
        return None
    return int(resources[-1])


def _resolve_sizes(
    results: Any,
    table_source: str,
    n_train: Any,
    n_test: Any,
    test_train_ratio: Any,
    X: Any,
    y: Any,
    groups: Any,
    n_samples: Any,
    n_splits: int,
) -> tuple[float, str]:
    data = [
        n
        for n, v in (("X", X), ("y", y), ("groups", groups), ("n_samples", n_samples))
        if v is not None
    ]
    if data and table_source != "search":
        where = "a cv_results_ dict" if table_source == "cv_results" else "a table of scores"
        msg = (
            f"{', '.join(f'`{n}`' for n in data)} can only be read with a fitted search object, "
            f"whose splitter they are split by; {where} has no splitter. Pass the search itself "
            "(with the X/y/groups given to .fit()), or `n_train` and `n_test`."
        )
        raise ValueError(msg)
    given = n_train is not None or n_test is not None or test_train_ratio is not None
    if given:
        ratio, _, _ = resolve_ratio(n_train, n_test, test_train_ratio)
        source = (
            "given test_train_ratio" if test_train_ratio is not None else "given n_train/n_test"
        )
        return ratio, source
    if table_source == "search" and (X is not None or n_samples is not None):
        from sklearn.base import is_classifier

        n_last = _halving_rows(results)
        if n_last is not None and X is not None:
            # the last iteration split its n_resources_[-1] rows (as many as the splitter sees)
            X, y = X[:n_last], None if y is None else y[:n_last]
            groups = None if groups is None else groups[:n_last]
        elif n_last is not None:
            n_samples = n_last
        sizes = split_sizes(
            results.cv,
            X,
            y,
            groups,
            n_samples=n_samples,
            is_classifier=is_classifier(getattr(results, "estimator", None)),
        )
        if sizes.n_splits != n_splits:
            msg = (
                f"the search's splitter gives {sizes.n_splits} splits on the data passed, but the "
                f"search results hold {n_splits}; pass the same X/y/groups as to .fit()."
            )
            raise ValueError(msg)
        return resolve_ratio(None, None, sizes.test_train_ratio)[0], "mean over the search's splits"
    hint = (
        "pass `n_train` and `n_test` (sizes of one split), or `X` (or `n_samples`) with the same "
        "y/groups as given to .fit() so that they are read from the search's splitter"
        if table_source == "search"
        else "pass `n_train` and `n_test` (sizes of one split) or `test_train_ratio`"
    )
    msg = f"compare_models needs the training and test set sizes for the Nadeau–Bengio correction: {hint}."
    raise ValueError(msg)


def compare_models(
    results: Any,
    *,
    names: Any = None,
    n_train: float | None = None,
    n_test: float | None = None,
    test_train_ratio: float | None = None,
    X: Any = None,
    y: Any = None,
    groups: Any = None,
    n_samples: int | None = None,
    scoring: str | None = None,
    rope: Any = 0.01,
    correction: str | None = "bonferroni",
    alternative: str = "two-sided",
    greater_is_better: bool = True,
    order: str = "rank",
    nan_policy: str = "raise",
) -> ModelComparisonResult:
    """Compare every pair of cross-validated models: corrected t-test and Bayesian correlated t-test.

    Parameters
    ----------
    results : search, dict or table
        One of: a fitted ``GridSearchCV``/``RandomizedSearchCV``; its ``cv_results_``; a dict
        ``{name: cross_validate(...)}``; a dict ``{name: per-split scores}``; or a models × splits
        table (a pandas DataFrame indexed by model name, a 2-D array, a list of lists or a torch
        tensor). All models must be
        scored on the same splits, in the same order. Of a successive-halving search only the
        last iteration's candidates are compared (the only ones scored with the same
        resources).
    names : sequence of str or {"values", "params"}, optional
        Model names (default: the example's parameter-value names for searches, dict keys, the
        DataFrame index, or ``model_i``). For a search or its ``cv_results_``, ``"params"``
        names candidates by their parameters (``"C=10, kernel=rbf"``) and ``"values"`` (the
        default) by the values alone (``"10_rbf"``).
    n_train, n_test : float, optional
        Split sizes for the correction. Required unless ``test_train_ratio`` is given, or unless
        ``results`` is a search object and ``X`` (or ``n_samples``) is passed.
    test_train_ratio : float, optional
        n_test / n_train directly.
    X, y, groups : array-like, optional
        The data given to the search's ``fit``: the search's splitter is re-run on them and the
        **mean** n_test/n_train over splits is used (see :func:`split_sizes`). Only with a
        fitted search object: with a ``cv_results_`` dict or a table they are refused, not
        ignored.
    n_samples : int, optional
        The number of rows of the data, instead of ``X``, for splitters that need only the row
        count.
    scoring : str, optional
        Metric of a multi-metric search / ``cross_validate`` result.
    rope : float, (float, float) or None
        Region of practical equivalence for the Bayesian columns (default ±0.01).
    correction : {"bonferroni", "holm", "fdr_bh", None}
        Multiplicity correction over the K(K−1)/2 pairs, in ``p_adjusted`` (see
        :func:`adjust_pvalues`).
    alternative : {"two-sided", "greater", "less"}
        H1 about E[a − b] for each pair (a is ``model_a``).
    greater_is_better : bool
        False for losses (e.g. raw RMSE): the scores are negated first, so that in every column a
        positive difference means ``model_a`` is better.
    order : {"rank", "given"}
        ``"rank"``: models best-first (the search's ``rank_test_*``, otherwise by mean score), so
        pairs read "better vs worse"; ``"given"``: input order.
    nan_policy : {"raise", "omit"}
        NaN scores (failed fits): raise an error naming the model and split, or drop the split
        from the pairs involving that model (``n_splits`` then varies by pair).

    Returns
    -------
    ModelComparisonResult
        ``table``: one row per pair (``itertools.combinations`` of the ordered models) with
        columns ``model_a, model_b, mean_difference, t, df, p, p_adjusted, prob_a_worse,
        prob_rope, prob_a_better, n_splits, degenerate``; ``mean_difference`` and ``t`` are
        positive when model a is better. ``pvalue`` and ``decision(alpha)``: the family-wise
        test of "no pair differs". The settings (``test_train_ratio``, ``ratio_source``,
        ``rope``, ``alternative``, ``correction``, ``n_splits``, ``greater_is_better``) and the
        models' ``mean_scores`` are fields. ``print(result)`` shows the table.

    Notes
    -----
    The p-values of :func:`corrected_ttest` with ``alternative``; scikit-learn's example prints
    ``p_adjusted`` for ``alternative="greater"`` with Bonferroni and best-first pairs (its
    "right-tailed" p is half the two-sided one). The Bayesian probabilities are those of
    :func:`bayesian_ttest` and are not adjusted for multiplicity (Benavoli et al. 2017).
    Zero-variance pairs are flagged in ``degenerate`` (one warning for the table).

    References
    ----------
    .. [1] C. Nadeau and Y. Bengio (2003). Inference for the Generalization Error. Machine Learning
       52(3), 239–281. doi:10.1023/A:1024068626366.
    .. [2] A. Benavoli, G. Corani, J. Demšar and M. Zaffalon (2017). Time for a Change: a Tutorial
       for Comparing Multiple Classifiers Through Bayesian Analysis. Journal of Machine Learning
       Research 18(77), 1–36. arXiv:1606.04316.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import compare_models
    >>> rng = np.random.default_rng(0)
    >>> scores = {"a": 0.9 + 0.02 * rng.standard_normal(50), "b": 0.8 + 0.02 * rng.standard_normal(50)}
    >>> res = compare_models(scores, n_train=90, n_test=10)
    >>> res.table[["model_a", "model_b", "p_adjusted", "prob_a_better"]].round(3).to_string(index=False)
    'model_a model_b  p_adjusted  prob_a_better\\n      a       b         0.0            1.0'
    >>> res.decision(alpha=0.05), res.correction
    (True, 'bonferroni')
    """
    import pandas as pd

    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(nan_policy, "nan_policy", NAN_POLICIES)
    check_choice(order, "order", ("rank", "given"))
    check_correction(correction)
    greater_is_better = check_flag(greater_is_better, "greater_is_better")
    lo, hi = check_rope(rope)
    table = extract_scores(results, names=names, scoring=scoring)
    scores = table.scores if greater_is_better else -table.scores
    model_names = table.names
    nan = np.isnan(scores)
    if nan.any() and nan_policy == "raise":
        cells = [(model_names[i], int(j)) for i, j in np.argwhere(nan)]
        shown = "; ".join(f"{m!r} split {j}" for m, j in cells[:5]) + (
            "; ..." if len(cells) > 5 else ""
        )
        msg = (
            f"NaN scores (failed fits?) in `results` at {shown}; fix the fits or pass "
            "nan_policy='omit' to drop "
            "those splits pairwise."
        )
        raise ValueError(msg)
    ratio, ratio_source = _resolve_sizes(
        results,
        table.source,
        n_train,
        n_test,
        test_train_ratio,
        X,
        y,
        groups,
        n_samples,
        scores.shape[1],
    )
    means = np.nanmean(scores, axis=1) if nan.any() else scores.mean(axis=1)
    if order == "rank":
        if table.ranks is not None and greater_is_better:
            idx = np.argsort(table.ranks, kind="stable")
        else:
            idx = np.argsort(-means, kind="stable")
    else:
        idx = np.arange(len(model_names))
    rows = []
    degenerate_pairs = []
    for i, j in itertools.combinations(idx, 2):
        diff = paired_differences(
            scores[i], scores[j], nan_policy=nan_policy, names=(model_names[i], model_names[j])
        )
        n = diff.n
        se_s, se = diff.standard_error(1.0 / n + ratio)
        t, p = t_pvalue(diff.mean_scaled, se_s, n - 1, alternative, all_zero=diff.all_zero)
        worse, in_rope, better = posterior_probs(diff.mean, se, n - 1, lo, hi)
        if diff.zero_spread:
            degenerate_pairs.append(f"{model_names[i]} vs {model_names[j]}")
        rows.append(
            [
                model_names[i],
                model_names[j],
                diff.mean,
                t,
                n - 1,
                p,
                None,
                worse,
                in_rope,
                better,
                n,
                diff.zero_spread,
            ]
        )
    out = pd.DataFrame(rows, columns=COLUMNS)
    out["p_adjusted"] = adjust_pvalues(out["p"].to_numpy(), correction)
    out["df"] = out["df"].astype(int)
    out["n_splits"] = out["n_splits"].astype(int)
    out["degenerate"] = out["degenerate"].astype(bool)
    best, pvalue = family_pvalue(out["p"].to_numpy(dtype=float), correction)
    if degenerate_pairs:
        warnings.warn(
            "zero-variance differences (flagged in `degenerate`) for: "
            + ", ".join(degenerate_pairs),
            DegenerateDataWarning,
            stacklevel=2,
        )
    return ModelComparisonResult(
        statistic=float(out["t"].iloc[best]),
        pvalue=pvalue,
        table=out,
        model_a=str(out["model_a"].iloc[best]),
        model_b=str(out["model_b"].iloc[best]),
        models=[model_names[k] for k in idx],
        mean_scores={model_names[k]: float(table.scores[k][~nan[k]].mean()) for k in idx},
        test_train_ratio=float(ratio),
        ratio_source=ratio_source,
        rope=(lo, hi),
        alternative=alternative,
        correction=correction,
        greater_is_better=bool(greater_is_better),
        n_splits=int(scores.shape[1]),
    )
