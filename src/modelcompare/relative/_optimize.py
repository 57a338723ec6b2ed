"""Pieces of the Rel-UME and Rel-FSSD flow: parameter objects, row pairing, the train/test split,
width and location bounds, and the L-BFGS-B maximiser of the power criterion.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import minimize

from modelcompare._foundation.threads import thread_limits
from modelcompare._foundation.validation import as_numpy, check_bandwidth
from modelcompare.kernels import check_heuristic_bandwidth, meddistance
from modelcompare.relative._presets import OptimOptions

__all__ = [
    "Bounds",
    "CritGrad",
    "FSSDParams",
    "GaussianLocationParams",
    "UMEParams",
    "check_locations",
    "default_sigma2_bounds",
    "location_bounds",
    "maximise_criterion",
    "pair_rows",
    "pooled_meddistance",
    "pooled_random_rows",
    "pooled_rows",
    "split_indices",
]

_MED_SUBSAMPLE = 1000


@dataclass(frozen=True, eq=False)
class GaussianLocationParams:
    """A Gaussian width and test locations (base of :class:`UMEParams` and :class:`FSSDParams`)."""

    bandwidth: float
    locations: np.ndarray
    criterion: float | None = None
    n_iter: int | None = None
    converged: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "bandwidth", check_bandwidth(self.bandwidth, "bandwidth"))
        locs = np.array(self.locations, dtype=float)
        if locs.ndim != 2 or locs.shape[0] < 1 or locs.shape[1] < 1:
            msg = (
                "`locations` must be a finite (J, d) array with at least one location (J ≥ 1); "
                f"got shape {locs.shape}."
            )
            raise ValueError(msg)
        if not np.all(np.isfinite(locs)):
            msg = "`locations` must be finite."
            raise ValueError(msg)
        locs.setflags(write=False)
        object.__setattr__(self, "locations", locs)

    @property
    def sigma2(self) -> float:
        """σ² = bandwidth², the reference code's width parameter."""
        return self.bandwidth**2

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary of the parameters (``sigma2`` included)."""
        from modelcompare._foundation.results import to_builtin

        out = to_builtin(self)
        out["sigma2"] = self.sigma2
        return out


class UMEParams(GaussianLocationParams):
    """Gaussian width and test locations of Rel-UME (from :func:`optimize_ume`, or by hand).

    Attributes
    ----------
    bandwidth : float
        Gaussian width σ in ``exp(−‖a−b‖²/(2σ²))`` (``sigma2`` = σ² is a property).
    locations : numpy.ndarray
        Test locations V, shape ``(J, d)``.
    criterion : float or None
        Power criterion reached on the training data (None when set by hand).
    n_iter : int or None
        L-BFGS-B iterations.
    converged : bool or None
        Whether L-BFGS-B reported convergence before ``max_iter``.
    """


class FSSDParams(GaussianLocationParams):
    """Gaussian width and test locations of Rel-FSSD (from :func:`optimize_fssd`, or by hand).

    Same attributes as :class:`UMEParams`.
    """


def pair_rows(
    arrays: Sequence[tuple[str, np.ndarray]],
    *,
    subsample: bool,
    rng: np.random.Generator,
    what: str,
) -> list[np.ndarray]:
    """Return the arrays with equal row counts, or raise a ValueError naming the sizes.

    With ``subsample=True`` each larger array is reduced to the smallest n by a seeded draw without
    replacement (row order kept).
    """
    rows = [a.shape[0] for _, a in arrays]
    if len(set(rows)) == 1:
        return [a for _, a in arrays]
    if not subsample:
        names = ", ".join(f"`{n}`" for n, _ in arrays[:-1]) + f" and `{arrays[-1][0]}`"
        got = ", ".join(str(r) for r in rows)
        msg = (
            f"{names} must have the same number of rows for {what}, which pairs row i of each; "
            f"got {got}. Pass `subsample=True` to draw the smallest size from each at random."
        )
        raise ValueError(msg)
    m = min(rows)
    out = []
    for _, a in arrays:
        if a.shape[0] > m:
            a = a[np.sort(rng.choice(a.shape[0], size=m, replace=False))]
        out.append(a)
    return out


def split_indices(
    n: int, train_fraction: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """kgof's split: ``int(train_fraction·n)`` training rows drawn without replacement."""
    n_tr = int(train_fraction * n)
    if n_tr < 2 or n - n_tr < 2:
        msg = (
            f"`train_fraction` = {train_fraction} leaves {n_tr} training and {n - n_tr} test rows "
            f"out of n = {n}; both need at least 2."
        )
        raise ValueError(msg)
    perm = rng.permutation(n)
    return np.sort(perm[:n_tr]), np.sort(perm[n_tr:])


def pooled_rows(arrays: Sequence[np.ndarray], idx: np.ndarray) -> np.ndarray:
    """Rows ``idx`` of ``vstack(arrays)`` without forming the stack."""
    sizes = np.cumsum([0] + [a.shape[0] for a in arrays])
    out = np.empty((len(idx), arrays[0].shape[1]))
    for k, a in enumerate(arrays):
        sel = (idx >= sizes[k]) & (idx < sizes[k + 1])
        out[sel] = a[idx[sel] - sizes[k]]
    return out


def pooled_meddistance(
    arrays: Sequence[np.ndarray], rng: np.random.Generator, names: Sequence[str] = ()
) -> float:
    """kgof's ``meddistance`` of ``vstack(arrays)`` (≤ 1000 random rows), without the stack.

    ``names`` are the arguments the arrays came from, for the message when distances overflow.
    """
    total = sum(a.shape[0] for a in arrays)
    if total > _MED_SUBSAMPLE:
        idx = np.sort(rng.choice(total, size=_MED_SUBSAMPLE, replace=False))
    else:
        idx = np.arange(total)
    return check_heuristic_bandwidth(
        meddistance(pooled_rows(arrays, idx), subsample=_MED_SUBSAMPLE, names=names)
    )


def pooled_random_rows(
    arrays: Sequence[np.ndarray], j: int, rng: np.random.Generator
) -> np.ndarray:
    """``j`` distinct random rows of ``vstack(arrays)``."""
    total = sum(a.shape[0] for a in arrays)
    if j > total:
        msg = f"`n_locations` = {j} asks for more random rows than the {total} available."
        raise ValueError(msg)
    return pooled_rows(arrays, rng.choice(total, size=j, replace=False))


def check_locations(locations: Any, d: int) -> int | np.ndarray:
    """An int J ≥ 1 (``n_locations``) or a finite (J, d) array (``locations``)."""
    if isinstance(locations, bool):
        msg = f"`locations` must be a (J, d) array; got {locations!r}."
        raise TypeError(msg)
    if isinstance(locations, int | np.integer):
        if locations < 1:
            msg = f"`n_locations` must be at least 1; got {locations}."
            raise ValueError(msg)
        return int(locations)
    arr = np.array(as_numpy(locations, "locations"), dtype=float)
    if arr.ndim == 1 and d == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2 or arr.shape[1] != d:
        msg = f"`locations` must be a (J, {d}) array; got shape {arr.shape}."
        raise ValueError(msg)
    if arr.shape[0] < 1:
        msg = f"`locations` must hold at least one location (J ≥ 1); got shape {arr.shape}."
        raise ValueError(msg)
    if not np.all(np.isfinite(arr)):
        msg = "`locations` must be finite."
        raise ValueError(msg)
    return arr


def location_bounds(arrays: Sequence[np.ndarray], frac: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-coordinate ``[min − f·std, max + f·std]`` over ``vstack(arrays)`` (std with ddof=0)."""
    n = sum(a.shape[0] for a in arrays)
    lo = np.min([a.min(axis=0) for a in arrays], axis=0)
    hi = np.max([a.max(axis=0) for a in arrays], axis=0)
    mean = sum(a.sum(axis=0) for a in arrays) / n
    var = sum(((a - mean) ** 2).sum(axis=0) for a in arrays) / n
    std = np.sqrt(var)
    return lo - frac * std, hi + frac * std


def default_sigma2_bounds(med: float, floor: float) -> tuple[float, float]:
    """``lb = max(1e-2 med², floor)``, ``ub = min(1e2 med², 1e5)`` (floor 1e-2 UME, 1e-3 FSSD)."""
    med2 = med * med
    lb = max(1e-2 * med2, floor)
    ub = min(1e2 * med2, 1e5)
    return lb, max(ub, lb)


#: ``(low, high)`` bounds on σ².
Bounds = tuple[float, float]
CritGrad = Callable[[float, np.ndarray], tuple[float, float, np.ndarray]]


def maximise_criterion(
    crit_grad: CritGrad,
    sigma0: float,
    v0: np.ndarray,
    sigma2_bounds: tuple[float, float],
    coord_bounds: tuple[np.ndarray, np.ndarray],
    opts: OptimOptions,
    *,
    fix_locations: bool = False,
) -> tuple[float, np.ndarray, float, int, bool]:
    """Maximise the criterion over x = [σ, vec(V)] with L-BFGS-B, as kmod does.

    ``crit_grad(sigma, V)`` returns ``(crit, ∂crit/∂σ, ∂crit/∂V)``. The width is parameterised by
    σ = √σ², with bounds ``[√lb, √ub]``; initial values outside the bounds are clipped by L-BFGS-B.

    Returns ``(sigma, V, crit, n_iter, converged)``.
    """
    j, d = v0.shape
    s_lo, s_hi = math.sqrt(sigma2_bounds[0]), math.sqrt(sigma2_bounds[1])
    bounds = [(s_lo, s_hi)]
    if not fix_locations:
        lo, hi = coord_bounds
        bounds += list(zip(np.tile(lo, j).tolist(), np.tile(hi, j).tolist()))

    def unpack(theta: np.ndarray) -> tuple[float, np.ndarray]:
        v = v0 if fix_locations else theta[1:].reshape(j, d)
        return float(theta[0]), v

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        sigma, v = unpack(theta)
        crit, g_sigma, g_v = crit_grad(sigma, v)
        grad = np.empty_like(theta)
        grad[0] = -g_sigma
        if not fix_locations:
            grad[1:] = -g_v.ravel()
        return -crit, grad

    x0 = np.concatenate([[sigma0], [] if fix_locations else v0.ravel()])
    # L-BFGS-B's own BLAS calls are tiny: with a threaded BLAS on a busy machine they cost ~1 ms
    # each in thread wake-ups (10x the whole fit at small n), so they run single-threaded.
    with thread_limits(1):
        res = minimize(
            objective,
            x0,
            method="L-BFGS-B",
            jac=True,
            bounds=bounds,
            tol=opts.tol_fun,
            options={"maxiter": opts.max_iter, "ftol": opts.tol_fun, "gtol": 1e-8},
        )
    sigma, v = unpack(res.x)
    return sigma, np.array(v, dtype=float), float(-res.fun), int(res.nit), bool(res.success)
