"""Multiplicity corrections shared by the posterior tests (Holm 1979; Bonferroni)."""

from __future__ import annotations

import numpy as np

from modelcompare._foundation.stats import holm_adjust

__all__ = ["EVAL_CORRECTIONS", "adjust_pvalues", "overall_pvalue"]

#: The corrections across evaluation points that the local tests offer.
EVAL_CORRECTIONS = ("holm", "bonferroni")


def adjust_pvalues(p: np.ndarray, how: str = "holm") -> np.ndarray:
    """Adjust a 1-D array of p-values for multiplicity.

    ``"holm"``: the step-down adjusted values max_{j ≤ i} (k − j + 1) p_(j), capped at 1 (Holm 1979);
    ``"bonferroni"``: min(1, k p_i). Both give the same smallest value, min(1, k · min_i p_i).
    """
    p = np.asarray(p, dtype=float)
    if how == "bonferroni":
        return np.minimum(1.0, p.size * p)
    return holm_adjust(p)


def overall_pvalue(p: np.ndarray) -> float:
    """The smallest Holm-adjusted p-value, min(1, k · min_i p_i): Holm's family-wise p-value."""
    return float(holm_adjust(np.asarray(p, dtype=float).reshape(-1)).min())
