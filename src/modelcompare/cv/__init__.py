"""Cross-validated model comparison: corrected and Bayesian t-tests, all-pairs tables, and
many-models × many-data-sets tests (Friedman, Nemenyi, Wilcoxon–Holm, Bayesian signed-rank)."""

from ._bayes import BayesianTTestResult, bayesian_ttest
from ._pairwise import adjust_pvalues, compare_models
from ._scores import SplitSizes, scores_from_cv_results, split_sizes
from ._ttest import CorrectedTTestResult, corrected_ttest

__all__ = [
    "BayesianTTestResult",
    "CorrectedTTestResult",
    "SplitSizes",
    "adjust_pvalues",
    "bayesian_ttest",
    "compare_models",
    "corrected_ttest",
    "scores_from_cv_results",
    "split_sizes",
]
