"""All-pairs comparison of cross-validated models in one tidy table."""

from __future__ import annotations

import itertools
import warnings
from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.stats import holm_adjust
from modelcompare._foundation.validation import check_choice, check_vector
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

__all__ = [
    "CORRECTIONS",
    "PairwiseTestResult",
    "adjust_pvalues",
    "check_correction",
    "compare_models",
]

CORRECTIONS = ("bonferroni", "holm", None)

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


def check_correction(correction: Any) -> str | None:
    """Return ``correction`` if it is ``"holm"``, ``"bonferroni"`` or None; raise otherwise."""
    if correction not in CORRECTIONS or isinstance(correction, bool):
        msg = f"`correction` must be one of 'holm', 'bonferroni', None; got {correction!r}."
        raise ValueError(msg)
    return correction


def adjust_pvalues(pvalues: Any, correction: str | None = "holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons (valid under any dependence).

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Raw p-values.
    correction : {"holm", "bonferroni", None}
        ``"bonferroni"``: min(1, m·p). ``"holm"``: step-down,
        p̃_(i) = max_{j ≤ i} min(1, (m − j + 1) p_(j)) over the ascending p-values, in the original
        order (as ``statsmodels.stats.multitest.multipletests(method="holm")``). None: unchanged.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values in the input order.

    Examples
    --------
    >>> from modelcompare import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03], correction="holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], correction="bonferroni").round(3).tolist()
    [0.03, 0.12, 0.09]
    """
    check_correction(correction)
    p = check_vector(pvalues, "pvalues", min_size=0)
    if (p < 0).any() or (p > 1).any():
        msg = "`pvalues` must lie in [0, 1]."
        raise ValueError(msg)
    m = p.shape[0]
    if correction is None or m == 0:
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, m * p)
    return holm_adjust(p)


@result_class
class PairwiseTestResult(TestResult):
    """The family-wise test behind a :func:`compare_models` table: does some pair differ?

    Build it with :meth:`from_table`. H0: every pair of models has equal expected scores.

    Attributes
    ----------
    statistic : float
        The corrected t statistic (column ``t``) of the pair with the smallest adjusted p-value
        (the first such row of the table).
    pvalue : float
        The smallest adjusted p-value of the table (column ``p_adjusted``). With Holm or
        Bonferroni, ``decision(alpha)`` controls the family-wise error of "some pair differs" at
        ``alpha``; with ``correction=None`` it is the smallest uncorrected p-value.
    model_a, model_b : str
        The pair with the smallest adjusted p-value.
    pairs : pandas.DataFrame
        The table of :func:`compare_models`, one row per pair.
    models : list of str
        The models, in the table's order (best first with ``order="rank"``).
    mean_scores : dict of str to float
        Mean score per model.
    test_train_ratio : float
        n_test / n_train used in the correction.
    rope : tuple of float
        The ROPE of the Bayesian columns.
    alternative : str
        H1 of each pair's test.
    correction : str or None
        The multiplicity correction of ``p_adjusted``.
    n_splits : int
        Splits per model.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import PairwiseTestResult, compare_models
    >>> rng = np.random.default_rng(0)
    >>> scores = {m: mu + 0.02 * rng.standard_normal(30) for m, mu in [("a", 0.9), ("b", 0.8)]}
    >>> res = PairwiseTestResult.from_table(compare_models(scores, n_train=90, n_test=10))
    >>> (res.model_a, res.model_b), res.decision(alpha=0.05)
    (('a', 'b'), True)
    """

    statistic: float
    pvalue: float
    model_a: str
    model_b: str
    pairs: Any
    models: list[str]
    mean_scores: dict[str, float]
    test_train_ratio: float
    rope: tuple[float, float]
    alternative: str
    correction: str | None
    n_splits: int

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "model_a", "model_b")

    @classmethod
    def from_table(cls, table: Any) -> PairwiseTestResult:
        """The family-wise test of a table returned by :func:`compare_models`.

        Parameters
        ----------
        table : pandas.DataFrame
            The table as returned by :func:`compare_models` (its ``attrs`` hold the settings).

        Returns
        -------
        PairwiseTestResult
        """
        attrs = getattr(table, "attrs", None) or {}
        needed = ("mean_scores", "test_train_ratio", "rope", "alternative", "correction")
        if not all(k in attrs for k in needed) or "p_adjusted" not in getattr(table, "columns", ()):
            msg = "`table` must be the DataFrame returned by compare_models (with its attrs)."
            raise ValueError(msg)
        best = int(np.argmin(table["p_adjusted"].to_numpy(dtype=float)))
        row = table.iloc[best]
        return cls(
            statistic=float(row["t"]),
            pvalue=float(row["p_adjusted"]),
            model_a=str(row["model_a"]),
            model_b=str(row["model_b"]),
            pairs=table,
            models=list(attrs["mean_scores"]),
            mean_scores=dict(attrs["mean_scores"]),
            test_train_ratio=float(attrs["test_train_ratio"]),
            rope=tuple(attrs["rope"]),
            alternative=str(attrs["alternative"]),
            correction=attrs["correction"],
            n_splits=int(attrs.get("n_splits", table["n_splits"].max())),
        )


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
    given = n_train is not None or n_test is not None or test_train_ratio is not None
    if given:
        ratio, _, _ = resolve_ratio(n_train, n_test, test_train_ratio)
        source = (
            "given test_train_ratio" if test_train_ratio is not None else "given n_train/n_test"
        )
        return ratio, source
    if table_source == "search" and (X is not None or n_samples is not None):
        from sklearn.base import is_classifier

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
) -> Any:
    """Compare every pair of cross-validated models: corrected t-test and Bayesian correlated t-test.

    Parameters
    ----------
    results : search, dict or table
        One of: a fitted ``GridSearchCV``/``RandomizedSearchCV``; its ``cv_results_``; a dict
        ``{name: cross_validate(...)}``; a dict ``{name: per-split scores}``; or a models × splits
        table (a pandas DataFrame indexed by model name, a 2-D array, a list of lists or a torch
        tensor). All models must be
        scored on the same splits, in the same order.
    names : sequence of str, optional
        Model names (default: the example's parameter-value names for searches, dict keys, the
        DataFrame index, or ``model_i``).
    n_train, n_test : float, optional
        Split sizes for the correction. Required unless ``test_train_ratio`` is given, or unless
        ``results`` is a search object and ``X`` (or ``n_samples``) is passed.
    test_train_ratio : float, optional
        n_test / n_train directly.
    X, y, groups : array-like, optional
        The data given to the search's ``fit``: the search's splitter is re-run on them and the
        **mean** n_test/n_train over splits is used (see :func:`split_sizes`).
    n_samples : int, optional
        The number of rows of the data, instead of ``X``, for splitters that need only the row
        count.
    scoring : str, optional
        Metric of a multi-metric search / ``cross_validate`` result.
    rope : float, (float, float) or None
        Region of practical equivalence for the Bayesian columns (default ±0.01).
    correction : {"bonferroni", "holm", None}
        Multiplicity correction over the K(K−1)/2 pairs, in ``p_adjusted``.
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
    pandas.DataFrame
        One row per pair (``itertools.combinations`` of the ordered models) with columns
        ``model_a, model_b, mean_difference, t, df, p, p_adjusted, prob_a_worse, prob_rope,
        prob_a_better, n_splits, degenerate``. ``mean_difference`` and ``t`` are positive when
        model a is better. ``df.attrs`` records ``test_train_ratio``, its source, ``rope``,
        ``alternative``, ``correction``, ``n_splits`` and the models' mean scores.
        :meth:`PairwiseTestResult.from_table` turns the table into one family-wise test.

    Notes
    -----
    The p-values of :func:`corrected_ttest` with ``alternative``; scikit-learn's example prints
    ``p_adjusted`` for ``alternative="greater"`` with Bonferroni and best-first pairs (its
    "right-tailed" p is half the two-sided one). The Bayesian probabilities are those of
    :func:`bayesian_ttest` and are not adjusted for multiplicity (Benavoli et al. 2017).
    Zero-variance pairs are flagged in ``degenerate`` (one warning for the table).

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import compare_models
    >>> rng = np.random.default_rng(0)
    >>> scores = {"a": 0.9 + 0.02 * rng.standard_normal(50), "b": 0.8 + 0.02 * rng.standard_normal(50)}
    >>> table = compare_models(scores, n_train=90, n_test=10)
    >>> table[["model_a", "model_b", "p_adjusted", "prob_a_better"]].round(3).to_string(index=False)
    'model_a model_b  p_adjusted  prob_a_better\\n      a       b         0.0            1.0'
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
    out.attrs.update(
        {
            "test_train_ratio": ratio,
            "ratio_source": ratio_source,
            "rope": (lo, hi),
            "alternative": alternative,
            "correction": correction,
            "n_splits": int(scores.shape[1]),
            "greater_is_better": bool(greater_is_better),
            "mean_scores": {model_names[k]: float(table.scores[k][~nan[k]].mean()) for k in idx},
        }
    )
    if degenerate_pairs:
        warnings.warn(
            "zero-variance differences (flagged in `degenerate`) for: "
            + ", ".join(degenerate_pairs),
            DegenerateDataWarning,
            stacklevel=2,
        )
    return out
