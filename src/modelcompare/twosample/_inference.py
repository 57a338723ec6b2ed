"""Null distribution and interval for the cross-validated accuracy.

Why not a binomial test on the pooled predictions? The folds' classifiers are trained on overlapping
data and the folds are not stratified, so a fold whose test part happens to hold more of one class
has a classifier trained on fewer of that class. Both effects widen the null spread of the mean
accuracy to 1.3–1.7× the binomial one, and a binomial null rejects too often.

The null used here has two parts.

1. Each fold is conditioned on its own margins. Under H0 the pooled rows are exchangeable, so given
   everything the fold's classifier saw, the labels of its test rows are a uniformly random
   arrangement of the test fold's label counts: the number K of rows predicted 1 and labelled 1 is
   hypergeometric whatever the classifier (Fisher's exact test of prediction against label). This
   removes the class-balance effect of unstratified folds, which biases the unconditional null low.
2. The folds' standardised counts are summed, z = Σ(K_j − E K_j) / √(Σ Var K_j). The folds are not
   independent (each classifier learns the chance association of rows that other folds test on),
   so the variance of z is inflated in the spirit of Nadeau and Bengio (2003): by
   1 + k·n_test/n_train, i.e. 2.25 (sd ×1.5) for 5 folds. Simulated null spreads of z were 1.15–1.3
   (logistic and MLP, d = 2 and 5), so the test is conservative; sizes are measured in the test
   suite and in ``benchmarks/c2st_null_calibration.py``.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from modelcompare._foundation.results import ConfidenceInterval
from modelcompare._foundation.stats import t_interval

__all__ = ["conditional_pvalue", "corrected_interval"]


def conditional_pvalue(
    predictions: list[np.ndarray], labels: list[np.ndarray], n_train: float
) -> tuple[float, float, bool]:
    """One-sided p-value of H0 "the classifier does no better than chance".

    Parameters
    ----------
    predictions, labels : list of numpy.ndarray
        Per fold, the 0/1 predictions and the 0/1 labels of its test rows.
    n_train : float
        Mean number of training rows per fold (for the cross-validation variance inflation).

    Returns
    -------
    pvalue : float
        ``norm.sf(z / sqrt(1 + k n_test / n_train))``; 1.0 when the null has no spread.
    z : float
        The conditional statistic (ΣK − ΣE K)/√(ΣVar K) before inflation, 0 without spread.
    degenerate : bool
        True when no fold has any null spread (every classifier predicted a single class, or every
        test fold held a single class).
    """
    observed = 0
    mean = 0.0
    var = 0.0
    n_tests = []
    for pred, lab in zip(predictions, labels, strict=True):
        n_test = int(pred.size)
        n_pred1 = int(pred.sum())
        n_label1 = int(lab.sum())
        n_tests.append(n_test)
        observed += int(np.sum((pred == 1) & (lab == 1)))
        mean += n_pred1 * n_label1 / n_test
        if n_test > 1:  # hypergeometric variance
            var += (
                n_pred1
                * n_label1
                * (n_test - n_pred1)
                * (n_test - n_label1)
                / (n_test**2 * (n_test - 1))
            )
    if var <= 0.0:
        return 1.0, 0.0, True
    z = float((observed - mean) / np.sqrt(var))
    inflation = 1.0 + len(n_tests) * float(np.mean(n_tests)) / n_train
    pvalue = float(stats.norm.sf(z / np.sqrt(inflation)))
    return min(max(pvalue, float(np.finfo(float).tiny)), 1.0), z, False


def corrected_interval(
    fold_scores: np.ndarray, n_train: float, n_test: float, confidence_level: float
) -> ConfidenceInterval:
    """Nadeau–Bengio corrected t-interval for the mean of k cross-validated fold scores.

    The variance of the mean over k folds is taken as (1/k + n_test/n_train)·s² rather than s²/k,
    which accounts for the overlap of the training sets (the same scale as
    :func:`modelcompare.corrected_ttest`). The interval is clipped to [0, 1].
    """
    k = fold_scores.size
    if k < 2:
        return ConfidenceInterval(0.0, 1.0)
    mean = float(fold_scores.mean())
    se = float(np.sqrt((1 / k + n_test / n_train) * fold_scores.var(ddof=1)))
    low, high = t_interval(mean, se, k - 1, confidence_level, "two-sided")
    return ConfidenceInterval(max(0.0, low), min(1.0, high))
