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
from modelcompare.relative._fid_stats import FIDStats, load_fid_stats
from modelcompare.relative._image_metrics import FIDResult, KIDResult, fid, kid
from modelcompare.relative._mmd import RelMMDResult, rel_mmd
from modelcompare.relative._rel_fid import RelFIDResult, rel_fid
from modelcompare.relative._rel_kid import RelKIDResult, rel_kid

# isort: split
# generative-model scores: FD on any features, FD∞, CMMD, precision/recall/density/coverage
from modelcompare.relative._cmmd import CMMDResult, cmmd
from modelcompare.relative._fd import FDInfinityResult, FDResult, fd, fd_infinity
from modelcompare.relative._prdc import PRDCResult, prdc

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
    "FIDStats",
    "KIDResult",
    "RelFIDResult",
    "RelKIDResult",
    "RelMMDResult",
    "fid",
    "kid",
    "load_fid_stats",
    "rel_fid",
    "rel_kid",
    "rel_mmd",
    # generative-model scores
    "CMMDResult",
    "FDInfinityResult",
    "FDResult",
    "PRDCResult",
    "cmmd",
    "fd",
    "fd_infinity",
    "prdc",
]

#: Earlier spellings, still served with a FutureWarning naming the new one (not in ``__all__``).
_RENAMED = {"relative_kid": "rel_kid", "relative_fid": "rel_fid"}


def __getattr__(name: str) -> object:
    if name in _RENAMED:
        # Imported here: the deprecation helper is needed only when an old name is used.
        from modelcompare._foundation.deprecation import renamed_name

        return renamed_name(__name__, name, _RENAMED)
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
