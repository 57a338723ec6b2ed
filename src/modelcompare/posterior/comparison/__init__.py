"""Comparing posterior estimators by proper scores (Gneiting & Raftery 2007).

:func:`compare_posteriors` compares two estimators on the same calibration pairs, globally and at
local points of x; :func:`rank_posteriors` ranks several. Both need only the estimators' draws or
log-densities, so this room imports none of the calibration or local tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from modelcompare._lazy import attach

# Each name is imported from its module on first use (scientific-python SPEC 1).
if TYPE_CHECKING:
    from modelcompare.posterior.comparison._compare_posteriors import (
        PosteriorComparisonResult,
        compare_posteriors,
        plot_posterior_comparison,
    )
    from modelcompare.posterior.comparison._posterior_scores import check_log_density
    from modelcompare.posterior.comparison._rank_posteriors import (
        PosteriorRankingResult,
        plot_posterior_ranking,
        rank_posteriors,
    )

__getattr__, __dir__, _public = attach(__name__, __file__)

__all__ = [
    "PosteriorComparisonResult",
    "PosteriorRankingResult",
    "check_log_density",
    "compare_posteriors",
    "plot_posterior_comparison",
    "plot_posterior_ranking",
    "rank_posteriors",
]
