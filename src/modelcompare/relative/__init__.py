"""Relative goodness of fit: which of two models P and Q is closer to the data R, and where."""

# Rel-MMD, KID, FID (relative-mmd branch)
from ._image_metrics import KIDResult, RelFIDResult, fid, kid, relative_fid, relative_kid
from ._mmd import RelMMDResult, bounliphone_bandwidth, rel_mmd

__all__ = [
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
]
