"""Bayesian correlated t-test (Corani & Benavoli 2015) with a region of practical equivalence."""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, ClassVar

import numpy as np
from scipy import stats

from modelcompare._foundation.errors import ModelCompareWarning
from modelcompare._foundation.results import (
    BayesianComparisonResult,
    ConfidenceInterval,
    result_class,
)
from modelcompare._foundation.validation import check_fraction
from modelcompare.cv._core import paired_differences, resolve_ratio, warn_degenerate

__all__ = [
    "BayesianTTestResult",
    "bayesian_ttest",
    "check_rope",
    "posterior_probs",
]

DECISIONS = ("a_better", "rope", "a_worse", "undecided")


def check_rope(rope: Any) -> tuple[float, float]:
    """Normalise ``rope``: None/0 (no ROPE), a half-width r (→ [−r, r]) or a ``(lo, hi)`` pair."""
    if rope is None:
        return 0.0, 0.0
    if isinstance(rope, numbers.Real) and not isinstance(rope, bool):
        r = float(rope)
        if not (math.isfinite(r) and r >= 0):
            msg = f"`rope` must be a finite non-negative half-width or a (low, high) pair; got {rope}."
            raise ValueError(msg)
        return -r, r
    try:
        lo, hi = (float(v) for v in rope)
    except (TypeError, ValueError):
        msg = f"`rope` must be a half-width (float) or a (low, high) pair; got {rope!r}."
        raise TypeError(msg) from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
        msg = f"`rope` must be a (low, high) pair with finite low <= high; got ({lo}, {hi})."
        raise ValueError(msg)
    if not lo <= 0.0 <= hi:
        warnings.warn(
            f"`rope` ({lo}, {hi}) does not contain 0; a region of practical equivalence usually "
            "does.",
            ModelCompareWarning,
            stacklevel=3,
        )
    return lo, hi


def posterior_probs(
    loc: float, scale: float, df: float, lo: float, hi: float
) -> tuple[float, float, float]:
    """(P(μ < lo), P(lo ≤ μ ≤ hi), P(μ > hi)) under Student-t(df, loc, scale).

    Each tail comes from the accurate side (``cdf`` left of ``loc``, ``sf`` right of it), and the
    ROPE mass is the difference of two like tails, so tiny probabilities keep their digits.
    A zero scale is a point mass at ``loc``: the ROPE is then the closed interval [lo, hi], and
    with no ROPE (lo = hi) a point mass exactly on it splits 0.5/0.5, as baycomp does.
    """
    if scale == 0.0:
        if lo == hi and loc == lo:
            return 0.5, 0.0, 0.5
        if loc < lo:
            return 1.0, 0.0, 0.0
        if loc > hi:
            return 0.0, 0.0, 1.0
        return 0.0, 1.0, 0.0
    # Standardise once; scipy's frozen t does the same (x − loc)/scale internally.
    z_lo, z_hi = (lo - loc) / scale, (hi - loc) / scale
    worse = float(stats.t.cdf(z_lo, df))
    better = float(stats.t.sf(z_hi, df))
    if hi <= loc:
        rope = float(stats.t.cdf(z_hi, df)) - worse
    elif lo >= loc:
        rope = float(stats.t.sf(z_lo, df)) - better
    else:
        rope = 1.0 - worse - better
    return worse, max(rope, 0.0), better


@result_class
class BayesianTTestResult(BayesianComparisonResult):
    """Result of :func:`bayesian_ttest`.

    Attributes
    ----------
    prob_a_better : float
        P(μ > rope high): the posterior probability that a is practically better than b.
    prob_rope : float
        P(rope low ≤ μ ≤ rope high): practical equivalence (0 without a ROPE).
    prob_a_worse : float
        P(μ < rope low): a practically worse than b.
    mean_difference : float
        Posterior location d̄ = mean(scores_a − scores_b).
    scale : float
        Posterior scale, the Nadeau–Bengio corrected σ̂_c (the ``standard_error`` of
        :func:`corrected_ttest` on the same input).
    df : int
        Posterior degrees of freedom, n − 1.
    rope : tuple of float
        The ROPE (low, high) used; (0.0, 0.0) when none.
    test_train_ratio : float
        n_test / n_train used in the correction.
    n_splits : int
        Splits used.
    degenerate : bool
        True when the differences have zero variance: the posterior is a point mass at d̄ and the
        probabilities are 0/1 (0.5/0.5 at d̄ = 0 without a ROPE).
    n_dropped : int
        Splits dropped because a score was NaN (``nan_policy="omit"``).

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import bayesian_ttest
    >>> rng = np.random.default_rng(0)
    >>> a = 0.80 + 0.02 * rng.standard_normal(20)
    >>> b = a - 0.01 + 0.01 * rng.standard_normal(20)
    >>> res = bayesian_ttest(a, b, n_train=45, n_test=5, rope=0.005)
    >>> res.decision(threshold=0.9), [round(v, 4) for v in res.credible_interval(0.95)]
    ('a_better', [0.0034, 0.0154])
    """

    prob_a_better: float
    prob_rope: float
    prob_a_worse: float
    mean_difference: float
    scale: float
    df: int
    rope: tuple[float, float]
    test_train_ratio: float
    n_splits: int
    degenerate: bool
    n_dropped: int

    _repr_fields: ClassVar[tuple[str, ...]] = (
        "prob_a_better",
        "prob_rope",
        "prob_a_worse",
        "mean_difference",
    )

    @property
    def posterior(self) -> Any:
        """The posterior of μ as a frozen ``scipy.stats.t``; None when ``degenerate``."""
        if self.scale == 0.0:
            return None
        return stats.t(self.df, loc=self.mean_difference, scale=self.scale)

    def prob_greater(self, value: float = 0.0) -> float:
        """P(μ > value); with the default 0 this is the "P(a better)" of a test without a ROPE."""
        lo = hi = float(value)
        return posterior_probs(self.mean_difference, self.scale, self.df, lo, hi)[2]

    def credible_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Equal-tailed credible interval of μ (also the HDI: the posterior is symmetric).

        Parameters
        ----------
        confidence_level : float
            Posterior mass of the interval, in (0, 1).
        """
        confidence_level = check_fraction(confidence_level, "confidence_level")
        if self.scale == 0.0:
            return ConfidenceInterval(self.mean_difference, self.mean_difference)
        low, high = stats.t.interval(
            confidence_level, self.df, loc=self.mean_difference, scale=self.scale
        )
        return ConfidenceInterval(float(low), float(high))

    def credible_intervals(self, levels: Any = (0.5, 0.75, 0.95)) -> Any:
        """Credible intervals at several levels as a pandas DataFrame (index ``level``)."""
        import pandas as pd

        rows = [(float(lv), *self.credible_interval(lv)) for lv in np.atleast_1d(levels)]
        return pd.DataFrame(rows, columns=["level", "low", "high"]).set_index("level")


def bayesian_ttest(
    scores_a: Any,
    scores_b: Any,
    *,
    n_train: float | None = None,
    n_test: float | None = None,
    test_train_ratio: float | None = None,
    rope: Any = 0.01,
    nan_policy: str = "raise",
) -> BayesianTTestResult:
    """Bayesian correlated t-test: posterior of the mean difference of two cross-validated models.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_splits,)
        Per-split scores of models a and b on the same splits (greater is better).
    n_train, n_test : float
        Training and test set sizes of a split. Required unless ``test_train_ratio`` is given.
    test_train_ratio : float, optional
        n_test / n_train directly.
    rope : float, (float, float) or None
        Region of practical equivalence: a half-width r for [−r, r] (default 0.01, as in
        scikit-learn's example for AUC), a (low, high) pair, or None/0 for none. It is a domain
        decision in the units of the score.
    nan_policy : {"raise", "omit"}
        NaN scores raise an error naming the split, or drop those splits.

    Returns
    -------
    BayesianTTestResult
        ``prob_a_better``, ``prob_rope``, ``prob_a_worse``, the posterior, and the methods
        ``decision(threshold)``, ``credible_interval(confidence_level)``,
        ``credible_intervals(levels)`` and ``prob_greater(value)``.

    Notes
    -----
    With a normal likelihood whose splits have correlation ρ = n_test/(n_train + n_test) and the
    non-informative limit of the Normal–Gamma prior, the posterior of the mean difference μ is

    .. math:: \\mu \\mid d \\sim t_{n-1}\\left(\\bar d,\\; \\hat\\sigma^2(1/n + n_{test}/n_{train})\\right),

    the same location and scale as :func:`corrected_ttest`, so P(μ > 0) equals one minus its
    ``alternative="greater"`` p-value. With equal folds n_test/n_train = 1/(k − 1), which is
    baycomp's ``CorrelatedTTest`` scale; baycomp differences are y − x, so
    ``baycomp.two_on_single(a, b, rope, runs)`` returns ``(prob_a_better, prob_rope,
    prob_a_worse)``. No multiplicity correction is applied to posterior probabilities (Benavoli
    et al. 2017).

    References
    ----------
    .. [1] G. Corani and A. Benavoli, "A Bayesian approach for comparing cross-validated algorithms
       on multiple data sets", Machine Learning 100, 2015.
    .. [2] A. Benavoli, G. Corani, J. Demšar and M. Zaffalon, "Time for a change: a tutorial for
       comparing multiple classifiers through Bayesian analysis", JMLR 18, 2017. arXiv:1606.04316.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import bayesian_ttest
    >>> a = np.array([0.80, 0.82, 0.79, 0.85, 0.81, 0.83, 0.80, 0.84, 0.82, 0.81])
    >>> b = np.array([0.78, 0.80, 0.80, 0.82, 0.79, 0.80, 0.79, 0.83, 0.80, 0.80])
    >>> res = bayesian_ttest(a, b, n_train=90, n_test=10, rope=0.01)
    >>> round(res.prob_a_better, 3), round(res.prob_rope, 3), round(res.prob_a_worse, 3)
    (0.853, 0.147, 0.0)
    >>> res.decision(threshold=0.95), res.decision(threshold=0.8)
    ('undecided', 'a_better')
    """
    lo, hi = check_rope(rope)
    ratio, _, _ = resolve_ratio(n_train, n_test, test_train_ratio)
    diff = paired_differences(scores_a, scores_b, nan_policy=nan_policy)
    n = diff.n
    _, scale = diff.standard_error(1.0 / n + ratio)
    worse, in_rope, better = posterior_probs(diff.mean, scale, n - 1, lo, hi)
    if diff.zero_spread:
        warn_degenerate(diff, "bayesian_ttest")
    return BayesianTTestResult(
        prob_a_better=better,
        prob_rope=in_rope,
        prob_a_worse=worse,
        mean_difference=diff.mean,
        scale=scale,
        df=n - 1,
        rope=(lo, hi),
        test_train_ratio=ratio,
        n_splits=n,
        degenerate=diff.zero_spread,
        n_dropped=diff.n_dropped,
    )
