"""Rel-MMD: the quadratic-time relative similarity test of Bounliphone et al. (2016).

The statistic, variance and cross-covariance follow the authors' Python translation used by
Jitkrittum et al. (2018) (``kmod.mctest.SC_MMD`` with ``freqopttest.tst.QuadMMDTest``), but every sum
is formed from row sums of Gram matrices computed in symmetric tiles: O(n²) time and O(n) memory
beyond a few tiles, where the reference forms full n×n matrix products (O(n³) time, O(n²) memory).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.deprecation import renamed_parameters
from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.resources import check_memory
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    check_bandwidth,
    check_bool,
    check_choice,
    check_int,
    check_same_width,
    check_samples,
)
from modelcompare.kernels import GaussianKernel, check_heuristic_bandwidth, sq_distances
from modelcompare.relative._core import guarded_pvalue

__all__ = ["RelMMDResult", "rel_mmd"]

Kernel = Callable[[np.ndarray, np.ndarray], np.ndarray]

#: Edge of the square Gram-matrix tiles (1024² float64 = 8 MiB).
_DEFAULT_TILE = 1024
#: Tiles alive at once in :func:`rel_mmd_moments` (about ten, with the kernel's temporaries).
_LIVE_TILES = 10
BANDWIDTH_METHODS = ("kmod", "matlab")
#: Estimators of the variance of the √n-scaled difference of the two MMD²_u.
VARIANCES = ("bounliphone", "ustat")


@result_class
class RelMMDResult(TestResult):
    """Result of :func:`rel_mmd`: a test with a p-value.

    Attributes
    ----------
    statistic : float
        √n (MMD²_u(P, R) − MMD²_u(Q, R)). Can be negative.
    pvalue : float
        One-sided p-value ``norm.sf(statistic, scale=√variance)`` of H0 "P is at least as close to R
        as Q"; 1.0 when the variance is degenerate. ``decision(alpha)`` rejects when
        ``pvalue <= alpha``: Q fits R better than P.
    variance : float
        Estimate ν̂ of the variance of the √n-scaled statistic, by ``variance_method``.
    variance_method : str
        ``"bounliphone"``: the plug-in ν̂ = n (var_p − 2 cov_pq + var_q) of Bounliphone et al.
        (2016), which can be negative; ``"ustat"``: 4 × the sample variance of the row means of
        the difference U-statistic's kernel, never negative (see :func:`rel_mmd`).
    mmd2_p, mmd2_q : float
        The unbiased estimates MMD²_u(X, Z) and MMD²_u(Y, Z).
    var_p, var_q : float
        Variance estimates of ``mmd2_p`` and ``mmd2_q`` (each carries the 1/n factor).
    cov_pq : float
        Covariance estimate of ``mmd2_p`` and ``mmd2_q`` through the shared Z.
    n : int
        Sample size (of each of X, Y and Z).
    kernel : str
        Description of the kernel.
    bandwidth, sigma2 : float or None
        Gaussian width σ and σ² (None for a non-Gaussian kernel).
    bandwidth_method : str or None
        ``"given"``, ``"kmod"`` or ``"matlab"``; None for a non-Gaussian kernel.
    degenerate : bool
        True when ν̂ is not finite or √max(ν̂, 0) ≤ 1e-6; ``pvalue`` is then 1.
    subsampled : bool
        True when unequal samples were subsampled to the smallest size.
    seed_used : int or None
        Seed reproducing the random choices (median subsample, subsampling).

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import rel_mmd
    >>> rng = np.random.default_rng(0)
    >>> x, y, z = (rng.normal(size=(200, 2)) + [s, 0.0] for s in (1.0, 0.0, 0.0))
    >>> res = rel_mmd(x, y, z, seed=0)
    >>> res.decision(alpha=0.05), res.bandwidth_method, res.n
    (True, 'kmod', 200)
    """

    statistic: float
    pvalue: float
    variance: float
    variance_method: str
    mmd2_p: float
    mmd2_q: float
    var_p: float
    var_q: float
    cov_pq: float
    n: int
    kernel: str
    bandwidth: float | None
    sigma2: float | None
    bandwidth_method: str | None
    degenerate: bool
    subsampled: bool
    seed_used: int | None

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "variance", "n")


# --------------------------------------------------------------------------------------------------
# width heuristic
# --------------------------------------------------------------------------------------------------


def _positive_or_fallback(med: float, values: np.ndarray, what: str) -> float:
    """Return ``med`` if positive, else the mean of ``values`` (or 1.0), with a warning."""
    if med > 0:
        return med
    mean = float(values.mean()) if values.size else 0.0
    fallback = mean if mean > 0 else 1.0
    warnings.warn(
        f"The median {what} is 0 (tied data); using {fallback:.6g} instead.",
        DegenerateDataWarning,
        stacklevel=3,
    )
    return fallback


def _bounliphone_bandwidth(
    x: Any,
    y: Any,
    z: Any,
    *,
    method: str = "kmod",
    max_rows: int = 1000,
    seed: SeedLike = None,
) -> float:
    """Gaussian width σ of Bounliphone et al.'s median heuristic.

    Parameters
    ----------
    x, y : array-like, shape (n, d)
        Samples of the models P and Q.
    z : array-like, shape (n, d)
        Reference sample of R.
    method : {"kmod", "matlab"}
        ``"kmod"`` (default) is the translation used for the paper's experiments
        (``kmod.mctest.SC_MMD.median_heuristic_bounliphone``):
        σ² = ½ · mean(√median‖y_i − z_j‖², √median‖x_i − z_j‖²)².
        ``"matlab"`` is the original Matlab code read literally: σ = mean_j √(median D_j / 2), with
        D_j the (non-squared) distances between the reference and model j.
    max_rows : int
        The same ≤ ``max_rows`` random row indices are used for x, y and z; the medians run over
        all cross pairs of these rows, i = j included.
    seed : int, Generator or None
        Random source for the subsample (kmod fixes its own seed 287; we use the caller's).

    Returns
    -------
    float
        The bandwidth σ (not σ²).

    Notes
    -----
    The Matlab code takes the square root of a *distance*, which is dimensionally odd; kmod assumes
    the distances were squared and that the kernel had no factor 2. The two widths differ whenever
    the median distance is not 1. A median of 0 (tied data) falls back to the mean distance, with a
    :class:`~modelcompare.DegenerateDataWarning`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x, y, z = (rng.normal(size=(200, 2)) for _ in range(3))
    >>> round(_bounliphone_bandwidth(x, y, z, seed=0), 3) > 0
    True
    """
    x = check_samples(x, "x")
    y = check_samples(y, "y")
    z = check_samples(z, "z")
    check_same_width([("x", x), ("y", y), ("z", z)])
    method = check_choice(method, "method", BANDWIDTH_METHODS)
    max_rows = check_int(max_rows, "max_rows", low=2)
    n = equal_rows(x, y, z, what="the Bounliphone width", hint=False)
    rng, _ = check_seed(seed)
    if n > max_rows:
        idx = rng.choice(n, size=max_rows, replace=False)
        x, y, z = x[idx], y[idx], z[idx]
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused by the caller
        d2_yz = sq_distances(y, z).ravel()
        d2_xz = sq_distances(x, z).ravel()
    if not (np.isfinite(d2_yz).all() and np.isfinite(d2_xz).all()):
        largest = max(float(np.max(np.abs(a))) for a in (x, y, z))
        msg = (
            f"the distances between `x`, `y` and `z` overflow float64 (largest |value| "
            f"{largest:.3g}), "
            "so Bounliphone et al.'s median heuristic is undefined; standardise the data."
        )
        raise ValueError(msg)
    if method == "kmod":
        med_yz = _positive_or_fallback(float(np.median(d2_yz)) ** 0.5, np.sqrt(d2_yz), "distance")
        med_xz = _positive_or_fallback(float(np.median(d2_xz)) ** 0.5, np.sqrt(d2_xz), "distance")
        return math.sqrt(0.5) * 0.5 * (med_yz + med_xz)
    med_p = _positive_or_fallback(float(np.median(np.sqrt(d2_xz))), np.sqrt(d2_xz), "distance")
    med_q = _positive_or_fallback(float(np.median(np.sqrt(d2_yz))), np.sqrt(d2_yz), "distance")
    return 0.5 * (math.sqrt(med_p / 2.0) + math.sqrt(med_q / 2.0))


# --------------------------------------------------------------------------------------------------
# the O(n²) moments
# --------------------------------------------------------------------------------------------------


def equal_rows(x: np.ndarray, y: np.ndarray, z: np.ndarray, *, what: str, hint: bool = True) -> int:
    if not x.shape[0] == y.shape[0] == z.shape[0]:
        msg = (
            f"`x`, `y` and `z` must have the same number of rows for {what}; got "
            f"{x.shape[0]}, {y.shape[0]}, {z.shape[0]}."
        )
        if hint:
            msg += " Pass `subsample=True` to subsample each to the smallest size (seeded)."
        raise ValueError(msg)
    return x.shape[0]


class _Tiles:
    """Kernel tiles K_ab[I, J] for the samples ``{"x", "y", "z"}``.

    A :class:`~modelcompare.kernels.GaussianKernel` takes a fast path: the data are centred on the
    mean of z (the kernel is translation invariant; centring reduces cancellation in
    ‖a‖² + ‖b‖² − 2a·b) and each tile is one matrix product, two broadcast subtractions and an
    in-place exp. Any other kernel is called on the tile's rows.
    """

    def __init__(self, kernel: Kernel, data: dict[str, np.ndarray]) -> None:
        self.kernel = kernel
        self.gauss = type(kernel) is GaussianKernel
        self.tiny_width = False
        if self.gauss:
            sigma2 = kernel.sigma2  # type: ignore[attr-defined]
            center = data["z"].mean(axis=0)
            self.data = {k: v - center for k, v in data.items()}
            norms = {k: np.einsum("ij,ij->i", v, v) for k, v in self.data.items()}
            # With a tiny width ‖a‖²/σ² can overflow in the fast form: then form the distances
            # first and scale them (exp of −inf is an exact 0).
            largest = max(float(v.max(initial=0.0)) for v in norms.values())
            self.tiny_width = largest / sigma2 > 1e300
            self.sigma2 = sigma2
            if not self.tiny_width:
                self.scaled = {k: v / sigma2 for k, v in self.data.items()}
                self.half_norm = {k: v / (2.0 * sigma2) for k, v in norms.items()}
        else:
            self.data = data

    def __call__(self, a: str, b: str, rows: slice, cols: slice) -> np.ndarray:
        if self.gauss and self.tiny_width:
            tile = sq_distances(self.data[a][rows], self.data[b][cols])
            with np.errstate(over="ignore"):
                tile *= -0.5 / self.sigma2
            return np.exp(tile, out=tile)
        if self.gauss:
            tile = self.scaled[a][rows] @ self.data[b][cols].T
            tile -= self.half_norm[a][rows, None]
            tile -= self.half_norm[b][None, cols]
            np.minimum(tile, 0.0, out=tile)
            return np.exp(tile, out=tile)
        left, right = self.data[a][rows], self.data[b][cols]
        with np.errstate(over="ignore", invalid="ignore"):  # non-finite tiles are refused below
            tile = np.array(self.kernel(left, right), dtype=np.float64)
        if tile.shape != (left.shape[0], right.shape[0]):
            msg = (
                f"`kernel` must return a Gram matrix of shape ({left.shape[0]}, "
                f"{right.shape[0]}); got {tile.shape}."
            )
            raise ValueError(msg)
        with np.errstate(over="ignore", invalid="ignore"):
            total = np.add.reduce(tile, axis=None)  # one cheap pass; look closer only if not finite
        if not np.isfinite(total) and not np.isfinite(tile).all():
            msg = (
                f"`kernel` returned NaN or inf on rows {rows.start}–{rows.stop - 1} of `{a}` and "
                f"{cols.start}–{cols.stop - 1} of `{b}`; a kernel must give finite values (a "
                "polynomial kernel overflows on features of large magnitude: standardise them)."
            )
            raise ValueError(msg)
        return tile


class _PairSums:
    """Running sums for one MMD²_u(A, Z) and its variance (A = X or Y)."""

    def __init__(self, name: str, n: int) -> None:
        self.name = name
        self.r_a = np.zeros(n)  # row sums of K̃aa
        self.rows_az = np.zeros(n)  # row sums of Kaz (index a)
        self.cols_az = np.zeros(n)  # column sums of Kaz (index z)
        self.fro_aa = 0.0  # ‖K̃aa‖²_F
        self.fro_az = 0.0  # ‖Kaz‖²_F
        self.trace_az = 0.0  # Σ_i k(a_i, z_i)
        self.second = 0.0  # Σ_ij (K̃aa + K̃zz − K̃az − K̃azᵀ)²_ij
        self.diag_az = np.zeros(n)  # k(a_i, z_i)

    def _cross(self, k_az: np.ndarray, rows: slice, cols: slice) -> None:
        self.rows_az[rows] += k_az.sum(axis=1)
        self.cols_az[cols] += k_az.sum(axis=0)
        self.fro_az += float(np.vdot(k_az, k_az))

    def add_tile(
        self, tiles: _Tiles, rows: slice, cols: slice, k_zz: np.ndarray, *, diagonal: bool
    ) -> None:
        """Accumulate tile (rows, cols) and, off the diagonal, its mirror (cols, rows).

        ``k_zz`` is K̃zz[rows, cols] (diagonal already zeroed on a diagonal tile).
        """
        a = self.name
        k_aa = tiles(a, a, rows, cols)
        if diagonal:
            np.fill_diagonal(k_aa, 0.0)
        self.r_a[rows] += k_aa.sum(axis=1)
        weight = 1.0 if diagonal else 2.0
        if not diagonal:
            self.r_a[cols] += k_aa.sum(axis=0)
        self.fro_aa += weight * float(np.vdot(k_aa, k_aa))
        resid = k_aa
        resid += k_zz  # (K̃aa + K̃zz)[rows, cols]
        k_az = tiles(a, "z", rows, cols)  # Kaz[rows, cols]
        self._cross(k_az, rows, cols)
        if diagonal:
            self.diag_az[rows] = np.diagonal(k_az)
            self.trace_az += float(np.trace(k_az))
            np.fill_diagonal(k_az, 0.0)
            resid -= k_az
            resid -= k_az.T
        else:
            # The mirror tile Kaz[cols, rows], evaluated already transposed as k(z_rows, a_cols)
            # so that the residual update reads contiguous memory.
            k_za = tiles("z", a, rows, cols)
            self.rows_az[cols] += k_za.sum(axis=0)
            self.cols_az[rows] += k_za.sum(axis=1)
            self.fro_az += float(np.vdot(k_za, k_za))
            resid -= k_az
            resid -= k_za
        # The (cols, rows) block of the residual is the transpose of this one: count it twice.
        self.second += weight * float(np.vdot(resid, resid))

    def row_means(self, r_z: np.ndarray, n: int) -> np.ndarray:
        """Row means g_i = Σ_{j≠i} h_A(i, j) / (n − 1) of the MMD²_u kernel
        h_A(i, j) = k(a_i, a_j) + k(z_i, z_j) − k(a_i, z_j) − k(a_j, z_i); their mean is MMD²_u(A, Z).
        """
        cross = (self.rows_az - self.diag_az) + (self.cols_az - self.diag_az)
        return (self.r_a + r_z - cross) / (n - 1.0)

    def finish(self, r_z: np.ndarray, fro_zz: float, n: int) -> tuple[float, float]:
        """Return (MMD²_u(A, Z), its variance) from the accumulated sums."""
        m = nz = float(n)
        s_a = float(self.r_a.sum())
        s_z = float(r_z.sum())
        s_az = float(self.rows_az.sum())
        mmd2 = (
            s_a / (m * (m - 1))
            + s_z / (nz * (nz - 1))
            - 2.0 * (s_az - self.trace_az) / (m * (nz - 1))
        )
        v = (
            (self.r_a @ self.r_a - self.fro_aa) / (m * (m - 1) * (m - 2)),
            -((s_a / (m * (m - 1))) ** 2),
            -2.0 * (self.r_a @ self.rows_az) / (m * (m - 1) * nz),
            2.0 * s_a * s_az / (m**2 * (m - 1) * nz),
            (r_z @ r_z - fro_zz) / (nz * (nz - 1) * (nz - 2)),
            -((s_z / (nz * (nz - 1))) ** 2),
            -2.0 * (r_z @ self.cols_az) / (nz * (nz - 1) * m),
            2.0 * s_z * s_az / (nz**2 * (nz - 1) * m),
            (self.rows_az @ self.rows_az - self.fro_az) / (nz * (nz - 1) * m),
            -2.0 * (s_az / (nz * m)) ** 2,
            (self.cols_az @ self.cols_az - self.fro_az) / (m * (m - 1) * nz),
        )
        var1 = 4.0 * (m - 2) / (m * (m - 1)) * math.fsum(float(t) for t in v)
        var2 = 2.0 / (m * (m - 1) * nz * (nz - 1)) * self.second
        var = var1 + var2
        if var < 0:
            var = var2
        return float(mmd2), float(var)


def rel_mmd_moments(
    x: np.ndarray,
    y: np.ndarray,
    z: np.ndarray,
    kernel: Kernel,
    *,
    chunk_size: int | None = None,
) -> dict[str, float]:
    """MMD²_u(X, Z), MMD²_u(Y, Z), their variances and covariance, in O(n²) time.

    Gram matrices are formed in square tiles of ``chunk_size`` rows (default
    ``_DEFAULT_TILE``); only O(n) vectors are kept. The kernel must be symmetric: each
    within-sample tile above the diagonal stands for its mirror image.

    Notes
    -----
    The reference code's matrix-product sums are vector products of row sums: with K̃ = Kzz with a
    zeroed diagonal and r_z its row sums, Σ(K̃K̃) = r_z·r_z, Σ(K̃Kzy) = r_z·c_yz,
    Σ(K̃Kzx) = r_z·c_xz and Σ(KzxᵀKzy) = c_xz·c_yz, where c_az are the column sums of Kaz.
    """
    n = x.shape[0]
    tile = _DEFAULT_TILE if chunk_size is None else chunk_size
    edge = min(tile, n)
    check_memory(
        8 * _LIVE_TILES * edge * edge,
        f"the Gram-matrix tiles of {edge} × {edge} entries",
        "chunk_size",
    )
    tiles = _Tiles(kernel, {"x": x, "y": y, "z": z})
    px, py = _PairSums("x", n), _PairSums("y", n)
    r_z = np.zeros(n)
    fro_zz = 0.0
    starts = list(range(0, n, tile))
    for bi, i0 in enumerate(starts):
        rows = slice(i0, min(n, i0 + tile))
        for j0 in starts[bi:]:
            cols = slice(j0, min(n, j0 + tile))
            diagonal = i0 == j0
            k_zz = tiles("z", "z", rows, cols)
            if diagonal:
                np.fill_diagonal(k_zz, 0.0)
            r_z[rows] += k_zz.sum(axis=1)
            if not diagonal:
                r_z[cols] += k_zz.sum(axis=0)
            fro_zz += (1.0 if diagonal else 2.0) * float(np.vdot(k_zz, k_zz))
            px.add_tile(tiles, rows, cols, k_zz, diagonal=diagonal)
            py.add_tile(tiles, rows, cols, k_zz, diagonal=diagonal)
            del k_zz
    mmd2_p, var_p = px.finish(r_z, fro_zz, n)
    mmd2_q, var_q = py.finish(r_z, fro_zz, n)

    nz = nx = ny = float(n)
    s_z = float(r_z.sum())
    u_zz = s_z / (nz * (nz - 1))
    u_zx = float(px.cols_az.sum()) / (nz * nx)
    u_zy = float(py.cols_az.sum()) / (nz * ny)
    ct1 = float(r_z @ r_z) / (nz * (nz - 1) ** 2) - u_zz**2
    ct3 = float(r_z @ py.cols_az) / (nz * (nz - 1) * ny) - u_zz * u_zy
    ct5 = float(r_z @ px.cols_az) / (nz * (nz - 1) * nx) - u_zz * u_zx
    ct7 = float(px.cols_az @ py.cols_az) / (nx * nz * ny) - u_zx * u_zy
    cov = 4.0 * (nz - 2) / (nz * (nz - 1)) * (ct1 - ct3 - ct5 + ct7)
    # Row means of the difference kernel h = h_X − h_Y (the z–z terms cancel): Sen's (1960)
    # estimate of ζ₁ is their sample variance, and 4ζ₁ is the variance of √n·(U_X − U_Y).
    g = px.row_means(r_z, n) - py.row_means(r_z, n)
    ustat = 4.0 * float(np.var(g, ddof=1))
    return {
        "mmd2_p": mmd2_p,
        "mmd2_q": mmd2_q,
        "var_p": var_p,
        "var_q": var_q,
        "cov_pq": float(cov),
        "ustat_variance": ustat,
    }


def mmd_difference_test(
    x: np.ndarray,
    y: np.ndarray,
    z: np.ndarray,
    kernel: Kernel,
    *,
    variance: str,
    chunk_size: int | None,
) -> tuple[float, float, float, bool, dict[str, float]]:
    """√n (MMD²_u(X, Z) − MMD²_u(Y, Z)), its variance ν̂ by ``variance``, the p-value and the flag.

    Returns ``(statistic, ν̂, pvalue, degenerate, moments)``, where ``moments`` holds the two
    MMD²_u and Bounliphone et al.'s variances and covariance (each with its 1/n factor).
    ``"bounliphone"``: ν̂ = n (var_p − 2 cov_pq + var_q), which can be negative when the shared
    reference makes the two estimates strongly correlated. ``"ustat"``: ν̂ = 4 ŝ², with ŝ² the
    sample variance (ddof = 1) of the row means of the difference kernel, never negative.
    """
    n = x.shape[0]
    moments = rel_mmd_moments(x, y, z, kernel, chunk_size=chunk_size)
    ustat = moments.pop("ustat_variance")
    statistic = math.sqrt(n) * (moments["mmd2_p"] - moments["mmd2_q"])
    if variance == "ustat":
        nu = ustat
    else:
        nu = n * (moments["var_p"] - 2.0 * moments["cov_pq"] + moments["var_q"])
    if all(bool((s == s[0]).all()) for s in (x, y, z)):
        # each sample one repeated point: the statistic has no sampling spread, whatever the
        # plug-in variance says, so there is no normal approximation to read a p-value from
        warnings.warn(
            "each of `x`, `y` and `z` is one repeated point: the relative test is not defined; "
            "returning p = 1.",
            DegenerateDataWarning,
            stacklevel=3,
        )
        pvalue, degenerate = 1.0, True
    else:
        pvalue, degenerate = guarded_pvalue(statistic, nu, stacklevel=4)
    return float(statistic), float(nu), pvalue, degenerate, moments


# --------------------------------------------------------------------------------------------------
# public test
# --------------------------------------------------------------------------------------------------


def subsample_equal(
    arrays: list[np.ndarray], rng: np.random.Generator
) -> tuple[list[np.ndarray], bool]:
    n = min(a.shape[0] for a in arrays)
    if all(a.shape[0] == n for a in arrays):
        return arrays, False
    out = [
        a if a.shape[0] == n else a[np.sort(rng.choice(a.shape[0], n, replace=False))]
        for a in arrays
    ]
    return out, True


def _rel_mmd_iv(
    x: Any,
    y: Any,
    z: Any,
    bandwidth: Any,
    kernel: Any,
    method: str,
    subsample: Any,
    chunk_size: Any,
    variance: Any,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float | None, Any, str, bool, int | None, str]:
    x = check_samples(x, "x", min_samples=3)
    y = check_samples(y, "y", min_samples=3)
    z = check_samples(z, "z", min_samples=3)
    check_same_width([("x", x), ("y", y), ("z", z)], what="Rel-MMD")
    if bandwidth is not None and kernel is not None:
        msg = "Pass either `bandwidth` (Gaussian kernel) or `kernel`, not both."
        raise ValueError(msg)
    if bandwidth is not None:
        bandwidth = check_bandwidth(bandwidth, "bandwidth")
    if kernel is not None and not callable(kernel):
        msg = f"`kernel` must be callable (a, b) -> Gram matrix; got {type(kernel).__name__}."
        raise TypeError(msg)
    method = check_choice(method, "bandwidth_method", BANDWIDTH_METHODS)
    subsample = check_bool(subsample, "subsample")
    if chunk_size is not None:
        chunk_size = check_int(chunk_size, "chunk_size", low=1)
    variance = check_choice(variance, "variance", VARIANCES)
    return x, y, z, bandwidth, kernel, method, subsample, chunk_size, variance


@renamed_parameters(method="bandwidth_method")
def rel_mmd(
    x: Any,
    y: Any,
    z: Any,
    *,
    bandwidth: float | None = None,
    kernel: Kernel | None = None,
    bandwidth_method: str = "kmod",
    variance: str = "bounliphone",
    subsample: bool = False,
    seed: SeedLike = None,
    chunk_size: int | None = None,
) -> RelMMDResult:
    r"""Relative MMD test of Bounliphone et al. (2016): is Q closer to R than P is?

    Tests H0: MMD(P, R) ≤ MMD(Q, R) ("P is at least as close to R") against H1: MMD(P, R) >
    MMD(Q, R) ("Q fits better"), with the unbiased MMD², its variance including the second-order term,
    and the covariance of the two MMD² through the shared reference sample.

    Parameters
    ----------
    x : array-like, shape (n, d)
        Draws of the model P.
    y : array-like, shape (n, d)
        Draws of the model Q.
    z : array-like, shape (n, d)
        Draws of the reference (data) distribution R.
    bandwidth : float, optional
        Gaussian width σ in exp(−‖a − b‖² / (2σ²)); the reference code's parameter is σ² =
        ``bandwidth**2`` (reported as ``sigma2``). Default: Bounliphone et al.'s median heuristic
        (see ``bandwidth_method``) on the full samples.
    kernel : callable, optional
        Any symmetric kernel ``kernel(a, b) -> Gram matrix``, e.g.
        :class:`~modelcompare.kernels.PolynomialKernel` (see
        :func:`~modelcompare.relative.rel_kid`). Mutually exclusive with ``bandwidth``.
    bandwidth_method : {"kmod", "matlab"}
        Median heuristic used when neither ``bandwidth`` nor ``kernel`` is given, on the same
        ≤ 1000 random rows of x, y and z. ``"kmod"`` (default, the translation used for the
        experiments of Jitkrittum et al. 2018): σ² = ½ · mean(√median‖y_i − z_j‖²,
        √median‖x_i − z_j‖²)². ``"matlab"``, the original Matlab code read literally:
        σ = mean_j √(median D_j / 2), with D_j the distances between the reference and model j.
    variance : {"bounliphone", "ustat"}
        Estimator of the variance ν̂ of the √n-scaled statistic. ``"bounliphone"`` (default, the
        authors' and the one that reproduces their numbers): n (var_p − 2 cov_pq + var_q), from
        Gretton's variance of each MMD²_u and Bounliphone et al.'s covariance; it can come out
        negative when the shared reference makes the two estimates strongly correlated.
        ``"ustat"``: the variance of the difference as one U-statistic, never negative (Notes).
    subsample : bool
        The test needs n_x = n_y = n_z. With ``subsample=True``, larger samples are subsampled
        (without replacement, seeded) to the smallest size; otherwise unequal sizes raise.
    seed : int, Generator or None
        Random source of the median-heuristic subsample (≤ 1000 rows) and of ``subsample``.
    chunk_size : int, optional
        Rows per chunk: the edge of the square Gram-matrix tiles (default 1024: 8 MiB per tile).

    Returns
    -------
    RelMMDResult
        ``statistic``, ``pvalue``, ``variance`` and the parts they are made of.

    Raises
    ------
    ValueError
        For unequal sample sizes without ``subsample=True``, different widths, fewer than 3 rows,
        NaN/inf values, a width whose square underflows or overflows float64, or a ``kernel``
        that returns NaN/inf (refused rather than read as a degenerate test).
    TypeError
        For complex data or a ``subsample`` that is not a bool.
    ResourceLimitError
        When the Gram-matrix tiles (``chunk_size`` × ``chunk_size``) would pass the memory limit.

    Notes
    -----
    With K̃ a Gram matrix with zeroed diagonal, the one-sample U-statistic is

    .. math::

        \mathrm{MMD}^2_u(X, Z) = \frac{\sum_{i\ne j} k(x_i,x_j)}{n(n-1)}
            + \frac{\sum_{i\ne j} k(z_i,z_j)}{n(n-1)}
            - 2\frac{\sum_{i\ne j} k(x_i,z_j)}{n(n-1)}.

    The statistic is :math:`\sqrt{n}(\mathrm{MMD}^2_u(X,Z) - \mathrm{MMD}^2_u(Y,Z))` and its
    variance :math:`\hat\nu = n(\hat v_{XZ} - 2\widehat{\mathrm{cov}} + \hat v_{YZ})`, where each
    :math:`\hat v` is Gretton's first-order estimate plus the second-order term (the second-order
    term alone when the sum is negative) and the covariance is Bounliphone et al.'s. The p-value
    is :math:`1 - \Phi(\text{statistic}/\sqrt{\hat\nu})`: the null is taken at its boundary, which
    keeps the test level-α (conservative inside H0). A non-finite ν̂ or √ν̂ ≤ 1e-6 (e.g. P = Q = R,
    or a tiny width) gives p = 1, ``degenerate=True`` and a
    :class:`~modelcompare.DegenerateDataWarning`.

    **The U-statistic variance** (``variance="ustat"``). With w_i = (x_i, y_i, z_i), the
    difference MMD²_u(X, Z) − MMD²_u(Y, Z) is one U-statistic of order 2 with the symmetric kernel

    .. math::

        h(i, j) = k(x_i,x_j) - k(y_i,y_j) - k(x_i,z_j) - k(x_j,z_i) + k(y_i,z_j) + k(y_j,z_i)

    (the z–z terms cancel). By Hoeffding (1948), n·Var(U) → 4ζ₁ with
    ζ₁ = Var(E[h(w_1, w_2) | w_1]); Sen (1960) estimates ζ₁ by the sample variance (ddof = 1) of
    the row means g_i = Σ_{j≠i} h(i, j)/(n − 1), so ν̂ = 4·Σ(g_i − ḡ)²/(n − 1) ≥ 0 by
    construction (ḡ is the statistic over √n). It ignores the second-order term, which matters
    only where ζ₁ = 0 (P = Q = R).

    Every sum is formed from Gram-matrix row sums computed block by block, so the cost is O(n² d)
    time and O(n) memory beyond one block; the reference code forms full matrix products (O(n³)).
    Results are conditional on the kernel: a different width can favour the other model.

    References
    ----------
    .. [1] W. Bounliphone, E. Belilovsky, M. B. Blaschko, I. Antonoglou, A. Gretton. A Test of
       Relative Similarity for Model Selection in Generative Models. ICLR 2016. arXiv:1511.04581.
    .. [2] W. Jitkrittum, H. Kanagawa, P. Sangkloy, J. Hays, B. Schölkopf, A. Gretton. Informative
       Features for Model Comparison. NeurIPS 2018.
    .. [3] W. Hoeffding. A Class of Statistics with Asymptotically Normal Distribution. Annals of
       Mathematical Statistics 19 (1948), 293–325 (Theorem 5.2).
    .. [4] P. K. Sen. On Some Convergence Properties of U-Statistics. Calcutta Statistical
       Association Bulletin 10 (1960), 1–18.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import rel_mmd
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(300, 2))
    >>> x = rng.normal(size=(300, 2)) + [1.0, 0.0]   # P: shifted
    >>> y = rng.normal(size=(300, 2)) + [0.1, 0.0]   # Q: close to R
    >>> res = rel_mmd(x, y, z, seed=0)
    >>> res.pvalue < 0.05
    True
    """
    x, y, z, bandwidth, kernel, method, subsample, chunk_size, variance = _rel_mmd_iv(
        x, y, z, bandwidth, kernel, bandwidth_method, subsample, chunk_size, variance
    )
    rng, seed_used = check_seed(seed)
    subsampled = False
    if subsample:
        (x, y, z), subsampled = subsample_equal([x, y, z], rng)
    n = equal_rows(x, y, z, what="Rel-MMD")

    width_source: str | None = None
    if kernel is None:
        if bandwidth is None:
            bandwidth = check_heuristic_bandwidth(
                _bounliphone_bandwidth(x, y, z, method=method, seed=rng),
                "Bounliphone et al.'s median heuristic",
            )
            width_source = method
        else:
            width_source = "given"
        kernel = GaussianKernel(bandwidth)
    elif isinstance(kernel, GaussianKernel):
        bandwidth, width_source = float(kernel.bandwidth), "given"

    statistic, nu, pvalue, degenerate, moments = mmd_difference_test(
        x, y, z, kernel, variance=variance, chunk_size=chunk_size
    )
    return RelMMDResult(
        statistic=statistic,
        pvalue=pvalue,
        variance=nu,
        variance_method=variance,
        n=n,
        kernel=repr(kernel),
        bandwidth=None if bandwidth is None else float(bandwidth),
        sigma2=None if bandwidth is None else float(bandwidth) ** 2,
        bandwidth_method=width_source,
        degenerate=degenerate,
        subsampled=subsampled,
        seed_used=seed_used,
        **moments,
    )
