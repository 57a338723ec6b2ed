"""modelcompare: calibrated statistics for comparing models.

Do a model's draws match the reference, and which of two models fits the data better, and where?

``import modelcompare`` needs only numpy, scipy, scikit-learn, pandas, joblib, tqdm and click; torch
and matplotlib are imported lazily by the functions that need them.
"""

from __future__ import annotations  # noqa: I001  (sections per issue, see comments)

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

# cross-validated comparison (issue 6)

# scale-out (issue 7)

__version__ = "0.1.0"

__all__ = [  # noqa: RUF022  (grouped per issue)
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

    # cross-validated comparison (issue 6)

    # scale-out (issue 7)

]
