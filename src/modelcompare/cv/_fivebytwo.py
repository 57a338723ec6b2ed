"""Dietterich's 5×2cv paired t-test, Alpaydın's combined 5×2cv F-test, and the 5×2 CV itself."""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np
from scipy import stats

from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.results import Result, TestResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import as_numpy, check_choice, check_n_jobs
from modelcompare.cv._core import ALTERNATIVES

__all__ = [
    "CrossValidate5x2Result",
    "FiveByTwoFTestResult",
    "FiveByTwoTTestResult",
    "combined_ftest_5x2cv",
    "cross_validate_5x2",
    "paired_ttest_5x2cv",
]

SPLITS = ("random", "stratified", "mlxtend")


def _table(x: Any, name: str) -> np.ndarray:
    arr = as_numpy(x, name)
    if arr.dtype.kind not in "biuf":
        msg = f"`{name}` must hold numeric scores; got dtype {arr.dtype}."
        raise TypeError(msg)
    if arr.size != 10 or arr.ndim not in (1, 2) or (arr.ndim == 2 and arr.shape != (5, 2)):
        msg = (
            f"`{name}` must be a 5 × 2 table of scores in (replication, fold) order "
            f"(or 10 values in that order); got shape {arr.shape}."
        )
        raise ValueError(msg)
    arr = np.asarray(arr, dtype=np.float64).reshape(5, 2)
    if not np.all(np.isfinite(arr)):
        msg = f"`{name}` must hold finite scores; got {arr.tolist()}."
        raise ValueError(msg)
    return arr


def _differences(
    scores_a: Any, scores_b: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """p_ij = a_ij − b_ij, and p / 2^e and s_i² = Σ_j (p_ij − p̄_i)² of it (Dietterich 1998).

    Both statistics are scale-free, so they are computed on p divided by the power of two just
    above max |p|: exact for ordinary scores, and neither overflowing nor underflowing for
    scores near 1e±300.
    """
    with np.errstate(over="ignore"):
        p = _table(scores_a, "scores_a") - _table(scores_b, "scores_b")
    if not np.all(np.isfinite(p)):
        msg = "the difference `scores_a` − `scores_b` overflows; rescale the scores."
        raise ValueError(msg)
    largest = float(np.max(np.abs(p)))
    ps = p if largest == 0.0 else p / math.ldexp(1.0, math.frexp(largest)[1])
    mean = ps.mean(axis=1, keepdims=True)
    with np.errstate(over="ignore", under="ignore"):  # the reported s_i², in score units
        s2 = ((p - p.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    return p, ps, ((ps - mean) ** 2).sum(axis=1), s2


@result_class
class FiveByTwoTTestResult(TestResult):
    """Result of :func:`paired_ttest_5x2cv`: a test with a p-value.

    Attributes
    ----------
    statistic : float
        t = p₁₁ / sqrt(Σ s_i² / 5); ±inf (or 0) when every s_i² is 0 (``degenerate``).
    pvalue : float
        p-value for ``alternative`` from Student's t with 5 df; never NaN.
    df : int
        5.
    alternative : str
        ``"two-sided"``, ``"greater"`` (H1: a better) or ``"less"``.
    mean_difference : float
        Mean of the ten differences a − b (for reading; the statistic uses p₁₁ only).
    differences : numpy.ndarray
        The 5 × 2 table of differences p_ij = a_ij − b_ij.
    variances : numpy.ndarray
        s_i², one per replication.
    degenerate : bool
        True when Σ s_i² = 0.
    """

    statistic: float
    pvalue: float
    df: int
    alternative: str
    mean_difference: float
    differences: np.ndarray
    variances: np.ndarray
    degenerate: bool

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "mean_difference")


@result_class
class FiveByTwoFTestResult(TestResult):
    """Result of :func:`combined_ftest_5x2cv`: a test with a p-value.

    Attributes
    ----------
    statistic : float
        f = Σ_ij p_ij² / (2 Σ_i s_i²); inf (or 0) when every s_i² is 0 (``degenerate``).
    pvalue : float
        Upper tail of F(10, 5); never NaN.
    dfn, dfd : int
        10 and 5.
    mean_difference : float
        Mean of the ten differences a − b.
    differences : numpy.ndarray
        The 5 × 2 table of differences.
    variances : numpy.ndarray
        s_i², one per replication.
    degenerate : bool
        True when Σ s_i² = 0.
    """

    statistic: float
    pvalue: float
    dfn: int
    dfd: int
    mean_difference: float
    differences: np.ndarray
    variances: np.ndarray
    degenerate: bool

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "mean_difference")


def _warn(what: str, all_zero: bool) -> None:
    tail = (
        "every difference is 0; statistic 0 and p = 1"
        if all_zero
        else "the two folds agree in every replication (zero variance); the statistic is its limit"
    )
    warnings.warn(f"{what}: {tail} (flagged degenerate).", DegenerateDataWarning, stacklevel=3)


def paired_ttest_5x2cv(
    scores_a: Any, scores_b: Any, *, alternative: str = "two-sided"
) -> FiveByTwoTTestResult:
    """Dietterich's 5×2cv paired t-test on the scores of two learners.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (5, 2)
        Scores of learners a and b in 5 replications of 2-fold cross-validation, in
        (replication, fold) order, as :func:`cross_validate_5x2` returns them; greater is better.
        Ten values in that order are accepted too.
    alternative : {"two-sided", "greater", "less"}
        H1 about E[a − b]: ``"greater"`` means a is better.

    Returns
    -------
    FiveByTwoTTestResult
        Statistic, p-value and the table of differences.

    Raises
    ------
    ValueError
        When a table is not 5 × 2 or holds non-finite scores.

    Warns
    -----
    DegenerateDataWarning
        When all s_i² are 0 (flagged ``degenerate``).

    Notes
    -----
    With p_ij = a_ij − b_ij and s_i² = (p_i1 − p̄_i)² + (p_i2 − p̄_i)² (Dietterich 1998, §3.5),

    .. math:: t = \\frac{p_{11}}{\\sqrt{\\tfrac15 \\sum_{i=1}^5 s_i^2}} \\sim t_5 .

    Only the first fold's difference enters the numerator, as in the paper. H0: the two
    learning algorithms, trained on half of the data, have the same expected score. mlxtend's
    ``paired_ttest_5x2cv`` computes the same two-sided p-value from estimators; this function
    takes the scores so any splitting (e.g. :func:`cross_validate_5x2`) can be used.

    References
    ----------
    .. [1] T. G. Dietterich, "Approximate statistical tests for comparing supervised
       classification learning algorithms", Neural Computation 10(7), 1998.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import paired_ttest_5x2cv
    >>> d = 0.01 * np.array([[2, 0], [1, 1], [0, 2], [1, 1], [1, 1]])
    >>> res = paired_ttest_5x2cv(0.8 + d, np.full((5, 2), 0.8))
    >>> round(res.statistic, 6), round(res.pvalue, 4)
    (2.236068, 0.0756)
    """
    check_choice(alternative, "alternative", ALTERNATIVES)
    p, ps, s2_scaled, s2 = _differences(scores_a, scores_b)
    total = float(s2_scaled.sum())
    first = float(ps[0, 0])
    degenerate = total == 0.0
    if degenerate:
        _warn("paired_ttest_5x2cv", bool(np.all(p == 0)))
        if first == 0.0:
            stat, pv = 0.0, 1.0
        else:
            stat = math.copysign(math.inf, first)
            pv = (
                0.0
                if alternative == "two-sided" or (first > 0) == (alternative == "greater")
                else 1.0
            )
    else:
        stat = first / math.sqrt(total / 5.0)
        if alternative == "greater":
            pv = float(stats.t.sf(stat, 5))
        elif alternative == "less":
            pv = float(stats.t.cdf(stat, 5))
        else:
            pv = min(1.0, 2.0 * float(stats.t.sf(abs(stat), 5)))
    return FiveByTwoTTestResult(
        statistic=float(stat),
        pvalue=float(pv),
        df=5,
        alternative=alternative,
        mean_difference=float(p.mean()),
        differences=p,
        variances=s2,
        degenerate=degenerate,
    )


def combined_ftest_5x2cv(scores_a: Any, scores_b: Any) -> FiveByTwoFTestResult:
    """Alpaydın's combined 5×2cv F-test on the scores of two learners.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (5, 2)
        Scores of learners a and b in 5 replications of 2-fold cross-validation, in
        (replication, fold) order; ten values in that order are accepted too.

    Returns
    -------
    FiveByTwoFTestResult
        Statistic, p-value and the table of differences.

    Raises
    ------
    ValueError
        When a table is not 5 × 2 or holds non-finite scores.

    Warns
    -----
    DegenerateDataWarning
        When all s_i² are 0 (flagged ``degenerate``).

    Notes
    -----
    With the notation of :func:`paired_ttest_5x2cv` (Alpaydın 1999),

    .. math:: f = \\frac{\\sum_{i=1}^5 \\sum_{j=1}^2 p_{ij}^2}{2 \\sum_{i=1}^5 s_i^2}
       \\sim F(10, 5),

    two-sided by construction (p_ij² has no sign). It uses all ten differences, which makes it
    more stable than the t-test's p₁₁ alone; Alpaydın reports lower type I error and higher power.
    Equal to mlxtend's ``combined_ftest_5x2cv`` on the same scores.

    References
    ----------
    .. [1] E. Alpaydın, "Combined 5 × 2 cv F test for comparing supervised classification
       learning algorithms", Neural Computation 11(8), 1999.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import combined_ftest_5x2cv
    >>> d = 0.01 * np.array([[2, 0], [1, 1], [0, 2], [1, 1], [1, 1]])
    >>> res = combined_ftest_5x2cv(0.8 + d, np.full((5, 2), 0.8))
    >>> round(res.statistic, 6), round(res.pvalue, 4)
    (1.75, 0.2789)
    """
    p, ps, s2_scaled, s2 = _differences(scores_a, scores_b)
    total = float(s2_scaled.sum())
    num = float((ps * ps).sum())
    degenerate = total == 0.0
    if degenerate:
        _warn("combined_ftest_5x2cv", num == 0.0)
        stat, pv = (0.0, 1.0) if num == 0.0 else (math.inf, 0.0)
    else:
        stat = num / (2.0 * total)
        pv = float(stats.f.sf(stat, 10, 5))
    return FiveByTwoFTestResult(
        statistic=float(stat),
        pvalue=float(pv),
        dfn=10,
        dfd=5,
        mean_difference=float(p.mean()),
        differences=p,
        variances=s2,
        degenerate=degenerate,
    )


@result_class
class CrossValidate5x2Result(Result):
    """Scores of two estimators in 5 replications of 2-fold cross-validation.

    Attributes
    ----------
    scores_a, scores_b : numpy.ndarray of shape (5, 2)
        Test scores in (replication, fold) order: fold 0 trains on the first half and tests on
        the second, fold 1 the reverse.
    splits : str
        How the halves were drawn (``"random"``, ``"stratified"`` or ``"mlxtend"``).
    scoring : str
        The scorer's description.
    seed_used : int or None
        The int that reproduces the splits (None when a Generator was passed).
    """

    scores_a: np.ndarray
    scores_b: np.ndarray
    splits: str
    scoring: str
    seed_used: int | None

    _repr_fields: ClassVar[tuple[str, ...]] = ("splits", "scoring", "seed_used")

    def ttest(self, alternative: str = "two-sided") -> FiveByTwoTTestResult:
        """:func:`paired_ttest_5x2cv` on these scores."""
        return paired_ttest_5x2cv(self.scores_a, self.scores_b, alternative=alternative)

    def ftest(self) -> FiveByTwoFTestResult:
        """:func:`combined_ftest_5x2cv` on these scores."""
        return combined_ftest_5x2cv(self.scores_a, self.scores_b)


def _halves(n: int, y: Any, splits: str, rng: np.random.Generator, seed_used: Any) -> list:
    """Five (first half, second half) index pairs."""
    from sklearn.model_selection import train_test_split

    idx = np.arange(n)
    if splits == "mlxtend":
        # mlxtend's recipe: RandomState(seed).randint(0, 32767) per replication, unstratified
        legacy = np.random.RandomState(seed_used)
        states = [int(legacy.randint(low=0, high=32767)) for _ in range(5)]
        stratify = None
    else:
        states = [int(c.integers(2**31 - 1)) for c in rng.spawn(5)]
        stratify = y if splits == "stratified" else None
    out = []
    for state in states:
        first, second = train_test_split(idx, test_size=0.5, random_state=state, stratify=stratify)
        out.append((first, second))
    return out


def _one_fold(est_a: Any, est_b: Any, X: Any, y: Any, train: Any, test: Any, scorer: Any) -> tuple:
    from sklearn.base import clone
    from sklearn.utils import _safe_indexing

    xtr, xte = _safe_indexing(X, train), _safe_indexing(X, test)
    ytr, yte = _safe_indexing(y, train), _safe_indexing(y, test)
    fa = clone(est_a).fit(xtr, ytr)
    fb = clone(est_b).fit(xtr, ytr)
    return float(scorer(fa, xte, yte)), float(scorer(fb, xte, yte))


def cross_validate_5x2(
    estimator_a: Any,
    estimator_b: Any,
    X: Any,
    y: Any,
    *,
    scoring: Any = None,
    splits: str = "random",
    seed: SeedLike = None,
    n_jobs: int | None = None,
) -> CrossValidate5x2Result:
    """Run 5 replications of 2-fold cross-validation for two scikit-learn estimators.

    Parameters
    ----------
    estimator_a, estimator_b : scikit-learn estimators
        Cloned and fitted on the same halves.
    X, y : array-like
        Data and targets.
    scoring : str or callable, optional
        A scikit-learn scoring name or scorer ``scorer(estimator, X, y)``; by default accuracy
        for classifiers and R² for regressors (the estimator's ``score``), as in mlxtend.
    splits : {"random", "stratified", "mlxtend"}
        ``"random"``: random halves (Dietterich's design) seeded from ``seed``;
        ``"stratified"``: the same, stratified by ``y``; ``"mlxtend"``: the halves mlxtend's
        ``paired_ttest_5x2cv(..., random_seed=seed)`` draws (``train_test_split`` with
        ``random_state = RandomState(seed).randint(0, 32767)`` per replication), so that its
        numbers are reproduced; needs an int ``seed``.
    seed : int, numpy.random.Generator or None
        Fixes the splits (and nothing else: seed the estimators' own ``random_state``).
    n_jobs : int, optional
        Fits run in parallel through joblib (10 tasks).

    Returns
    -------
    CrossValidate5x2Result
        The two 5 × 2 score tables, with ``ttest()`` and ``ftest()``.

    Raises
    ------
    ValueError
        For an unknown ``splits``, ``splits="mlxtend"`` without an int seed, or mismatched rows.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from modelcompare import cross_validate_5x2
    >>> X, y = load_iris(return_X_y=True)
    >>> cv = cross_validate_5x2(
    ...     LogisticRegression(max_iter=1000), DecisionTreeClassifier(random_state=0), X, y, seed=1
    ... )
    >>> cv.scores_a.shape, 0.0 <= cv.ttest().pvalue <= 1.0
    ((5, 2), True)
    """
    from joblib import Parallel, delayed
    from sklearn.metrics import check_scoring

    check_choice(splits, "splits", SPLITS)
    n_jobs = check_n_jobs(n_jobs)
    if splits == "mlxtend" and (seed is None or isinstance(seed, np.random.Generator)):
        msg = "`splits='mlxtend'` needs an int `seed` (mlxtend's `random_seed`)."
        raise ValueError(msg)
    for name, est in (("estimator_a", estimator_a), ("estimator_b", estimator_b)):
        if not (hasattr(est, "fit") and hasattr(est, "get_params")):
            msg = f"`{name}` must be a scikit-learn estimator (with fit); got {type(est).__name__}."
            raise TypeError(msg)
    for name, arr in (("X", X), ("y", y)):
        if arr is None or isinstance(arr, str | bytes) or not hasattr(arr, "__len__"):
            msg = f"`{name}` must be array-like; got {type(arr).__name__}."
            raise TypeError(msg)
    rng, seed_used = check_seed(seed)
    n = len(X)
    if n < 4:
        msg = f"`X` needs at least 4 rows for 2-fold cross-validation; got {n}."
        raise ValueError(msg)
    if len(y) != n:
        msg = f"`X` and `y` must have the same number of rows; got {n} and {len(y)}."
        raise ValueError(msg)
    scorer = check_scoring(estimator_a, scoring=scoring)
    halves = _halves(n, np.asarray(y), splits, rng, seed_used)
    tasks = [pair for first, second in halves for pair in ((first, second), (second, first))]
    out = Parallel(n_jobs=n_jobs)(
        delayed(_one_fold)(estimator_a, estimator_b, X, y, tr, te, scorer) for tr, te in tasks
    )
    arr = np.asarray(out, dtype=float).reshape(5, 2, 2)
    return CrossValidate5x2Result(
        scores_a=arr[:, :, 0],
        scores_b=arr[:, :, 1],
        splits=splits,
        scoring=str(scoring) if scoring is not None else "estimator.score",
        seed_used=seed_used,
    )
