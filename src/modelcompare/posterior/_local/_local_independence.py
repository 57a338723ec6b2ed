"""Independence of the PIT covariates, locally at given x: Linhart et al. (2022), Theorem 1.

The local test regresses the products z_i z_j of the Gaussianised covariates on x, which tests
conditional *correlation* only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from joblib import Parallel, delayed

from modelcompare._foundation.pvalues import (
    adjust_pvalues,
    check_correction,
    familywise_pvalue,
    monte_carlo_pvalue,
)
from modelcompare._foundation.resources import (
    GENERATOR_BYTES,
    check_memory,
    estimate_array_bytes,
)
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed, sklearn_seed
from modelcompare._foundation.threads import thread_limits
from modelcompare._foundation.validation import (
    check_choice,
    check_n_jobs,
    check_same_rows,
    check_same_width,
    check_samples,
)
from modelcompare.posterior._calibration._pit import check_pit_values
from modelcompare.posterior._calibration._pit_independence import check_pit_pairs, gaussianise
from modelcompare.posterior._local._local_common import (
    check_n_resamples,
    standardisation,
    warn_resolution,
)
from modelcompare.posterior._local._names import INDEPENDENCE_REGRESSORS
from modelcompare.posterior._local._regressors import (
    AmortizedRegressor,
    KNNIndex,
    NearestNeighborRegressor,
    PerLevelRegressor,
    with_seed,
)

__all__ = ["LocalIndependenceResult", "local_independence_test"]


class _KNNMean:
    def __init__(self, n_neighbors: int = 150) -> None:
        self.n_neighbors = n_neighbors
        self.name = f"knn-{n_neighbors}"
        self._index: KNNIndex | None = None

    def fit(self, x: np.ndarray, y: np.ndarray, seed: int) -> Any:
        if self._index is None or self._index.x is not x:
            self._index = KNNIndex(x, min(self.n_neighbors, x.shape[0]))
        index = self._index
        return lambda xe: y[index.query(xe)].mean(axis=1)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_index": None}


class _SklearnMean:
    def __init__(self, estimator: Any = None) -> None:
        self.estimator = estimator
        self.name = "hgb" if estimator is None else type(estimator).__name__

    def fit(self, x: np.ndarray, y: np.ndarray, seed: int) -> Any:
        from sklearn.ensemble import HistGradientBoostingRegressor

        est = self.estimator or HistGradientBoostingRegressor(
            max_iter=60,
            learning_rate=0.05,
            max_leaf_nodes=7,
            min_samples_leaf=100,
            l2_regularization=1.0,
            early_stopping=False,
        )
        est = with_seed(est, seed).fit(x, y)
        return est.predict


def _resolve_mean_regressor(regressor: Any) -> Any:
    if isinstance(regressor, str):
        check_choice(regressor, "regressor", INDEPENDENCE_REGRESSORS)
        return _SklearnMean() if regressor == "hgb" else _KNNMean()
    if isinstance(regressor, NearestNeighborRegressor):  # the same k-NN average, of z_i z_j
        return _KNNMean(regressor.n_neighbors)
    if isinstance(regressor, AmortizedRegressor | PerLevelRegressor):
        msg = (
            f"`regressor` {type(regressor).__name__} estimates probabilities P(u ≤ γ | x); the "
            "local independence test regresses the products z_i z_j and takes 'hgb', 'knn', a "
            "NearestNeighborRegressor or a scikit-learn regressor."
        )
        raise TypeError(msg)
    if hasattr(regressor, "fit") and hasattr(regressor, "predict"):
        return _SklearnMean(regressor)
    names = ", ".join(map(repr, INDEPENDENCE_REGRESSORS))
    msg = (
        f"`regressor` must be {names} or a scikit-learn regressor; got {type(regressor).__name__}."
    )
    raise TypeError(msg)


@result_class
class LocalIndependenceResult(TestResult):
    """Result of :func:`local_independence_test` (K pairs, E evaluation points).

    Attributes
    ----------
    statistic : float
        The largest per-point statistic, max over pairs and evaluation points of ĝ_ij(x₀)².
    pvalue : float
        The smallest Holm-adjusted p-value across the evaluation points, min(1, E · min_e p(x₀_e)),
        so that ``decision(alpha)`` is Holm's family-wise decision.
    statistics : numpy.ndarray, shape (K, E)
        ĝ_ij(x₀)², with ĝ_ij the regression of z_i z_j on x.
    pvalues : numpy.ndarray, shape (E,)
        Per evaluation point, Bonferroni over the pairs.
    pvalues_adjusted : numpy.ndarray, shape (E,)
        ``pvalues`` adjusted across the evaluation points by ``eval_correction``.
    pair_pvalues : numpy.ndarray, shape (K, E)
        (1 + #{T^{(b)} ≥ T}) / (1 + B) per pair and point.
    regression : numpy.ndarray, shape (K, E)
        ĝ_ij(x₀), an estimate of the conditional correlation E[z_i z_j | x₀].
    pairs : list of (int, int)
        The tested pairs of columns.
    x_eval : numpy.ndarray, shape (E, d)
        The evaluation points.
    regressor : str
        The regressor the test ran with.
    eval_correction : str or None
        The correction of ``pvalues_adjusted``.
    n, n_resamples : int
        Calibration pairs and null trials B.
    seed_used : int or None
        The seed of the null draws and the regressions.
    null_statistics : numpy.ndarray, shape (B, E)
        T^{(b)}(x₀), shared by all pairs.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> res = local_independence_test(rng.uniform(size=(400, 2)), rng.normal(size=(400, 1)),
    ...                               [[0.0]], regressor="knn", n_resamples=50, seed=0)
    >>> res.decision(0.05), res.statistics.shape
    (False, (1, 1))
    """

    statistic: float
    pvalue: float
    statistics: np.ndarray
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    pair_pvalues: np.ndarray
    regression: np.ndarray
    pairs: list[tuple[int, int]]
    x_eval: np.ndarray
    regressor: str
    eval_correction: str | None
    n: int
    n_resamples: int
    seed_used: int | None
    null_statistics: np.ndarray

    _repr_fields = ("statistic", "pvalue", "n", "n_resamples", "regressor")


def _fit_predict(
    reg: Any, xs: np.ndarray, y: np.ndarray, xe: np.ndarray, seed: int, n_jobs: int | None
) -> np.ndarray:
    with thread_limits(n_jobs=n_jobs):
        return np.asarray(reg.fit(xs, y, seed)(xe), dtype=float)


def _null_products(
    reg: Any, xs: np.ndarray, xe: np.ndarray, child: np.random.Generator, n_jobs: int | None
) -> np.ndarray:
    e = child.standard_normal((2, xs.shape[0]))
    return _fit_predict(reg, xs, e[0] * e[1], xe, sklearn_seed(child), n_jobs)


def local_independence_test(
    pit_values: Any,
    x: Any,
    x_eval: Any,
    *,
    regressor: Any = "knn",
    n_resamples: int = 100,
    pairs: Any = None,
    eval_correction: str | None = "holm",
    seed: SeedLike = None,
    n_jobs: int | None = None,
) -> LocalIndependenceResult:
    """Local test of conditional correlation between Gaussianised PIT covariates.

    For each pair (i, j), z_i z_j (z = Φ⁻¹(P)) is regressed on x, giving ĝ_ij(x) ≈ E[z_i z_j | x],
    which is 0 under H0(x). The statistic at x₀ is ĝ_ij(x₀)². The null refits on e_1 e_2 with
    e_1, e_2 iid N(0, 1) (the law of z_i z_j under H0) for B trials, shared across pairs and x₀;
    p = (1 + #{T^{(b)} ≥ T}) / (1 + B), Bonferroni over pairs, Holm across evaluation points.

    Parameters
    ----------
    pit_values : array-like, shape (N, m)
        PIT values (m ≥ 2).
    x : array-like, shape (N, d)
        The calibration observations.
    x_eval : array-like, shape (E, d)
        Evaluation points x₀.
    regressor : {"knn", "hgb"}, NearestNeighborRegressor or scikit-learn regressor
        Regression of the products on (z-scored) x: ``"knn"`` (the default) and a
        :class:`NearestNeighborRegressor` give the k-nearest-neighbour average, ``"hgb"``
        gradient boosting (for an x too wide for neighbourhoods).
    n_resamples : int
        B null trials.
    pairs : sequence of (i, j), optional
        Default: all pairs.
    eval_correction : {"holm", "bonferroni", "fdr_bh", None}
        The correction of ``pvalues_adjusted`` across the evaluation points (see
        :func:`~modelcompare.adjust_pvalues`). The overall ``pvalue`` is Holm's whatever this is,
        min(1, E · min p): Benjamini–Hochberg controls the false discovery rate, not the
        family-wise error of ``decision(alpha)``.
    seed : int, Generator or None
        Seeds the null draws and the regressions.
    n_jobs : int, optional
        joblib workers over the fits.

    Returns
    -------
    LocalIndependenceResult

    Warns
    -----
    TooFewResamplesWarning
        When B is too small for the overall p-value to reach 0.05.

    Notes
    -----
    This tests conditional **correlation only** (E[z_i z_j | x] = 0), not independence: dependent
    but uncorrelated covariates pass. The null assumes standard normal marginals, so run it after
    the uniformity tests pass (as the workflow of Linhart et al. 2022 does). For the whole local
    null z | x₀ ~ N(0, I) use :func:`lc2st_nf`.

    Threads: every fit and predict of the regressions runs inside ``thread_limits(n_jobs=n_jobs)``
    (one BLAS/OpenMP/torch thread per worker when ``n_jobs`` > 1; serially the default of
    ``MODELCOMPARE_NUM_THREADS``, else one thread); the caller's thread settings are restored.

    References
    ----------
    .. [1] J. Linhart, A. Gramfort and P. L. C. Rodrigues (2022). Validation Diagnostics for SBI
       algorithms based on Normalizing Flows. arXiv:2211.09602.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> res = local_independence_test(rng.uniform(size=(400, 2)), rng.normal(size=(400, 1)),
    ...                               [[0.0]], regressor="knn", n_resamples=50, seed=0)
    >>> res.pair_pvalues.shape, bool(res.pvalue > 0.05)
    ((1, 1), True)
    """
    p = check_pit_values(pit_values)
    x = check_samples(x, "x")
    x_eval = check_samples(x_eval, "x_eval", min_samples=1)
    n = check_same_rows([("pit_values", p), ("x", x)], what="local_independence_test")
    check_same_width([("x", x), ("x_eval", x_eval)], what="local_independence_test")
    pair_list = check_pit_pairs(p.shape[1], pairs)
    reg = _resolve_mean_regressor(regressor)
    n_resamples = check_n_resamples(n_resamples)
    eval_correction = check_correction(eval_correction, "eval_correction")
    n_jobs = check_n_jobs(n_jobs)
    # the B null predictions at the E points (their list, its stack and their squares), and one
    # spawned generator per null fit
    check_memory(
        3 * estimate_array_bytes((n_resamples, x_eval.shape[0])) + n_resamples * GENERATOR_BYTES,
        "the null regressions",
        "n_resamples",
    )
    warn_resolution(len(pair_list), x_eval.shape[0], n_resamples, "bonferroni")
    rng, seed_used = check_seed(seed)
    null_rng, obs_rng = rng.spawn(2)
    mean, scale = standardisation(x)
    xs, xe = (x - mean) / scale, (x_eval - mean) / scale
    z = gaussianise(p)
    # one limit around the loops: serial fits reuse it instead of rescanning the thread pools
    with thread_limits(n_jobs=n_jobs):
        g_null = np.stack(
            Parallel(n_jobs=n_jobs)(
                delayed(_null_products)(reg, xs, xe, c, n_jobs) for c in null_rng.spawn(n_resamples)
            )
        )  # (B, E)
        g_obs = np.stack(
            Parallel(n_jobs=n_jobs)(
                delayed(_fit_predict)(reg, xs, z[:, i] * z[:, j], xe, sklearn_seed(c), n_jobs)
                for (i, j), c in zip(pair_list, obs_rng.spawn(len(pair_list)))
            )
        )  # (K, E)
    t_obs, t_null = g_obs**2, g_null**2
    pair_pvalues = monte_carlo_pvalue(t_obs, t_null[:, None, :])
    pvalues = familywise_pvalue(pair_pvalues, axis=0)  # Bonferroni over the pairs
    return LocalIndependenceResult(
        statistic=float(t_obs.max()),
        pvalue=familywise_pvalue(pvalues),
        statistics=t_obs,
        pvalues=pvalues,
        pvalues_adjusted=adjust_pvalues(pvalues, eval_correction),
        pair_pvalues=pair_pvalues,
        regression=g_obs,
        pairs=pair_list,
        x_eval=x_eval.copy(),
        regressor=reg.name,
        eval_correction=eval_correction,
        n=n,
        n_resamples=n_resamples,
        seed_used=seed_used,
        null_statistics=t_null,
    )
