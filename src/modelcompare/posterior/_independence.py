"""Independence of the PIT covariates: the open item of Linhart et al. (2022), Theorem 1.

Uniform marginals are not enough: H0(x) also needs the P_i to be mutually independent given x.
Global tests use rank correlation or a binned χ² test per pair; the local test regresses the products
z_i z_j of the Gaussianised covariates on x, which tests conditional *correlation* only.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from scipy import stats
from scipy.special import ndtri

from modelcompare._foundation.deprecation import renamed_parameters
from modelcompare._foundation.errors import DegenerateDataWarning
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
    check_int,
    check_n_jobs,
    check_nonempty,
    check_same_rows,
    check_same_width,
    check_samples,
)
from modelcompare.posterior._local_common import (
    check_n_resamples,
    standardisation,
    warn_resolution,
)
from modelcompare.posterior._names import INDEPENDENCE_REGRESSORS
from modelcompare.posterior._pit import check_pit_values
from modelcompare.posterior._regressors import (
    AmortizedRegressor,
    KNNIndex,
    NearestNeighborRegressor,
    PerLevelRegressor,
    with_seed,
)

__all__ = [
    "IndependenceResult",
    "LocalIndependenceResult",
    "local_independence_test",
    "pit_independence_test",
]

_EPS = 1e-12


def _pairs(m: int, pairs: Any) -> list[tuple[int, int]]:
    if m < 2:
        msg = f"`pit_values` needs at least 2 columns to test independence; got {m}."
        raise ValueError(msg)
    if pairs is None:
        return list(itertools.combinations(range(m), 2))
    out = []
    for k, pair in enumerate(check_nonempty(pairs, "pairs")):
        if isinstance(pair, str | bytes) or not hasattr(pair, "__len__") or len(pair) != 2:
            msg = f"`pairs[{k}]` must be a pair (i, j) of column indices; got {pair!r}."
            raise TypeError(msg)
        i, j = (check_int(v, f"pairs[{k}]") for v in pair)
        if not (0 <= i < m and 0 <= j < m and i != j):
            msg = f"`pairs` must hold distinct column indices in [0, {m}); got {pair!r}."
            raise ValueError(msg)
        out.append((i, j))
    return out


def gaussianise(pit_values: Any) -> np.ndarray:
    """z = Φ⁻¹(P), with P clipped to [1e-12, 1 − 1e-12] so that z is finite."""
    return ndtri(np.clip(check_pit_values(pit_values), _EPS, 1 - _EPS))


@result_class
class IndependenceResult(TestResult):
    """Result of :func:`pit_independence_test` (K pairs of covariates).

    Attributes
    ----------
    statistic : float
        The largest |ρ| (Spearman, Kendall) or χ² over the pairs.
    pvalue : float
        The smallest Holm-adjusted p-value over the K pairs, min(1, K · min_k p_k) (equal to
        Bonferroni's): ``decision(alpha)`` is Holm's family-wise decision.
    statistics, pvalues : numpy.ndarray, shape (K,)
        Statistic (ρ, τ or χ²) and p-value of each pair, in the order of ``pairs``.
    pvalues_adjusted : numpy.ndarray, shape (K,)
        ``pvalues`` Holm-adjusted over the pairs.
    pairs : list of (int, int)
        The tested pairs of columns.
    method : str
        ``"spearman"``, ``"kendall"`` or ``"chi2"``.
    n : int
        Number of PIT rows.
    degenerate : bool
        Some pair holds a constant column: such a pair has no measurable dependence, so its
        statistic is set to 0 and its p-value to 1 (with a ``DegenerateDataWarning``); when every
        pair is degenerate, ``pvalue`` is 1 and H0 is never rejected.

    Examples
    --------
    >>> import numpy as np
    >>> res = pit_independence_test(np.random.default_rng(0).uniform(size=(500, 3)))
    >>> res.decision(0.05), res.pvalues.shape
    (False, (3,))
    """

    statistic: float
    pvalue: float
    statistics: np.ndarray
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    pairs: list[tuple[int, int]]
    method: str
    n: int
    degenerate: bool

    _repr_fields = ("statistic", "pvalue", "method", "n")


@renamed_parameters(method="statistic")
def pit_independence_test(
    pit_values: Any, *, statistic: str = "spearman", n_bins: int = 5, pairs: Any = None
) -> IndependenceResult:
    """Global test of the pairwise independence of the PIT covariates, Holm over the pairs.

    Parameters
    ----------
    pit_values : array-like, shape (N, m)
        PIT values (m ≥ 2).
    statistic : {"spearman", "kendall", "chi2"}
        Rank correlation (scipy's tests) or the χ² test on a ``n_bins`` × ``n_bins`` table of
        (P_i, P_j) binned at the uniform quantiles (which also sees non-monotone dependence).
    n_bins : int
        Bins per axis for ``"chi2"`` (keep N / n_bins² ≥ 5).
    pairs : sequence of (i, j), optional
        Pairs to test (default: all m(m−1)/2).

    Returns
    -------
    IndependenceResult

    Warns
    -----
    DegenerateDataWarning
        When a tested pair holds a constant column (``degenerate=True``, p-value 1 for that pair).

    Notes
    -----
    Pairwise independence is necessary, not sufficient, for mutual independence. Uncorrelated
    normal marginals need not be independent; these tests see monotone (rank) or binned dependence.
    For the whole null z | x ~ N(0, I) at one x₀ use :func:`lc2st_nf`.

    References
    ----------
    .. [1] J. Linhart, A. Gramfort and P. L. C. Rodrigues (2022). Validation Diagnostics for SBI
       algorithms based on Normalizing Flows. arXiv:2211.09602.

    Examples
    --------
    >>> import numpy as np
    >>> res = pit_independence_test(np.random.default_rng(0).uniform(size=(500, 3)))
    >>> res.pairs
    [(0, 1), (0, 2), (1, 2)]
    """
    p = check_pit_values(pit_values)
    n, m = p.shape
    method = check_choice(statistic, "statistic", ("spearman", "kendall", "chi2"))
    n_bins = check_int(n_bins, "n_bins", low=2)
    pair_list = _pairs(m, pairs)
    constant = np.ptp(p, axis=0) == 0
    st, pv = [], []
    flat: list[tuple[int, int]] = []
    for i, j in pair_list:
        if constant[i] or constant[j]:
            flat.append((i, j))
            st.append(0.0)
            pv.append(1.0)
        elif method == "spearman":
            r = stats.spearmanr(p[:, i], p[:, j])
            st.append(float(r.statistic))
            pv.append(float(r.pvalue))
        elif method == "kendall":
            r = stats.kendalltau(p[:, i], p[:, j])
            st.append(float(r.statistic))
            pv.append(float(r.pvalue))
        else:
            bi = np.minimum((p[:, i] * n_bins).astype(int), n_bins - 1)
            bj = np.minimum((p[:, j] * n_bins).astype(int), n_bins - 1)
            table = np.zeros((n_bins, n_bins))
            np.add.at(table, (bi, bj), 1)
            table += 1e-12  # empty rows/columns would make the expected counts zero
            r = stats.chi2_contingency(table, correction=False)
            st.append(float(r.statistic))
            pv.append(float(r.pvalue))
    if flat:
        cols = sorted({int(k) for k in np.flatnonzero(constant)})
        warnings.warn(
            f"pit_independence_test: column(s) {cols} of `pit_values` are constant; the pair(s) "
            f"{flat} carry no information on dependence (statistic 0, p-value 1).",
            DegenerateDataWarning,
            stacklevel=2,
        )
    st_arr, pv_arr = np.array(st), np.array(pv)
    # a non-finite statistic never decides: its pair counts as showing no dependence
    bad = ~np.isfinite(st_arr) | ~np.isfinite(pv_arr)
    st_arr, pv_arr = np.where(bad, 0.0, st_arr), np.where(bad, 1.0, pv_arr)
    stat = float(np.max(np.abs(st_arr))) if method != "chi2" else float(st_arr.max())
    return IndependenceResult(
        statistic=stat,
        pvalue=familywise_pvalue(pv_arr),
        statistics=st_arr,
        pvalues=pv_arr,
        pvalues_adjusted=adjust_pvalues(pv_arr, "holm"),
        pairs=pair_list,
        method=method,
        n=n,
        degenerate=bool(flat) or bool(bad.any()),
    )


# ------------------------------------------------------------------------------------------- local
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
    pair_list = _pairs(p.shape[1], pairs)
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
