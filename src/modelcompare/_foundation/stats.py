"""Small statistical helpers that more than one part uses."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from modelcompare._foundation.results import ConfidenceInterval
from modelcompare._foundation.validation import check_fraction

__all__ = ["holm_adjust", "t_interval"]


def t_interval(
    mean: float, se: float, df: float, confidence_level: float, alternative: str
) -> ConfidenceInterval:
    """Student-t interval ``mean ± t_df.ppf(...)·se``; one-sided bounds follow ``alternative``."""
    level = check_fraction(confidence_level, "confidence_level")
    if alternative == "two-sided":
        q = stats.t.ppf(0.5 + level / 2.0, df)
        return ConfidenceInterval(mean - q * se, mean + q * se)
    q = stats.t.ppf(level, df)
    if alternative == "greater":
        return ConfidenceInterval(mean - q * se, math.inf)
    return ConfidenceInterval(-math.inf, mean + q * se)


def holm_adjust(pvalues: Any) -> np.ndarray:
    """Holm's step-down adjusted p-values, in the input order.

    With the k p-values sorted ascending, p_(1) ≤ … ≤ p_(k), the adjusted value of p_(i) is
    max_{j ≤ i} min(1, (k − j + 1) p_(j)) (Holm 1979), the values of
    ``statsmodels.stats.multitest.multipletests(method="holm")``. Rejecting the hypotheses whose
    adjusted value is ≤ α controls the family-wise error rate at α under any dependence. The
    smallest adjusted value is min(1, k · min_i p_i).

    Parameters
    ----------
    pvalues : array-like of shape (k,)
        Raw p-values in [0, 1]; k may be 0.

    Returns
    -------
    numpy.ndarray of shape (k,)
        The adjusted p-values, float.

    Raises
    ------
    ValueError
        If ``pvalues`` is not one-dimensional.

    References
    ----------
    S. Holm (1979). A simple sequentially rejective multiple test procedure. Scandinavian Journal
    of Statistics 6(2), 65-70.

    Examples
    --------
    >>> holm_adjust([0.01, 0.04, 0.03, 0.005]).round(4).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        msg = f"`pvalues` must be one-dimensional; got shape {p.shape}."
        raise ValueError(msg)
    k = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, (k - np.arange(k)) * p[order])
    out = np.empty(k)
    out[order] = np.maximum.accumulate(stepped)
    return out
