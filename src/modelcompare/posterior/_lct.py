"""Local coverage tests (Zhao et al. 2021; Linhart et al. 2022) with amortised, shareable null fits.

Two layers: :func:`fit_null_regressors` fits the B null regressions once per calibration x-set (they
do not depend on the PIT values, the covariate or the evaluation point) and returns a frozen
:class:`NullRegressors` cache; :func:`local_coverage_test` is the one-call test that accepts it.
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from joblib import Parallel, delayed

from modelcompare._foundation.errors import DegenerateDataWarning, TooFewResamplesWarning
from modelcompare._foundation.results import Result, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed, sklearn_seed
from modelcompare._foundation.validation import (
    check_choice,
    check_fraction,
    check_int,
    check_same_rows,
    check_same_width,
    check_samples,
)
from modelcompare.posterior._global import alpha_grid
from modelcompare.posterior._pit import check_pit_values
from modelcompare.posterior._regressors import (
    AmortizedRegressor,
    NearestNeighborRegressor,
    PerAlphaRegressor,
    resolve_regressor,
)

__all__ = [
    "AmortizedRegressor",
    "LocalCoverageResult",
    "NearestNeighborRegressor",
    "NullRegressors",
    "PerAlphaRegressor",
    "fit_null_regressors",
    "local_coverage_test",
    "mc_pvalue",
    "resolve_regressor",
]


# --------------------------------------------------------------------------------------- null cache
def _fingerprint(x: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(x).tobytes()).hexdigest()


@dataclass(frozen=True, eq=False)
class NullRegressors:
    """Frozen cache of the B null fits on one calibration x-set (reusable across calls).

    Each null trial b draws U_1..U_N iid U(0, 1), keeps the x_n and fits the regressor on
    (x_n, 1{U_n ≤ α}). The fits do not depend on the PIT values, the covariate or the evaluation
    points, so one cache serves every covariate, estimator and x₀ on the same x-set.
    """

    alphas: np.ndarray
    regressor: Any
    n_null: int
    n: int
    x_mean: np.ndarray
    x_scale: np.ndarray
    fingerprint: str
    seed_used: int | None
    models: tuple[Any, ...]

    def __repr__(self) -> str:
        name = getattr(self.regressor, "name", type(self.regressor).__name__)
        return f"NullRegressors(n_null={self.n_null}, n={self.n}, alphas={self.alphas.size}, regressor={name!r})"

    def standardise(self, x: np.ndarray) -> np.ndarray:
        """Apply the calibration set's z-scoring to ``x``."""
        return (x - self.x_mean) / self.x_scale

    def predict(self, x_eval: Any) -> np.ndarray:
        """Null CDF estimates r̂^{(b)}_α(x₀), shape ``(B, E, |G|)``."""
        xe = check_samples(x_eval, "x_eval", min_samples=1)
        if xe.shape[1] != self.x_mean.size:
            msg = f"`x_eval` must have {self.x_mean.size} columns like `x`; got {xe.shape[1]}."
            raise ValueError(msg)
        xs = self.standardise(xe)
        return np.stack([mdl.predict(xs) for mdl in self.models])


def _standardisation(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    if np.any(scale == 0):
        warnings.warn(
            "Some columns of `x` are constant; they carry no information for the local tests.",
            DegenerateDataWarning,
            stacklevel=4,
        )
        scale = np.where(scale == 0, 1.0, scale)
    return mean, scale


def _null_fit(reg: Any, xs: np.ndarray, alphas: np.ndarray, child: np.random.Generator) -> Any:
    u = child.uniform(size=xs.shape[0])
    return reg.fit(xs, u, alphas, sklearn_seed(child))


def _fit_null(
    x: np.ndarray,
    alphas: np.ndarray,
    reg: Any,
    n_null: int,
    rng: np.random.Generator,
    seed_used: int | None,
    n_jobs: int | None,
) -> NullRegressors:
    mean, scale = _standardisation(x)
    xs = (x - mean) / scale
    children = rng.spawn(n_null)
    models = Parallel(n_jobs=n_jobs)(delayed(_null_fit)(reg, xs, alphas, c) for c in children)
    return NullRegressors(
        alphas=alphas,
        regressor=reg,
        n_null=n_null,
        n=x.shape[0],
        x_mean=mean,
        x_scale=scale,
        fingerprint=_fingerprint(x),
        seed_used=seed_used,
        models=tuple(models),
    )


def _check_n_null(n_null: int) -> int:
    n_null = check_int(n_null, "n_null", low=1)
    if n_null < 19:
        warnings.warn(
            f"`n_null`={n_null}: the smallest attainable p-value is 1/{n_null + 1} > 0.05.",
            TooFewResamplesWarning,
            stacklevel=3,
        )
    return n_null


def _warn_resolution(m: int, e: int, n_null: int, correction: str) -> None:
    factor = m * e if correction == "bonferroni" else e
    if factor / (n_null + 1) > 0.05:
        warnings.warn(
            f"With {m} Bonferroni-combined test(s), {e} corrected evaluation point(s) and n_null={n_null}, the "
            f"smallest attainable combined p-value is {factor / (n_null + 1):.3g} > 0.05; "
            f"use n_null >= {int(np.ceil(factor / 0.05)) - 1} to be able to reject at 0.05.",
            TooFewResamplesWarning,
            stacklevel=3,
        )


def fit_null_regressors(
    x: Any,
    *,
    alphas: Any = None,
    regressor: Any = "hgb",
    n_null: int = 100,
    seed: SeedLike = None,
    n_jobs: int | None = None,
) -> NullRegressors:
    """Fit the B null regressions of the local coverage test once for a calibration x-set.

    Parameters
    ----------
    x : array-like, shape (N, d)
        Calibration observations (z-scored internally; the scaling is stored).
    alphas : int or array-like, optional
        α grid strictly inside (0, 1); default {k/100 : k = 1..99}. 0 and 1 are dropped.
    regressor : str or object
        See :func:`resolve_regressor`.
    n_null : int
        B, the number of null trials.
    seed : int, Generator or None
        With the same int, ``local_coverage_test(..., seed=s)`` uses exactly this cache.
    n_jobs : int, optional
        joblib workers over the B fits (``None``: 1 unless a ``parallel_config`` says otherwise).

    Returns
    -------
    NullRegressors
    """
    x = check_samples(x, "x")
    grid = alpha_grid(alphas)
    reg = resolve_regressor(regressor)
    n_null = _check_n_null(n_null)
    rng, seed_used = check_seed(seed)
    null_rng, _ = rng.spawn(2)
    return _fit_null(x, grid, reg, n_null, null_rng, seed_used, n_jobs)


# --------------------------------------------------------------------------------------- the test
def mc_pvalue(t_obs: np.ndarray, t_null: np.ndarray) -> np.ndarray:
    """(1 + #{b : T^{(b)} ≥ T}) / (1 + B), with the null trials on axis 0 of ``t_null``."""
    b = t_null.shape[0]
    return (1.0 + np.sum(t_null >= t_obs[None, ...] - 1e-12 * np.abs(t_obs), axis=0)) / (1.0 + b)


def _statistic(r: np.ndarray, alphas: np.ndarray, kind: str) -> np.ndarray:
    dev = r - alphas
    if kind == "mse":
        return np.mean(dev**2, axis=-1)
    return np.max(np.abs(dev), axis=-1)


def _combine(p: np.ndarray, how: str) -> np.ndarray:
    m = p.shape[0]
    if how == "bonferroni":
        return np.minimum(1.0, m * p.min(axis=0))
    return np.minimum(1.0, m / np.sum(1.0 / p, axis=0))


def _adjust(p: np.ndarray, how: str | None) -> np.ndarray | None:
    if how is None:
        return None
    k = p.size
    if how == "bonferroni":
        return np.minimum(1.0, k * p)
    order = np.argsort(p, kind="stable")
    adj = np.maximum.accumulate((k - np.arange(k)) * p[order])
    out = np.empty_like(p)
    out[order] = np.minimum(1.0, adj)
    return out


@result_class
class LocalCoverageResult(Result):
    """Result of :func:`local_coverage_test` (m covariates, E evaluation points, |G| α values).

    Attributes
    ----------
    statistic : numpy.ndarray, shape (m, E)
        T_i(x₀) = (1/|G|) Σ_α (r̂_{i,α}(x₀) − α)² (or max_α |r̂ − α| with ``statistic="max"``).
    pvalue : numpy.ndarray, shape (E,)
        Per evaluation point, the covariates combined (Bonferroni by default).
    pvalues : numpy.ndarray, shape (m, E)
        Algorithm 1 p-values (1 + #{T^{(b)} ≥ T}) / (1 + B) per covariate.
    pvalue_adjusted : numpy.ndarray or None, shape (E,)
        ``pvalue`` corrected across evaluation points (only with ``eval_correction``).
    global_statistic, global_pvalues : numpy.ndarray, shape (m,)
        Σ over evaluation points of T_i and its p-value against the same null (cde-diagnostics'
        ``global_test``).
    r_hat : numpy.ndarray, shape (m, E, |G|)
        Local PP-curves r̂_{i,α}(x₀).
    band_low, band_high : numpy.ndarray, shape (E, |G|)
        Algorithm 2: pointwise null quantiles of r̂^{(b)}_α(x₀) over the B trials.
    null_statistic : numpy.ndarray, shape (B, E)
        T^{(b)}(x₀), shared by all covariates.
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    pvalues: np.ndarray
    pvalue_adjusted: np.ndarray | None
    global_statistic: np.ndarray
    global_pvalues: np.ndarray
    alphas: np.ndarray
    x_eval: np.ndarray
    r_hat: np.ndarray
    band_low: np.ndarray
    band_high: np.ndarray
    band_level: float
    band_correction: str
    statistic_type: str
    correction: str
    eval_correction: str | None
    regressor: str
    n: int
    n_null: int
    seed_used: int | None
    null_statistic: np.ndarray

    _repr_fields = ("n", "n_null", "regressor", "statistic_type")

    def decision(self, alpha: float = 0.05) -> np.ndarray:
        """Reject H0(x₀) at each evaluation point (uses ``pvalue_adjusted`` when present)."""
        alpha = check_fraction(alpha, "alpha")
        p = self.pvalue if self.pvalue_adjusted is None else self.pvalue_adjusted
        return p <= alpha

    def band_label(self) -> str:
        """Legend text of the Algorithm 2 band (level and type)."""
        corr = ", Bonferroni over covariates" if self.band_correction == "bonferroni" else ""
        return f"{100 * self.band_level:g} % pointwise null band (B={self.n_null}{corr})"


def local_coverage_test(
    pit_values: Any,
    x: Any,
    x_eval: Any,
    *,
    alphas: Any = None,
    regressor: Any = "hgb",
    n_null: int = 100,
    null: NullRegressors | None = None,
    statistic: str = "mse",
    correction: str = "bonferroni",
    eval_correction: str | None = None,
    band_level: float = 0.95,
    band_correction: str = "bonferroni",
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
    alphas : int or array-like, optional
        α grid, strictly inside (0, 1) (0 and 1 are dropped with a warning). Default 99 points k/100.
    regressor : {"hgb", "knn", "mlp", "logistic"} or object
        How r̂_{i,α}(x) = P(P_i ≤ α | x) is estimated (:func:`resolve_regressor`). The default
        ``"hgb"`` is amortised over α (one fit per covariate and per null trial).
    n_null : int
        B, the number of null trials (Algorithm 1).
    null : NullRegressors, optional
        A cache from :func:`fit_null_regressors` on the same ``x``; then ``alphas``, ``regressor``
        and ``n_null`` are taken from it.
    statistic : {"mse", "max"}
        The paper's mean squared deviation, or the KS-type max_α |r̂ − α|. Both are weak against
        pure dispersion errors locally (BENCHMARKS.md: 0.38 vs 0.31 at c = 1.3, N = 1000); use a
        larger N or a finer grid.
    correction : {"bonferroni", "harmonic"}
        How the m covariate p-values are combined per x₀ (the harmonic mean is the authors' option;
        it is not exactly valid).
    eval_correction : {None, "bonferroni", "holm"}
        Multiplicity correction across the evaluation points (for scans along a path).
    band_level : float
        Level of the Algorithm 2 bands.
    band_correction : {"bonferroni", "none"}
        Whether the band level is Bonferroni-adjusted over the m covariates (η/m).
    seed : int, Generator or None
        Seeds the null draws and every regressor. With an int, the null fits equal
        ``fit_null_regressors(x, ..., seed=seed)``.
    n_jobs : int, optional
        joblib workers over the null fits.

    Returns
    -------
    LocalCoverageResult

    Notes
    -----
    For each covariate i and α ∈ G, r̂_{i,α} regresses W = 1{P_i ≤ α} on x, and
    T_i(x₀) = (1/|G|) Σ_α (r̂_{i,α}(x₀) − α)² (Linhart et al. 2022, eq. 4). Algorithm 1 of Zhao et al.
    (2021) refits on (x_n, 1{U_n ≤ α}) with U iid U(0, 1) for B trials; the p-value is
    (1 + #{T^{(b)} ≥ T}) / (1 + B), which is never 0 (cde-diagnostics uses #{T^{(b)} > T}/B). One
    uniform vector per trial serves all covariates and x₀; Bonferroni stays valid. H0(x₀) for
    uniformity is rejected if min_i p_i ≤ α/m. The test says nothing about the independence of the
    covariates (see :func:`local_independence_test`).

    References
    ----------
    Zhao, Dalmasso, Izbicki, Lee (2021). Diagnostics for conditional density models and Bayesian
    inference algorithms. UAI. Linhart, Gramfort, Rodrigues (2022), arXiv:2211.09602.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(500, 2)); p = rng.uniform(size=(500, 2))
    >>> res = local_coverage_test(p, x, [[0.0, 0.0]], regressor="knn", n_null=50, alphas=19, seed=0)
    >>> res.statistic.shape, res.pvalue.shape
    ((2, 1), (1,))
    """
    p = check_pit_values(pit_values)
    x = check_samples(x, "x")
    x_eval = check_samples(x_eval, "x_eval", min_samples=1)
    n = check_same_rows([("pit_values", p), ("x", x)], what="local_coverage_test")
    check_same_width([("x", x), ("x_eval", x_eval)], what="local_coverage_test")
    statistic = check_choice(statistic, "statistic", ("mse", "max"))
    correction = check_choice(correction, "correction", ("bonferroni", "harmonic"))
    if eval_correction is not None:
        eval_correction = check_choice(eval_correction, "eval_correction", ("bonferroni", "holm"))
    band_level = check_fraction(band_level, "band_level")
    band_correction = check_choice(band_correction, "band_correction", ("bonferroni", "none"))
    rng, seed_used = check_seed(seed)
    null_rng, obs_rng = rng.spawn(2)
    if null is None:
        grid = alpha_grid(alphas)
        null = _fit_null(
            x,
            grid,
            resolve_regressor(regressor),
            _check_n_null(n_null),
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
    grid, reg = null.alphas, null.regressor
    m = p.shape[1]
    _warn_resolution(m, x_eval.shape[0] if eval_correction else 1, null.n_null, correction)
    xs = null.standardise(x)
    xe = null.standardise(x_eval)
    fits = Parallel(n_jobs=n_jobs)(
        delayed(reg.fit)(xs, p[:, i], grid, sklearn_seed(c)) for i, c in enumerate(obs_rng.spawn(m))
    )
    r_obs = np.stack([f.predict(xe) for f in fits])  # (m, E, G)
    r_null = np.stack([mdl.predict(xe) for mdl in null.models])  # (B, E, G)
    t_obs = _statistic(r_obs, grid, statistic)  # (m, E)
    t_null = _statistic(r_null, grid, statistic)  # (B, E)
    pvalues = mc_pvalue(t_obs, t_null[:, None, :])  # (m, E)
    pvalue = _combine(pvalues, correction)
    g_obs = t_obs.sum(axis=1)
    g_null = t_null.sum(axis=1)
    global_pvalues = mc_pvalue(g_obs, g_null[:, None])
    eta = 1 - band_level
    if band_correction == "bonferroni":
        eta /= m
    band_low = np.quantile(r_null, eta / 2, axis=0)
    band_high = np.quantile(r_null, 1 - eta / 2, axis=0)
    return LocalCoverageResult(
        statistic=t_obs,
        pvalue=pvalue,
        pvalues=pvalues,
        pvalue_adjusted=_adjust(pvalue, eval_correction),
        global_statistic=g_obs,
        global_pvalues=global_pvalues,
        alphas=grid,
        x_eval=x_eval.copy(),
        r_hat=r_obs,
        band_low=band_low,
        band_high=band_high,
        band_level=band_level,
        band_correction=band_correction,
        statistic_type=statistic,
        correction=correction,
        eval_correction=eval_correction,
        regressor=getattr(reg, "name", type(reg).__name__),
        n=n,
        n_null=null.n_null,
        seed_used=seed_used,
        null_statistic=t_null,
    )
