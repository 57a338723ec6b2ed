"""Optimiser option sets of the reference functions and of the paper's experiments.

Width bounds are stored as σ² (``sigma2_bounds``), exactly as in the reference code (kmod); the
public functions take and report bandwidths σ and convert at the boundary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from modelcompare._foundation.validation import check_choice, check_int, check_positive

__all__ = ["PRESETS", "OptimOptions", "resolve_options"]


@dataclass(frozen=True)
class OptimOptions:
    """Resolved options of the location/width optimiser (internal; σ² bounds as in kmod).

    Attributes
    ----------
    max_iter : int
        L-BFGS-B ``maxiter``.
    reg : float
        Regulariser inside the square root of the criterion, ``(D̂_P − D̂_Q) / √(ν̂ + reg)``.
    tol_fun : float
        L-BFGS-B ``tol`` and ``ftol``.
    locs_bounds_frac : float
        Locations are boxed in ``[min − f·std, max + f·std]`` per coordinate.
    sigma2_bounds : tuple of float or None
        ``(lb, ub)`` for σ²; ``None`` means the median-heuristic defaults.
    """

    max_iter: int = 100
    reg: float = 1e-3
    tol_fun: float = 1e-6
    locs_bounds_frac: float = 100.0
    sigma2_bounds: tuple[float, float] | None = None

    @property
    def bandwidth_bounds(self) -> tuple[float, float] | None:
        """The width bounds as bandwidths σ (square roots of ``sigma2_bounds``)."""
        if self.sigma2_bounds is None:
            return None
        return (math.sqrt(self.sigma2_bounds[0]), math.sqrt(self.sigma2_bounds[1]))


_DEFAULT = OptimOptions()

#: Named option sets of the paper's experiments: preset name → test ("ume" or "fssd") → options.
PRESETS: dict[str, dict[str, OptimOptions]] = {
    "default": {"ume": _DEFAULT, "fssd": _DEFAULT},
    # toy ex1 (mean shift, blobs): Rel-UME J = 1, 5; Rel-FSSD rows are the "ex1 and ex2" row.
    "paper-ex1": {
        "ume": OptimOptions(100, 1e-6, 1e-7, 50.0, (0.1, 36.0)),
        "fssd": OptimOptions(100, 1e-3, 1e-6, 100.0, (0.01, 100.0)),
    },
    # toy ex2 (RBM)
    "paper-ex2": {
        "ume": OptimOptions(100, 1e-3, 1e-6, 100.0, (0.01, 100.0)),
        "fssd": OptimOptions(100, 1e-3, 1e-6, 100.0, (0.01, 100.0)),
    },
    # ipynb/demo_kmod.ipynb
    "demo": {
        "ume": OptimOptions(100, 1e-4, 1e-7, 50.0, (0.1, 25.0)),
        "fssd": OptimOptions(100, 1e-3, 1e-7, 50.0, (0.1, 25.0)),
    },
}


def resolve_options(
    test: str,
    preset: str | None,
    *,
    max_iter: Any = None,
    reg: Any = None,
    tol_fun: Any = None,
    locs_bounds_frac: Any = None,
    bandwidth_bounds: Any = None,
) -> OptimOptions:
    """Start from ``preset`` (``None`` = the reference functions' defaults) and apply overrides.

    ``bandwidth_bounds`` is given in σ and stored as σ².
    """
    name = "default" if preset is None else check_choice(preset, "preset", tuple(PRESETS))
    base = PRESETS[name][test]
    if bandwidth_bounds is None:
        s2b = base.sigma2_bounds
    else:
        try:
            lo, hi = bandwidth_bounds
        except (TypeError, ValueError):
            msg = f"`bandwidth_bounds` must be a pair (low, high); got {bandwidth_bounds!r}."
            raise ValueError(msg) from None
        lo = check_positive(lo, "bandwidth_bounds[0]")
        hi = check_positive(hi, "bandwidth_bounds[1]")
        if lo > hi:
            msg = f"`bandwidth_bounds` must have low ≤ high; got ({lo}, {hi})."
            raise ValueError(msg)
        s2b = (lo * lo, hi * hi)
    return OptimOptions(
        max_iter=base.max_iter if max_iter is None else check_int(max_iter, "max_iter", low=1),
        reg=base.reg if reg is None else check_positive(reg, "reg", allow_zero=True),
        tol_fun=base.tol_fun if tol_fun is None else check_positive(tol_fun, "tol_fun"),
        locs_bounds_frac=(
            base.locs_bounds_frac
            if locs_bounds_frac is None
            else check_positive(locs_bounds_frac, "locs_bounds_frac", allow_zero=True)
        ),
        sigma2_bounds=s2b,
    )
