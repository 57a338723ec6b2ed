"""One call from a scores table or a fitted search to a report (autorank's workflow, Demšar 2006).

Across data sets: Friedman's omnibus test, a post-hoc test (Nemenyi or Wilcoxon–Holm), the
critical-difference diagram, and a Bayesian view per pair (the signed-rank test on one score per
data set, or the hierarchical correlated t-test on per-split scores). Across the splits of one
data set: the corrected and the Bayesian correlated t-tests (:func:`compare_models`), because CV
splits are not independent blocks and Friedman over them gives invalid, tiny p-values.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.errors import ConvergenceWarning
from modelcompare._foundation.results import CollectionTestResult, check_alpha, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import as_numpy, check_choice
from modelcompare.cv import _multi
from modelcompare.cv._bayes import check_rope
from modelcompare.cv._core import check_flag
from modelcompare.cv._hierarchical import bayesian_hierarchical_ttest
from modelcompare.cv._pairwise import compare_models
from modelcompare.cv._scores import pandas_labels

__all__ = ["ModelComparisonReport", "compare_models_report"]

ACROSS = ("datasets", "splits")
POSTHOC = ("nemenyi", "wilcoxon")
BAYESIAN = ("signed-rank", "hierarchical", None)
READINGS = {
    "a_better": "{a} better",
    "a_worse": "{b} better",
    "rope": "practically equivalent",
    "undecided": "inconclusive",
}


@result_class
class ModelComparisonReport(CollectionTestResult):
    """Result of :func:`compare_models_report`: a collection with a family-wise test.

    Attributes
    ----------
    pvalue : float
        The omnibus p-value: Friedman's across data sets; across splits, the smallest
        Bonferroni-adjusted corrected t-test p-value (the family-wise test of "no pair differs").
    table : pandas.DataFrame
        One row per pair (best-first): ``model_a``, ``model_b``, ``mean_difference``, ``p``
        (the post-hoc test's adjusted p-value), ``significant`` (at ``alpha``, and, across data
        sets, only when the omnibus test rejects), ``prob_a_worse``, ``prob_rope``,
        ``prob_a_better`` and ``reading`` (the Bayesian decision at 0.95).
    summary : str
        A paragraph stating what is significant and what is practically equivalent.
    across : str
        ``"datasets"`` or ``"splits"``.
    models : list of str
        Models best-first (by average rank across data sets, by mean score across splits).
    mean_scores : dict of str to float
        Mean score per model.
    average_ranks : dict of str to float or None
        Average rank per model across data sets (1 = best); None across splits.
    alpha : float
        Level of the frequentist statements.
    rope : tuple of float
        Region of practical equivalence of the Bayesian view.
    omnibus, posthoc, pairwise : result or None
        The :class:`FriedmanResult`, the :class:`NemenyiResult` or :class:`WilcoxonHolmResult`
        (across data sets), and the :class:`ModelComparisonResult` (across splits).
    bayesian : str or None
        The Bayesian test used (``"signed-rank"``, ``"hierarchical"``, ``"correlated t"``).
    n_datasets, n_splits : int or None
        Blocks of the comparison.
    seed_used : int or None
        The seed of the Bayesian draws.
    """

    pvalue: float
    table: Any
    summary: str
    across: str
    models: list[str]
    mean_scores: dict[str, float]
    average_ranks: dict[str, float] | None
    alpha: float
    rope: tuple[float, float]
    omnibus: Any
    posthoc: Any
    pairwise: Any
    bayesian: str | None
    n_datasets: int | None
    n_splits: int | None
    seed_used: int | None

    _repr_fields: ClassVar[tuple[str, ...]] = ("pvalue", "across", "alpha")

    def __str__(self) -> str:
        return self.to_text()

    def to_text(self) -> str:
        """The summary paragraph followed by the pairwise table."""
        shown = self.table.copy()
        for col in ("mean_difference", "p", "prob_a_worse", "prob_rope", "prob_a_better"):
            shown[col] = [f"{v:.4g}" for v in shown[col]]
        return f"{self.summary}\n\n{shown.to_string(index=False)}"

    def to_frame(self) -> Any:
        """The pairwise table (a copy)."""
        return self.table.copy()

    def plot(self, *, ax: Any = None) -> Any:
        """The critical-difference diagram across data sets; across splits, the pairs' posterior
        probabilities as stacked bars.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; a new figure is made only when None.

        Returns
        -------
        matplotlib.axes.Axes
        """
        from modelcompare.cv._plots import plot_critical_difference, plot_pair_probabilities

        if self.posthoc is not None:
            alpha = None if isinstance(self.posthoc, _multi.NemenyiResult) else self.alpha
            return plot_critical_difference(self.posthoc, alpha=alpha, ax=ax)
        return plot_pair_probabilities(self.table, ax=ax)


def _blocks(results: Any, names: Any) -> tuple[np.ndarray, list[str], list[str], np.ndarray | None]:
    """(means: data sets × models, model names, data set names, per-split: data sets × models × splits)."""
    if isinstance(results, Mapping):
        if not results:
            msg = "`results` is empty."
            raise ValueError(msg)
        sets = [str(k) for k in results]
        tables = list(results.values())
        models = pandas_labels(tables[0], "index")
        arrays = [
            np.asarray(as_numpy(t, f"results[{k!r}]"), dtype=float) for k, t in zip(sets, tables)
        ]
        shapes = {a.shape for a in arrays}
        if len(shapes) != 1 or arrays[0].ndim != 2:
            msg = (
                "every data set in `results` must be a models × splits table of the same shape; "
                f"got shapes {[a.shape for a in arrays]}."
            )
            raise ValueError(msg)
        cube = np.stack(arrays)
    else:
        cube_or_table = np.asarray(as_numpy(results, "results"))
        if cube_or_table.ndim == 3:
            cube = np.asarray(cube_or_table, dtype=float)
            sets = [f"dataset_{i}" for i in range(cube.shape[0])]
            models = None
        else:
            return _table_blocks(results, names)
    if names is None:
        names = (
            [str(m) for m in models]
            if models is not None
            else [f"model_{j}" for j in range(cube.shape[1])]
        )
    names = [str(n) for n in names]
    if len(names) != cube.shape[1]:
        msg = f"`names` has {len(names)} entries for {cube.shape[1]} models."
        raise ValueError(msg)
    if not np.all(np.isfinite(cube)):
        msg = "`results` must hold finite scores."
        raise ValueError(msg)
    return cube.mean(axis=2), names, sets, cube


def _table_blocks(results: Any, names: Any) -> tuple[np.ndarray, list[str], list[str], None]:
    columns = pandas_labels(results, "columns")
    index = pandas_labels(results, "index")
    arr = as_numpy(results, "results")
    if arr.ndim != 2:
        msg = (
            "`results` must be a data sets × models table, a {data set: models × splits} dict, "
            f"a (data sets, models, splits) array or a fitted search; got shape {arr.shape}."
        )
        raise ValueError(msg)
    if arr.dtype.kind not in "biuf":
        msg = f"`results` must hold numeric scores; got dtype {arr.dtype}."
        raise TypeError(msg)
    if not np.all(np.isfinite(np.asarray(arr, dtype=float))):
        msg = "`results` must hold finite scores."
        raise ValueError(msg)
    if names is None:
        names = (
            [str(c) for c in columns]
            if columns is not None
            else [f"model_{j}" for j in range(arr.shape[1])]
        )
    sets = (
        [str(i) for i in index]
        if index is not None
        else [f"dataset_{i}" for i in range(arr.shape[0])]
    )
    return np.asarray(arr, dtype=float), [str(n) for n in names], sets, None


def _join(items: list[str]) -> str:
    # "; " because candidate names such as "C=10, kernel=rbf" hold commas
    return "; ".join(items)


def _bayes_sentences(table: Any, what: str, lo: float, hi: float) -> str:
    wins, equiv = [], []
    for r in table.itertuples():
        if r.reading == f"{r.model_a} better":
            wins.append(f"{r.model_a} over {r.model_b}")
        elif r.reading == f"{r.model_b} better":
            wins.append(f"{r.model_b} over {r.model_a}")
        elif r.reading == "practically equivalent":
            equiv.append(f"{r.model_a} and {r.model_b}")
    rope = f"ROPE [{lo:g}, {hi:g}]" if lo != -hi else f"ROPE ±{hi:g}"
    parts = [f"{what} ({rope}, a region is read when its probability exceeds 0.95):"]
    parts.append(
        f"practically better: {_join(wins)};"
        if wins
        else "no model is practically better than another;"
    )
    parts.append(
        f"practically equivalent: {_join(equiv)};"
        if equiv
        else "no pair is practically equivalent;"
    )
    n_open = int((table["reading"] == "inconclusive").sum())
    parts.append(f"{n_open} pair(s) inconclusive." if n_open else "no pair is inconclusive.")
    return " ".join(parts)


def _reading(dec: str, a: str, b: str) -> str:
    return READINGS[dec].format(a=a, b=b)


def compare_models_report(
    results: Any,
    *,
    across: str | None = None,
    names: Any = "params",
    alpha: float = 0.05,
    rope: Any = 0.01,
    posthoc: str = "nemenyi",
    bayesian: str | None = "signed-rank",
    n_folds: int | None = None,
    n_train: float | None = None,
    n_test: float | None = None,
    X: Any = None,
    y: Any = None,
    groups: Any = None,
    n_samples: int | None = None,
    scoring: str | None = None,
    greater_is_better: bool = True,
    seed: SeedLike = None,
) -> ModelComparisonReport:
    """One call from scores or a fitted search to a report: omnibus, post-hoc, CD, Bayesian, text.

    Parameters
    ----------
    results : table, dict, array or search
        Across data sets (``across="datasets"``): a data sets × models table (a DataFrame whose
        columns name the models), or per-split scores as a dict ``{data set: models × splits
        table}`` or an array of shape (n_datasets, n_models, n_splits). Across the splits of one
        data set (``across="splits"``): anything :func:`compare_models` takes (a fitted
        ``GridSearchCV``/``RandomizedSearchCV``, its ``cv_results_``, a models × splits table).
    across : {"datasets", "splits"}, optional
        Default: ``"splits"`` for a search or a ``cv_results_`` dict, else ``"datasets"``.
    names : sequence of str or {"params", "values"}
        Model names; for a search, ``"params"`` (default) names candidates ``"C=10, kernel=rbf"``
        and ``"values"`` as scikit-learn's example does.
    alpha : float
        Level of the omnibus and post-hoc tests.
    rope : float or (float, float)
        Region of practical equivalence of the Bayesian view, in score units (default ±0.01).
    posthoc : {"nemenyi", "wilcoxon"}
        Across data sets: Nemenyi's test (Demšar 2006) or Wilcoxon signed-rank tests with Holm's
        correction (Benavoli, Corani & Mangili 2016).
    bayesian : {"signed-rank", "hierarchical", None}
        Across data sets: the Bayesian signed-rank test on one score per data set, or the
        hierarchical correlated t-test on per-split scores (needs them). Across splits the
        Bayesian correlated t-test is always used.
    n_folds : int, optional
        Folds of the CV behind the per-split scores (hierarchical test; default: one run).
    n_train, n_test, X, y, groups, n_samples, scoring
        As in :func:`compare_models` (across splits).
    greater_is_better : bool
        False for losses.
    seed : int, numpy.random.Generator or None
        Seed of the Bayesian draws.

    Returns
    -------
    ModelComparisonReport
        ``summary`` (text), ``table`` (a DataFrame, one row per pair), ``plot()`` (the CD
        diagram), the omnibus, post-hoc and pairwise results, and ``pvalue``/``decision(alpha)``.

    Raises
    ------
    ValueError
        For a bad ``across``, ``posthoc`` or ``bayesian``, or ``bayesian="hierarchical"``
        without per-split scores.

    Notes
    -----
    Across data sets the order is Demšar's (2006): Friedman's test of "all models alike"; if it
    rejects at ``alpha``, the post-hoc test's significant pairs (Nemenyi's critical difference,
    or Holm-adjusted Wilcoxon tests); otherwise no pair is declared different. The Bayesian view
    reads each pair by Benavoli et al.'s (2017) rule: a region whose posterior probability
    exceeds 0.95. Across the splits of one data set Friedman is not used (the splits share
    training data and are not independent blocks); the corrected repeated k-fold t-test
    (Nadeau & Bengio 2003) with Bonferroni over the pairs and the Bayesian correlated t-test
    are.

    References
    ----------
    .. [1] J. Demšar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7,
       2006.
    .. [2] A. Benavoli, G. Corani, J. Demšar and M. Zaffalon, "Time for a change: a tutorial for
       comparing multiple classifiers through Bayesian analysis", JMLR 18(77), 2017.
    .. [3] S. Herbold, "Autorank: a Python package for automated ranking of classifiers", JOSS
       5(48), 2020.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from modelcompare import compare_models_report
    >>> rng = np.random.default_rng(0)
    >>> scores = pd.DataFrame(
    ...     np.array([0.86, 0.85, 0.78]) + 0.02 * rng.standard_normal((12, 3)),
    ...     columns=["forest", "boosting", "tree"],
    ... )
    >>> report = compare_models_report(scores, seed=0)
    >>> report.models, report.decision(alpha=0.05)
    (['forest', 'boosting', 'tree'], True)
    >>> print(report.summary)  # doctest: +ELLIPSIS
    Across 12 data sets, Friedman's test rejects that all 3 models perform alike ...
    """
    alpha = check_alpha(alpha)
    greater_is_better = check_flag(greater_is_better, "greater_is_better")
    check_choice(posthoc, "posthoc", POSTHOC)
    if bayesian is not None:
        check_choice(bayesian, "bayesian", ("signed-rank", "hierarchical"))
    lo, hi = check_rope(rope)
    if across is None:
        is_search = hasattr(results, "cv_results_") or (
            isinstance(results, Mapping) and any(str(k).startswith("split") for k in results)
        )
        across = "splits" if is_search else "datasets"
    check_choice(across, "across", ACROSS)
    rng, seed_used = check_seed(seed)
    if across == "splits":
        return _report_splits(
            results,
            names,
            alpha,
            (lo, hi),
            n_train,
            n_test,
            X,
            y,
            groups,
            n_samples,
            scoring,
            greater_is_better,
            seed_used,
        )
    if isinstance(names, str):
        names = None  # a naming style only means something for a search
    means, model_names, sets, cube = _blocks(results, names)
    if not greater_is_better:
        means = -means
        cube = None if cube is None else -cube
    if bayesian == "hierarchical" and cube is None:
        msg = (
            "`bayesian='hierarchical'` needs per-split scores: a {data set: models × splits} dict "
            "or a (data sets, models, splits) array."
        )
        raise ValueError(msg)
    omnibus = _multi.friedman_test(means, names=model_names)
    if posthoc == "nemenyi":
        post = _multi.nemenyi_test(means, names=model_names, alpha=alpha)
        post_p = post.pvalues
        post_name = f"Nemenyi's test (critical difference {post.threshold:.3g} in average rank)"
    else:
        post = _multi.wilcoxon_holm_test(means, names=model_names)
        post_p = post.pvalues_adjusted
        post_name = "Wilcoxon signed-rank tests with Holm's correction"
    avg = dict(zip(model_names, np.asarray(post.average_ranks, dtype=float)))
    order = sorted(range(len(model_names)), key=lambda j: avg[model_names[j]])
    rows = []
    children = rng.spawn(len(order) * (len(order) - 1) // 2)
    for (i, j), child in zip(itertools.combinations(order, 2), children):
        a, b = model_names[i], model_names[j]
        if bayesian == "hierarchical":
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                res = bayesian_hierarchical_ttest(
                    cube[:, i, :], cube[:, j, :], rope=max(-lo, hi), n_folds=n_folds, seed=child
                )
            for w in caught:
                warnings.warn(f"{a} vs {b}: {w.message}", w.category, stacklevel=2)
        elif bayesian == "signed-rank":
            res = _multi.bayesian_signed_rank(means[:, i], means[:, j], rope=(lo, hi), seed=child)
        else:
            res = None
        p = float(post_p[i, j])
        rows.append(
            {
                "model_a": a,
                "model_b": b,
                "mean_difference": float(np.mean(means[:, i] - means[:, j])),
                "p": p,
                "significant": bool(omnibus.pvalue <= alpha and p <= alpha),
                "prob_a_worse": res.prob_a_worse if res else float("nan"),
                "prob_rope": res.prob_rope if res else float("nan"),
                "prob_a_better": res.prob_a_better if res else float("nan"),
                "reading": _reading(res.decision(), a, b) if res else "",
            }
        )
    import pandas as pd

    table = pd.DataFrame(rows)
    ordered = [model_names[j] for j in order]
    summary = _summary_datasets(omnibus, post, post_name, table, ordered, avg, alpha, len(sets))
    if bayesian is not None:
        what = (
            "Hierarchical Bayesian correlated t-test (a new data set's difference)"
            if bayesian == "hierarchical"
            else "Bayesian signed-rank test"
        )
        summary += " " + _bayes_sentences(table, what, lo, hi)
    return ModelComparisonReport(
        pvalue=float(omnibus.pvalue),
        table=table,
        summary=summary,
        across="datasets",
        models=ordered,
        mean_scores={
            m: float(means[:, model_names.index(m)].mean() * (1 if greater_is_better else -1))
            for m in ordered
        },
        average_ranks={m: float(avg[m]) for m in ordered},
        alpha=alpha,
        rope=(lo, hi),
        omnibus=omnibus,
        posthoc=post,
        pairwise=None,
        bayesian=bayesian,
        n_datasets=len(sets),
        n_splits=None if cube is None else int(cube.shape[2]),
        seed_used=seed_used,
    )


def _summary_datasets(
    omnibus: Any,
    post: Any,
    post_name: str,
    table: Any,
    ordered: list[str],
    avg: dict,
    alpha: float,
    n_sets: int,
) -> str:
    k = len(ordered)
    ranks = ", ".join(f"{m} {avg[m]:.2f}" for m in ordered)
    verdict = "rejects" if omnibus.pvalue <= alpha else "does not reject"
    text = (
        f"Across {n_sets} data sets, Friedman's test {verdict} that all {k} models perform alike "
        f"(χ² = {omnibus.statistic:.3g}, p = {omnibus.pvalue:.3g}, α = {alpha:g}). "
        f"Average ranks (1 = best): {ranks}."
    )
    sig = table[table["significant"]]
    if omnibus.pvalue > alpha:
        text += " No pair is declared different."
    elif sig.empty:
        text += f" {post_name} finds no significantly different pair."
    else:
        pairs = [f"{r.model_a} > {r.model_b} (p = {r.p:.3g})" for r in sig.itertuples()]
        text += f" {post_name}: significantly different: {_join(pairs)}."
    cliques = post.cliques() if isinstance(post, _multi.NemenyiResult) else post.cliques(alpha)
    groups = [c for c in cliques if len(c) > 1]
    if groups:
        text += (
            " Groups not significantly different: "
            + "; ".join("{" + ", ".join(g) + "}" for g in groups)
            + "."
        )
    return text


def _report_splits(
    results: Any,
    names: Any,
    alpha: float,
    rope: tuple[float, float],
    n_train: Any,
    n_test: Any,
    X: Any,
    y: Any,
    groups: Any,
    n_samples: Any,
    scoring: Any,
    greater_is_better: bool,
    seed_used: int | None,
) -> ModelComparisonReport:
    pair = compare_models(
        results,
        names=names,
        n_train=n_train,
        n_test=n_test,
        X=X,
        y=y,
        groups=groups,
        n_samples=n_samples,
        scoring=scoring,
        rope=rope,
        correction="bonferroni",
        greater_is_better=greater_is_better,
    )
    t = pair.table
    table = t[["model_a", "model_b", "mean_difference"]].copy()
    table["p"] = t["p_adjusted"].to_numpy()
    table["significant"] = t["p_adjusted"].to_numpy() <= alpha
    for col in ("prob_a_worse", "prob_rope", "prob_a_better"):
        table[col] = t[col].to_numpy()
    table["reading"] = [
        _reading(
            "a_better"
            if r.prob_a_better > 0.95
            else "a_worse"
            if r.prob_a_worse > 0.95
            else "rope"
            if r.prob_rope > 0.95
            else "undecided",
            r.model_a,
            r.model_b,
        )
        for r in t.itertuples()
    ]
    means = ", ".join(f"{m} {v:.4g}" for m, v in pair.mean_scores.items())
    text = (
        f"Across the {pair.n_splits} cross-validation splits of one data set (mean scores: {means}), "
        "the Nadeau–Bengio corrected t-test with Bonferroni's correction over "
        f"{len(table)} pairs (n_test/n_train = {pair.test_train_ratio:.3g}) "
    )
    sig = table[table["significant"]]
    if sig.empty:
        text += f"finds no significantly different pair at α = {alpha:g}."
    else:
        pairs = [
            f"{r.model_a} > {r.model_b} (p = {r.p:.3g})"
            if r.mean_difference > 0
            else f"{r.model_b} > {r.model_a} (p = {r.p:.3g})"
            for r in sig.itertuples()
        ]
        text += f"finds at α = {alpha:g}: {_join(pairs)}."
    text += (
        " Friedman's test is not used: the splits of one data set share training data and are "
        "not independent blocks. "
    )
    text += _bayes_sentences(table, "Bayesian correlated t-test", *rope)
    return ModelComparisonReport(
        pvalue=float(pair.pvalue),
        table=table,
        summary=text,
        across="splits",
        models=list(pair.models),
        mean_scores=dict(pair.mean_scores),
        average_ranks=None,
        alpha=alpha,
        rope=rope,
        omnibus=None,
        posthoc=None,
        pairwise=pair,
        bayesian="correlated t",
        n_datasets=None,
        n_splits=int(pair.n_splits),
        seed_used=seed_used,
    )
