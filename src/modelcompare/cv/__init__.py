"""Cross-validated model comparison: corrected and Bayesian t-tests, all-pairs tables, and
many-models × many-data-sets tests (Friedman, Nemenyi, Wilcoxon–Holm, Bayesian signed-rank)."""

from modelcompare._foundation.pvalues import adjust_pvalues
from modelcompare.cv._bayes import BayesianTTestResult, bayesian_ttest
from modelcompare.cv._multi import (
    BayesianSignedRankResult,
    FriedmanResult,
    NemenyiResult,
    WilcoxonHolmResult,
    bayesian_signed_rank,
    friedman_test,
    nemenyi_test,
    wilcoxon_holm_test,
)
from modelcompare.cv._pairwise import ModelComparisonResult, compare_models
from modelcompare.cv._plots import plot_critical_difference, plot_posterior
from modelcompare.cv._scores import CVScoresResult, SplitSizes, scores_from_cv_results, split_sizes
from modelcompare.cv._ttest import CorrectedTTestResult, corrected_ttest

__all__ = [
    "BayesianSignedRankResult",
    "BayesianTTestResult",
    "CVScoresResult",
    "CorrectedTTestResult",
    "FriedmanResult",
    "ModelComparisonResult",
    "NemenyiResult",
    "SplitSizes",
    "WilcoxonHolmResult",
    "adjust_pvalues",
    "bayesian_signed_rank",
    "bayesian_ttest",
    "compare_models",
    "corrected_ttest",
    "friedman_test",
    "nemenyi_test",
    "plot_critical_difference",
    "plot_posterior",
    "scores_from_cv_results",
    "split_sizes",
    "wilcoxon_holm_test",
]

#: Old public names (still served, with a ``FutureWarning`` naming the new one; not in ``__all__``).
_RENAMED = {"wilcoxon_holm": "wilcoxon_holm_test"}


def __getattr__(name: str) -> object:
    from modelcompare._foundation.deprecation import renamed_name

    return renamed_name(__name__, name, _RENAMED)
