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

# categorical granularity (issue 5)

# cross-validated comparison (issue 6)

# scale-out (issue 7)

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

    # categorical granularity (issue 5)

    # cross-validated comparison (issue 6)

    # scale-out (issue 7)

]
