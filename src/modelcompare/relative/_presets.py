"""Optimiser option sets of the reference functions and of the paper's experiments.

Width bounds are stored as σ² (``sigma2_bounds``), exactly as in the reference code (kmod); the
public functions take and report bandwidths σ and convert at the boundary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

from modelcompare._foundation.validation import (
    check_bandwidth,
    check_choice,
    check_int,
    check_positive,
)

__all__ = ["PRESETS", "OptimOptions", "OptimizerOptions", "resolve_optimizer", "resolve_options"]


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
        lo = check_bandwidth(lo, "bandwidth_bounds[0]")
        hi = check_bandwidth(hi, "bandwidth_bounds[1]")
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


@dataclass(frozen=True)
class OptimizerOptions:
    """The options of the width-and-location optimiser of Rel-UME and Rel-FSSD.

    Pass one as ``optimizer=`` to :func:`~modelcompare.rel_ume`, :func:`~modelcompare.rel_fssd`,
    :func:`~modelcompare.optimize_ume` or :func:`~modelcompare.optimize_fssd`; a bare preset name
    (``optimizer="paper-ex1"``) is short for ``OptimizerOptions(preset="paper-ex1")``. Every
    field left at ``None`` takes the preset's value for the test at hand (the presets differ
    between Rel-UME and Rel-FSSD), and the values are checked when the object is made.

    Parameters
    ----------
    preset : {"default", "paper-ex1", "paper-ex2", "demo"}
        The named option set of :data:`~modelcompare.relative.PRESETS`: ``"default"`` is the
        reference functions' own (reg 1e-3, tol_fun 1e-6, max_iter 100, locs_bounds_frac 100,
        width bounds from the median heuristic), the others are the paper's experiments.
    max_iter : int, optional
        L-BFGS-B iterations (``maxiter``).
    reg : float, optional
        The regulariser in the criterion's square root, ``(Û²_P − Û²_Q) / √(ν̂ + reg)``.
    tol_fun : float, optional
        L-BFGS-B ``tol`` and ``ftol``.
    locs_bounds_frac : float, optional
        Locations are boxed in ``[min − f·std, max + f·std]`` of the data, per coordinate.
    bandwidth_bounds : (float, float), optional
        Bounds on the width σ (the preset's, or bounds from the median heuristic, by default).

    Raises
    ------
    ValueError
        For an unknown preset or an out-of-range value (the message names the field).

    Examples
    --------
    >>> from modelcompare import OptimizerOptions
    >>> opts = OptimizerOptions(preset="paper-ex1", max_iter=50)
    >>> opts.max_iter, opts.reg is None
    (50, True)
    """

    preset: str = "default"
    max_iter: int | None = None
    reg: float | None = None
    tol_fun: float | None = None
    locs_bounds_frac: float | None = None
    bandwidth_bounds: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        check_choice(self.preset, "preset", tuple(PRESETS))
        checked = resolve_options("ume", self.preset, **self._overrides())
        for name, value in self._overrides().items():
            if value is not None and name != "bandwidth_bounds":
                object.__setattr__(self, name, getattr(checked, name))
        if self.bandwidth_bounds is not None:
            lo, hi = self.bandwidth_bounds
            object.__setattr__(self, "bandwidth_bounds", (float(lo), float(hi)))

    def _overrides(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "preset"}

    def resolve(self, test: str) -> OptimOptions:
        """The options of ``test`` (``"ume"`` or ``"fssd"``): the preset's, then the overrides."""
        return resolve_options(test, self.preset, **self._overrides())


def resolve_optimizer(optimizer: Any, *, allow_none: bool) -> OptimizerOptions | None:
    """An ``optimizer=`` argument as :class:`OptimizerOptions` (``None``: no optimisation)."""
    if optimizer is None and allow_none:
        return None
    if isinstance(optimizer, OptimizerOptions):
        return optimizer
    if isinstance(optimizer, str):
        return OptimizerOptions(preset=check_choice(optimizer, "optimizer", tuple(PRESETS)))
    names = ", ".join(repr(n) for n in PRESETS)
    none = " or None (no optimisation)" if allow_none else ""
    msg = (
        f"`optimizer` must be an OptimizerOptions, a preset name ({names}){none}; "
        f"got {optimizer!r}."
    )
    raise TypeError(msg)
