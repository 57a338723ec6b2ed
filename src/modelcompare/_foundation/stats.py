"""Small statistical helpers that more than one part uses."""

from __future__ import annotations

import math

from scipy import stats

from modelcompare._foundation.results import ConfidenceInterval
from modelcompare._foundation.validation import check_fraction

__all__ = ["t_interval"]


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
