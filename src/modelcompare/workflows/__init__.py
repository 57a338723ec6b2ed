"""Workflows that combine parts: the posterior validation report and the comparison of two
generative models. The comparison of posterior estimators by proper scores lives in
:mod:`modelcompare.posterior.comparison` and is served here too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from modelcompare._lazy import attach

# Each name is imported from its module on first use (scientific-python SPEC 1), so that reading
# a constant (the command line's choices) loads none of the heavy dependencies.
if TYPE_CHECKING:
    from modelcompare.posterior.comparison import (
        PosteriorComparisonResult,
        PosteriorRankingResult,
        compare_posteriors,
        plot_posterior_comparison,
        plot_posterior_ranking,
        rank_posteriors,
    )
    from modelcompare.workflows._checks import check_names
    from modelcompare.workflows._compare_generators import (
        GeneratorComparisonResult,
        compare_generators,
    )
    from modelcompare.workflows._from_arrays import report_from_arrays
    from modelcompare.workflows._report import CheckOutcome, PosteriorValidationResult
    from modelcompare.workflows._validate import ReferenceC2STResult, validate_posterior

#: Old public names (still served, with a ``FutureWarning`` naming the new one; not in ``__all__``).
_RENAMED = {"PosteriorReport": "PosteriorValidationResult"}

__getattr__, __dir__, _public = attach(__name__, __file__, _RENAMED)

__all__ = [
    "CheckOutcome",
    "GeneratorComparisonResult",
    "PosteriorComparisonResult",
    "PosteriorRankingResult",
    "PosteriorValidationResult",
    "ReferenceC2STResult",
    "check_names",
    "compare_generators",
    "compare_posteriors",
    "plot_posterior_comparison",
    "plot_posterior_ranking",
    "rank_posteriors",
    "report_from_arrays",
    "validate_posterior",
]
