"""Workflows that combine parts: the posterior validation report, and comparisons of posterior
estimators by proper scores."""

from modelcompare.workflows._compare_posteriors import (
    PosteriorComparisonResult,
    compare_posteriors,
    plot_posterior_comparison,
)
from modelcompare.workflows._rank_posteriors import (
    PosteriorRankingResult,
    plot_posterior_ranking,
    rank_posteriors,
)
from modelcompare.workflows._report import CheckOutcome, PosteriorReport
from modelcompare.workflows._validate import ReferenceC2STResult, validate_posterior

__all__ = [
    "CheckOutcome",
    "PosteriorComparisonResult",
    "PosteriorRankingResult",
    "PosteriorReport",
    "ReferenceC2STResult",
    "compare_posteriors",
    "plot_posterior_comparison",
    "plot_posterior_ranking",
    "rank_posteriors",
    "validate_posterior",
]
