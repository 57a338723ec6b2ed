"""Null distribution and interval for the cross-validated accuracy.

Why not a binomial test on the pooled predictions? The folds' classifiers are trained on overlapping
data and the folds are not stratified, so a fold whose test part happens to hold more of one class
has a classifier trained on fewer of that class. Both effects widen the null spread of the mean
accuracy to 1.3–1.7× the binomial one, and a binomial null rejects too often.

The null used here conditions each fold on its own margins. Under H0 the pooled rows are
exchangeable, so given everything the fold's classifier saw, the labels of its test rows are a
uniformly random arrangement of the test fold's label counts. The number K of rows predicted 1 that
are labelled 1 is then hypergeometric, exactly, whatever the classifier is (a Fisher exact test of
prediction against label). Conditioning on the margins removes the class-balance effect that
inflates the unconditional spread. The test statistic is ΣK over folds, whose null is taken as the
convolution of the folds' hypergeometric laws; its size is checked by simulation in the test suite
and in ``benchmarks/c2st_null_calibration.py``.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .._results import ConfidenceInterval

__all__ = ["conditional_pvalue", "corrected_interval"]


def _hypergeom_pmf(n_test: int, n_label1: int, n_pred1: int) -> tuple[int, np.ndarray]:
    lo = max(0, n_pred1 + n_label1 - n_test)
    hi = min(n_pred1, n_label1)
    support = np.arange(lo, hi + 1)
    pmf = stats.hypergeom.pmf(support, n_test, n_label1, n_pred1)
    return lo, pmf / pmf.sum()


def conditional_pvalue(
    predictions: list[np.ndarray], labels: list[np.ndarray]
) -> tuple[float, float, bool]:
    """One-sided p-value of H0 "the classifier does no better than chance", fold margins fixed.

    Parameters
    ----------
    predictions, labels : list of numpy.ndarray
        Per fold, the 0/1 predictions and the 0/1 labels of its test rows.

    Returns
    -------
    pvalue : float
        P(ΣK ≥ observed) under the null; 1.0 when the null has no spread.
    z : float
        The standardised statistic (ΣK − E)/sd, 0 when the null has no spread.
    degenerate : bool
        True when no fold has any null spread (every classifier predicted a single class, or every
        test fold held a single class).
    """
    offset = 0
    pmf = np.ones(1)
    observed = 0
    mean = 0.0
    var = 0.0
    for pred, lab in zip(predictions, labels, strict=True):
        n_test = int(pred.size)
        n_pred1 = int(pred.sum())
        n_label1 = int(lab.sum())
        observed += int(np.sum((pred == 1) & (lab == 1)))
        lo, fold_pmf = _hypergeom_pmf(n_test, n_label1, n_pred1)
        offset += lo
        pmf = np.convolve(pmf, fold_pmf)
        mean += n_pred1 * n_label1 / n_test
        if n_test > 1:
            var += (
                n_pred1 * n_label1 * (n_test - n_pred1) * (n_test - n_label1)
                / (n_test**2 * (n_test - 1))
            )
    if var <= 0.0:
        return 1.0, 0.0, True
    index = observed - offset
    pvalue = float(np.clip(pmf[index:].sum(), 0.0, 1.0)) if index < pmf.size else 0.0
    pvalue = max(pvalue, float(np.finfo(float).tiny))  # never exactly 0 from round-off
    return min(pvalue, 1.0), float((observed - mean) / np.sqrt(var)), False


def corrected_interval(
    fold_scores: np.ndarray, n_train: float, n_test: float, confidence_level: float
) -> ConfidenceInterval:
    """Nadeau–Bengio corrected t-interval for the mean of k cross-validated fold scores.

    The variance of the mean over k folds is taken as (1/k + n_test/n_train)·s² rather than s²/k,
    which accounts for the overlap of the training sets. The interval is clipped to [0, 1].
    """
    k = fold_scores.size
    mean = float(fold_scores.mean())
    if k < 2:
        return ConfidenceInterval(0.0, 1.0)
    s2 = float(fold_scores.var(ddof=1))
    half = stats.t.ppf(0.5 + confidence_level / 2, k - 1) * np.sqrt((1 / k + n_test / n_train) * s2)
    return ConfidenceInterval(max(0.0, mean - half), min(1.0, mean + half))
