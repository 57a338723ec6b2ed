"""Tests of a mean of paired differences: the global mean, and local means near points of x-space.

The global test is the paired t-test on d_1, ..., d_n, or a bootstrap-t version of it for
heavy-tailed or skewed d. The local test at a point x* takes the k nearest calibration x's (in
coordinates divided by the calibration x's standard deviations) and t-tests the mean of their d's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from modelcompare._foundation.results import ConfidenceInterval
from modelcompare._foundation.validation import check_fraction

__all__ = ["MeanTest", "local_mean_test", "paired_mean_test"]

#: bootstrap index draws held at once (rows × resamples), to bound memory
_BOOT_BLOCK = 2_000_000


@dataclass(frozen=True)
class MeanTest:
    """The outcome of a test of E[d] = 0 (internal; the public results copy its fields)."""

    mean: float
    standard_error: float
    pvalue: float
    df: float
    degenerate: bool
    boot_t: np.ndarray | None  # sorted bootstrap-t draws, for the bootstrap interval


def _t_pvalue(t: float, df: float, alternative: str) -> float:
    if alternative == "two-sided":
        return float(min(1.0, 2.0 * stats.t.sf(abs(t), df)))
    if alternative == "greater":
        return float(stats.t.sf(t, df))
    return float(stats.t.cdf(t, df))


def _boot_t(d: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Bootstrap-t draws (mean* − mean) / se* of the mean of ``d`` (Efron & Tibshirani 1993, §12.5)."""
    n = d.shape[0]
    mean = d.mean()
    per_block = max(1, _BOOT_BLOCK // n)
    out = np.empty(n_resamples)
    for start in range(0, n_resamples, per_block):
        b = min(per_block, n_resamples - start)
        sample = d[rng.integers(0, n, size=(b, n))]
        se = sample.std(axis=1, ddof=1) / math.sqrt(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (sample.mean(axis=1) - mean) / se
        out[start : start + b] = np.where(se > 0, t, 0.0)
    return np.sort(out)


def paired_mean_test(
    d: np.ndarray,
    *,
    alternative: str,
    method: str,
    n_resamples: int,
    rng: np.random.Generator,
) -> MeanTest:
    """Test E[d] = 0 with the t-test (``method="t"``) or the bootstrap-t (``"bootstrap"``)."""
    n = d.shape[0]
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    se = sd / math.sqrt(n)
    if not (se > 0 and math.isfinite(se)):
        return MeanTest(mean, 0.0, 1.0, float(n - 1), True, None)
    t = mean / se
    if method == "t":
        return MeanTest(mean, se, _t_pvalue(t, n - 1, alternative), float(n - 1), False, None)
    boot = _boot_t(d, n_resamples, rng)
    if alternative == "two-sided":
        count = np.count_nonzero(np.abs(boot) >= abs(t))
    elif alternative == "greater":
        count = np.count_nonzero(boot >= t)
    else:
        count = np.count_nonzero(boot <= t)
    p = (1.0 + count) / (n_resamples + 1.0)
    return MeanTest(mean, se, float(min(1.0, p)), float(n - 1), False, boot)


def mean_interval(test: MeanTest, confidence_level: float, alternative: str) -> ConfidenceInterval:
    """The t interval, or the bootstrap-t interval [m − q_hi·se, m − q_lo·se]."""
    level = check_fraction(confidence_level, "confidence_level")
    m, se = test.mean, test.standard_error
    if test.degenerate:
        return ConfidenceInterval(m, m)
    if test.boot_t is None:
        if alternative == "two-sided":
            q = stats.t.ppf(0.5 + level / 2.0, test.df)
            return ConfidenceInterval(float(m - q * se), float(m + q * se))
        q = stats.t.ppf(level, test.df)
        if alternative == "greater":
            return ConfidenceInterval(float(m - q * se), math.inf)
        return ConfidenceInterval(-math.inf, float(m + q * se))
    boot = test.boot_t
    if alternative == "two-sided":
        lo, hi = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2])
        return ConfidenceInterval(float(m - hi * se), float(m - lo * se))
    if alternative == "greater":
        return ConfidenceInterval(m - float(np.quantile(boot, level)) * se, math.inf)
    return ConfidenceInterval(-math.inf, m - float(np.quantile(boot, 1 - level)) * se)


def local_mean_test(
    d: np.ndarray,
    x: np.ndarray,
    x_eval: np.ndarray,
    *,
    n_neighbors: int,
    alternative: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """kNN local means of ``d`` at each row of ``x_eval``, their standard errors and t-test p-values.

    Coordinates are divided by the standard deviation of ``x`` (ddof=1; 1 for a constant column).
    The standard error is the sample standard deviation of the k neighbours' d over √k: given the
    x's, the d's are independent with variances σ²(x_i) that may differ, and this is the
    heteroscedasticity-robust (White) standard error of their mean. The null tested at x* is that
    the neighbours' conditional means E[d | x_i] average to zero, which approximates E[d | x*] = 0
    as the neighbourhood shrinks.
    """
    n = x.shape[0]
    scale = x.std(axis=0, ddof=1)
    scale = np.where(scale > 0, scale, 1.0)
    xs, es = x / scale, x_eval / scale
    k = n_neighbors
    means, ses, pvalues = (np.empty(es.shape[0]) for _ in range(3))
    sq = np.einsum("ij,ij->i", xs, xs)
    rows = max(1, 4_000_000 // n)
    for start in range(0, es.shape[0], rows):
        e = es[start : start + rows]
        dist = (
            sq[None, :] - 2.0 * e @ xs.T
        )  # ‖e‖² is constant per row: it does not change the order
        idx = (
            np.argpartition(dist, k - 1, axis=1)[:, :k]
            if k < n
            else np.tile(np.arange(n), (len(e), 1))
        )
        local = d[idx]
        m = local.mean(axis=1)
        se = local.std(axis=1, ddof=1) / math.sqrt(k)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(se > 0, m / se, 0.0)
        p = np.array([_t_pvalue(float(ti), k - 1, alternative) for ti in t])
        p = np.where(se > 0, p, 1.0)
        sl = slice(start, start + len(e))
        means[sl], ses[sl], pvalues[sl] = m, se, p
    return means, ses, pvalues
