"""The report's words and values shared by its summary, its JSON and its page."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["comparison_sentence", "nan_to_none"]


def nan_to_none(value: Any) -> Any:
    """``value`` with every non-finite float, in dicts and lists too, as None (JSON's null)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: nan_to_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [nan_to_none(v) for v in value]
    return value


def comparison_sentence(comparison: Any, alpha: float) -> str:
    """One sentence on a :func:`compare_posteriors` result: which estimator is closer, if any."""
    if not comparison.decision(alpha):
        return (
            f"Comparison: neither estimator is shown to be closer to the true posterior at "
            f"alpha = {alpha:g} (p = {comparison.pvalue:.3g})."
        )
    who = "this posterior" if comparison.statistic > 0 else "the compared estimator"
    return (
        f"Comparison: {who} is closer to the true posterior (mean log-score difference "
        f"{comparison.statistic:.3g} nats per pair, p = {comparison.pvalue:.3g})."
    )
