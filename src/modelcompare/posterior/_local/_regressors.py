"""Regressors of the local coverage test: r̂_γ(x) ≈ P(u ≤ γ | x) for every credibility level γ of a grid.

(Linhart et al. 2022 write α for these levels; here α is kept for significance levels.) Each
regressor has ``fit(x, u, levels, seed)`` returning an object whose ``predict(x_eval)`` gives the
``(E, |G|)`` matrix of estimates. Built in: the amortised default (one classifier on [x, γ]), the
paper's per-level classifiers, and a nearest-neighbour shortcut.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import clone

from modelcompare._foundation.threads import thread_limits
from modelcompare._foundation.validation import check_bool, check_choice, check_int
from modelcompare.posterior._local._names import REGRESSORS

__all__ = [
    "AmortizedRegressor",
    "KNNIndex",
    "NearestNeighborRegressor",
    "PerLevelRegressor",
    "resolve_regressor",
    "with_seed",
]


class _Constant:
    def __init__(self, value: float, n_levels: int) -> None:
        self.value, self.n_levels = value, n_levels

    def predict(self, x_eval: np.ndarray) -> np.ndarray:
        return np.full((x_eval.shape[0], self.n_levels), self.value)


def _check_classifier(estimator: Any, name: str = "estimator") -> Any:
    """Accept None or a scikit-learn classifier (``fit``, ``predict_proba``, ``get_params``)."""
    if estimator is None or all(
        callable(getattr(estimator, m, None)) for m in ("fit", "predict_proba", "get_params")
    ):
        return estimator
    what = "a scikit-learn regressor" if hasattr(estimator, "get_params") else "not a classifier"
    msg = (
        f"`{name}` must be a scikit-learn classifier with `predict_proba` (it estimates "
        f"P(u ≤ γ | x)){', or None' if name == 'estimator' else ''}; "
        f"got {type(estimator).__name__}, {what}."
    )
    raise TypeError(msg)


def with_seed(estimator: Any, seed: int) -> Any:
    """An unfitted clone of a scikit-learn ``estimator`` with ``random_state=seed`` where it has one.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> with_seed(LogisticRegression(), 3).random_state
    3
    """
    est = clone(estimator)
    if "random_state" in est.get_params():
        est.set_params(random_state=seed)
    return est


class AmortizedRegressor:
    """One probabilistic classifier of 1{u ≤ γ} on the features [x, γ], for all γ at once.

    Each calibration pair contributes ``n_levels_per_sample`` rows with γ drawn uniformly from the
    grid, so a fit costs one model instead of |G|. The default estimator is scikit-learn's
    ``HistGradientBoostingClassifier`` (log-loss, 100 boosting iterations of 15-leaf trees, no early
    stopping) with a monotone increasing constraint in γ, so each r̂(x, ·) is a CDF. Any classifier
    with ``predict_proba`` can be passed; without a monotone constraint the predicted curve is
    rearranged (sorted in γ).

    Parameters
    ----------
    estimator : sklearn classifier, optional
        Replaces the default boosting model (its ``random_state`` is set from ``seed``).
    n_levels_per_sample : int
        Rows per calibration pair (γ values drawn from the grid with replacement).
    rearrange : bool
        Sort predictions along γ (monotone rearrangement); a no-op for the monotone default.

    Notes
    -----
    Threads: each fit and predict runs inside ``thread_limits()`` (serially the default of
    ``MODELCOMPARE_NUM_THREADS``, else one thread; it only lowers the pools, so a parallel
    worker's one thread still wins); the caller's thread settings are restored.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x, u = rng.normal(size=(200, 1)), rng.uniform(size=200)
    >>> reg = AmortizedRegressor(n_levels_per_sample=2)
    >>> reg.fit(x, u, np.array([0.25, 0.5, 0.75]), seed=0).predict(x[:3]).shape
    (3, 3)
    """

    name = "amortized"

    def __init__(
        self, estimator: Any = None, *, n_levels_per_sample: int = 4, rearrange: bool = True
    ) -> None:
        self.estimator = _check_classifier(estimator)
        self.n_levels_per_sample = check_int(n_levels_per_sample, "n_levels_per_sample", low=1)
        self.rearrange = check_bool(rearrange, "rearrange")
        if estimator is not None:
            self.name = f"amortized-{type(estimator).__name__}"
        else:
            self.name = "amortized-hgb"

    def _default(self, d: int) -> Any:
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(
            max_iter=100,
            learning_rate=0.1,
            max_leaf_nodes=15,
            min_samples_leaf=40,
            early_stopping=False,
            monotonic_cst=[0] * d + [1],
        )

    def fit(self, x: np.ndarray, u: np.ndarray, levels: np.ndarray, seed: int) -> Any:
        """Fit r̂(x, γ) ≈ P(u ≤ γ | x) on all γ of the grid; return an object with ``predict``."""
        rng = np.random.default_rng(seed)
        n, d = x.shape
        k = self.n_levels_per_sample
        a = levels[rng.integers(levels.size, size=(n, k))]
        y = (u[:, None] <= a).reshape(-1)
        if y.all() or not y.any():
            return _Constant(float(y[0]), levels.size)
        feats = np.column_stack([np.repeat(x, k, axis=0), a.reshape(-1)])
        est = self._default(d) if self.estimator is None else self.estimator
        est = with_seed(est, int(rng.integers(2**32)))
        with thread_limits():
            est.fit(feats, y)
        return _FittedAmortized(est, levels, self.rearrange)


class _FittedAmortized:
    def __init__(self, est: Any, levels: np.ndarray, rearrange: bool) -> None:
        self.est, self.levels, self.rearrange = est, levels, rearrange

    def predict(self, x_eval: np.ndarray) -> np.ndarray:
        e, g = x_eval.shape[0], self.levels.size
        feats = np.column_stack([np.repeat(x_eval, g, axis=0), np.tile(self.levels, e)])
        with thread_limits():
            proba = self.est.predict_proba(feats)
        col = list(self.est.classes_).index(True) if True in self.est.classes_ else 1
        r = proba[:, col].reshape(e, g)
        return np.sort(r, axis=1) if self.rearrange else r


class PerLevelRegressor:
    """The paper's mode: one classifier of 1{u ≤ γ} on x per γ in the grid (|G| fits per call).

    Parameters
    ----------
    estimator : sklearn classifier, optional
        Default: ``MLPClassifier(alpha=0, max_iter=25000)`` as in cde-diagnostics and the authors'
        code (but seeded). Single-class targets are never fitted: r̂ is set to exactly 0 or 1.

    Notes
    -----
    Threads: each fit and predict runs inside ``thread_limits()`` (serially the default of
    ``MODELCOMPARE_NUM_THREADS``, else one thread; it only lowers the pools, so a parallel
    worker's one thread still wins); the caller's thread settings are restored.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> x, u = rng.normal(size=(200, 1)), rng.uniform(size=200)
    >>> reg = PerLevelRegressor(LogisticRegression())
    >>> reg.name
    'per-level-LogisticRegression'
    >>> reg.fit(x, u, np.array([0.25, 0.75]), seed=0).predict(x[:4]).shape
    (4, 2)
    """

    def __init__(self, estimator: Any = None) -> None:
        self.estimator = _check_classifier(estimator)
        self.name = "per-level-" + ("mlp" if estimator is None else type(estimator).__name__)

    def fit(self, x: np.ndarray, u: np.ndarray, levels: np.ndarray, seed: int) -> Any:
        """Fit one classifier per γ; return an object with ``predict``."""
        from sklearn.neural_network import MLPClassifier

        rng = np.random.default_rng(seed)
        base = MLPClassifier(alpha=0, max_iter=25000) if self.estimator is None else self.estimator
        models: list[Any] = []
        for a in levels:
            y = u <= a
            rs = int(rng.integers(2**32))
            if y.all() or not y.any():
                models.append(float(y[0]))
                continue
            est = with_seed(base, rs)
            with thread_limits():
                est.fit(x, y)
            models.append(est)
        return _FittedPerLevel(models)


class _FittedPerLevel:
    def __init__(self, models: list[Any]) -> None:
        self.models = models

    def predict(self, x_eval: np.ndarray) -> np.ndarray:
        cols = []
        with thread_limits():
            for mdl in self.models:
                if isinstance(mdl, float):
                    cols.append(np.full(x_eval.shape[0], mdl))
                else:
                    cols.append(mdl.predict_proba(x_eval)[:, list(mdl.classes_).index(True)])
        return np.column_stack(cols)


class NearestNeighborRegressor:
    """Shortcut: r̂_γ(x₀) = mean of 1{u ≤ γ} over the k nearest calibration x's (standardised).

    Closed form, no training; fast but less adaptive than the amortised default.

    Parameters
    ----------
    n_neighbors : int
        k, the neighbours averaged at each evaluation point.

    Notes
    -----
    Threads: the neighbour search runs inside ``thread_limits()``; the caller's thread settings
    are restored.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x, u = rng.normal(size=(200, 1)), rng.uniform(size=200)
    >>> fitted = NearestNeighborRegressor(50).fit(x, u, np.array([0.5]), seed=0)
    >>> r = fitted.predict(np.zeros((1, 1)))
    >>> r.shape, bool(0 <= r[0, 0] <= 1)
    ((1, 1), True)
    """

    def __init__(self, n_neighbors: int = 150) -> None:
        self.n_neighbors = check_int(n_neighbors, "n_neighbors", low=1)
        self.name = f"knn-{self.n_neighbors}"

    def fit(self, x: np.ndarray, u: np.ndarray, levels: np.ndarray, seed: int) -> Any:
        """Store the data; return an object with ``predict``.

        The neighbour index is shared by consecutive fits on the same ``x`` object (the null
        trials), and so are the neighbour queries at the same evaluation array.
        """
        index = self.__dict__.get("_index")
        if index is None or index.x is not x:
            index = KNNIndex(x, min(self.n_neighbors, x.shape[0]))
            self._index = index
        return _FittedKNN(index, u, levels)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_index": None}


class KNNIndex:
    """The ``k`` nearest neighbours of evaluation points among ``x``; repeats the last query free.

    The nearest-neighbour regressors of the local tests query the same evaluation points once per
    level and per null resample, so the last answer is kept.
    """

    def __init__(self, x: np.ndarray, k: int) -> None:
        from sklearn.neighbors import NearestNeighbors

        self.x = x
        self.nn = NearestNeighbors(n_neighbors=k).fit(x)
        self._last: tuple[np.ndarray, np.ndarray] | None = None

    def query(self, x_eval: np.ndarray) -> np.ndarray:
        if self._last is not None and self._last[0] is x_eval:
            return self._last[1]
        with thread_limits():
            idx = self.nn.kneighbors(x_eval, return_distance=False)
        self._last = (x_eval, idx)
        return idx


class _FittedKNN:
    def __init__(self, index: KNNIndex, u: np.ndarray, levels: np.ndarray) -> None:
        self.index, self.u, self.levels = index, u, levels

    def predict(self, x_eval: np.ndarray) -> np.ndarray:
        idx = self.index.query(x_eval)
        return (self.u[idx][:, :, None] <= self.levels[None, None, :]).mean(axis=1)


def resolve_regressor(regressor: Any) -> Any:
    """Turn a regressor name into an object with ``fit(x, u, levels, seed) -> fitted.predict``.

    Names: ``"knn"`` (150 nearest neighbours, the default), ``"hgb"`` (amortised boosting),
    ``"mlp"`` (per-level MLPClassifier, the paper), ``"logistic"`` (per-level logistic regression,
    cheap). A scikit-learn classifier (``LogisticRegression()``, say) is wrapped in
    :class:`PerLevelRegressor`; a scikit-learn regressor is refused (the estimates are
    probabilities, from ``predict_proba``). Any other object with such a ``fit`` is returned as is.

    Examples
    --------
    >>> resolve_regressor("knn").name
    'knn-150'
    >>> from sklearn.linear_model import LogisticRegression
    >>> resolve_regressor(LogisticRegression()).name
    'per-level-LogisticRegression'
    """
    if isinstance(regressor, str):
        check_choice(regressor, "regressor", REGRESSORS)
        if regressor == "hgb":
            return AmortizedRegressor()
        if regressor == "knn":
            return NearestNeighborRegressor()
        if regressor == "mlp":
            return PerLevelRegressor()
        from sklearn.linear_model import LogisticRegression

        return PerLevelRegressor(LogisticRegression())
    if hasattr(regressor, "get_params"):  # a scikit-learn estimator: the paper's per-level mode
        return PerLevelRegressor(_check_classifier(regressor, "regressor"))
    if not hasattr(regressor, "fit"):
        names = ", ".join(map(repr, REGRESSORS))
        msg = (
            f"`regressor` must be one of {names}, a scikit-learn classifier or an object with "
            f"`fit(x, u, levels, seed)`; got {type(regressor).__name__}."
        )
        raise TypeError(msg)
    return regressor
