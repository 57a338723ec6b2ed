"""Rel-FSSD: the linear-time relative test with Stein features (relative-fit spec §3, §5)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.results import Result, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import check_fraction, check_positive, check_samples
from modelcompare.relative._core import (
    PairedStats,
    criterion_and_grad,
    guarded_pvalue,
    stats_from_sums,
)
from modelcompare.relative._optimize import (
    FSSDParams,
    check_locations,
    default_sigma2_bounds,
    location_bounds,
    maximise_criterion,
    pooled_meddistance,
    pooled_random_rows,
    split_indices,
)
from modelcompare.relative._presets import OptimOptions, resolve_options
from modelcompare.relative._ume import _chunk_rows, gauss_block

__all__ = ["RelFSSDResult", "fssd_stats", "optimize_fssd", "rel_fssd", "resolve_score"]

ScoreFn = Callable[[np.ndarray], Any]


def resolve_score(model: Any, name: str) -> ScoreFn:
    """The score function of ``model``: its ``.score`` method, or the callable itself."""
    score = getattr(model, "score", None)
    if callable(score):
        return score  # type: ignore[no-any-return]
    if callable(model):
        return model  # type: ignore[no-any-return]
    msg = (
        f"`{name}` must be a score function ∇ log density ((n, d) -> (n, d)) or an object with a "
        f"`.score` method; got {type(model).__name__}."
    )
    raise TypeError(msg)


def eval_score(score: ScoreFn, z: np.ndarray, name: str) -> np.ndarray:
    """Call a score function and check that it returns finite (n, d) values."""
    out = np.asarray(score(z), dtype=float)
    if out.shape != z.shape:
        msg = (
            f"the score of `{name}` must map (n, d) = {z.shape} to the same shape; got {out.shape}."
        )
        raise ValueError(msg)
    if not np.all(np.isfinite(out)):
        msg = f"the score of `{name}` returned NaN or inf."
        raise ValueError(msg)
    return out


def fssd_stats(
    z: np.ndarray,
    score_p: np.ndarray,
    score_q: np.ndarray,
    locations: np.ndarray,
    sigma2: float,
    *,
    chunk_size: int | None = None,
) -> PairedStats:
    """Rel-FSSD estimates at fixed locations and σ², in two chunked passes (never n × J × d).

    With ``wᵢ = s(zᵢ) − zᵢ/σ²`` the Stein feature is ``τ[i, j] = k(zᵢ, vⱼ)(wᵢ + vⱼ/σ²)/√(dJ)``, so
    the row sums, squared norms and projections reduce to n × J and n × d products.
    """
    n, d = z.shape
    j = locations.shape[0]
    scale = 1.0 / math.sqrt(d * j)
    vn = np.einsum("ij,ij->i", locations, locations)
    rows = _chunk_rows(d, chunk_size)
    inv = 1.0 / sigma2
    sums = [np.zeros((j, d)), np.zeros((j, d))]
    sumsq = [0.0, 0.0]
    for start in range(0, n, rows):
        sl = slice(start, min(start + rows, n))
        k = gauss_block(z[sl], locations, vn, sigma2)
        k2 = k * k
        for m, s in enumerate((score_p, score_q)):
            w = s[sl] - inv * z[sl]
            sums[m] += k.T @ w + (inv * k.sum(axis=0))[:, None] * locations
            wn = np.einsum("ij,ij->i", w, w)
            sumsq[m] += float(
                np.sum(k2 * (wn[:, None] + (2.0 * inv) * (w @ locations.T) + (inv * inv) * vn))
            )
    means = [scale * s / n for s in sums]
    sum_ab = [0.0, 0.0, 0.0]  # Σa², Σab, Σb²
    for start in range(0, n, rows):
        sl = slice(start, min(start + rows, n))
        k = gauss_block(z[sl], locations, vn, sigma2)
        proj = []
        for s, mean in zip((score_p, score_q), means):
            w = s[sl] - inv * z[sl]
            vm = inv * np.einsum("jd,jd->j", locations, mean)
            proj.append(scale * np.sum(k * (w @ mean.T + vm[None, :]), axis=1))
        a, b = proj
        sum_ab[0] += float(a @ a)
        sum_ab[1] += float(a @ b)
        sum_ab[2] += float(b @ b)
    return stats_from_sums(
        n,
        scale * sums[0],
        scale * sums[1],
        scale * scale * sumsq[0],
        scale * scale * sumsq[1],
        *sum_ab,
    )


def fssd_criterion_and_grad(
    z: np.ndarray, score_p: np.ndarray, score_q: np.ndarray, reg: float
) -> Any:
    """Return ``f(sigma, V) -> (crit, ∂crit/∂σ, ∂crit/∂V)`` on (training) data held in memory.

    With ``u[i, j] = s(zᵢ) − (zᵢ − vⱼ)/σ²`` and ``τ[i, j] = k_ij u_ij/T`` (T = √(dJ)), the chain rule
    uses ``∂k/∂vⱼ = k (zᵢ − vⱼ)/σ²``, ``∂u/∂vⱼ = I/σ²``, ``∂k/∂σ² = k‖zᵢ − vⱼ‖²/(2σ⁴)`` and
    ``∂u/∂σ² = (zᵢ − vⱼ)/σ⁴``.
    """
    n, d = z.shape
    zn = np.einsum("ij,ij->i", z, z)

    def crit_grad(sigma: float, v: np.ndarray) -> tuple[float, float, np.ndarray]:
        sigma2 = sigma * sigma
        j = v.shape[0]
        t = math.sqrt(d * j)
        d2 = z @ v.T
        d2 *= -2.0
        d2 += zn[:, None]
        d2 += np.einsum("ij,ij->i", v, v)[None, :]
        np.maximum(d2, 0.0, out=d2)
        k = np.exp(d2 * (-0.5 / sigma2))
        diff = z[:, None, :] - v[None, :, :]  # (n, J, d)
        us = [s[:, None, :] - diff / sigma2 for s in (score_p, score_q)]
        feats = [(k[:, :, None] * u / t).reshape(n, j * d) for u in us]
        crit, gp, gq = criterion_and_grad(feats[0], feats[1], reg)
        gs = [g.reshape(n, j, d) for g in (gp, gq)]
        h = sum(np.einsum("ijd,ijd->ij", g, u) for g, u in zip(gs, us))
        gsum = gs[0] + gs[1]
        hk = h * k
        e = np.einsum("ij,ijd->jd", k, gsum)
        g_v = (hk.T @ z - hk.sum(axis=0)[:, None] * v + e) / (t * sigma2)
        g_s2 = (
            float(np.sum(hk * d2)) / (2.0 * sigma2 * sigma2)
            + float(np.einsum("ij,ijd,ijd->", k, gsum, diff)) / (sigma2 * sigma2)
        ) / t
        return crit, 2.0 * sigma * g_s2, g_v

    return crit_grad


def _optimize_core(
    z: np.ndarray,
    score_p: np.ndarray,
    score_q: np.ndarray,
    locations: int | np.ndarray,
    bandwidth: float | None,
    opts: OptimOptions,
    loc_rng: np.random.Generator,
    med_rng: np.random.Generator,
) -> FSSDParams:
    fixed = not isinstance(locations, int)
    v0 = locations if fixed else pooled_random_rows((z,), locations, loc_rng)
    med = pooled_meddistance((z,), med_rng)
    sigma0 = med if bandwidth is None else bandwidth
    s2b = default_sigma2_bounds(med, 1e-3) if opts.sigma2_bounds is None else opts.sigma2_bounds
    sigma, v, crit, nit, ok = maximise_criterion(
        fssd_criterion_and_grad(z, score_p, score_q, opts.reg),
        sigma0,
        np.asarray(v0, dtype=float),
        s2b,
        location_bounds((z,), opts.locs_bounds_frac),
        opts,
        fix_locations=fixed,
    )
    return FSSDParams(sigma, v, criterion=crit, n_iter=nit, converged=ok)


def optimize_fssd(
    p: Any,
    q: Any,
    z: Any,
    *,
    locations: int | Any = 5,
    bandwidth: float | None = None,
    seed: SeedLike = None,
    preset: str | None = None,
    reg: float | None = None,
    max_iter: int | None = None,
    tol_fun: float | None = None,
    locs_bounds_frac: float | None = None,
    bandwidth_bounds: tuple[float, float] | None = None,
) -> FSSDParams:
    """Choose the Gaussian width and test locations of Rel-FSSD by maximising the power criterion.

    All rows of ``z`` are used for the fit: pass training data only.

    Parameters
    ----------
    p, q : callable or density object
        Score functions ∇ log p, ∇ log q ((n, d) → (n, d)), or objects with a ``.score`` method.
    z : array-like, shape (n, d)
        Training draws of R.
    locations : int or array-like of shape (J, d)
        An int J starts from J random rows of ``z``; an array is kept fixed (width only).
    bandwidth : float, optional
        Starting width σ; default the median distance of ``z``.
    seed, preset, reg, max_iter, tol_fun, locs_bounds_frac, bandwidth_bounds
        As in :func:`modelcompare.relative.optimize_ume`; the default lower σ² bound is
        ``max(1e-2 med², 1e-3)`` (kmod's ``DC_GaussFSSD``).

    Returns
    -------
    FSSDParams
    """
    rng, _ = check_seed(seed)
    loc_rng, med_rng = rng.spawn(2)
    z = check_samples(z, "z", min_samples=4)
    sp = eval_score(resolve_score(p, "p"), z, "p")
    sq = eval_score(resolve_score(q, "q"), z, "q")
    locs = check_locations(locations, z.shape[1])
    bw = None if bandwidth is None else check_positive(bandwidth, "bandwidth")
    opts = resolve_options(
        "fssd",
        preset,
        max_iter=max_iter,
        reg=reg,
        tol_fun=tol_fun,
        locs_bounds_frac=locs_bounds_frac,
        bandwidth_bounds=bandwidth_bounds,
    )
    return _optimize_core(z, sp, sq, locs, bw, opts, loc_rng, med_rng)


@result_class
class RelFSSDResult(Result):
    """Result of :func:`rel_fssd`.

    Attributes
    ----------
    statistic, pvalue, variance : float
        ``√n (FSSD̂²_p − FSSD̂²_q)``, its one-sided p-value (H0: p at least as close to r as q) and
        the plug-in variance ν̂.
    locations : numpy.ndarray
        Test locations, shape ``(J, d)``.
    bandwidth, sigma2 : float
        Gaussian width σ and σ².
    criterion, train_criterion : float, float or None
        Power criterion on the test data, and the one reached by the optimiser on the training split.
    relative_witness : numpy.ndarray
        ``(‖g_p(v)‖² − ‖g_q(v)‖²)/d`` per location, where g is the Stein witness: positive where q's
        shape matches r better. Its mean over locations is FSSD̂²_p − FSSD̂²_q (plug-in).
    witness_p, witness_q : numpy.ndarray
        Stein witnesses ``g(v) = mean_i [s(zᵢ) k(zᵢ, v) + ∇k(zᵢ, v)]``, shape ``(J, d)``.
    fssd2_p, fssd2_q : float
        The unbiased FSSD̂² of p and q.
    zeta2_p, zeta2_q, zeta_pq : float
        Plug-in variance terms (factor 4 included).
    degenerate : bool
        True when ν̂ is not positive (p = 1).
    n, n_train : int
        Rows of ``z`` used by the test and by the optimiser.
    optimized : bool
    preset : str
    n_iter : int or None
    converged : bool or None
        Whether L-BFGS-B reported convergence (None without optimisation).
    seed_used : int or None
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
    fssd2_p: float
    fssd2_q: float
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
    def params(self) -> FSSDParams:
        """The width and locations as :class:`FSSDParams` (reusable with ``params=``)."""
        return FSSDParams(self.bandwidth, self.locations, criterion=self.train_criterion)

    def decision(self, alpha: float = 0.05) -> bool:
        """True when H0 is rejected at level ``alpha`` (p ≤ alpha): q fits r better than p."""
        return bool(self.pvalue <= alpha)


def rel_fssd(
    p: Any,
    q: Any,
    z: Any,
    *,
    locations: int | Any = 5,
    bandwidth: float | None = None,
    optimize: bool = True,
    train_fraction: float = 0.2,
    seed: SeedLike = None,
    preset: str | None = None,
    params: FSSDParams | None = None,
    reg: float | None = None,
    max_iter: int | None = None,
    tol_fun: float | None = None,
    locs_bounds_frac: float | None = None,
    bandwidth_bounds: tuple[float, float] | None = None,
    chunk_size: int | None = None,
) -> RelFSSDResult:
    """Rel-FSSD: is the unnormalised density q closer to the data R than p is, and where?

    Parameters
    ----------
    p, q : callable or density object
        A plain callable is taken to be the **score** ∇ log density, mapping an (n, d) array to an
        (n, d) array. An object with a ``.score`` method (see :mod:`modelcompare.densities`) is used
        through it; :func:`modelcompare.densities.from_log_density` wraps a log density written in
        torch. Normalising constants are never needed.
    z : array-like, shape (n, d)
        Draws of the reference R.
    locations : int or array-like of shape (J, d)
        As in :func:`modelcompare.rel_ume`, with random rows taken from ``z``.
    bandwidth : float, optional
        Gaussian width σ (σ² = bandwidth²). Starting value with ``optimize=True``; with
        ``optimize=False`` and no value, the median distance of ``z``.
    optimize : bool
        Optimise on a ``train_fraction`` split of ``z`` and test on the rest, or test on all rows.
    train_fraction : float
        Share of rows of ``z`` used for optimisation.
    seed : int, Generator or None
        Random source of the split, the random locations and the median heuristic.
    preset : {"default", "paper-ex1", "paper-ex2", "demo"}, optional
        Named optimiser option set (Rel-FSSD rows of the paper's table).
    params : FSSDParams, optional
        Fixed parameters from :func:`optimize_fssd` (pass ``optimize=False``).
    reg, max_iter, tol_fun, locs_bounds_frac, bandwidth_bounds : optional
        Optimiser options overriding the preset.
    chunk_size : int, optional
        Rows per chunk of the linear-time passes.

    Returns
    -------
    RelFSSDResult

    Notes
    -----
    The Stein feature of location v is ``ξ(z, v) = s(z) k(z, v) + ∇_z k(z, v)`` and the feature row
    ``τ(z) = [ξ(z, vⱼ)]ⱼ / √(dJ)``. Statistic, variance and p-value are those of Rel-UME with ψ
    replaced by τ_p and τ_q on the same zᵢ. Rel-FSSD compares the *shape* (log-density gradient) of
    the models with the data, not their mass. A non-positive ν̂ gives p = 1 with ``degenerate=True``.
    Cost: each score is evaluated once on all rows of ``z`` (two n × d arrays are kept); the test
    itself makes two chunked O(nJd) passes and never forms the n × J × d feature array (the
    optimiser does, on the training split only).

    References
    ----------
    W. Jitkrittum, H. Kanagawa, P. Sangkloy, J. Hays, B. Schölkopf, A. Gretton. Informative Features
    for Model Comparison. NeurIPS 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare.densities import IsotropicNormal
    >>> z = np.random.default_rng(0).normal(size=(500, 2))
    >>> p, q = IsotropicNormal([1.0, 0.0]), IsotropicNormal([0.0, 0.0])
    >>> rel_fssd(p, q, z, locations=2, seed=0).pvalue < 0.01
    True
    """
    rng, seed_used = check_seed(seed)
    split_rng, loc_rng, med_rng = rng.spawn(3)
    z = check_samples(z, "z", min_samples=4)
    d = z.shape[1]
    score_p = resolve_score(p, "p")
    score_q = resolve_score(q, "q")
    if not isinstance(optimize, bool | np.bool_):
        msg = f"`optimize` must be True or False; got {optimize!r}."
        raise TypeError(msg)
    opts = resolve_options(
        "fssd",
        preset,
        max_iter=max_iter,
        reg=reg,
        tol_fun=tol_fun,
        locs_bounds_frac=locs_bounds_frac,
        bandwidth_bounds=bandwidth_bounds,
    )
    bw = None if bandwidth is None else check_positive(bandwidth, "bandwidth")
    locs = check_locations(locations, d)
    sp = eval_score(score_p, z, "p")
    sq = eval_score(score_q, z, "q")
    n_train, train_crit, n_iter, optimized, converged = 0, None, None, False, None
    if params is not None:
        if not isinstance(params, FSSDParams):
            msg = f"`params` must be an FSSDParams; got {type(params).__name__}."
            raise TypeError(msg)
        if bandwidth is not None or not isinstance(locations, int) or locations != 5 or optimize:
            msg = (
                "with `params`, leave `locations` and `bandwidth` at their defaults and pass "
                "`optimize=False`: the parameters are used as given on all the data."
            )
            raise ValueError(msg)
        if params.locations.shape[1] != d:
            msg = f"`params.locations` has {params.locations.shape[1]} columns; `z` has {d}."
            raise ValueError(msg)
        v, sigma = params.locations, params.bandwidth
        te = slice(None)
    elif optimize:
        train_fraction = check_fraction(train_fraction, "train_fraction")
        tr, te = split_indices(z.shape[0], train_fraction, split_rng)
        fitted = _optimize_core(z[tr], sp[tr], sq[tr], locs, bw, opts, loc_rng, med_rng)
        v, sigma = fitted.locations, fitted.bandwidth
        n_train, train_crit, n_iter, optimized = len(tr), fitted.criterion, fitted.n_iter, True
        converged = fitted.converged
    else:
        v = pooled_random_rows((z,), locs, loc_rng) if isinstance(locs, int) else locs
        sigma = pooled_meddistance((z,), med_rng) if bw is None else bw
        te = slice(None)
    sigma2 = sigma * sigma
    stats = fssd_stats(z[te], sp[te], sq[te], v, sigma2, chunk_size=chunk_size)
    pvalue, degenerate = guarded_pvalue(stats.statistic, stats.variance)
    j = v.shape[0]
    unscale = math.sqrt(d * j)
    wp = stats.mean_p.reshape(j, d) * unscale
    wq = stats.mean_q.reshape(j, d) * unscale
    return RelFSSDResult(
        statistic=stats.statistic,
        pvalue=pvalue,
        variance=stats.variance,
        locations=np.array(v, dtype=float),
        bandwidth=float(sigma),
        sigma2=float(sigma2),
        criterion=stats.criterion(opts.reg),
        train_criterion=train_crit,
        relative_witness=(np.sum(wp * wp, axis=1) - np.sum(wq * wq, axis=1)) / d,
        witness_p=wp,
        witness_q=wq,
        fssd2_p=stats.u2_p,
        fssd2_q=stats.u2_q,
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
