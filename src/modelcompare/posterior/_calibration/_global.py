"""Global PIT uniformity check: KS per covariate with Holm, PP-curves with bands, histograms."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
from scipy import stats

from modelcompare._foundation.errors import ModelCompareWarning
from modelcompare._foundation.pvalues import adjust_pvalues, familywise_pvalue
from modelcompare._foundation.resources import check_memory, estimate_array_bytes
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    as_numpy,
    check_choice,
    check_fraction,
    check_int,
    check_nonempty,
)
from modelcompare.posterior._calibration._pit import check_pit_values

__all__ = [
    "GlobalCoverageResult",
    "ecdf_band",
    "global_coverage_test",
    "level_grid",
]

_SIMULTANEOUS = ("ecdf", "dkw", "ks")


def level_grid(levels: Any = None, *, default: int = 99) -> np.ndarray:
    """Return a sorted grid of credibility levels strictly inside (0, 1).

    Parameters
    ----------
    levels : int, array-like or None
        ``None`` gives {k/(K+1) : k = 1..K} with K = ``default``; an int K gives the same with that
        K; an array is used as given after dropping 0 and 1 (with a warning: they give one-class
        targets).
    default : int
        K when ``levels`` is None.

    Returns
    -------
    numpy.ndarray
        The sorted, unique levels.

    Examples
    --------
    >>> level_grid(3)
    array([0.25, 0.5 , 0.75])
    """
    if levels is None:
        levels = default
    if isinstance(levels, int | np.integer) and not isinstance(levels, bool):
        k = check_int(levels, "levels", low=1)
        check_memory(estimate_array_bytes(k), "the level grid", "levels")
        return np.arange(1, k + 1) / (k + 1)
    check_nonempty(levels, "levels")
    grid = np.asarray(as_numpy(levels, "levels"), dtype=float).reshape(-1)
    if grid.size == 0 or not np.all(np.isfinite(grid)) or grid.min() < 0 or grid.max() > 1:
        msg = "`levels` must be values in [0, 1] (0 and 1 are dropped) or an int grid size."
        raise ValueError(msg)
    inside = grid[(grid > 0) & (grid < 1)]
    if inside.size < grid.size:
        warnings.warn(
            "Dropped the levels 0 and/or 1 from `levels`: they give one-class targets "
            "(r̂ is exactly 0 or 1 there) and would bias T.",
            ModelCompareWarning,
            stacklevel=3,
        )
    if inside.size == 0:
        msg = "`levels` has no values strictly inside (0, 1)."
        raise ValueError(msg)
    return np.unique(inside)


def _pointwise(n: int, grid: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    eta = 1.0 - level
    low = stats.binom.ppf(eta / 2, n, grid) / n
    high = stats.binom.ppf(1 - eta / 2, n, grid) / n
    return low, high


def ecdf_band(
    n: int,
    grid: Any,
    *,
    confidence_level: float = 0.95,
    method: str = "ecdf",
    n_resamples: int = 1000,
    seed: SeedLike = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Band for the ECDF of ``n`` iid U(0, 1) values at the points ``grid``.

    Parameters
    ----------
    n : int
        Sample size.
    grid : array-like
        Evaluation points in (0, 1).
    confidence_level : float
        Coverage 1 − η of the band.
    method : {"pointwise", "ecdf", "dkw", "ks"}
        ``"pointwise"``: binomial quantiles at each point (the level holds at each point only).
        ``"ecdf"``: the simultaneous band of Säilynoja, Bürkner & Vehtari (2022), as in ArviZ's
        PIT-ECDF plots (simulation-calibrated: the pointwise level is raised until the whole null ECDF
        stays inside with probability ``confidence_level``). ``"dkw"``: the DKW band
        ±√(ln(2/η)/(2n)). ``"ks"``: the exact KS band ±``kstwo.ppf(confidence_level, n)``.
    n_resamples : int
        Null ECDFs simulated for ``"ecdf"`` (ArviZ uses 1000).
    seed : int, Generator or None
        Seed of the ``"ecdf"`` simulation; an int gives a reproducible (and cached) band.

    Returns
    -------
    low, high : numpy.ndarray
        Band limits on the ECDF scale (fractions in [0, 1]).

    References
    ----------
    .. [1] Säilynoja, Bürkner, Vehtari (2022). Graphical test for discrete uniformity and its
       applications in goodness-of-fit evaluation and multiple sample comparison. Statistics and
       Computing 32, 32. doi:10.1007/s11222-022-10090-6, arXiv:2103.10522.

    Examples
    --------
    >>> low, high = ecdf_band(1000, [0.1, 0.5], method="pointwise")
    >>> low.round(3).tolist(), high.round(3).tolist()
    ([0.082, 0.469], [0.119, 0.531])
    >>> low, high = ecdf_band(100, [0.25, 0.5, 0.75], n_resamples=200, seed=0)
    >>> bool(np.all(low < high))
    True
    """
    n = check_int(n, "n", low=1)
    grid = np.asarray(grid, dtype=float).reshape(-1)
    level = check_fraction(confidence_level, "confidence_level")
    method = check_choice(method, "method", ("pointwise", *_SIMULTANEOUS))
    eta = 1.0 - level
    if method == "pointwise":
        return _pointwise(n, grid, level)
    if method == "dkw":
        eps = np.sqrt(np.log(2 / eta) / (2 * n))
        return np.clip(grid - eps, 0, 1), np.clip(grid + eps, 0, 1)
    if method == "ks":
        eps = float(stats.kstwo.ppf(level, n))
        return np.clip(grid - eps, 0, 1), np.clip(grid + eps, 0, 1)
    n_resamples = check_int(n_resamples, "n_resamples", low=10)
    # the multinomial counts and their two binomial tails, (B, G + 1) each
    check_memory(
        3 * estimate_array_bytes((n_resamples, grid.size + 1)),
        "the simulated band",
        "levels` or `n_resamples",
    )
    rng, seed_used = check_seed(seed)
    if seed_used is not None and seed is not None:
        low, high = _simulated_band(n, tuple(grid.tolist()), level, n_resamples, seed_used)
        return low.copy(), high.copy()
    return _simulate(n, grid, level, n_resamples, rng)


@functools.lru_cache(maxsize=64)
def _simulated_band(
    n: int, grid: tuple[float, ...], level: float, n_resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    return _simulate(n, np.asarray(grid), level, n_resamples, np.random.default_rng(seed))


def _simulate(
    n: int, grid: np.ndarray, level: float, n_resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(grid)
    g = grid[order]
    probs = np.diff(np.concatenate([[0.0], g, [1.0]]))
    counts = rng.multinomial(n, probs, size=n_resamples)[:, :-1].cumsum(axis=1)
    # For each simulated ECDF: the smallest two-sided binomial tail over the grid (ArviZ's
    # _fit_pointwise_band_probability); the pointwise level that keeps `level` of them inside.
    lower_tail = stats.binom.cdf(counts, n, g).min(axis=1)
    upper_tail = stats.binom.sf(counts - 1, n, g).min(axis=1)
    pointwise_level = 1 - 2 * np.minimum(lower_tail, upper_tail)
    adjusted = float(np.quantile(pointwise_level, level))
    adjusted = min(max(adjusted, level), 1 - 1e-12)
    low, high = _pointwise(n, g, adjusted)
    out_low, out_high = np.empty_like(low), np.empty_like(high)
    out_low[order], out_high[order] = low, high
    return out_low, out_high


@result_class
class GlobalCoverageResult(TestResult):
    """Result of :func:`global_coverage_test` (m covariates, G levels).

    Attributes
    ----------
    statistic : float
        The largest KS distance over the covariates.
    pvalue : float
        The smallest Holm-adjusted p-value over the covariates, min(1, m · min_i p_i) (equal to
        Bonferroni's), so that ``decision(alpha)`` rejects global uniformity at family-wise level
        α.
    statistics, pvalues : numpy.ndarray, shape (m,)
        KS distance and p-value of each covariate against U(0, 1).
    pvalues_adjusted : numpy.ndarray, shape (m,)
        ``pvalues`` Holm-adjusted over the covariates.
    n : int
        Number of PIT rows.
    levels : numpy.ndarray, shape (G,)
        The credibility levels of the PP-curves.
    pp_values : numpy.ndarray, shape (G, m)
        r̂_i(γ) = (1/N) Σ_n 1{P_{n,i} ≤ γ} at each level γ, the ECDF of each PIT column.
    pointwise_band, simultaneous_band : tuple of arrays (low, high), each shape (G,)
        Null bands for the PP-curves (see :meth:`band_label`).
    simultaneous_method : str
        The simultaneous band's construction.
    confidence_level : float
        Coverage of the bands.
    band_correction : str or None
        ``"bonferroni"`` when the bands hold jointly over the m covariates, else ``None``.
    hist_counts : numpy.ndarray, shape (K, m)
        Histogram counts of each PIT column; ``bin_edges`` has shape (K + 1,).
    hist_band : tuple (low, high)
        Binomial limits on the counts of one bin.
    seed_used : int or None
        The seed of the simultaneous band's simulation.

    Examples
    --------
    >>> import numpy as np
    >>> res = global_coverage_test(np.random.default_rng(1).uniform(size=(300, 2)), seed=0)
    >>> res.decision(0.05)
    False
    >>> res.band_label()
    '95 % simultaneous (Säilynoja et al. 2022)'
    """

    statistic: float
    pvalue: float
    statistics: np.ndarray
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    n: int
    levels: np.ndarray
    pp_values: np.ndarray
    pointwise_band: tuple[np.ndarray, np.ndarray]
    simultaneous_band: tuple[np.ndarray, np.ndarray]
    simultaneous_method: str
    confidence_level: float
    band_correction: str | None
    hist_counts: np.ndarray
    bin_edges: np.ndarray
    hist_band: tuple[float, float]
    seed_used: int | None

    _repr_fields = ("statistic", "pvalue", "n")

    def band_label(self, kind: str = "simultaneous") -> str:
        """Legend text for a band (``"simultaneous"`` or ``"pointwise"``), stating its level and type."""
        names = {
            "ecdf": "simultaneous (Säilynoja et al. 2022)",
            "dkw": "simultaneous (DKW)",
            "ks": "simultaneous (KS)",
        }
        what = "pointwise" if kind == "pointwise" else names[self.simultaneous_method]
        corr = ", Bonferroni over covariates" if self.band_correction == "bonferroni" else ""
        return f"{100 * self.confidence_level:g} % {what}{corr}"


def global_coverage_test(
    pit_values: Any,
    *,
    levels: Any = None,
    confidence_level: float = 0.95,
    simultaneous: str = "ecdf",
    band_correction: str | None = None,
    n_bins: int | None = None,
    n_resamples: int = 1000,
    seed: SeedLike = None,
) -> GlobalCoverageResult:
    """Global uniformity check of each PIT covariate (step 1 of Linhart et al. 2022).

    Parameters
    ----------
    pit_values : array-like, shape (N, m)
        From :func:`pit`.
    levels : int or array-like, optional
        Credibility levels of the PP-curves (default: 99 levels k/100); see :func:`level_grid`.
    confidence_level : float
        Coverage of the bands (0.95).
    simultaneous : {"ecdf", "dkw", "ks"}
        Simultaneous band: Säilynoja et al. 2022 (ArviZ's PIT-ECDF standard), DKW or exact KS.
    band_correction : {None, "bonferroni"}
        ``"bonferroni"`` uses η/m per covariate so the bands hold jointly over the m panels;
        ``None`` (default) gives each panel its own level η.
    n_bins : int, optional
        Histogram bins (default: N // 50 clipped to [5, 20]).
    n_resamples : int
        Simulated null ECDFs of the ``"ecdf"`` band.
    seed : int, Generator or None
        Only the ``"ecdf"`` band simulation is random; an int makes it reproducible.

    Returns
    -------
    GlobalCoverageResult

    Notes
    -----
    Tests: one-sample KS of each column against U(0, 1), Holm over the m covariates: reject if
    min_i p_i ≤ α/m. Passing is a necessary condition only: it averages over x (local errors can
    cancel) and ignores the independence of the covariates (see :func:`pit_independence_test`).

    References
    ----------
    .. [1] D. Zhao, N. Dalmasso, R. Izbicki and A. B. Lee (2021). Diagnostics for Conditional
       Density Models and Bayesian Inference Algorithms. Conference on Uncertainty in Artificial
       Intelligence (UAI). arXiv:2102.10473.
    .. [2] J. Linhart, A. Gramfort and P. L. C. Rodrigues (2022). Validation Diagnostics for SBI
       algorithms based on Normalizing Flows. arXiv:2211.09602.

    Examples
    --------
    >>> import numpy as np
    >>> res = global_coverage_test(np.random.default_rng(1).uniform(size=(500, 2)), seed=0)
    >>> bool(res.pvalue > 0.01)
    True
    >>> res.pp_values.shape
    (99, 2)
    """
    p = check_pit_values(pit_values)
    n, m = p.shape
    grid = level_grid(levels)
    confidence_level = check_fraction(confidence_level, "confidence_level")
    simultaneous = check_choice(simultaneous, "simultaneous", _SIMULTANEOUS)
    if band_correction is not None:
        band_correction = check_choice(band_correction, "band_correction", ("bonferroni",))
    if n_bins is None:
        n_bins = int(np.clip(n // 50, 5, 20))
    n_bins = check_int(n_bins, "n_bins", low=1)
    # the bin edges and the counts of every covariate (np.histogram's and their stack)
    check_memory(
        estimate_array_bytes(n_bins + 1) + 2 * estimate_array_bytes((n_bins, m), np.int64),
        "the PIT histograms",
        "n_bins",
    )
    rng, seed_used = check_seed(seed)
    level = 1 - (1 - confidence_level) / m if band_correction == "bonferroni" else confidence_level
    ks = [stats.kstest(p[:, i], "uniform") for i in range(m)]
    statistics = np.array([r.statistic for r in ks])
    pvalues = np.array([r.pvalue for r in ks])
    check_memory(estimate_array_bytes((n, grid.size, m), bool), "the PP-curves", "levels")
    pp = (p[:, None, :] <= grid[None, :, None]).mean(axis=0)
    edges = np.linspace(0, 1, n_bins + 1)
    counts = np.stack([np.histogram(p[:, i], bins=edges)[0] for i in range(m)], axis=1)
    eta = 1 - level
    hist_band = (
        float(stats.binom.ppf(eta / 2, n, 1 / n_bins)),
        float(stats.binom.ppf(1 - eta / 2, n, 1 / n_bins)),
    )
    band_seed = rng if seed_used is None else seed_used
    return GlobalCoverageResult(
        statistic=float(statistics.max()),
        pvalue=familywise_pvalue(pvalues),
        statistics=statistics,
        pvalues=pvalues,
        pvalues_adjusted=adjust_pvalues(pvalues, "holm"),
        n=n,
        levels=grid,
        pp_values=pp,
        pointwise_band=_pointwise(n, grid, level),
        simultaneous_band=ecdf_band(
            n,
            grid,
            confidence_level=level,
            method=simultaneous,
            n_resamples=n_resamples,
            seed=band_seed,
        ),
        simultaneous_method=simultaneous,
        confidence_level=confidence_level,
        band_correction=band_correction,
        hist_counts=counts,
        bin_edges=edges,
        hist_band=hist_band,
        seed_used=seed_used,
    )
