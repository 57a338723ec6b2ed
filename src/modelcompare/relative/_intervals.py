"""Normal intervals from a standard error, shared by the generative-model scores."""

from __future__ import annotations

from scipy import stats

from modelcompare._foundation.results import ConfidenceInterval, check_alpha

__all__ = ["normal_interval"]


def normal_interval(
    value: float,
    std_error: float,
    confidence_level: float,
    *,
    low: float = -float("inf"),
    high: float = float("inf"),
) -> ConfidenceInterval:
    """value ± z_{(1+level)/2} · std_error, clipped to [low, high].

    Examples
    --------
    >>> normal_interval(1.0, 0.5, 0.95)
    ConfidenceInterval(low=0.020018007729972975, high=1.979981992270027)
    """
    level = check_alpha(confidence_level, "confidence_level")
    z = float(stats.norm.ppf(0.5 + level / 2.0))
    return ConfidenceInterval(max(low, value - z * std_error), min(high, value + z * std_error))
