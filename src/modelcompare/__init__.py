"""modelcompare: calibrated statistics for comparing models.

Do a model's draws match the reference, and which of two models fits the data better, and where?

``import modelcompare`` needs only numpy, scipy, scikit-learn, pandas, joblib, tqdm and click; torch
and matplotlib are imported lazily by the functions that need them.
"""

from __future__ import annotations

from ._results import ConfidenceInterval
from ._warnings import (
    ConvergenceWarning,
    DegenerateDataWarning,
    MissingDependencyError,
    ModelCompareError,
    ModelCompareWarning,
    NotFittedError,
    TooFewResamplesWarning,
)

# C2ST (issue 2)
from .c2st import C2STResult, c2st

# relative fit (issue 3)
from .relative import (
    FSSDParams,
    LocationSelection,
    PowerCriterionMap,
    RelFSSDResult,
    RelUMEResult,
    UMEParams,
    fssd_power_criterion_map,
    optimize_fssd,
    optimize_ume,
    plot_power_criterion_map,
    power_criterion_map,
    rel_fssd,
    rel_ume,
    select_locations,
)

# isort: split
# Rel-MMD, KID, FID (relative-mmd branch)
from .relative import (
    KIDResult,
    RelFIDResult,
    RelMMDResult,
    bounliphone_bandwidth,
    fid,
    kid,
    rel_mmd,
    relative_fid,
    relative_kid,
)

# posterior diagnostics (issue 4)
from .posterior import (
    AffineGaussianFlow,
    AmortizedRegressor,
    ConditionalFlow,
    ConditionalGaussianModel,
    FlowCheckResult,
    GlobalCoverageResult,
    IndependenceResult,
    LC2STResult,
    LocalCoverageResult,
    LocalIndependenceResult,
    NearestNeighborRegressor,
    NflowsFlow,
    NullRegressors,
    PerAlphaRegressor,
    SBCResult,
    SbiFlow,
    TARPResult,
    ZukoFlow,
    as_flow,
    check_flow,
    fit_null_regressors,
    global_coverage_test,
    lc2st_nf,
    local_coverage_test,
    local_independence_test,
    pit,
    pit_independence_test,
    plot_global_histograms,
    plot_global_pp,
    plot_local_pp,
    plot_local_statistics,
    sbc,
    sbc_ranks,
    sbc_test,
    tarp,
)

# categorical granularity (issue 5)
from .categorical import (
    Binning,
    CategoricalReference,
    ClosenessResult,
    GranularityResult,
    adaptive_binning,
    closeness_test,
    granularity,
    perturb,
    random_binning,
    stair_distribution,
    two_sample_closeness_test,
)

# cross-validated comparison (issue 6)
from .cv import (
    BayesianSignedRankResult,
    BayesianTTestResult,
    CorrectedTTestResult,
    FriedmanResult,
    PosthocResult,
    SplitSizes,
    adjust_pvalues,
    bayesian_signed_rank,
    bayesian_ttest,
    compare_models,
    corrected_ttest,
    friedman_test,
    nemenyi_test,
    plot_critical_difference,
    plot_posterior,
    scores_from_cv_results,
    split_sizes,
    wilcoxon_holm,
)

# scale-out (issue 7)
from .c2st._many import C2STManyResult, c2st_many
from .experiments import PowerStudyResult, power_study, run_many, run_sweep

__version__ = "0.1.0"

__all__ = [
    "C2STResult",
    "ConfidenceInterval",
    "ConvergenceWarning",
    "DegenerateDataWarning",
    "MissingDependencyError",
    "ModelCompareError",
    "ModelCompareWarning",
    "NotFittedError",
    "TooFewResamplesWarning",
    "__version__",
    "c2st",
    # relative fit (issue 3)
    "FSSDParams",
    "LocationSelection",
    "PowerCriterionMap",
    "RelFSSDResult",
    "RelUMEResult",
    "UMEParams",
    "fssd_power_criterion_map",
    "optimize_fssd",
    "optimize_ume",
    "plot_power_criterion_map",
    "power_criterion_map",
    "rel_fssd",
    "rel_ume",
    "select_locations",
    # Rel-MMD, KID, FID (relative-mmd branch)
    "KIDResult",
    "RelFIDResult",
    "RelMMDResult",
    "bounliphone_bandwidth",
    "fid",
    "kid",
    "rel_mmd",
    "relative_fid",
    "relative_kid",

    # posterior diagnostics (issue 4)
    "AffineGaussianFlow",
    "AmortizedRegressor",
    "ConditionalFlow",
    "ConditionalGaussianModel",
    "FlowCheckResult",
    "GlobalCoverageResult",
    "IndependenceResult",
    "LC2STResult",
    "LocalCoverageResult",
    "LocalIndependenceResult",
    "NearestNeighborRegressor",
    "NflowsFlow",
    "NullRegressors",
    "PerAlphaRegressor",
    "SBCResult",
    "SbiFlow",
    "TARPResult",
    "ZukoFlow",
    "as_flow",
    "check_flow",
    "fit_null_regressors",
    "global_coverage_test",
    "lc2st_nf",
    "local_coverage_test",
    "local_independence_test",
    "pit",
    "pit_independence_test",
    "plot_global_histograms",
    "plot_global_pp",
    "plot_local_pp",
    "plot_local_statistics",
    "sbc",
    "sbc_ranks",
    "sbc_test",
    "tarp",

    # categorical granularity (issue 5)
    "Binning",
    "CategoricalReference",
    "ClosenessResult",
    "GranularityResult",
    "adaptive_binning",
    "closeness_test",
    "granularity",
    "perturb",
    "random_binning",
    "stair_distribution",
    "two_sample_closeness_test",

    # cross-validated comparison (issue 6)
    "BayesianSignedRankResult",
    "BayesianTTestResult",
    "CorrectedTTestResult",
    "FriedmanResult",
    "PosthocResult",
    "SplitSizes",
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
    "wilcoxon_holm",

    # scale-out (issue 7)
    "C2STManyResult",
    "PowerStudyResult",
    "c2st_many",
    "power_study",
    "run_many",
    "run_sweep",
]
