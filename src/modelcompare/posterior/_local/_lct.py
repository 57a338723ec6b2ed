"""Local coverage tests (Zhao et al. 2021; Linhart et al. 2022) with amortised, shareable null fits.

Two layers: :func:`fit_null_regressors` fits the B null regressions once per calibration x-set (they
do not depend on the PIT values, the covariate or the evaluation point) and returns a frozen
:class:`NullRegressors` cache; :func:`local_coverage_test` is the one-call test that accepts it.
Credibility levels are written γ (Linhart et al. write α); α is a significance level.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
from joblib import Parallel, delayed

from modelcompare._foundation.deprecation import renamed_parameters
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
    memory_limit,
)
from modelcompare._foundation.results import Result, TestResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed, sklearn_seed
from modelcompare._foundation.threads import thread_limits
from modelcompare._foundation.validation import (
    check_choice,
    check_fraction,
    check_n_jobs,
    check_same_rows,
    check_same_width,
    check_samples,
)
from modelcompare.posterior._calibration._global import level_grid
from modelcompare.posterior._calibration._pit import check_pit_values
from modelcompare.posterior._local._local_common import (
    check_n_resamples,
    standardisation,
    warn_resolution,
)
from modelcompare.posterior._local._regressors import (
    AmortizedRegressor,
    NearestNeighborRegressor,
    PerLevelRegressor,
    resolve_regressor,
)

__all__ = [
    "AmortizedRegressor",
    "LocalCoverageResult",
    "NearestNeighborRegressor",
    "NullRegressors",
    "PerLevelRegressor",
    "fit_null_regressors",
    "local_coverage_test",
    "max_null_resamples",
    "resolve_regressor",
]


# --------------------------------------------------------------------------------------- null cache
def _fingerprint(x: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(x).tobytes()).hexdigest()


@result_class
class NullRegressors(Result):
    """Frozen cache of the B null fits on one calibration x-set (reusable across calls).

    Each null trial b draws U_1..U_N iid U(0, 1), keeps the x_n and fits the regressor on
    (x_n, 1{U_n ≤ γ}). The fits do not depend on the PIT values, the covariate or the evaluation
    points, so one cache serves every covariate, estimator and x₀ on the same x-set.

    Attributes
    ----------
    levels : numpy.ndarray, shape (G,)
        The credibility levels γ of the fits.
    regressor : str
        The regressor's name.
    n_resamples : int
        B, the number of null fits.
    n : int
        Rows of the calibration x-set.
    x_mean, x_scale : numpy.ndarray, shape (d,)
        The z-scoring of x (applied to every evaluation point).
    fingerprint : str
        A hash of x: the cache refuses another x-set.
    seed_used : int or None
        The seed of the null draws.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(200, 2))
    >>> null = fit_null_regressors(x, levels=9, regressor="knn", n_resamples=19, seed=0)
    >>> null
    NullRegressors(n_resamples=19, n=200, regressor='knn-150')
    >>> null.predict([[0.0, 0.0]]).shape
    (19, 1, 9)
    """

    levels: np.ndarray
    regressor: str
    n_resamples: int
    n: int
    x_mean: np.ndarray
    x_scale: np.ndarray
    fingerprint: str
    seed_used: int | None
    _estimator: Any
    _models: tuple[Any, ...]

    _repr_fields = ("n_resamples", "n", "regressor")

    def standardise(self, x: np.ndarray) -> np.ndarray:
        """Apply the calibration set's z-scoring to ``x``."""
        return (x - self.x_mean) / self.x_scale

    def predict(self, x_eval: Any) -> np.ndarray:
        """Null CDF estimates r̂^{(b)}_γ(x₀), shape ``(B, E, G)``."""
        xe = check_samples(x_eval, "x_eval", min_samples=1)
        if xe.shape[1] != self.x_mean.size:
            msg = f"`x_eval` must have {self.x_mean.size} columns like `x`; got {xe.shape[1]}."
            raise ValueError(msg)
        xs = self.standardise(xe)
        with thread_limits():
            return np.stack([mdl.predict(xs) for mdl in self._models])


def _null_fit(
    reg: Any, xs: np.ndarray, levels: np.ndarray, child: np.random.Generator, n_jobs: int | None
) -> Any:
    u = child.uniform(size=xs.shape[0])
    with thread_limits(n_jobs=n_jobs):
        return reg.fit(xs, u, levels, sklearn_seed(child))


def _limited_fit(
    reg: Any, xs: np.ndarray, u: np.ndarray, levels: np.ndarray, seed: int, n_jobs: int | None
) -> Any:
    with thread_limits(n_jobs=n_jobs):
        return reg.fit(xs, u, levels, seed)


def _fit_null(
    x: np.ndarray,
    levels: np.ndarray,
    reg: Any,
    n_resamples: int,
    rng: np.random.Generator,
    seed_used: int | None,
    n_jobs: int | None,
) -> NullRegressors:
    check_memory(
        _null_fit_bytes(n_resamples, *x.shape, levels.size),
        "the null regressions",
        "levels` or `n_resamples",
    )
    mean, scale = standardisation(x)
    xs = (x - mean) / scale
    children = rng.spawn(n_resamples)
    # one limit around the loop: serial fits reuse it instead of rescanning the thread pools
    with thread_limits(n_jobs=n_jobs):
        models = Parallel(n_jobs=n_jobs)(
            delayed(_null_fit)(reg, xs, levels, c, n_jobs) for c in children
        )
    return NullRegressors(
        levels=levels,
        regressor=_regressor_name(reg),
        n_resamples=n_resamples,
        n=x.shape[0],
        x_mean=mean,
        x_scale=scale,
        fingerprint=_fingerprint(x),
        seed_used=seed_used,
        _estimator=reg,
        _models=tuple(models),
    )


def _check_null_memory(n_resamples: int, rows: int, n_levels: int) -> None:
    # B null CDF curves over the grid at ``rows`` evaluation points
    check_memory(
        estimate_array_bytes((n_resamples, rows, n_levels)),
        "the null regressions",
        "levels` or `n_resamples",
    )


def _null_fit_bytes(n_resamples: int, n_rows: int, n_features: int, n_levels: int) -> int:
    # Kept: one fitted null model per resample (the kNN shortcut stores its N uniform targets; the
    # boosted trees are smaller) and the generator it was drawn from. Transient: one fit at a time
    # expands its rows over the levels (the amortised features, or the per-level targets).
    kept = estimate_array_bytes(n_rows) + GENERATOR_BYTES
    return n_resamples * kept + estimate_array_bytes((n_rows, n_levels, n_features + 1))


def max_null_resamples(n_rows: int, n_features: int, n_levels: int) -> int:
    """The largest B that the memory guard of the null regressions allows (possibly 0).

    The guard counts one fitted null model of about ``n_rows`` float64 values per resample, plus
    one fit's rows expanded over the levels, against the memory limit
    (``MODELCOMPARE_MAX_MEMORY``, 4 GiB by default).
    """
    room = memory_limit() - _null_fit_bytes(0, n_rows, n_features, n_levels)
    return max(room, 0) // _null_fit_bytes(1, n_rows, 0, 0)


def _regressor_name(reg: Any) -> str:
    return str(getattr(reg, "name", type(reg).__name__))


def fit_null_regressors(
    x: Any,
    *,
    levels: Any = None,
    regressor: Any = "knn",
    n_resamples: int = 100,
    seed: SeedLike = None,
    n_jobs: int | None = None,
) -> NullRegressors:
    """Fit the B null regressions of the local coverage test once for a calibration x-set.

    Parameters
    ----------
    x : array-like, shape (N, d)
        Calibration observations (z-scored internally; the scaling is stored).
    levels : int or array-like, optional
        Credibility levels strictly inside (0, 1); default {k/100 : k = 1..99}. 0 and 1 are
        dropped (see :func:`level_grid`).
    regressor : str or object
        See :func:`resolve_regressor`.
    n_resamples : int
        B, the number of null trials.
    seed : int, Generator or None
        With the same int, ``local_coverage_test(..., seed=s)`` uses exactly this cache.
    n_jobs : int, optional
        joblib workers over the B fits (``None``: 1 unless a ``parallel_config`` says otherwise).

    Returns
    -------
    NullRegressors

    Notes
    -----
    Threads: every fit runs inside ``thread_limits(n_jobs=n_jobs)`` (one BLAS/OpenMP/torch thread
    per worker when ``n_jobs`` > 1; serially the default of ``MODELCOMPARE_NUM_THREADS``, else one
    thread); the caller's thread settings are restored afterwards.

    References
    ----------
    .. [1] D. Zhao, N. Dalmasso, R. Izbicki and A. B. Lee (2021). Diagnostics for Conditional
       Density Models and Bayesian Inference Algorithms. Conference on Uncertainty in Artificial
       Intelligence (UAI). arXiv:2102.10473.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x, p = rng.normal(size=(300, 2)), rng.uniform(size=(300, 2))
    >>> null = fit_null_regressors(x, levels=19, regressor="knn", n_resamples=99, seed=0)
    >>> res = local_coverage_test(p, x, [[0.0, 0.0], [1.0, 1.0]], null=null, seed=0)
    >>> res.n_resamples, res.levels.size
    (99, 19)
    """
    x = check_samples(x, "x")
    grid = level_grid(levels)
    reg = resolve_regressor(regressor)
    n_resamples = check_n_resamples(n_resamples)
    n_jobs = check_n_jobs(n_jobs)
    rng, seed_used = check_seed(seed)
    null_rng, _ = rng.spawn(2)
    return _fit_null(x, grid, reg, n_resamples, null_rng, seed_used, n_jobs)


# --------------------------------------------------------------------------------------- the test
def _statistic(r: np.ndarray, levels: np.ndarray, kind: str) -> np.ndarray:
    dev = r - levels
    if kind == "mse":
        return np.mean(dev**2, axis=-1)
    return np.max(np.abs(dev), axis=-1)


def _combine(p: np.ndarray, combine: str) -> np.ndarray:
    """Combine the (m, E) covariate p-values of each evaluation point into one (E,) p-value."""
    if combine == "bonferroni":
        return familywise_pvalue(p, axis=0)
    return np.minimum(1.0, p.shape[0] / np.sum(1.0 / p, axis=0))


@result_class
class LocalCoverageResult(TestResult):
    """Result of :func:`local_coverage_test` (m covariates, E evaluation points, G levels).

    Attributes
    ----------
    statistic : float
        The largest per-point statistic, max over covariates i and evaluation points x₀ of T_i(x₀).
    pvalue : float
        The smallest Holm-adjusted p-value across the evaluation points, min(1, E · min_e p(x₀_e)),
        so that ``decision(alpha)`` is Holm's family-wise decision: H0(x₀) is rejected at some x₀.
    statistics : numpy.ndarray, shape (m, E)
        T_i(x₀) = (1/G) Σ_γ (r̂_{i,γ}(x₀) − γ)² (or max_γ |r̂ − γ| with ``statistic="max"``).
    pvalues : numpy.ndarray, shape (E,)
        Per evaluation point, the covariate p-values combined by ``combine`` (Bonferroni by
        default).
    pvalues_adjusted : numpy.ndarray, shape (E,)
        ``pvalues`` adjusted across the evaluation points by ``eval_correction`` (Holm by default):
        the points with ``pvalues_adjusted <= alpha`` are those rejected at family-wise level α.
    covariate_pvalues : numpy.ndarray, shape (m, E)
        Algorithm 1 p-values (1 + #{T^{(b)} ≥ T}) / (1 + B) per covariate and point.
    global_statistics, global_pvalues : numpy.ndarray, shape (m,)
        Σ over evaluation points of T_i and its p-value against the same null (cde-diagnostics'
        ``global_test``).
    levels : numpy.ndarray, shape (G,)
        The credibility levels γ.
    x_eval : numpy.ndarray, shape (E, d)
        The evaluation points.
    r_hat : numpy.ndarray, shape (m, E, G)
        Local PP-curves r̂_{i,γ}(x₀).
    band_low, band_high : numpy.ndarray, shape (E, G)
        Algorithm 2: pointwise null quantiles of r̂^{(b)}_γ(x₀) over the B trials.
    confidence_level : float
        Coverage of the Algorithm 2 band.
    band_correction : str or None
        The band correction the test ran with.
    statistic_type, combine, regressor : str
        The options the test ran with.
    eval_correction : str or None
        The correction of ``pvalues_adjusted``.
    n, n_resamples : int
        Calibration pairs and null trials B.
    seed_used : int or None
        The seed of the null draws and the regressors.
    null_statistics : numpy.ndarray, shape (B, E)
        T^{(b)}(x₀), shared by all covariates.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x, p = rng.normal(size=(300, 2)), rng.uniform(size=(300, 2))
    >>> res = local_coverage_test(p, x, [[0.0, 0.0]], regressor="knn", n_resamples=99,
    ...                           levels=19, seed=0)
    >>> res.decision(0.05), res.statistics.shape
    (False, (2, 1))
    """

    statistic: float
    pvalue: float
    statistics: np.ndarray
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    covariate_pvalues: np.ndarray
    global_statistics: np.ndarray
    global_pvalues: np.ndarray
    levels: np.ndarray
    x_eval: np.ndarray
    r_hat: np.ndarray
    band_low: np.ndarray
    band_high: np.ndarray
    confidence_level: float
    band_correction: str | None
    statistic_type: str
    combine: str
    eval_correction: str | None
    regressor: str
    n: int
    n_resamples: int
    seed_used: int | None
    null_statistics: np.ndarray

    _repr_fields = ("statistic", "pvalue", "n", "n_resamples", "regressor")

    def band_label(self) -> str:
        """Legend text of the Algorithm 2 band (level and type)."""
        corr = ", Bonferroni over covariates" if self.band_correction == "bonferroni" else ""
        return f"{100 * self.confidence_level:g} % pointwise null band (B={self.n_resamples}{corr})"


@renamed_parameters(correction="combine")
def local_coverage_test(
    pit_values: Any,
    x: Any,
    x_eval: Any,
    *,
    levels: Any = None,
    regressor: Any = "knn",
    n_resamples: int = 100,
    null: NullRegressors | None = None,
    statistic: str = "mse",
    combine: str = "bonferroni",
    eval_correction: str | None = "holm",
    confidence_level: float = 0.95,
    band_correction: str | None = "bonferroni",
    seed: SeedLike = None,
    n_jobs: int | None = None,
) -> LocalCoverageResult:
    """Local coverage test of each PIT covariate at each evaluation point x₀.

    Parameters
    ----------
    pit_values : array-like, shape (N, m)
        PIT values of the calibration pairs (:func:`pit`).
    x : array-like, shape (N, d)
        The calibration observations.
    x_eval : array-like, shape (E, d)
        Evaluation points x₀ (e.g. a path in observation space).
    levels : int or array-like, optional
        Credibility levels γ, strictly inside (0, 1) (0 and 1 are dropped with a warning). Default
        99 levels k/100.
    regressor : {"hgb", "knn", "mlp", "logistic"} or object
        How r̂_{i,γ}(x) = P(P_i ≤ γ | x) is estimated (:func:`resolve_regressor`). The default
        ``"knn"`` (150 nearest neighbours) held its level with about twice the power of
        ``"hgb"`` (boosting amortised over γ, one fit per covariate and per null trial) at the
        paper's scale, in a five-hundredth of the time; ``"hgb"`` suits an x too wide for
        neighbourhoods. A scikit-learn classifier object is fitted once per level
        (:class:`PerLevelRegressor`).
    n_resamples : int
        B, the number of null trials (Algorithm 1).
    null : NullRegressors, optional
        A cache from :func:`fit_null_regressors` on the same ``x``; then ``levels``, ``regressor``
        and ``n_resamples`` are taken from it.
    statistic : {"mse", "max"}
        The paper's mean squared deviation, or the KS-type max_γ |r̂ − γ|. Both are weak against
        pure dispersion errors locally (power about 0.38 and 0.31 at a scale error c = 1.3 with
        N = 1000); use a larger N or a finer grid.
    combine : {"bonferroni", "harmonic"}
        How the m covariate p-values are combined into one p-value per x₀: Bonferroni's
        min(1, m · min_i p_i), or the harmonic mean min(1, m / Σ_i 1/p_i) (the authors' option;
        it is not exactly valid).
    eval_correction : {"holm", "bonferroni", "fdr_bh", None}
        The correction of ``pvalues_adjusted`` across the evaluation points, which says *where* H0
        is rejected (see :func:`~modelcompare.adjust_pvalues`). The overall ``pvalue`` is Holm's
        whatever this is, min(1, E · min p): Benjamini–Hochberg controls
        the false discovery rate, not the family-wise error of ``decision(alpha)``.
    confidence_level : float
        Coverage of the Algorithm 2 bands.
    band_correction : {"bonferroni", None}
        Whether the band level is Bonferroni-adjusted over the m covariates (η/m, default) or
        not (``None``).
    seed : int, Generator or None
        Seeds the null draws and every regressor. With an int, the null fits equal
        ``fit_null_regressors(x, ..., seed=seed)``.
    n_jobs : int, optional
        joblib workers over the null fits.

    Returns
    -------
    LocalCoverageResult

    Warns
    -----
    TooFewResamplesWarning
        When B is too small for the overall p-value to reach 0.05.

    Notes
    -----
    For each covariate i and level γ ∈ G, r̂_{i,γ} regresses W = 1{P_i ≤ γ} on x, and
    T_i(x₀) = (1/G) Σ_γ (r̂_{i,γ}(x₀) − γ)² (Linhart et al. 2022, eq. 4). Algorithm 1 of Zhao et al.
    (2021) refits on (x_n, 1{U_n ≤ γ}) with U iid U(0, 1) for B trials; the p-value is
    (1 + #{T^{(b)} ≥ T}) / (1 + B), which is never 0 (cde-diagnostics uses #{T^{(b)} > T}/B). One
    uniform vector per trial serves all covariates and x₀; Bonferroni stays valid. H0(x₀) for
    uniformity is rejected if min_i p_i ≤ α/m. The test says nothing about the independence of the
    covariates (see :func:`local_independence_test`).

    Threads: every fit and predict of the regressors runs inside ``thread_limits(n_jobs=n_jobs)``
    (one BLAS/OpenMP/torch thread per worker when ``n_jobs`` > 1; serially the default of
    ``MODELCOMPARE_NUM_THREADS``, else one thread); the caller's thread settings are restored.

    References
    ----------
    .. [1] Zhao, Dalmasso, Izbicki, Lee (2021). Diagnostics for conditional density models and
       Bayesian inference algorithms. UAI. arXiv:2102.10473.
    .. [2] Linhart, Gramfort, Rodrigues (2022). Validation diagnostics for SBI algorithms based on
       normalizing flows. arXiv:2211.09602.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(500, 2)); p = rng.uniform(size=(500, 2))
    >>> res = local_coverage_test(p, x, [[0.0, 0.0]], regressor="knn", n_resamples=50,
    ...                           levels=19, seed=0)
    >>> res.statistics.shape, res.pvalues.shape, bool(res.pvalue > 0.05)
    ((2, 1), (1,), True)
    """
    p = check_pit_values(pit_values)
    x = check_samples(x, "x")
    x_eval = check_samples(x_eval, "x_eval", min_samples=1)
    n = check_same_rows([("pit_values", p), ("x", x)], what="local_coverage_test")
    check_same_width([("x", x), ("x_eval", x_eval)], what="local_coverage_test")
    statistic = check_choice(statistic, "statistic", ("mse", "max"))
    combine = check_choice(combine, "combine", ("bonferroni", "harmonic"))
    eval_correction = check_correction(eval_correction, "eval_correction")
    confidence_level = check_fraction(confidence_level, "confidence_level")
    if band_correction is not None:
        band_correction = check_choice(band_correction, "band_correction", ("bonferroni",))
    n_jobs = check_n_jobs(n_jobs)
    rng, seed_used = check_seed(seed)
    null_rng, obs_rng = rng.spawn(2)
    if null is None:
        grid = level_grid(levels)
        null = _fit_null(
            x,
            grid,
            resolve_regressor(regressor),
            check_n_resamples(n_resamples),
            null_rng,
            seed_used,
            n_jobs,
        )
    else:
        if not isinstance(null, NullRegressors):
            msg = f"`null` must be a NullRegressors from fit_null_regressors; got {type(null).__name__}."
            raise TypeError(msg)
        if null.n != n or null.fingerprint != _fingerprint(x):
            msg = "`null` was fitted on a different `x`; refit it with fit_null_regressors(x, ...)."
            raise ValueError(msg)
    grid, reg = null.levels, null._estimator
    m = p.shape[1]
    warn_resolution(m, x_eval.shape[0], null.n_resamples, combine)
    _check_null_memory(null.n_resamples + m, x_eval.shape[0], grid.size)
    xs = null.standardise(x)
    xe = null.standardise(x_eval)
    with thread_limits(n_jobs=n_jobs):
        fits = Parallel(n_jobs=n_jobs)(
            delayed(_limited_fit)(reg, xs, p[:, i], grid, sklearn_seed(c), n_jobs)
            for i, c in enumerate(obs_rng.spawn(m))
        )
    with thread_limits():
        r_obs = np.stack([f.predict(xe) for f in fits])  # (m, E, G)
        r_null = np.stack([mdl.predict(xe) for mdl in null._models])  # (B, E, G)
    t_obs = _statistic(r_obs, grid, statistic)  # (m, E)
    t_null = _statistic(r_null, grid, statistic)  # (B, E)
    covariate_pvalues = monte_carlo_pvalue(t_obs, t_null[:, None, :])  # (m, E)
    pvalues = _combine(covariate_pvalues, combine)  # (E,)
    g_obs = t_obs.sum(axis=1)
    g_null = t_null.sum(axis=1)
    global_pvalues = monte_carlo_pvalue(g_obs, g_null[:, None])
    eta = 1 - confidence_level
    if band_correction == "bonferroni":
        eta /= m
    band_low = np.quantile(r_null, eta / 2, axis=0)
    band_high = np.quantile(r_null, 1 - eta / 2, axis=0)
    return LocalCoverageResult(
        statistic=float(t_obs.max()),
        pvalue=familywise_pvalue(pvalues),
        statistics=t_obs,
        pvalues=pvalues,
        pvalues_adjusted=adjust_pvalues(pvalues, eval_correction),
        covariate_pvalues=covariate_pvalues,
        global_statistics=g_obs,
        global_pvalues=global_pvalues,
        levels=grid,
        x_eval=x_eval.copy(),
        r_hat=r_obs,
        band_low=band_low,
        band_high=band_high,
        confidence_level=confidence_level,
        band_correction=band_correction,
        statistic_type=statistic,
        combine=combine,
        eval_correction=eval_correction,
        regressor=_regressor_name(reg),
        n=n,
        n_resamples=null.n_resamples,
        seed_used=seed_used,
        null_statistics=t_null,
    )
