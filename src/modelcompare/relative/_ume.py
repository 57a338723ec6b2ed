"""Rel-UME: the linear-time relative test with mean-embedding features (relative-fit spec §2, §5)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.results import Result, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    check_fraction,
    check_int,
    check_positive,
    check_same_width,
    check_samples,
)
from modelcompare.relative._core import (
    PairedStats,
    criterion_and_grad,
    guarded_pvalue,
    stats_from_sums,
)
from modelcompare.relative._optimize import (
    UMEParams,
    check_locations,
    default_sigma2_bounds,
    location_bounds,
    maximise_criterion,
    pair_rows,
    pooled_meddistance,
    pooled_random_rows,
    split_indices,
)
from modelcompare.relative._presets import OptimOptions, resolve_options

__all__ = ["RelUMEResult", "optimize_ume", "rel_ume", "ume_stats"]

#: Bytes of one data chunk (rows × d × 8) processed at a time by :func:`ume_stats`.
_CHUNK_BYTES = 1 << 21


def _chunk_rows(d: int, chunk_size: int | None) -> int:
    if chunk_size is not None:
        return check_int(chunk_size, "chunk_size", low=1)
    return max(256, _CHUNK_BYTES // (8 * d))


def gauss_block(a: np.ndarray, v: np.ndarray, vn: np.ndarray, sigma2: float) -> np.ndarray:
    """Gaussian kernel between the rows of ``a`` and of ``v`` (``vn`` = squared norms of ``v``).

    Computed as ``exp(min(0, (a·v − ‖a‖²/2 − ‖v‖²/2)/σ²))``: one matrix product and one pass over the
    small (rows × J) result, never an (rows × J × d) difference array.
    """
    inv = 1.0 / sigma2
    k = a @ (v.T * inv)
    k -= (0.5 * inv) * np.einsum("ij,ij->i", a, a)[:, None]
    k -= (0.5 * inv) * vn[None, :]
    np.minimum(k, 0.0, out=k)
    return np.exp(k, out=k)


def ume_stats(
    x: np.ndarray,
    y: np.ndarray,
    z: np.ndarray,
    locations: np.ndarray,
    sigma2: float,
    *,
    chunk_size: int | None = None,
) -> PairedStats:
    """Rel-UME estimates at fixed locations and σ², in one pass over row chunks.

    Only the 2J-vector of feature sums and the 2J × 2J matrix ``Σᵢ Fᵢ Fᵢᵀ`` of the stacked features
    ``Fᵢ = [ψ_P[i], ψ_Q[i]]`` are accumulated, so memory beyond the data is O(chunk · J + J²).
    """
    n, d = x.shape
    j = locations.shape[0]
    vn = np.einsum("ij,ij->i", locations, locations)
    rows = _chunk_rows(d, chunk_size)
    total = np.zeros(2 * j)
    gram = np.zeros((2 * j, 2 * j))
    scale = 1.0 / math.sqrt(j)
    for start in range(0, n, rows):
        sl = slice(start, min(start + rows, n))
        kz = gauss_block(z[sl], locations, vn, sigma2)
        feat = np.empty((kz.shape[0], 2 * j))
        np.subtract(gauss_block(x[sl], locations, vn, sigma2), kz, out=feat[:, :j])
        np.subtract(gauss_block(y[sl], locations, vn, sigma2), kz, out=feat[:, j:])
        feat *= scale
        total += feat.sum(axis=0)
        gram += feat.T @ feat
    sp, sq = total[:j], total[j:]
    mp, mq = sp / n, sq / n
    return stats_from_sums(
        n,
        sp,
        sq,
        float(np.trace(gram[:j, :j])),
        float(np.trace(gram[j:, j:])),
        float(mp @ gram[:j, :j] @ mp),
        float(mp @ gram[:j, j:] @ mq),
        float(mq @ gram[j:, j:] @ mq),
    )


def ume_criterion_and_grad(x: np.ndarray, y: np.ndarray, z: np.ndarray, reg: float) -> Any:
    """Return ``f(sigma, V) -> (crit, ∂crit/∂σ, ∂crit/∂V)`` on (training) data held in memory.

    Chain rule through ``k(a, v) = exp(−‖a − v‖²/(2σ²))``: ``∂k/∂v = k (a − v)/σ²`` and
    ``∂k/∂σ = k ‖a − v‖²/σ³``.
    """
    n = x.shape[0]
    data = np.vstack([x, y, z])  # training data only: one matrix product per pass
    norms = np.einsum("ij,ij->i", data, data)

    def crit_grad(sigma: float, v: np.ndarray) -> tuple[float, float, np.ndarray]:
        sigma2 = sigma * sigma
        j = v.shape[0]
        d2 = data @ v.T
        d2 *= -2.0
        d2 += norms[:, None]
        d2 += np.einsum("ij,ij->i", v, v)[None, :]
        np.maximum(d2, 0.0, out=d2)
        k = np.exp(d2 * (-0.5 / sigma2))
        kx, ky, kz = k[:n], k[n : 2 * n], k[2 * n :]
        scale = 1.0 / math.sqrt(j)
        crit, gp, gq = criterion_and_grad((kx - kz) * scale, (ky - kz) * scale, reg)
        wk = np.empty_like(k)  # ∂crit/∂k times k, for the x, y and z blocks
        np.multiply(gp, kx, out=wk[:n])
        np.multiply(gq, ky, out=wk[n : 2 * n])
        np.multiply(-(gp + gq), kz, out=wk[2 * n :])
        wk *= scale
        g_v = wk.T @ data - wk.sum(axis=0)[:, None] * v
        g_sigma = float(np.sum(wk * d2))
        return crit, g_sigma / (sigma2 * sigma), g_v / sigma2

    return crit_grad


def _optimize_core(
    x: np.ndarray,
    y: np.ndarray,
    z: np.ndarray,
    locations: int | np.ndarray,
    bandwidth: float | None,
    opts: OptimOptions,
    loc_rng: np.random.Generator,
    med_rng: np.random.Generator,
) -> UMEParams:
    fixed = not isinstance(locations, int)
    v0 = locations if fixed else pooled_random_rows((x, y, z), locations, loc_rng)
    if bandwidth is None:
        med_xz = pooled_meddistance((x, z), med_rng)
        med_yz = pooled_meddistance((y, z), med_rng)
        sigma0 = 0.5 * (med_xz + med_yz)
    else:
        sigma0 = bandwidth
    if opts.sigma2_bounds is None:
        s2b = default_sigma2_bounds(pooled_meddistance((x, y, z), med_rng), 1e-2)
    else:
        s2b = opts.sigma2_bounds
    coord = location_bounds((x, y, z), opts.locs_bounds_frac)
    sigma, v, crit, nit, ok = maximise_criterion(
        ume_criterion_and_grad(x, y, z, opts.reg),
        sigma0,
        np.asarray(v0, dtype=float),
        s2b,
        coord,
        opts,
        fix_locations=fixed,
    )
    return UMEParams(sigma, v, criterion=crit, n_iter=nit, converged=ok)


def _check_xyz(x: Any, y: Any, z: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = check_samples(x, "x", min_samples=4)
    y = check_samples(y, "y", min_samples=4)
    z = check_samples(z, "z", min_samples=4)
    check_same_width([("x", x), ("y", y), ("z", z)], what="Rel-UME")
    return x, y, z


def optimize_ume(
    x: Any,
    y: Any,
    z: Any,
    *,
    locations: int | Any = 5,
    bandwidth: float | None = None,
    seed: SeedLike = None,
    subsample: bool = False,
    preset: str | None = None,
    reg: float | None = None,
    max_iter: int | None = None,
    tol_fun: float | None = None,
    locs_bounds_frac: float | None = None,
    bandwidth_bounds: tuple[float, float] | None = None,
) -> UMEParams:
    """Choose the Gaussian width and test locations of Rel-UME by maximising the power criterion.

    All of ``x``, ``y`` and ``z`` are used for the fit: pass training data only, and test on other
    data (:func:`rel_ume` with ``optimize=True`` does this split for you).

    Parameters
    ----------
    x, y, z : array-like, shape (n, d)
        Training draws of P, Q and R (equal n, rows paired).
    locations : int or array-like of shape (J, d)
        An int J starts from J random rows of ``vstack(x, y, z)``; an array is kept fixed and only
        the width is optimised.
    bandwidth : float, optional
        Starting width σ (clipped into the bounds). Default: the mean of the median distances of
        ``x ∪ z`` and ``y ∪ z`` (the paper's experiments).
    seed : int, Generator or None
        Random source of the starting locations and of the median-heuristic subsamples.
    subsample : bool
        Reduce unequal sample sizes to the smallest n by seeded subsampling instead of raising.
    preset : {"default", "paper-ex1", "paper-ex2", "demo"}, optional
        Named option set (see :data:`modelcompare.relative.PRESETS`); explicit options override it.
    reg, max_iter, tol_fun, locs_bounds_frac : optional
        Optimiser options (defaults: 1e-3, 100, 1e-6, 100, the reference function's own).
    bandwidth_bounds : (float, float), optional
        Bounds on σ. Default: σ² in ``[max(1e-2 med², 1e-2), min(1e2 med², 1e5)]``, med = the
        median distance of ``vstack(x, y, z)``.

    Returns
    -------
    UMEParams
        The width, the locations, the criterion reached, the iterations and the convergence flag.

    Notes
    -----
    Maximises ``(Û²_P − Û²_Q) / √(ν̂ + reg)`` over ``[σ, vec(V)]`` with L-BFGS-B and an analytic
    gradient, as the reference code (kmod ``SC_GaussUME.optimize_3sample_criterion``) does with
    autograd. The optimum is local and depends on the start.
    """
    rng, _ = check_seed(seed)
    sub_rng, loc_rng, med_rng = rng.spawn(3)
    x, y, z = _check_xyz(x, y, z)
    x, y, z = pair_rows(
        [("x", x), ("y", y), ("z", z)], subsample=subsample, rng=sub_rng, what="Rel-UME"
    )
    locs = check_locations(locations, x.shape[1])
    bw = None if bandwidth is None else check_positive(bandwidth, "bandwidth")
    opts = resolve_options(
        "ume",
        preset,
        max_iter=max_iter,
        reg=reg,
        tol_fun=tol_fun,
        locs_bounds_frac=locs_bounds_frac,
        bandwidth_bounds=bandwidth_bounds,
    )
    return _optimize_core(x, y, z, locs, bw, opts, loc_rng, med_rng)


@result_class
class RelUMEResult(Result):
    """Result of :func:`rel_ume`.

    Attributes
    ----------
    statistic : float
        ``√n (Û²_P − Û²_Q)`` on the test data.
    pvalue : float
        One-sided p-value of H0 "P is at least as close to R as Q" (1.0 when degenerate).
    variance : float
        The plug-in variance ν̂ of the √n-scaled statistic.
    locations : numpy.ndarray
        Test locations used, shape ``(J, d)``.
    bandwidth, sigma2 : float
        Gaussian width σ and σ² used.
    criterion : float
        Power criterion ``(Û²_P − Û²_Q)/√(ν̂ + reg)`` on the test data.
    train_criterion : float or None
        The criterion the optimiser reached on the training split (None without optimisation).
    relative_witness : numpy.ndarray
        ``wit²_P(v) − wit²_Q(v)`` at each location: positive where Q fits R better, negative where
        P does.
    witness_p, witness_q : numpy.ndarray
        ``mean k(x, v) − mean k(z, v)`` and the same for y, at each location.
    u2_p, u2_q : float
        The unbiased Û²(P, R) and Û²(Q, R).
    zeta2_p, zeta2_q, zeta_pq : float
        The plug-in variance terms (factor 4 included, as in the reference code).
    degenerate : bool
        True when ν̂ is not positive; ``pvalue`` is then 1.
    n : int
        Rows used by the test. ``n_train`` rows were used to optimise (0 without optimisation).
    optimized : bool
        Whether width/locations were optimised on a split.
    preset : str
        Option set used.
    n_iter : int or None
        L-BFGS-B iterations.
    converged : bool or None
        Whether L-BFGS-B reported convergence (False: it stopped at ``max_iter`` or abnormally;
        the fitted parameters are still used, as in the reference code). None without optimisation.
    seed_used : int or None
        Seed that reproduces the run (None when a Generator was passed).
    """

    statistic: float
    pvalue: float
    variance: float
    locations: np.ndarray
    bandwidth: float
    sigma2: float
    criterion: float
    train_criterion: float | None
    relative_witness: np.ndarray
    witness_p: np.ndarray
    witness_q: np.ndarray
    u2_p: float
    u2_q: float
    zeta2_p: float
    zeta2_q: float
    zeta_pq: float
    degenerate: bool
    n: int
    n_train: int
    optimized: bool
    preset: str
    n_iter: int | None
    converged: bool | None
    seed_used: int | None

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "bandwidth", "n")

    @property
    def params(self) -> UMEParams:
        """The width and locations as a :class:`UMEParams` (reusable with ``params=``)."""
        return UMEParams(self.bandwidth, self.locations, criterion=self.train_criterion)

    def decision(self, alpha: float = 0.05) -> bool:
        """True when H0 is rejected at level ``alpha`` (p ≤ alpha): Q fits R better than P."""
        return bool(self.pvalue <= alpha)


def witness_fields(stats: PairedStats) -> dict[str, np.ndarray]:
    """Per-location witnesses from the feature means (UME features carry a 1/√J factor)."""
    j = stats.mean_p.shape[0]
    wp = stats.mean_p * math.sqrt(j)
    wq = stats.mean_q * math.sqrt(j)
    return {"witness_p": wp, "witness_q": wq, "relative_witness": wp * wp - wq * wq}


def rel_ume(
    x: Any,
    y: Any,
    z: Any,
    *,
    locations: int | Any = 5,
    bandwidth: float | None = None,
    optimize: bool = True,
    train_fraction: float = 0.2,
    seed: SeedLike = None,
    subsample: bool = False,
    preset: str | None = None,
    params: UMEParams | None = None,
    reg: float | None = None,
    max_iter: int | None = None,
    tol_fun: float | None = None,
    locs_bounds_frac: float | None = None,
    bandwidth_bounds: tuple[float, float] | None = None,
    chunk_size: int | None = None,
) -> RelUMEResult:
    """Rel-UME: is Q closer to the reference R than P is, and where?

    Parameters
    ----------
    x, y, z : array-like, shape (n, d)
        Independent draws of the models P, Q and the reference R. Row i of each is paired, so the
        sizes must be equal (see ``subsample``).
    locations : int or array-like of shape (J, d)
        An int J: with ``optimize=True``, J locations optimised from random training rows; with
        ``optimize=False``, J random rows of ``vstack(x, y, z)``. An array is used as given (with
        ``optimize=True`` only the width is then optimised).
    bandwidth : float, optional
        Gaussian width σ in ``exp(−‖a−b‖²/(2σ²))`` (σ² = bandwidth², the reference code's
        ``sigma2``). With ``optimize=True`` it is only the starting value; with ``optimize=False``
        and no value, the median heuristic of ``vstack(x, y, z)`` is used.
    optimize : bool
        Optimise width and locations on a ``train_fraction`` split and test on the rest (default),
        or test on all the data with the given/heuristic parameters.
    train_fraction : float
        Share of rows used for optimisation (``int(train_fraction·n)`` rows; 0.2 as in the paper).
    seed : int, Generator or None
        Random source of the subsampling, the split, the random locations and the median heuristic.
    subsample : bool
        With unequal sizes, draw the smallest n from each sample at random instead of raising.
    preset : {"default", "paper-ex1", "paper-ex2", "demo"}, optional
        Named optimiser option set of the paper's experiments; ``None`` = the reference function's
        defaults (reg 1e-3, tol_fun 1e-6, max_iter 100, locs_bounds_frac 100, width bounds from the
        median heuristic).
    params : UMEParams, optional
        Parameters from :func:`optimize_ume`; the test then runs on all the data with them and
        ``locations``, ``bandwidth`` and ``optimize`` must be left at their defaults.
    reg, max_iter, tol_fun, locs_bounds_frac, bandwidth_bounds : optional
        Optimiser options overriding the preset (see :func:`optimize_ume`).
    chunk_size : int, optional
        Rows per chunk of the linear-time pass (default: about 2 MiB of data per chunk).

    Returns
    -------
    RelUMEResult

    Raises
    ------
    ValueError
        For unequal sample sizes (without ``subsample``), mismatched widths, bad options.

    Notes
    -----
    H0: U²(P, R) ≤ U²(Q, R) ("P is at least as good"), H1: Q is closer. With features
    ``ψ_P[i] = (k(xᵢ, V) − k(zᵢ, V))/√J`` and ``ψ_Q[i] = (k(yᵢ, V) − k(zᵢ, V))/√J``, the statistic
    is ``√n (Û²(ψ_P) − Û²(ψ_Q))`` with ``Û²(F) = (‖Σᵢ Fᵢ‖² − Σᵢ ‖Fᵢ‖²)/(n(n−1))``; its variance is
    the plug-in ``ν̂ = ζ̂²_P − 2ζ̂_PQ + ζ̂²_Q`` and ``p = 1 − Φ(statistic/√ν̂)``. A non-positive ν̂
    (P = Q = R, far locations, tiny width) gives p = 1, ``degenerate=True`` and a
    :class:`~modelcompare.DegenerateDataWarning`. The pass over the data is chunked: time O(nJd),
    memory O(chunk·J) beyond the data.

    The locations are interpretable only if the test rejects: ``relative_witness > 0`` marks where
    Q fits better. To look for where P is better, swap ``x`` and ``y``.

    References
    ----------
    W. Jitkrittum, H. Kanagawa, P. Sangkloy, J. Hays, B. Schölkopf, A. Gretton. Informative Features
    for Model Comparison. NeurIPS 2018.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(1000, 2))
    >>> x = rng.normal(size=(1000, 2)) + [1.0, 0.0]   # P is shifted
    >>> y = rng.normal(size=(1000, 2))                # Q matches R
    >>> res = rel_ume(x, y, z, locations=3, seed=0)
    >>> res.pvalue < 0.01
    True
    """
    rng, seed_used = check_seed(seed)
    sub_rng, split_rng, loc_rng, med_rng = rng.spawn(4)
    x, y, z = _check_xyz(x, y, z)
    x, y, z = pair_rows(
        [("x", x), ("y", y), ("z", z)], subsample=subsample, rng=sub_rng, what="Rel-UME"
    )
    d = x.shape[1]
    if not isinstance(optimize, bool | np.bool_):
        msg = f"`optimize` must be True or False; got {optimize!r}."
        raise TypeError(msg)
    opts = resolve_options(
        "ume",
        preset,
        max_iter=max_iter,
        reg=reg,
        tol_fun=tol_fun,
        locs_bounds_frac=locs_bounds_frac,
        bandwidth_bounds=bandwidth_bounds,
    )
    bw = None if bandwidth is None else check_positive(bandwidth, "bandwidth")
    locs = check_locations(locations, d)
    n_train, train_crit, n_iter, optimized, converged = 0, None, None, False, None
    if params is not None:
        if not isinstance(params, UMEParams):
            msg = f"`params` must be a UMEParams; got {type(params).__name__}."
            raise TypeError(msg)
        if bandwidth is not None or not isinstance(locations, int) or locations != 5 or optimize:
            msg = (
                "with `params`, leave `locations` and `bandwidth` at their defaults and pass "
                "`optimize=False`: the parameters are used as given on all the data."
            )
            raise ValueError(msg)
        if params.locations.shape[1] != d:
            msg = f"`params.locations` has {params.locations.shape[1]} columns; the data have {d}."
            raise ValueError(msg)
        v, sigma = params.locations, params.bandwidth
        xt, yt, zt = x, y, z
    elif optimize:
        train_fraction = check_fraction(train_fraction, "train_fraction")
        tr, te = split_indices(x.shape[0], train_fraction, split_rng)
        fitted = _optimize_core(x[tr], y[tr], z[tr], locs, bw, opts, loc_rng, med_rng)
        v, sigma = fitted.locations, fitted.bandwidth
        n_train, train_crit, n_iter, optimized = len(tr), fitted.criterion, fitted.n_iter, True
        converged = fitted.converged
        xt, yt, zt = x[te], y[te], z[te]
    else:
        v = pooled_random_rows((x, y, z), locs, loc_rng) if isinstance(locs, int) else locs
        sigma = pooled_meddistance((x, y, z), med_rng) if bw is None else bw
        xt, yt, zt = x, y, z
    sigma2 = sigma * sigma
    stats = ume_stats(xt, yt, zt, v, sigma2, chunk_size=chunk_size)
    pvalue, degenerate = guarded_pvalue(stats.statistic, stats.variance)
    return RelUMEResult(
        statistic=stats.statistic,
        pvalue=pvalue,
        variance=stats.variance,
        locations=np.array(v, dtype=float),
        bandwidth=float(sigma),
        sigma2=float(sigma2),
        criterion=stats.criterion(opts.reg),
        train_criterion=train_crit,
        **witness_fields(stats),
        u2_p=stats.u2_p,
        u2_q=stats.u2_q,
        zeta2_p=stats.zeta2_p,
        zeta2_q=stats.zeta2_q,
        zeta_pq=stats.zeta_pq,
        degenerate=degenerate,
        n=stats.n,
        n_train=n_train,
        optimized=optimized,
        preset="default" if preset is None else preset,
        n_iter=n_iter,
        converged=converged,
        seed_used=seed_used,
    )
