"""Cross-validated model comparison: corrected and Bayesian t-tests, all-pairs tables,
many-models × many-data-sets tests (Friedman, Nemenyi, Wilcoxon–Holm, Bayesian signed-rank) and
Dietterich's tests (McNemar, 5×2cv t and F)."""

from modelcompare._foundation.pvalues import adjust_pvalues
from modelcompare.cv._bayes import BayesianTTestResult, bayesian_ttest
from modelcompare.cv._fivebytwo import (
    CrossValidate5x2Result,
    FiveByTwoFTestResult,
    FiveByTwoTTestResult,
    combined_ftest_5x2cv,
    cross_validate_5x2,
    paired_ttest_5x2cv,
)
from modelcompare.cv._hierarchical import HierarchicalTTestResult, bayesian_hierarchical_ttest
from modelcompare.cv._mcnemar import McNemarResult, mcnemar_table, mcnemar_test
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
from modelcompare.cv._plots import (
    plot_critical_difference,
    plot_pair_probabilities,
    plot_posterior,
)
from modelcompare.cv._report import ModelComparisonReport, compare_models_report
from modelcompare.cv._scores import CVScoresResult, SplitSizes, scores_from_cv_results, split_sizes
from modelcompare.cv._ttest import CorrectedTTestResult, corrected_ttest

__all__ = [
    "BayesianSignedRankResult",
    "BayesianTTestResult",
    "CVScoresResult",
    "CorrectedTTestResult",
    "CrossValidate5x2Result",
    "FiveByTwoFTestResult",
    "FiveByTwoTTestResult",
    "FriedmanResult",
    "HierarchicalTTestResult",
    "McNemarResult",
    "ModelComparisonReport",
    "ModelComparisonResult",
    "NemenyiResult",
    "SplitSizes",
    "WilcoxonHolmResult",
    "adjust_pvalues",
    "bayesian_hierarchical_ttest",
    "bayesian_signed_rank",
    "bayesian_ttest",
    "combined_ftest_5x2cv",
    "compare_models",
    "compare_models_report",
    "corrected_ttest",
    "cross_validate_5x2",
    "friedman_test",
    "mcnemar_table",
    "mcnemar_test",
    "nemenyi_test",
    "paired_ttest_5x2cv",
    "plot_critical_difference",
    "plot_pair_probabilities",
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
