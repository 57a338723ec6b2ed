"""Categorical generative models: granularity evaluation by binning and closeness testing.

Regol, Kroon & Coates (ICASSP 2023): bin the sample space Ω = {0..c-1}^L into partitions of growing
granularity k and test closeness to a known reference at each level; a model's score is the finest
granularity at which it still matches.
"""

from modelcompare.categorical._binning import (
    Binning,
    adaptive_binning,
    limit_message,
    max_bins,
    random_binning,
)
from modelcompare.categorical._closeness import (
    ClosenessResult,
    closeness_test,
    l2_statistic,
    l2_statistic_variance,
    two_sample_closeness_test,
)
from modelcompare.categorical._granularity import GranularityResult, granularity
from modelcompare.categorical._plot import plot_granularity
from modelcompare.categorical._stairs import (
    CategoricalReference,
    distances,
    perturb,
    stair_distribution,
)

__all__ = [
    "Binning",
    "CategoricalReference",
    "ClosenessResult",
    "GranularityResult",
    "adaptive_binning",
    "closeness_test",
    "distances",
    "granularity",
    "l2_statistic",
    "l2_statistic_variance",
    "limit_message",
    "max_bins",
    "perturb",
    "plot_granularity",
    "random_binning",
    "stair_distribution",
    "two_sample_closeness_test",
]

#: Earlier spellings, still served with a FutureWarning naming the new one (not in ``__all__``):
#: the two kinds of closeness result are one class.
_RENAMED = {
    "ClosenessTestResult": "ClosenessResult",
    "ClosenessThresholdResult": "ClosenessResult",
}


def __getattr__(name: str) -> object:
    if name in _RENAMED:
        # Imported here: the deprecation helper is needed only when an old name is used.
        from modelcompare._foundation.deprecation import renamed_name

        return renamed_name(__name__, name, _RENAMED)
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
