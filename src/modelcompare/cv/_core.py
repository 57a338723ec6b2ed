"""Shared arithmetic of the corrected t-test and the Bayesian correlated t-test.

One place computes the paired differences, the Nadeau–Bengio corrected scale and the guarded
Student-t tail probabilities, so that the frequentist and the Bayesian numbers stay linked exactly.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from modelcompare._foundation.errors import DegenerateDataWarning, ModelCompareWarning
from modelcompare._foundation.validation import as_numpy, check_choice, check_positive

__all__ = [
    "ALTERNATIVES",
    "NAN_POLICIES",
    "PairedDifferences",
    "check_flag",
    "paired_differences",
    "resolve_ratio",
    "t_pvalue",
]

ALTERNATIVES = ("two-sided", "greater", "less")
NAN_POLICIES = ("raise", "omit")

# A constant float vector can have a computed variance of ~1e-35 instead of 0: the spread is called
# zero when the standard deviation is below this many ulps of the largest |difference|.
_ZERO_SPREAD_ULPS = 1024.0


def check_flag(value: Any, name: str) -> bool:
    """Return ``value`` as a bool if it is one (Python or numpy); raise a TypeError naming it.

    Only real booleans are accepted: a string such as ``"false"`` is truthy and would silently
    mean True, and 0/1 are more often a slip than a choice.
    """
    if not isinstance(value, bool | np.bool_):
        msg = f"`{name}` must be True or False; got {value!r}."
        raise TypeError(msg)
    return bool(value)


def resolve_ratio(
    n_train: Any, n_test: Any, test_train_ratio: Any
) -> tuple[float, float | None, float | None]:
    """Return ``(n_test / n_train, n_train, n_test)`` from the sizes or from an explicit ratio.

    A ratio above 1 (test sets larger than training sets) is legal for the formula but unusual for
    k-fold cross-validation (it needs k < 2); it draws a :class:`ModelCompareWarning` because it is
    usually ``n_train`` and ``n_test`` swapped. A ratio of exactly 1 (2-fold CV) is silent.
    """
    if test_train_ratio is not None:
        if n_train is not None or n_test is not None:
            msg = "pass either `n_train` and `n_test`, or `test_train_ratio`, not both."
            raise ValueError(msg)
        ratio = check_positive(test_train_ratio, "test_train_ratio")
        nt, ns = None, None
    else:
        if n_train is None or n_test is None:
            missing = " and ".join(
                f"`{n}`" for n, v in (("n_train", n_train), ("n_test", n_test)) if v is None
            )
            msg = (
                f"{missing} must be given: the Nadeau–Bengio correction needs the training and test "
                "set sizes of one split (or pass `test_train_ratio`)."
            )
            raise ValueError(msg)
        nt = check_positive(n_train, "n_train")
        ns = check_positive(n_test, "n_test")
        ratio = ns / nt
    if ratio > 1.0:
        warnings.warn(
            f"n_test/n_train = {ratio:.4g} > 1: test sets larger than training sets are unusual for "
            "k-fold cross-validation; check that `n_train` and `n_test` are not swapped.",
            ModelCompareWarning,
            stacklevel=3,
        )
    return ratio, nt, ns


@dataclass(frozen=True)
class PairedDifferences:
    """Paired differences d = a − b and their summary (private helper object).

    The summary is computed on d / ``scale``, with ``scale`` the power of two just above max |d|,
    so that scores of any magnitude (1e300 or 1e-300) give the same statistic: dividing by a power
    of two is exact, so ordinary scores give bit-for-bit the values of the unscaled formulas, and
    the variance of huge or tiny differences neither overflows nor underflows.
    """

    d: np.ndarray
    mean: float
    var: float  # ddof = 1; may overflow to inf or underflow to 0 for extreme scores (informative)
    n: int
    n_dropped: int
    all_zero: bool
    zero_spread: bool
    scale: float = 1.0  # a power of two, >= max |d| (1.0 when every difference is 0)
    mean_scaled: float = 0.0  # mean(d / scale)
    var_scaled: float = 0.0  # var(d / scale, ddof=1)

    def standard_error(self, factor: float) -> tuple[float, float]:
        """``(se / scale, se)`` with se = sqrt(var · factor), computed without overflow."""
        scaled = math.sqrt(self.var_scaled * factor)
        return scaled, scaled * self.scale


def _scores_vector(x: Any, name: str) -> np.ndarray:
    arr = as_numpy(x, name)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        msg = f"`{name}` must be 1-D (one score per split); got shape {arr.shape}."
        raise ValueError(msg)
    if arr.dtype.kind not in "biuf":
        msg = f"`{name}` must hold numeric scores; got dtype {arr.dtype}."
        raise TypeError(msg)
    arr = np.asarray(arr, dtype=np.float64)
    if np.isinf(arr).any():
        j = int(np.flatnonzero(np.isinf(arr))[0])
        msg = f"`{name}` holds inf at split {j}; scores must be finite."
        raise ValueError(msg)
    return arr


def paired_differences(
    scores_a: Any,
    scores_b: Any,
    *,
    nan_policy: str = "raise",
    names: tuple[str, str] = ("scores_a", "scores_b"),
) -> PairedDifferences:
    """Validate two per-split score vectors and return their paired differences.

    NaN scores (failed fits, ``error_score=np.nan``) raise a ValueError naming the argument and the
    split, unless ``nan_policy="omit"``, which drops every split where either score is NaN.
    """
    check_choice(nan_policy, "nan_policy", NAN_POLICIES)
    a = _scores_vector(scores_a, names[0])
    b = _scores_vector(scores_b, names[1])
    if a.shape[0] != b.shape[0]:
        msg = (
            f"`{names[0]}` and `{names[1]}` must hold one score per split for the same splits; "
            f"got {a.shape[0]} and {b.shape[0]} splits."
        )
        raise ValueError(msg)
    bad = np.isnan(a) | np.isnan(b)
    n_dropped = 0
    if bad.any():
        if nan_policy == "raise":
            which = [n for n, v in ((names[0], a), (names[1], b)) if np.isnan(v).any()]
            splits = np.flatnonzero(bad).tolist()
            shown = ", ".join(str(s) for s in splits[:10]) + (", ..." if len(splits) > 10 else "")
            msg = (
                f"NaN score(s) in {', '.join(f'`{w}`' for w in which)} at split(s) {shown} "
                "(a failed fit?); fix the fits or pass nan_policy='omit' to drop those splits."
            )
            raise ValueError(msg)
        n_dropped = int(bad.sum())
        a, b = a[~bad], b[~bad]
    n = a.shape[0]
    if n < 2:
        msg = (
            f"the corrected t-test needs at least 2 paired splits; got {n}"
            + (f" after dropping {n_dropped} with NaN" if n_dropped else "")
            + "."
        )
        raise ValueError(msg)
    with np.errstate(over="ignore"):
        d = a - b
    if np.isinf(d).any():
        j = int(np.flatnonzero(np.isinf(d))[0])
        msg = (
            f"the difference `{names[0]}` − `{names[1]}` overflows at split {j}; rescale the "
            "scores (the test is invariant to a common scale)."
        )
        raise ValueError(msg)
    largest = float(np.max(np.abs(d)))
    all_zero = largest == 0.0
    # A power of two: d / scale is exact, and the statistics below are scale-free.
    scale = 1.0 if all_zero else math.ldexp(1.0, min(math.frexp(largest)[1], 1023))
    ds = d / scale
    mean_s = float(np.mean(ds))
    var_s = float(np.var(ds, ddof=1))
    zero_spread = all_zero or math.sqrt(var_s) <= _ZERO_SPREAD_ULPS * np.finfo(float).eps * (
        largest / scale
    )
    if zero_spread:
        var_s = 0.0
    with np.errstate(over="ignore", under="ignore"):
        var = float(np.float64(var_s) * scale * scale)
    return PairedDifferences(
        d, mean_s * scale, var, n, n_dropped, all_zero, zero_spread, scale, mean_s, var_s
    )


def warn_degenerate(diff: PairedDifferences, what: str) -> None:
    """Issue the DegenerateDataWarning for zero-variance differences."""
    if diff.all_zero:
        msg = f"{what}: every paired difference is exactly 0; statistic 0 and p = 1 (flagged)."
    else:
        msg = (
            f"{what}: the paired differences are constant ({diff.mean:.6g}); zero variance, so the "
            "statistic is its limit ±inf and a rejection rests on zero variance alone (identical "
            "or rounded scores?); flagged degenerate=True."
        )
    warnings.warn(msg, DegenerateDataWarning, stacklevel=3)


def t_pvalue(
    mean: float, se: float, df: float, alternative: str, *, all_zero: bool
) -> tuple[float, float]:
    """Statistic ``mean/se`` and its Student-t p-value, guarded against zero ``se``.

    Zero ``se``: all-zero differences give (0, 1) for every alternative; a non-zero constant gives
    ±inf and p = 0 on the side it favours (1 on the other; 0 for two-sided). Never NaN.
    """
    if se == 0.0:
        if all_zero or mean == 0.0:
            return 0.0, 1.0
        stat = math.copysign(math.inf, mean)
        if alternative == "two-sided":
            return stat, 0.0
        favoured = (mean > 0) == (alternative == "greater")
        return stat, 0.0 if favoured else 1.0
    stat = mean / se
    if alternative == "greater":
        p = stats.t.sf(stat, df)
    elif alternative == "less":
        p = stats.t.cdf(stat, df)
    else:
        p = min(1.0, 2.0 * stats.t.sf(abs(stat), df))
    return float(stat), float(p)
