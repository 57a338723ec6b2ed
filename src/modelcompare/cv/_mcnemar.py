"""McNemar's test for two classifiers on one test set (McNemar 1947; Dietterich 1998)."""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np
from scipy import stats

from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.validation import as_numpy, check_bool

__all__ = ["McNemarResult", "mcnemar_table", "mcnemar_test"]


def _labels(x: Any, name: str) -> np.ndarray:
    arr = as_numpy(x, name)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        msg = f"`{name}` must be 1-D (one label per test example); got shape {arr.shape}."
        raise ValueError(msg)
    return arr


def mcnemar_table(y_true: Any, y_pred_a: Any, y_pred_b: Any) -> np.ndarray:
    """2 × 2 contingency table of two classifiers' correct and wrong predictions.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels of the test examples.
    y_pred_a, y_pred_b : array-like of shape (n,)
        Labels predicted by models a and b for the same examples.

    Returns
    -------
    numpy.ndarray of shape (2, 2), dtype int
        ``[[both correct, a correct and b wrong], [a wrong and b correct, both wrong]]``, the
        layout of mlxtend's ``mcnemar_table``. The off-diagonal cells are the discordant counts
        that McNemar's test uses.

    Raises
    ------
    ValueError
        When the three arrays are not 1-D or differ in length.

    Examples
    --------
    >>> from modelcompare import mcnemar_table
    >>> mcnemar_table([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], [0, 0, 1, 1, 1]).tolist()
    [[2, 2], [1, 0]]
    """
    t = _labels(y_true, "y_true")
    a = _labels(y_pred_a, "y_pred_a")
    b = _labels(y_pred_b, "y_pred_b")
    if not t.shape[0] == a.shape[0] == b.shape[0]:
        msg = (
            "`y_true`, `y_pred_a` and `y_pred_b` must have the same length; "
            f"got {t.shape[0]}, {a.shape[0]} and {b.shape[0]}."
        )
        raise ValueError(msg)
    ok_a = a == t
    ok_b = b == t
    return np.array(
        [
            [int(np.sum(ok_a & ok_b)), int(np.sum(ok_a & ~ok_b))],
            [int(np.sum(~ok_a & ok_b)), int(np.sum(~ok_a & ~ok_b))],
        ]
    )


@result_class
class McNemarResult(TestResult):
    """Result of :func:`mcnemar_test`: a test with a p-value.

    Attributes
    ----------
    statistic : float
        The chi-square statistic (1 df), or for ``exact=True`` the smaller discordant count
        min(n01, n10), the binomial test's statistic.
    pvalue : float
        Two-sided p-value; 1 when there are no discordant pairs.
    n01 : int
        Examples model a got right and model b wrong.
    n10 : int
        Examples model a got wrong and model b right.
    exact : bool
        Whether the exact binomial test was used.
    continuity_correction : bool
        Whether Edwards' continuity correction was applied (chi-square form only).
    table : numpy.ndarray
        The 2 × 2 table used.
    degenerate : bool
        True when there are no discordant pairs (the test has no information).
    """

    statistic: float
    pvalue: float
    n01: int
    n10: int
    exact: bool
    continuity_correction: bool
    table: np.ndarray
    degenerate: bool

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "n01", "n10")


def _check_table(table: Any) -> np.ndarray:
    arr = as_numpy(table, "table")
    if arr.shape != (2, 2):
        msg = f"`table` must be a 2 × 2 contingency table; got shape {arr.shape}."
        raise ValueError(msg)
    if arr.dtype.kind not in "biuf":
        msg = f"`table` must hold counts; got dtype {arr.dtype}."
        raise TypeError(msg)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.round(arr)):
        msg = f"`table` must hold non-negative whole counts; got {arr.tolist()}."
        raise ValueError(msg)
    return arr.astype(np.int64)


def mcnemar_test(
    table: Any = None,
    *,
    y_true: Any = None,
    y_pred_a: Any = None,
    y_pred_b: Any = None,
    exact: bool = False,
    continuity_correction: bool = True,
) -> McNemarResult:
    """McNemar's test of two classifiers evaluated on the same test set.

    Parameters
    ----------
    table : array-like of shape (2, 2), optional
        Counts ``[[both correct, a correct and b wrong], [a wrong and b correct, both wrong]]``
        (:func:`mcnemar_table`). Give it, or the three label vectors.
    y_true, y_pred_a, y_pred_b : array-like of shape (n,), optional
        True labels and the two models' predictions, from which the table is built.
    exact : bool
        Use the exact two-sided binomial test on the discordant pairs instead of the chi-square
        approximation (recommended when n01 + n10 < 25).
    continuity_correction : bool
        Edwards' continuity correction of the chi-square statistic (ignored when ``exact``).

    Returns
    -------
    McNemarResult
        Statistic, p-value and the discordant counts.

    Raises
    ------
    ValueError
        When neither or both of ``table`` and the label vectors are given, or the table is not a
        2 × 2 table of non-negative counts.

    Warns
    -----
    DegenerateDataWarning
        When there are no discordant pairs (statistic 0, p = 1, ``degenerate=True``).

    Notes
    -----
    H0: the two **fixed, already trained** classifiers have the same error rate on the population
    the test set was drawn from (the discordant pairs split 50:50). With n01, n10 the discordant
    counts,

    .. math:: \\chi^2 = \\frac{(|n_{01} - n_{10}| - 1)^2}{n_{01} + n_{10}} \\sim \\chi^2_1,

    without the −1 when ``continuity_correction=False``; the exact test's p-value is
    ``min(1, 2 · Binom(n01 + n10, 1/2).cdf(min(n01, n10)))``. These are the formulas of
    Dietterich (1998, §3.1) and of mlxtend's ``mcnemar``, which this function equals, with one
    deliberate difference: the continuity-corrected numerator is ``max(|n01 − n10| − 1, 0)²``,
    so equal discordant counts give 0 (p = 1), where mlxtend gives ``1/(n01 + n10)``, which
    would count perfectly balanced evidence as evidence against H0.

    The test does not account for the variability of training: it compares two models, not two
    learning algorithms. Retraining both on resampled data and testing again does not keep its
    size (see the CV user guide); the 5×2cv tests (:func:`paired_ttest_5x2cv`) compare learners.

    References
    ----------
    .. [1] Q. McNemar, "Note on the sampling error of the difference between correlated
       proportions or percentages", Psychometrika 12, 1947.
    .. [2] T. G. Dietterich, "Approximate statistical tests for comparing supervised
       classification learning algorithms", Neural Computation 10(7), 1998.

    Examples
    --------
    >>> from modelcompare import mcnemar_test
    >>> res = mcnemar_test([[9959, 11], [1, 29]])
    >>> round(res.statistic, 4), round(res.pvalue, 6)
    (6.75, 0.009375)
    >>> round(mcnemar_test([[9959, 11], [1, 29]], exact=True).pvalue, 6)
    0.006348
    """
    exact = check_bool(exact, "exact")
    continuity_correction = check_bool(continuity_correction, "continuity_correction")
    labels = (y_true, y_pred_a, y_pred_b)
    if table is None:
        if any(v is None for v in labels):
            msg = "pass `table`, or all of `y_true`, `y_pred_a` and `y_pred_b`."
            raise ValueError(msg)
        tb = mcnemar_table(*labels)
    else:
        if any(v is not None for v in labels):
            msg = "pass either `table` or the label vectors `y_true`, `y_pred_a`, `y_pred_b`."
            raise ValueError(msg)
        tb = _check_table(table)
    n01, n10 = int(tb[0, 1]), int(tb[1, 0])
    n = n01 + n10
    if n == 0:
        warnings.warn(
            "mcnemar_test: no discordant pairs (both models are right and wrong on the same "
            "examples); statistic 0 and p = 1 (flagged degenerate).",
            DegenerateDataWarning,
            stacklevel=2,
        )
        stat, p = 0.0, 1.0
    elif exact:
        stat = float(min(n01, n10))
        p = min(1.0, 2.0 * float(stats.binom.cdf(min(n01, n10), n, 0.5)))
    else:
        gap = abs(n01 - n10)
        if continuity_correction:
            gap = max(gap - 1, 0)
        stat = gap * gap / n
        p = float(stats.chi2.sf(stat, 1))
    if math.isnan(p):  # cannot happen for finite counts; keep the protocol's promise anyway
        p = 1.0
    return McNemarResult(
        statistic=float(stat),
        pvalue=float(p),
        n01=n01,
        n10=n10,
        exact=exact,
        continuity_correction=continuity_correction,
        table=tb,
        degenerate=n == 0,
    )
