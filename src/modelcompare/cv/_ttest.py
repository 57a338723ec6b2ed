"""Nadeau–Bengio corrected repeated k-fold paired t-test."""

from __future__ import annotations

from typing import Any, ClassVar

from modelcompare._foundation.results import ConfidenceInterval, TestResult, result_class
from modelcompare._foundation.stats import t_interval
from modelcompare._foundation.validation import check_choice
from modelcompare.cv._core import (
    ALTERNATIVES,
    paired_differences,
    resolve_ratio,
    t_pvalue,
    warn_degenerate,
)

__all__ = ["CorrectedTTestResult", "corrected_ttest", "t_interval"]


@result_class
class CorrectedTTestResult(TestResult):
    """Result of :func:`corrected_ttest`: a test with a p-value.

    ``decision(alpha)`` rejects H0 (equal expected scores) iff ``pvalue <= alpha``;
    ``confidence_interval(confidence_level)`` gives the interval for E[a − b].

    Attributes
    ----------
    statistic : float
        Corrected t = d̄ / σ̂_c with σ̂_c² = var(d, ddof=1)·(1/n + n_test/n_train); its limit ±inf
        when constant differences have no spread, 0 when they are all zero (``degenerate``).
    pvalue : float
        p-value of the corrected test for ``alternative``; never NaN (the limit 0 or 1 when
        ``degenerate``).
    df : int
        Degrees of freedom, n − 1.
    mean_difference : float
        d̄ = mean(scores_a − scores_b); positive means model a scored higher.
    standard_error : float
        The corrected scale σ̂_c.
    alternative : str
        ``"two-sided"``, ``"greater"`` (H1: a better) or ``"less"``.
    test_train_ratio : float
        n_test / n_train used in the correction.
    n_splits : int
        Number of paired splits used (after any NaN splits were dropped).
    degenerate : bool
        True when the differences have zero variance (all equal); see :func:`corrected_ttest`.
    statistic_uncorrected, pvalue_uncorrected, standard_error_uncorrected : float
        The naive paired t-test (variance var(d)/n) on the same differences and ``alternative``,
        for contrast: it treats overlapping splits as independent and is far too confident.
    n_train, n_test : float or None
        The sizes passed (None when ``test_train_ratio`` was given instead).
    n_dropped : int
        Splits dropped because a score was NaN (``nan_policy="omit"``).

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import corrected_ttest
    >>> rng = np.random.default_rng(0)
    >>> a = 0.80 + 0.02 * rng.standard_normal(20)
    >>> res = corrected_ttest(a, a - 0.01 + 0.01 * rng.standard_normal(20), n_train=45, n_test=5)
    >>> res.decision(alpha=0.05), [round(float(v), 4) for v in res.confidence_interval(0.95)]
    (True, [0.0034, 0.0154])
    """

    statistic: float
    pvalue: float
    df: int
    mean_difference: float
    standard_error: float
    alternative: str
    test_train_ratio: float
    n_splits: int
    degenerate: bool
    statistic_uncorrected: float
    pvalue_uncorrected: float
    standard_error_uncorrected: float
    n_train: float | None
    n_test: float | None
    n_dropped: int

    _repr_fields: ClassVar[tuple[str, ...]] = (
        "statistic",
        "pvalue",
        "mean_difference",
        "df",
        "pvalue_uncorrected",
    )

    def confidence_interval(
        self, confidence_level: float = 0.95, *, corrected: bool = True
    ) -> ConfidenceInterval:
        """Confidence interval for the expected difference E[a − b].

        ``d̄ ± t_{df}.ppf(...) · σ̂_c`` (scipy's ``TtestResult.confidence_interval`` style): two-sided
        for ``alternative="two-sided"``, ``(low, inf)`` for ``"greater"`` and ``(-inf, high)`` for
        ``"less"``. ``corrected=False`` uses the naive scale instead. With zero variance the
        interval collapses to the point d̄.
        """
        se = self.standard_error if corrected else self.standard_error_uncorrected
        return t_interval(self.mean_difference, se, self.df, confidence_level, self.alternative)


def corrected_ttest(
    scores_a: Any,
    scores_b: Any,
    *,
    n_train: float | None = None,
    n_test: float | None = None,
    test_train_ratio: float | None = None,
    alternative: str = "two-sided",
    nan_policy: str = "raise",
) -> CorrectedTTestResult:
    """Nadeau–Bengio corrected paired t-test on per-split scores of two models.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_splits,)
        Scores of models a and b on the same splits, in the same order (e.g. the
        ``split{j}_test_score`` values of one ``cv_results_`` row each). Greater is better; negate
        losses first (scikit-learn's ``neg_*`` scorers already are).
    n_train, n_test : float
        Training and test set sizes of a split (for unequal folds, e.g. the mean sizes). Required
        unless ``test_train_ratio`` is given.
    test_train_ratio : float, optional
        n_test / n_train directly, e.g. the mean ratio over splits from :func:`split_sizes`.
    alternative : {"two-sided", "greater", "less"}
        H1 about E[a − b]: ``"greater"`` means a is better, ``"less"`` that b is better.
    nan_policy : {"raise", "omit"}
        NaN scores (failed fits) raise an error naming the split, or drop those splits.

    Returns
    -------
    CorrectedTTestResult
        Corrected statistic and p-value, the uncorrected ones for contrast,
        ``decision(alpha)`` and ``confidence_interval(confidence_level)``.

    Raises
    ------
    ValueError
        Mismatched split counts, fewer than 2 splits, NaN scores with ``nan_policy="raise"``,
        non-positive sizes, or a missing ``n_train``/``n_test``.

    Warns
    -----
    DegenerateDataWarning
        When the differences have zero variance (the result is flagged ``degenerate``).
    ModelCompareWarning
        When n_test > n_train (likely swapped arguments).

    Notes
    -----
    With d_j = a_j − b_j over n = k·r splits of r-times repeated k-fold cross-validation,

    .. math:: t = \\bar d / \\sqrt{\\hat\\sigma^2 (1/n + n_{test}/n_{train})},\\quad df = n - 1,

    where σ̂² is the ddof = 1 variance of d. The naive test divides σ̂² by n only; because the
    training sets overlap, the d_j are positively correlated (ρ ≈ n_test/(n_train + n_test)) and
    its p-values are far too small. The correction was derived for random resampling; using it for
    repeated k-fold follows Bouckaert & Frank (2004).

    The p-values use scipy's meaning of ``alternative``: ``"greater"`` is ``t.sf(t, df)``,
    ``"less"`` is ``t.cdf(t, df)``, ``"two-sided"`` is ``2·t.sf(|t|, df)``. scikit-learn's
    grid-search example calls ``t.sf(|t|, df)`` "right-tailed"; that equals half the two-sided p
    and ignores the direction. It coincides with ``alternative="greater"`` whenever a is the
    better-ranked model (t ≥ 0), which is how the example orders its pairs.

    Limits (the glossary's rule). Degenerate input never gives NaN. All-zero differences leave t
    undefined (0/0): statistic 0 and p = 1 for every alternative, never a rejection. Constant
    non-zero differences have zero variance and a non-zero mean: t is its limit ±inf and the
    p-value its limit too, 0 for "two-sided" and for the side d̄ favours, 1 for the other side,
    so ``decision(alpha)`` rejects at every level. Such a rejection rests on zero variance alone
    (identical or rounded scores produce it), so both cases set ``degenerate=True`` and issue a
    :class:`DegenerateDataWarning`.

    References
    ----------
    .. [1] C. Nadeau and Y. Bengio, "Inference for the generalization error", Machine Learning 52,
       2003. doi:10.1023/A:1024068626366.
    .. [2] R. R. Bouckaert and E. Frank, "Evaluating the replicability of significance tests for
       comparing learning algorithms", PAKDD 2004.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import corrected_ttest
    >>> a = np.array([0.80, 0.82, 0.79, 0.85, 0.81, 0.83, 0.80, 0.84, 0.82, 0.81])
    >>> b = np.array([0.78, 0.80, 0.80, 0.82, 0.79, 0.80, 0.79, 0.83, 0.80, 0.80])
    >>> res = corrected_ttest(a, b, n_train=90, n_test=10)
    >>> round(res.statistic, 3), round(res.pvalue, 3), round(res.pvalue_uncorrected, 3)
    (2.967, 0.016, 0.002)
    >>> res.decision(alpha=0.05), res.decision(alpha=0.01)
    (True, False)
    """
    check_choice(alternative, "alternative", ALTERNATIVES)
    ratio, nt, ns = resolve_ratio(n_train, n_test, test_train_ratio)
    diff = paired_differences(scores_a, scores_b, nan_policy=nan_policy)
    n = diff.n
    df = n - 1
    # t is computed on the scaled differences (scale-free); the reported errors are in score units
    se_s, se = diff.standard_error(1.0 / n + ratio)
    se_naive_s, se_naive = diff.standard_error(1.0 / n)
    stat, p = t_pvalue(diff.mean_scaled, se_s, df, alternative, all_zero=diff.all_zero)
    stat_u, p_u = t_pvalue(diff.mean_scaled, se_naive_s, df, alternative, all_zero=diff.all_zero)
    if diff.zero_spread:
        warn_degenerate(diff, "corrected_ttest")
    return CorrectedTTestResult(
        statistic=stat,
        pvalue=p,
        df=df,
        mean_difference=diff.mean,
        standard_error=se,
        alternative=alternative,
        test_train_ratio=ratio,
        n_splits=n,
        degenerate=diff.zero_spread,
        statistic_uncorrected=stat_u,
        pvalue_uncorrected=p_u,
        standard_error_uncorrected=se_naive,
        n_train=nt,
        n_test=ns,
        n_dropped=diff.n_dropped,
    )
