"""Turn what users have (a fitted search, ``cv_results_``, ``cross_validate`` dicts, a table) into a
models × splits score matrix, and derive split sizes from a splitter."""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

import numpy as np

from modelcompare._foundation.deprecation import renamed_parameters
from modelcompare._foundation.errors import NotFittedError
from modelcompare._foundation.resources import check_memory, estimate_array_bytes
from modelcompare._foundation.results import Result, result_class
from modelcompare._foundation.validation import as_numpy, check_choice, check_int
from modelcompare.cv._core import check_flag

__all__ = [
    "CVScoresResult",
    "ScoreTable",
    "SplitSizes",
    "extract_scores",
    "pandas_labels",
    "scores_from_cv_results",
    "split_sizes",
]

_SPLIT_KEY = re.compile(r"^split(\d+)_test_(.+)$")


class ScoreTable(NamedTuple):
    """Models × splits scores plus what is known about their origin."""

    names: list[str]
    scores: np.ndarray  # (n_models, n_splits), may hold NaN
    ranks: np.ndarray | None  # rank_test_<metric> when known (1 = best)
    source: str
    metric: str | None = None  # the metric read, where the input names one


@result_class
class SplitSizes(Result):
    """Training/test sizes of a splitter: means over splits, the mean ratio, and the first split.

    Returned by :func:`split_sizes`; its ``test_train_ratio`` is what :func:`corrected_ttest`,
    :func:`bayesian_ttest` and :func:`compare_models` accept.

    Attributes
    ----------
    n_train, n_test : float
        Mean training and test set sizes over the splits.
    test_train_ratio : float
        The mean of n_test / n_train over the splits.
    first_n_train, first_n_test : int
        The sizes of the first split.
    n_splits : int
        Number of splits.

    Examples
    --------
    >>> from sklearn.model_selection import KFold
    >>> from modelcompare import split_sizes
    >>> split_sizes(KFold(4), n_samples=20)
    SplitSizes(n_train=15, n_test=5, test_train_ratio=0.333333, first_n_train=15)
    """

    n_train: float
    n_test: float
    test_train_ratio: float
    first_n_train: int
    first_n_test: int
    n_splits: int


@result_class
class CVScoresResult(Result):
    """Result of :func:`scores_from_cv_results`: the candidates' names and per-split test scores.

    Attributes
    ----------
    names : list of str
        Candidate names, best first (``rank_test_<metric>``, ties kept in candidate order).
    scores : numpy.ndarray of shape (n_candidates, n_splits)
        Test score of each candidate (row, in ``names`` order) on each split (column).
    scoring : str
        The metric read (``"score"`` for a single-metric search).

    Examples
    --------
    >>> from modelcompare import scores_from_cv_results
    >>> res = scores_from_cv_results(
    ...     {"params": [{"C": 1}, {"C": 10}], "split0_test_score": [0.8, 0.9], "rank_test_score": [2, 1]}
    ... )
    >>> res
    CVScoresResult(scoring='score', n_candidates=2, n_splits=1)
    """

    names: list[str]
    scores: np.ndarray
    scoring: str

    _repr_fields: ClassVar[tuple[str, ...]] = ("scoring", "n_candidates", "n_splits")

    @property
    def n_candidates(self) -> int:
        """Number of candidates (rows of ``scores``)."""
        return int(self.scores.shape[0])

    @property
    def n_splits(self) -> int:
        """Number of splits (columns of ``scores``)."""
        return int(self.scores.shape[1])


def pandas_labels(obj: Any, axis: str) -> list[Any] | None:
    """The ``index`` or ``columns`` labels of a pandas object; None for anything else.

    Lists and torch tensors have an ``index`` *method*; only a pandas object's labels count.
    """
    if not hasattr(obj, "to_numpy"):  # pandas DataFrame / Series (not lists, arrays or tensors)
        return None
    labels = getattr(obj, axis, None)
    if labels is None or callable(labels):
        return None
    return list(labels)


NAME_STYLES = ("values", "params")


def _param_name(params: Mapping[str, Any], style: str = "values") -> str:
    if style == "params":  # "C=10, kernel=rbf": readable without knowing the grid
        return ", ".join(f"{k}={v}" for k, v in params.items())
    # scikit-learn's example: the parameter values joined by "_", in the dict's key order.
    return "_".join(str(v) for v in params.values())


def _unique_names(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for n in names:
        if n in seen:
            seen[n] += 1
            out.append(f"{n}#{seen[n]}")
        else:
            seen[n] = 0
            out.append(n)
    return out


def scores_from_cv_results(
    cv_results: Mapping[str, Any], *, scoring: str | None = None, names: str = "values"
) -> CVScoresResult:
    """Candidate names and the candidates × splits test-score matrix of a ``cv_results_`` dict.

    Rows are in rank order (``rank_test_<metric>``, ties kept in candidate order); names follow
    scikit-learn's grid-search-statistics example: the parameter values joined by ``"_"``.

    Parameters
    ----------
    cv_results : dict
        ``GridSearchCV(...).cv_results_`` or ``RandomizedSearchCV(...).cv_results_``.
    scoring : str, optional
        Metric name for multi-metric searches (the ``<metric>`` of ``split0_test_<metric>``);
        with a single metric it is ``"score"`` and may be omitted.
    names : {"values", "params"}
        How candidates are named: ``"values"``, the example's parameter values joined by ``"_"``
        (``"10_rbf"``); ``"params"``, ``"name=value"`` pairs (``"C=10, kernel=rbf"``).

    Returns
    -------
    CVScoresResult
        ``names`` (best first), ``scores`` of shape (n_candidates, n_splits) in the same order,
        and the ``scoring`` metric read.

    Examples
    --------
    >>> from modelcompare import scores_from_cv_results
    >>> cv_results = {
    ...     "params": [{"C": 1}, {"C": 10}],
    ...     "split0_test_score": [0.8, 0.9],
    ...     "split1_test_score": [0.7, 0.85],
    ...     "rank_test_score": [2, 1],
    ... }
    >>> res = scores_from_cv_results(cv_results)
    >>> res.names, res.scores.tolist(), res.scoring
    (['10', '1'], [[0.9, 0.85], [0.8, 0.7]], 'score')
    >>> scores_from_cv_results(cv_results, names="params").names
    ['C=10', 'C=1']
    """
    check_choice(names, "names", NAME_STYLES)
    if not isinstance(cv_results, Mapping):
        msg = (
            "`cv_results` must be a search's cv_results_ (a dict of arrays); got "
            f"{type(cv_results).__name__}."
        )
        raise TypeError(msg)
    table = _from_cv_results(cv_results, scoring, name="cv_results", style=names)
    order = np.argsort(table.ranks, kind="stable")
    return CVScoresResult(
        names=[table.names[i] for i in order],
        scores=table.scores[order],
        scoring=table.metric,
    )


def _check_scoring(scoring: Any) -> None:
    if scoring is not None and not isinstance(scoring, str):
        msg = f"`scoring` must be None or the name of a metric (a str); got {scoring!r}."
        raise TypeError(msg)


def _from_cv_results(
    cv_results: Mapping[str, Any], scoring: str | None, name: str = "results", style: str = "values"
) -> ScoreTable:
    _check_scoring(scoring)
    metrics: dict[str, dict[int, str]] = {}
    for key in cv_results:
        m = _SPLIT_KEY.match(str(key))
        if m:
            metrics.setdefault(m.group(2), {})[int(m.group(1))] = key
    if not metrics:
        msg = f"`{name}` has no 'split<j>_test_<metric>' entries; is it a search's cv_results_?"
        raise ValueError(msg)
    if scoring is None:
        if len(metrics) > 1:
            msg = f"`{name}` holds several metrics {sorted(metrics)}; choose one with `scoring`."
            raise ValueError(msg)
        scoring = next(iter(metrics))
    if scoring not in metrics:
        msg = f"`scoring` {scoring!r} is not in the search results; it has {sorted(metrics)}."
        raise ValueError(msg)
    keys = metrics[scoring]
    n_splits = max(keys) + 1
    if sorted(keys) != list(range(n_splits)):
        msg = f"`{name}` is missing split columns for {scoring!r}."
        raise ValueError(msg)
    columns = [_score_column(cv_results[keys[j]], f"{name}[{keys[j]!r}]") for j in range(n_splits)]
    if len({c.shape[0] for c in columns}) > 1:
        msg = f"`{name}` has split columns of different lengths {[c.shape[0] for c in columns]}."
        raise ValueError(msg)
    scores = np.column_stack(columns)
    if "params" in cv_results:
        names = _unique_names([_param_name(p, style) for p in cv_results["params"]])
        if len(names) != scores.shape[0]:
            msg = f"`{name}` has {len(names)} 'params' for {scores.shape[0]} rows of split scores."
            raise ValueError(msg)
    else:
        names = [f"candidate_{i}" for i in range(scores.shape[0])]
    rank_key = f"rank_test_{scoring}"
    if rank_key in cv_results:
        ranks = np.asarray(cv_results[rank_key], dtype=float)
    else:
        ranks = -np.nanmean(scores, axis=1)
    if "iter" in cv_results:
        # successive halving: only the last iteration's candidates were scored with the same
        # (largest) resources, so only they are comparable
        it = np.asarray(cv_results["iter"])
        keep = np.flatnonzero(it == it.max())
        names = [names[i] for i in keep]
        scores, ranks = scores[keep], ranks[keep]
    return ScoreTable(names, scores, ranks, "cv_results", scoring)


def _from_cross_validate(
    results: Mapping[str, Mapping[str, Any]], scoring: str | None
) -> ScoreTable:
    _check_scoring(scoring)
    names, rows = [], []
    for name, res in results.items():
        keys = [k for k in res if str(k).startswith("test_")]
        key = f"test_{scoring}" if scoring is not None else None
        if key is None:
            if keys == ["test_score"] or len(keys) == 1:
                key = keys[0]
            else:
                msg = (
                    f"`results[{name!r}]` holds several metrics {keys}; choose one with `scoring`."
                )
                raise ValueError(msg)
        if key not in res:
            which = f"`scoring` {scoring!r}: " if scoring is not None else ""
            msg = f"{which}`results[{name!r}]` has no {key!r}; it has {sorted(map(str, res))}."
            raise ValueError(msg)
        names.append(str(name))
        rows.append(np.asarray(res[key], dtype=float).reshape(-1))
    _check_lengths(names, rows)
    return ScoreTable(names, np.vstack(rows), None, "cross_validate")


def _score_column(values: Any, name: str) -> np.ndarray:
    arr = as_numpy(values, name)
    try:
        return np.asarray(arr, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        msg = f"`{name}` must hold numeric scores; got dtype {arr.dtype}."
        raise TypeError(msg) from None


def _check_lengths(names: list[str], rows: list[np.ndarray]) -> None:
    lengths = {n: r.shape[0] for n, r in zip(names, rows)}
    if len(set(lengths.values())) > 1:
        msg = (
            "every model in `results` needs a score for the same splits; got split counts "
            + ", ".join(f"{n}: {k}" for n, k in lengths.items())
            + "."
        )
        raise ValueError(msg)


def extract_scores(results: Any, *, names: Any = None, scoring: str | None = None) -> ScoreTable:
    """Dispatch on the kind of ``results`` (see :func:`compare_models`).

    ``names`` is a sequence of model names, or for a search or its ``cv_results_`` the naming
    style ``"values"`` (the default) or ``"params"`` (see :func:`scores_from_cv_results`).
    """
    style = "values"
    if isinstance(names, str) and names in NAME_STYLES:
        style, names = names, None
    if hasattr(results, "cv_results_") or (
        hasattr(results, "param_grid") or hasattr(results, "param_distributions")
    ):
        if not hasattr(results, "cv_results_"):
            msg = "the search object is not fitted: call .fit(X, y) before compare_models."
            raise NotFittedError(msg)
        table = _from_cv_results(results.cv_results_, scoring, style=style)
        source = "search"
        table = table._replace(source=source)
    elif isinstance(results, Mapping) and any(_SPLIT_KEY.match(str(k)) for k in results):
        table = _from_cv_results(results, scoring, style=style)
    elif (
        isinstance(results, Mapping)
        and results
        and all(isinstance(v, Mapping) for v in results.values())
    ):
        table = _from_cross_validate(results, scoring)
    elif isinstance(results, Mapping):
        if not results:
            msg = "`results` is empty."
            raise ValueError(msg)
        rows = [_score_column(v, f"results[{k!r}]") for k, v in results.items()]
        keys = [str(k) for k in results]
        _check_lengths(keys, rows)
        table = ScoreTable(keys, np.vstack(rows), None, "dict")
    else:
        index = pandas_labels(results, "index")
        arr = as_numpy(results, "results")
        if arr.ndim != 2:
            msg = f"`results` as a table must be 2-D (models × splits); got shape {arr.shape}."
            raise ValueError(msg)
        if arr.dtype.kind not in "biuf":
            msg = f"`results` must hold numeric scores; got dtype {arr.dtype}."
            raise TypeError(msg)
        default = (
            [str(i) for i in index]
            if index is not None
            else [f"model_{i}" for i in range(arr.shape[0])]
        )
        table = ScoreTable(default, np.asarray(arr, dtype=float), None, "table")
    if names is not None:
        if isinstance(names, str | bytes) or not hasattr(names, "__iter__"):
            msg = f"`names` must be a sequence of model names; got {names!r}."
            raise TypeError(msg)
        names = [str(n) for n in names]
        if len(names) != len(table.names):
            msg = f"`names` has {len(names)} entries for {len(table.names)} models."
            raise ValueError(msg)
        table = table._replace(names=names)
    if len(set(table.names)) != len(table.names):
        msg = f"model names must be unique; got {table.names}."
        raise ValueError(msg)
    if table.scores.shape[0] < 2:
        msg = f"comparing models needs at least 2 models; `results` holds {table.scores.shape[0]}."
        raise ValueError(msg)
    if np.isinf(table.scores).any():
        i, j = np.argwhere(np.isinf(table.scores))[0]
        msg = f"score of model {table.names[i]!r} at split {j} is inf; scores must be finite."
        raise ValueError(msg)
    return table


@renamed_parameters(classifier="is_classifier")
def split_sizes(
    cv: Any,
    X: Any = None,
    y: Any = None,
    groups: Any = None,
    *,
    n_samples: int | None = None,
    is_classifier: bool = False,
) -> SplitSizes:
    """Training and test set sizes of a cross-validation splitter on given data.

    Parameters
    ----------
    cv : int, splitter or iterable of (train, test)
        As accepted by scikit-learn's ``check_cv``.
    X, y, groups : array-like, optional
        The data the splitter ran on. ``y`` is needed by stratified splitters (and for an int
        ``cv`` with a classifier), ``groups`` by group splitters.
    n_samples : int, optional
        Instead of ``X``: only the number of rows (enough for splitters that ignore the values).
    is_classifier : bool
        Whether the estimator is a classifier, as scikit-learn's ``check_cv(classifier=...)``
        (an int ``cv`` then means stratified k-fold).

    Returns
    -------
    SplitSizes
        ``n_train``/``n_test`` (means over splits), ``test_train_ratio`` (the **mean** of
        n_test/n_train over splits, the value :func:`compare_models` uses), the first split's sizes
        (what scikit-learn's example uses) and the number of splits.

    References
    ----------
    .. [1] C. Nadeau and Y. Bengio (2003). Inference for the Generalization Error. Machine Learning
       52(3), 239–281. doi:10.1023/A:1024068626366.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import StratifiedKFold
    >>> from modelcompare import split_sizes
    >>> y = np.repeat([0, 1], [50, 51])
    >>> sizes = split_sizes(StratifiedKFold(10), np.zeros((101, 1)), y)
    >>> sizes.first_n_train, sizes.first_n_test, round(sizes.test_train_ratio, 4)
    (90, 11, 0.1111)
    """
    from sklearn.model_selection import check_cv

    classifier = check_flag(is_classifier, "is_classifier")
    rows_only = X is None
    if X is None:
        if n_samples is None:
            msg = "`split_sizes` needs `X` or `n_samples`."
            raise ValueError(msg)
        n = check_int(n_samples, "n_samples", low=2)
        # the splitter builds index arrays of n int64 for each split
        check_memory(4 * estimate_array_bytes(n, np.int64), "the split indices", "n_samples")
        X = np.zeros((n, 1))
    stratified = classifier and (cv is None or isinstance(cv, numbers.Integral))
    if stratified and y is None:
        msg = (
            "an int `cv` with a classifier means stratified k-fold, whose split sizes depend on "
            "`y`: pass `y` too."
        )
        raise ValueError(msg)
    if isinstance(cv, bool | np.bool_):
        msg = f"`cv` must be a number of folds, a splitter or a list of (train, test); got {cv!r}."
        raise TypeError(msg)
    try:
        splitter = check_cv(cv, y, classifier=classifier)
    except (TypeError, ValueError) as exc:
        if stratified:  # check_cv reads `y` only to choose stratified k-fold
            msg = f"`y` must hold the class labels of a classifier's stratified k-fold ({exc})"
        else:
            msg = f"`cv` is not a valid cross-validation scheme ({exc})"
        raise type(exc)(msg) from None
    try:
        splits = list(splitter.split(X, y, groups))
    except (TypeError, ValueError) as exc:
        data = "`n_samples`" if rows_only else "`X`"
        msg = (
            f"could not split the data with `cv` = {splitter!r} to find n_train/n_test ({exc}); "
            f"pass `y` (and `groups`) with {data} as used in the search, or pass n_train and "
            "n_test."
        )
        raise ValueError(msg) from None
    if not splits:
        msg = (
            f"`cv` produced no splits ({cv!r}); pass a splitter, a number of folds or a non-empty "
            "list of (train, test) index pairs."
        )
        raise ValueError(msg)
    tr = np.array([len(s[0]) for s in splits], dtype=float)
    te = np.array([len(s[1]) for s in splits], dtype=float)
    empty = np.flatnonzero((tr == 0) | (te == 0))
    if empty.size:
        j = int(empty[0])
        which = "training" if tr[j] == 0 else "test"
        msg = f"split {j} of `cv` has an empty {which} set; every split needs both."
        raise ValueError(msg)
    return SplitSizes(
        n_train=float(tr.mean()),
        n_test=float(te.mean()),
        test_train_ratio=float(np.mean(te / tr)),
        first_n_train=int(tr[0]),
        first_n_test=int(te[0]),
        n_splits=len(splits),
    )
