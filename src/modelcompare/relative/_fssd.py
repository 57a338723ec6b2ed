"""Rel-FSSD: the linear-time relative test with Stein features (Jitkrittum et al. 2018)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar, cast

import numpy as np

from modelcompare._foundation.results import result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import as_numpy, check_samples
from modelcompare.relative._chunks import check_pass_memory, chunk_rows
from modelcompare.relative._core import PairedStats, criterion_and_grad, stats_from_sums
from modelcompare.relative._driver import (
    DEFAULT_N_LOCATIONS,
    DEFAULT_OPTIMIZER,
    FeatureMap,
    LocationTestResult,
    RunSettings,
    optimize_locations,
    relative_test,
)
from modelcompare.relative._legacy import accepts_legacy_optimizer_arguments
from modelcompare.relative._optimize import (
    Bounds,
    CritGrad,
    FSSDParams,
    default_sigma2_bounds,
    pooled_meddistance,
)
from modelcompare.relative._presets import OptimizerOptions
from modelcompare.relative._ume import gauss_block

__all__ = [
    "FSSDFeatures",
    "RelFSSDResult",
    "fssd_stats",
    "optimize_fssd",
    "rel_fssd",
    "resolve_score",
]

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
    """Call a score function and check that it returns finite real (n, d) values.

    The output may be a numpy array, a list or a torch tensor (detached, also with
    ``requires_grad``); complex values are refused rather than cut to their real part.
    """
    raw = as_numpy(score(z), f"score({name})")
    try:
        out = np.asarray(raw, dtype=float)
    except (TypeError, ValueError):
        msg = f"the score of `{name}` must return numbers; got dtype {raw.dtype}."
        raise TypeError(msg) from None
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
    locations_from: str = "locations",
) -> PairedStats:
    """Rel-FSSD estimates at fixed locations and σ², in two chunked passes (never n × J × d).

    With ``wᵢ = s(zᵢ) − zᵢ/σ²`` the Stein feature is ``τ[i, j] = k(zᵢ, vⱼ)(wᵢ + vⱼ/σ²)/√(dJ)``, so
    the row sums, squared norms and projections reduce to n × J and n × d products.
    ``locations_from`` is the option the locations come from, for the memory check's message.
    """
    n, d = z.shape
    j = locations.shape[0]
    scale = 1.0 / math.sqrt(d * j)
    vn = np.einsum("ij,ij->i", locations, locations)
    rows = chunk_rows(d, chunk_size)
    check_pass_memory(
        n, d, j, rows, per_row=6 * j + 4 * d, fixed=6 * j * d, argument=locations_from
    )
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


@result_class
class RelFSSDResult(LocationTestResult):
    """Result of :func:`rel_fssd`: a test with a p-value, and where the models' shapes differ.

    Attributes
    ----------
    statistic, pvalue, variance : float
        ``√n (FSSD̂²_p − FSSD̂²_q)``, its one-sided p-value (H0: p at least as close to r as q;
        ``decision(alpha)`` rejects when ``pvalue <= alpha``) and the plug-in variance ν̂.
    locations : numpy.ndarray
        Test locations, shape ``(J, d)``.
    bandwidth, sigma2 : float
        Gaussian width σ and σ².
    criterion, train_criterion : float, float or None
        Power criterion on the test data, and the one the optimiser reached on the training split.
    relative_witness : numpy.ndarray
        ``(‖g_p(v)‖² − ‖g_q(v)‖²)/d`` per location, where g is the Stein witness: positive where q's
        shape matches r better. Its mean over locations is FSSD̂²_p − FSSD̂²_q (plug-in).
    witness_p, witness_q : numpy.ndarray
        Stein witnesses ``g(v) = mean_i [s(zᵢ) k(zᵢ, v) + ∇k(zᵢ, v)]``, shape ``(J, d)``.
    zeta2_p, zeta2_q, zeta_pq : float
        Plug-in variance terms (factor 4 included).
    degenerate : bool
        True when ν̂ is not positive (p = 1).
    n, n_train : int
        Rows of ``z`` used by the test and by the optimiser.
    optimized : bool
        Whether width and locations were optimised on a split of ``z``.
    preset : str
        Optimiser option set used.
    n_iter : int or None
        L-BFGS-B iterations (None without optimisation).
    converged : bool or None
        Whether L-BFGS-B reported convergence (None without optimisation).
    seed_used : int or None
        Seed that reproduces the run (None when a Generator was passed).
    fssd2_p, fssd2_q : float
        The unbiased FSSD̂² of p and q.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import rel_fssd
    >>> from modelcompare.densities import IsotropicNormal
    >>> z = np.random.default_rng(0).normal(size=(500, 2))
    >>> res = rel_fssd(IsotropicNormal([1.0, 0.0]), IsotropicNormal([0.0, 0.0]), z, seed=0)
    >>> res.decision(alpha=0.05), res.witness_p.shape
    (True, (5, 2))
    """

    fssd2_p: float
    fssd2_q: float

    @property
    def params(self) -> FSSDParams:
        """The width and locations as :class:`FSSDParams` (reusable with ``params=``)."""
        return FSSDParams(self.bandwidth, self.locations, criterion=self.train_criterion)


class FSSDFeatures(FeatureMap):
    """Rel-FSSD Stein features ``τ(z) = [s(z) k(z, vⱼ) + ∇_z k(z, vⱼ)]ⱼ / √(dJ)`` for p and q."""

    test = "fssd"
    params_type = FSSDParams
    result_type = RelFSSDResult
    data_has = "`z` has"

    def __init__(self, z: np.ndarray, score_p: np.ndarray, score_q: np.ndarray) -> None:
        self.z, self.score_p, self.score_q = z, score_p, score_q

    @classmethod
    def from_models(cls, p: Any, q: Any, z: Any) -> FSSDFeatures:
        """Check ``z`` and evaluate the scores of ``p`` and ``q`` once on all its rows."""
        z = check_samples(z, "z", min_samples=4)
        score_p = resolve_score(p, "p")
        score_q = resolve_score(q, "q")
        for name, model in (("p", p), ("q", q)):
            dim = getattr(model, "dim", None)
            if isinstance(dim, int) and dim != z.shape[1]:
                msg = f"`z` has {z.shape[1]} columns but the density `{name}` has dimension {dim}."
                raise ValueError(msg)
        return cls(z, eval_score(score_p, z, "p"), eval_score(score_q, z, "q"))

    pool_names: ClassVar[tuple[str, ...]] = ("z",)

    @property
    def pool(self) -> tuple[np.ndarray, ...]:
        return (self.z,)

    def rows(self, idx: np.ndarray) -> FSSDFeatures:
        return FSSDFeatures(self.z[idx], self.score_p[idx], self.score_q[idx])

    def initial_width(
        self, bandwidth: float | None, sigma2_bounds: Bounds | None, rng: np.random.Generator
    ) -> tuple[float, Bounds]:
        """Start: the median distance of ``z``; σ² bounds ``[max(1e-2 med², 1e-3), min(1e2 med²,
        1e5)]`` (kmod's ``DC_GaussFSSD``)."""
        med = pooled_meddistance(self.pool, rng, self.pool_names)
        sigma0 = med if bandwidth is None else bandwidth
        s2b = default_sigma2_bounds(med, 1e-3) if sigma2_bounds is None else sigma2_bounds
        return sigma0, s2b

    def fit_bytes(self, j: int) -> int:
        # the n × J × d differences, Stein factors, features and their gradients (about 12 live)
        n, d = self.z.shape
        return 8 * 12 * n * j * d

    def criterion_and_grad(self, reg: float) -> CritGrad:
        return fssd_criterion_and_grad(self.z, self.score_p, self.score_q, reg)

    def stats(
        self,
        locations: np.ndarray,
        sigma2: float,
        *,
        chunk_size: int | None = None,
        locations_from: str = "locations",
    ) -> PairedStats:
        return fssd_stats(
            self.z,
            self.score_p,
            self.score_q,
            locations,
            sigma2,
            chunk_size=chunk_size,
            locations_from=locations_from,
        )

    def result_fields(self, stats: PairedStats, locations: np.ndarray) -> dict[str, Any]:
        d = self.dim
        j = locations.shape[0]
        unscale = math.sqrt(d * j)
        wp = stats.mean_p.reshape(j, d) * unscale
        wq = stats.mean_q.reshape(j, d) * unscale
        return {
            "relative_witness": (np.sum(wp * wp, axis=1) - np.sum(wq * wq, axis=1)) / d,
            "witness_p": wp,
            "witness_q": wq,
            "fssd2_p": stats.u2_p,
            "fssd2_q": stats.u2_q,
        }


@accepts_legacy_optimizer_arguments
def optimize_fssd(
    p: Any,
    q: Any,
    z: Any,
    *,
    n_locations: int = DEFAULT_N_LOCATIONS,
    locations: Any = None,
    bandwidth: float | None = None,
    optimizer: OptimizerOptions | str = DEFAULT_OPTIMIZER,
    seed: SeedLike = None,
) -> FSSDParams:
    """Choose the Gaussian width and test locations of Rel-FSSD by maximising the power criterion.

    All rows of ``z`` are used for the fit: pass training data only.

    Parameters
    ----------
    p, q : callable or density object
        Score functions ∇ log p, ∇ log q ((n, d) → (n, d)), or objects with a ``.score`` method.
    z : array-like, shape (n, d)
        Training draws of R.
    n_locations : int
        The number J of test locations, started from J random rows of ``z``.
    locations : array-like of shape (J, d), optional
        Given locations, kept fixed (width only).
    bandwidth : float, optional
        Starting width σ; default the median distance of ``z``.
    optimizer, seed
        As in :func:`modelcompare.optimize_ume`; the default lower σ² bound is
        ``max(1e-2 med², 1e-3)`` (kmod's ``DC_GaussFSSD``).

    Returns
    -------
    FSSDParams

    References
    ----------
    .. [1] W. Jitkrittum et al. (2018). Informative Features for Model Comparison. Advances in
       Neural Information Processing Systems (NeurIPS). arXiv:1810.11630.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import optimize_fssd, rel_fssd
    >>> from modelcompare.densities import IsotropicNormal
    >>> p, q = IsotropicNormal([1.0, 0.0]), IsotropicNormal([0.0, 0.0])
    >>> z = np.random.default_rng(0).normal(size=(600, 2))
    >>> par = optimize_fssd(p, q, z[:200], n_locations=2, seed=0)   # fit on a split
    >>> par.locations.shape
    (2, 2)
    >>> rel_fssd(p, q, z[200:], params=par).pvalue < 0.01
    True
    """
    rng, _ = check_seed(seed)
    features = FSSDFeatures.from_models(p, q, z)
    settings = RunSettings(n_locations, locations, bandwidth, optimizer)
    return cast(FSSDParams, optimize_locations(features, rng, settings))


@accepts_legacy_optimizer_arguments
def rel_fssd(
    p: Any,
    q: Any,
    z: Any,
    *,
    n_locations: int = DEFAULT_N_LOCATIONS,
    locations: Any = None,
    bandwidth: float | None = None,
    optimizer: OptimizerOptions | str | None = DEFAULT_OPTIMIZER,
    train_fraction: float = 0.2,
    params: FSSDParams | None = None,
    seed: SeedLike = None,
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
    n_locations, locations : int, array-like of shape (J, d), optional
        As in :func:`modelcompare.rel_ume`, with random rows taken from ``z``.
    bandwidth : float, optional
        Gaussian width σ (σ² = bandwidth²). Starting value with an optimiser; with
        ``optimizer=None`` and no value, the median distance of ``z``.
    optimizer : OptimizerOptions, str or None
        As in :func:`modelcompare.rel_ume`: options or a preset name (the Rel-FSSD rows of the
        paper's table) to optimise on a ``train_fraction`` split of ``z`` and test on the rest;
        ``None`` tests on all rows.
    train_fraction : float
        Share of rows of ``z`` used for optimisation.
    params : FSSDParams, optional
        Fixed parameters from :func:`optimize_fssd`, used as given on all rows.
    seed : int, Generator or None
        Random source of the split, the random locations and the median heuristic.
    chunk_size : int, optional
        Rows per chunk of the linear-time passes.

    Returns
    -------
    RelFSSDResult
        The statistic, its p-value (``decision(alpha)`` rejects H0 when ``pvalue <= alpha``: q
        fits better), the locations, the width and the per-location witnesses.

    Raises
    ------
    ValueError, TypeError
        As :func:`modelcompare.rel_ume`; also for a score that returns NaN/inf, complex values or
        the wrong shape.
    ResourceLimitError
        When the optimiser's n × J × d arrays or a test-pass chunk would pass the memory limit.

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
    .. [1] W. Jitkrittum, H. Kanagawa, P. Sangkloy, J. Hays, B. Schölkopf, A. Gretton. Informative
       Features for Model Comparison. NeurIPS 2018. arXiv:1810.11630.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare.densities import IsotropicNormal
    >>> z = np.random.default_rng(0).normal(size=(500, 2))
    >>> p, q = IsotropicNormal([1.0, 0.0]), IsotropicNormal([0.0, 0.0])
    >>> rel_fssd(p, q, z, n_locations=2, seed=0).pvalue < 0.01
    True
    """
    rng, seed_used = check_seed(seed)
    features = FSSDFeatures.from_models(p, q, z)
    settings = RunSettings(
        n_locations, locations, bandwidth, optimizer, train_fraction, params, chunk_size
    )
    return cast(RelFSSDResult, relative_test(features, rng, seed_used, settings))
