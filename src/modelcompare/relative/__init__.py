"""Relative goodness of fit: which of two models, P or Q, is closer to the data R, and where?

Sample-based tests (Rel-UME, Rel-MMD) take draws of P, Q and R; the density-based test (Rel-FSSD)
takes the scores of p and q and draws of R.
"""

from modelcompare.relative._fssd import RelFSSDResult, optimize_fssd, rel_fssd
from modelcompare.relative._maps import (
    LocationSelection,
    PowerCriterionMap,
    fssd_power_criterion_map,
    power_criterion_map,
    select_locations,
)
from modelcompare.relative._optimize import FSSDParams, UMEParams
from modelcompare.relative._plot import plot_locations_as_images, plot_power_criterion_map
from modelcompare.relative._presets import PRESETS, OptimizerOptions
from modelcompare.relative._ume import RelUMEResult, optimize_ume, rel_ume

# isort: split
# Rel-MMD, KID, FID
from modelcompare.relative._image_metrics import (
    FIDResult,
    KIDResult,
    RelFIDResult,
    fid,
    kid,
    relative_fid,
    relative_kid,
)
from modelcompare.relative._mmd import RelMMDResult, rel_mmd

__all__ = [  # noqa: RUF022 (two blocks: UME/FSSD, then MMD/KID/FID)
    "PRESETS",
    "FSSDParams",
    "LocationSelection",
    "OptimizerOptions",
    "PowerCriterionMap",
    "RelFSSDResult",
    "RelUMEResult",
    "UMEParams",
    "fssd_power_criterion_map",
    "optimize_fssd",
    "optimize_ume",
    "plot_locations_as_images",
    "plot_power_criterion_map",
    "power_criterion_map",
    "rel_fssd",
    "rel_ume",
    "select_locations",
    # Rel-MMD, KID, FID
    "FIDResult",
    "KIDResult",
    "RelFIDResult",
    "RelMMDResult",
    "fid",
    "kid",
    "rel_mmd",
    "relative_fid",
    "relative_kid",
]
