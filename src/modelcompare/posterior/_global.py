"""Global PIT uniformity check: KS per covariate with Bonferroni, PP-curves with bands, histograms."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
from scipy import stats

from modelcompare._foundation.errors import ModelCompareWarning
from modelcompare._foundation.results import Result, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import as_numpy, check_choice, check_fraction, check_int
from modelcompare.posterior._pit import check_pit_values

__all__ = [
    "GlobalCoverageResult",
    "alpha_grid",
    "ecdf_band",
    "global_coverage_test",
]

_SIMULTANEOUS = ("ecdf", "dkw", "ks")


def alpha_grid(alphas: Any = None, *, default: int = 99) -> np.ndarray:
    """Return a sorted grid of α values strictly inside (0, 1).

    ``None`` gives {k/(K+1) : k = 1..K} with K = ``default``; an int K gives the same with that K; an
    array is used as given after dropping 0 and 1 (with a warning: they give one-class targets).
    """
    if alphas is None:
        alphas = default
    if isinstance(alphas, int | np.integer) and not isinstance(alphas, bool):
        k = check_int(alphas, "alphas", low=1)
        return np.arange(1, k + 1) / (k + 1)
    grid = np.asarray(as_numpy(alphas, "alphas"), dtype=float).reshape(-1)
    if grid.size == 0 or not np.all(np.isfinite(grid)) or grid.min() < 0 or grid.max() > 1:
        msg = "`alphas` must be values in [0, 1] (0 and 1 are dropped) or an int grid size."
        raise ValueError(msg)
    inside = grid[(grid > 0) & (grid < 1)]
    if inside.size < grid.size:
        warnings.warn(
            "Dropped α = 0 and/or α = 1 from `alphas`: they give one-class targets "
            "(r̂ is exactly 0 or 1 there) and would bias T.",
            ModelCompareWarning,
            stacklevel=3,
        )
    if inside.size == 0:
        msg = "`alphas` has no values strictly inside (0, 1)."
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
    level: float = 0.95,
    method: str = "ecdf",
    n_simulations: int = 1000,
    seed: SeedLike = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Band for the ECDF of ``n`` iid U(0, 1) values at the points ``grid``.

    Parameters
    ----------
    n : int
        Sample size.
    grid : array-like
        Evaluation points in (0, 1).
    level : float
        Coverage 1 − η.
    method : {"pointwise", "ecdf", "dkw", "ks"}
        ``"pointwise"``: binomial quantiles at each point (level holds at each point only).
        ``"ecdf"``: the simultaneous band of Säilynoja, Bürkner & Vehtari (2022), as in ArviZ's
        PIT-ECDF plots (simulation-calibrated: the pointwise level is raised until the whole null ECDF
        stays inside with probability ``level``). ``"dkw"``: the DKW band ±√(ln(2/η)/(2n)).
        ``"ks"``: the exact KS band ±``kstwo.ppf(level, n)``.
    n_simulations : int
        Null ECDFs simulated for ``"ecdf"`` (ArviZ uses 1000).
    seed : int, Generator or None
        Seed for the ``"ecdf"`` simulation (fixed by default, so bands are reproducible).

    Returns
    -------
    low, high : numpy.ndarray
        Band limits on the ECDF scale (fractions in [0, 1]).

    References
    ----------
    Säilynoja, Bürkner, Vehtari (2022). Graphical test for discrete uniformity and its applications
    in goodness-of-fit evaluation and multiple sample comparison. Statistics and Computing 32, 32.
    """
    n = check_int(n, "n", low=1)
    grid = np.asarray(grid, dtype=float).reshape(-1)
    level = check_fraction(level, "level")
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
    n_simulations = check_int(n_simulations, "n_simulations", low=10)
    rng, seed_used = check_seed(seed)
    if seed_used is not None and not isinstance(seed, np.random.Generator) and seed is not None:
        low, high = _simulated_band(n, tuple(grid.tolist()), level, n_simulations, seed_used)
        return low.copy(), high.copy()
    return _simulate(n, grid, level, n_simulations, rng)


@functools.lru_cache(maxsize=64)
def _simulated_band(
    n: int, grid: tuple[float, ...], level: float, n_simulations: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    return _simulate(n, np.asarray(grid), level, n_simulations, np.random.default_rng(seed))


def _simulate(
    n: int, grid: np.ndarray, level: float, n_simulations: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(grid)
    g = grid[order]
    probs = np.diff(np.concatenate([[0.0], g, [1.0]]))
    counts = rng.multinomial(n, probs, size=n_simulations)[:, :-1].cumsum(axis=1)
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
class GlobalCoverageResult(Result):
    """Result of :func:`global_coverage_test`.

    Attributes
    ----------
    statistic : float
        The largest KS distance over the covariates.
    pvalue : float
        Bonferroni-combined p-value, min(1, m · min_i p_i). Reject global uniformity iff p ≤ α.
    statistics, pvalues : numpy.ndarray, shape (m,)
        KS distance and p-value of each covariate against U(0, 1).
    alphas : numpy.ndarray, shape (G,)
        The grid of the PP-curves.
    pp_values : numpy.ndarray, shape (G, m)
        r̂_i(α) = (1/N) Σ_n 1{P_{n,i} ≤ α}, the ECDF of each PIT column.
    pointwise_band, simultaneous_band : tuple of arrays (low, high), each shape (G,)
        Null bands for the PP-curves (see ``band_label``).
    hist_counts : numpy.ndarray, shape (K, m); bin_edges : shape (K + 1,)
    hist_band : tuple (low, high)
        Binomial limits on the counts of one bin.
    """

    statistic: float
    pvalue: float
    statistics: np.ndarray
    pvalues: np.ndarray
    n: int
    alphas: np.ndarray
    pp_values: np.ndarray
    pointwise_band: tuple[np.ndarray, np.ndarray]
    simultaneous_band: tuple[np.ndarray, np.ndarray]
    simultaneous_method: str
    band_level: float
    band_correction: str
    hist_counts: np.ndarray
    bin_edges: np.ndarray
    hist_band: tuple[float, float]

    _repr_fields = ("statistic", "pvalue", "n")

    def decision(self, alpha: float = 0.05) -> bool:
        """True when global uniformity is rejected at level ``alpha`` (p ≤ α)."""
        return bool(self.pvalue <= check_fraction(alpha, "alpha"))

    def band_label(self, kind: str = "simultaneous") -> str:
        """Legend text for a band, stating its level and type."""
        names = {
            "ecdf": "simultaneous (Säilynoja et al. 2022)",
            "dkw": "simultaneous (DKW)",
            "ks": "simultaneous (KS)",
        }
        what = "pointwise" if kind == "pointwise" else names[self.simultaneous_method]
        corr = ", Bonferroni over covariates" if self.band_correction == "bonferroni" else ""
        return f"{100 * self.band_level:g} % {what}{corr}"


def global_coverage_test(
    pit_values: Any,
    *,
    alphas: Any = None,
    band_level: float = 0.95,
    simultaneous: str = "ecdf",
    band_correction: str = "none",
    n_bins: int | None = None,
    n_simulations: int = 1000,
    seed: SeedLike = 0,
) -> GlobalCoverageResult:
    """Global uniformity check of each PIT covariate (the paper's step 1).

    Parameters
    ----------
    pit_values : array-like, shape (N, m)
        From :func:`pit`.
    alphas : int or array-like, optional
        PP-curve grid (default: 99 points k/100).
    band_level : float
        Level of the bands (0.95).
    simultaneous : {"ecdf", "dkw", "ks"}
        Simultaneous band: Säilynoja et al. 2022 (ArviZ's PIT-ECDF standard), DKW or exact KS.
    band_correction : {"none", "bonferroni"}
        "bonferroni" uses η/m per covariate so the bands hold jointly over the m panels.
    n_bins : int, optional
        Histogram bins (default: N // 50 clipped to [5, 20]).
    n_simulations : int
        Simulations for the ``"ecdf"`` band.
    seed : int, Generator or None
        Only the ``"ecdf"`` band simulation is random; fixed by default.

    Returns
    -------
    GlobalCoverageResult

    Notes
    -----
    Tests: one-sample KS of each column against U(0, 1); reject if min_i p_i ≤ α/m (Bonferroni).
    Passing is a necessary condition only: it averages over x (local errors can cancel) and ignores
    the independence of the covariates (see :func:`pit_independence_test`).

    Examples
    --------
    >>> import numpy as np
    >>> res = global_coverage_test(np.random.default_rng(1).uniform(size=(500, 2)))
    >>> bool(res.pvalue > 0.01)
    True
    """
    p = check_pit_values(pit_values)
    n, m = p.shape
    grid = alpha_grid(alphas)
    band_level = check_fraction(band_level, "band_level")
    simultaneous = check_choice(simultaneous, "simultaneous", _SIMULTANEOUS)
    band_correction = check_choice(band_correction, "band_correction", ("none", "bonferroni"))
    level = 1 - (1 - band_level) / m if band_correction == "bonferroni" else band_level
    ks = [stats.kstest(p[:, i], "uniform") for i in range(m)]
    statistics = np.array([r.statistic for r in ks])
    pvalues = np.array([r.pvalue for r in ks])
    pvalue = float(min(1.0, m * pvalues.min()))
    pp = (p[:, None, :] <= grid[None, :, None]).mean(axis=0)
    if n_bins is None:
        n_bins = int(np.clip(n // 50, 5, 20))
    n_bins = check_int(n_bins, "n_bins", low=1)
    edges = np.linspace(0, 1, n_bins + 1)
    counts = np.stack([np.histogram(p[:, i], bins=edges)[0] for i in range(m)], axis=1)
    eta = 1 - level
    hist_band = (
        float(stats.binom.ppf(eta / 2, n, 1 / n_bins)),
        float(stats.binom.ppf(1 - eta / 2, n, 1 / n_bins)),
    )
    return GlobalCoverageResult(
        statistic=float(statistics.max()),
        pvalue=pvalue,
        statistics=statistics,
        pvalues=pvalues,
        n=n,
        alphas=grid,
        pp_values=pp,
        pointwise_band=_pointwise(n, grid, level),
        simultaneous_band=ecdf_band(
            n, grid, level=level, method=simultaneous, n_simulations=n_simulations, seed=seed
        ),
        simultaneous_method=simultaneous,
        band_level=band_level,
        band_correction=band_correction,
        hist_counts=counts,
        bin_edges=edges,
        hist_band=hist_band,
    )
