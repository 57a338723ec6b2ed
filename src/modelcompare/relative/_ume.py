"""Rel-UME: the linear-time relative test with mean-embedding features (Jitkrittum et al. 2018)."""

from __future__ import annotations

import math
from typing import Any, ClassVar, cast

import numpy as np

from modelcompare._foundation.results import result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    check_bool,
    check_same_width,
    check_samples,
)
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
    UMEParams,
    default_sigma2_bounds,
    pair_rows,
    pooled_meddistance,
)
from modelcompare.relative._presets import OptimizerOptions

__all__ = ["RelUMEResult", "UMEFeatures", "optimize_ume", "rel_ume", "ume_stats"]

#: Above this, ‖a‖²/σ² may overflow in the fast form of :func:`gauss_block`.
_SAFE_SCALE = 1e300


def gauss_block(a: np.ndarray, v: np.ndarray, vn: np.ndarray, sigma2: float) -> np.ndarray:
    """Gaussian kernel between the rows of ``a`` and of ``v`` (``vn`` = squared norms of ``v``).

    Computed as ``exp(min(0, (a·v − ‖a‖²/2 − ‖v‖²/2)/σ²))``: one matrix product and one pass over the
    small (rows × J) result, never an (rows × J × d) difference array. When the squared norms over
    σ² could overflow (a tiny width), the distances are formed first and scaled after.
    """
    inv = 1.0 / sigma2
    an = np.einsum("ij,ij->i", a, a)
    if inv * max(float(an.max(initial=0.0)), float(vn.max(initial=0.0))) > _SAFE_SCALE:
        d2 = an[:, None] + vn[None, :]
        d2 -= 2.0 * (a @ v.T)
        np.maximum(d2, 0.0, out=d2)
        with np.errstate(over="ignore"):
            d2 *= -0.5 * inv
        return np.exp(d2, out=d2)
    k = a @ (v.T * inv)
    k -= (0.5 * inv) * an[:, None]
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
    locations_from: str = "locations",
) -> PairedStats:
    """Rel-UME estimates at fixed locations and σ², in one pass over row chunks.

    Only the 2J-vector of feature sums and the 2J × 2J matrix ``Σᵢ Fᵢ Fᵢᵀ`` of the stacked features
    ``Fᵢ = [ψ_P[i], ψ_Q[i]]`` are accumulated, so memory beyond the data is O(chunk · J + J²).
    ``locations_from`` is the option the locations come from, for the memory check's message.
    """
    n, d = x.shape
    j = locations.shape[0]
    vn = np.einsum("ij,ij->i", locations, locations)
    rows = chunk_rows(d, chunk_size)
    check_pass_memory(
        n, d, j, rows, per_row=6 * j + 2 * d, fixed=8 * j * j, argument=locations_from
    )
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


def _check_xyz(x: Any, y: Any, z: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = check_samples(x, "x", min_samples=4)
    y = check_samples(y, "y", min_samples=4)
    z = check_samples(z, "z", min_samples=4)
    check_same_width([("x", x), ("y", y), ("z", z)], what="Rel-UME")
    return x, y, z


def witness_fields(stats: PairedStats) -> dict[str, np.ndarray]:
    """Per-location witnesses from the feature means (UME features carry a 1/√J factor)."""
    j = stats.mean_p.shape[0]
    wp = stats.mean_p * math.sqrt(j)
    wq = stats.mean_q * math.sqrt(j)
    return {"witness_p": wp, "witness_q": wq, "relative_witness": wp * wp - wq * wq}


@result_class
class RelUMEResult(LocationTestResult):
    """Result of :func:`rel_ume`: a test with a p-value, and where the models differ.

    Attributes
    ----------
    statistic : float
        ``√n (Û²_P − Û²_Q)`` on the test data.
    pvalue : float
        One-sided p-value of H0 "P is at least as close to R as Q" (1.0 when degenerate);
        ``decision(alpha)`` rejects when ``pvalue <= alpha``: Q fits R better than P.
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
    u2_p, u2_q : float
        The unbiased Û²(P, R) and Û²(Q, R).

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import rel_ume
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(500, 2))
    >>> x, y = rng.normal(size=(500, 2)) + [1.0, 0.0], rng.normal(size=(500, 2))
    >>> res = rel_ume(x, y, z, n_locations=2, seed=0)
    >>> res.decision(alpha=0.05), res.n, res.n_train
    (True, 400, 100)
    >>> res.params.locations.shape   # reusable with params= on other data
    (2, 2)
    """

    u2_p: float
    u2_q: float

    @property
    def params(self) -> UMEParams:
        """The width and locations as a :class:`UMEParams` (reusable with ``params=``)."""
        return UMEParams(self.bandwidth, self.locations, criterion=self.train_criterion)


class UMEFeatures(FeatureMap):
    """Rel-UME features ``ψ_P = (k(x, V) − k(z, V))/√J`` and ``ψ_Q = (k(y, V) − k(z, V))/√J``."""

    test = "ume"
    params_type = UMEParams
    result_type = RelUMEResult

    def __init__(self, x: np.ndarray, y: np.ndarray, z: np.ndarray) -> None:
        self.x, self.y, self.z = x, y, z

    @classmethod
    def from_samples(
        cls, x: Any, y: Any, z: Any, *, subsample: bool, rng: np.random.Generator
    ) -> UMEFeatures:
        """Check the samples and pair their rows (subsampling to the smallest n if asked)."""
        subsample = check_bool(subsample, "subsample")
        x, y, z = _check_xyz(x, y, z)
        x, y, z = pair_rows(
            [("x", x), ("y", y), ("z", z)], subsample=subsample, rng=rng, what="Rel-UME"
        )
        return cls(x, y, z)

    pool_names: ClassVar[tuple[str, ...]] = ("x", "y", "z")

    @property
    def pool(self) -> tuple[np.ndarray, ...]:
        return (self.x, self.y, self.z)

    def rows(self, idx: np.ndarray) -> UMEFeatures:
        return UMEFeatures(self.x[idx], self.y[idx], self.z[idx])

    def initial_width(
        self, bandwidth: float | None, sigma2_bounds: Bounds | None, rng: np.random.Generator
    ) -> tuple[float, Bounds]:
        """Start: the mean of the median distances of ``x ∪ z`` and ``y ∪ z`` (the paper's runs);
        σ² bounds ``[max(1e-2 med², 1e-2), min(1e2 med², 1e5)]`` with med that of ``x ∪ y ∪ z``."""
        if bandwidth is None:
            med_xz = pooled_meddistance((self.x, self.z), rng, ("x", "z"))
            med_yz = pooled_meddistance((self.y, self.z), rng, ("y", "z"))
            sigma0 = 0.5 * (med_xz + med_yz)
        else:
            sigma0 = bandwidth
        if sigma2_bounds is None:
            sigma2_bounds = default_sigma2_bounds(
                pooled_meddistance(self.pool, rng, self.pool_names), 1e-2
            )
        return sigma0, sigma2_bounds

    def fit_bytes(self, j: int) -> int:
        # vstack(x, y, z), then 3n × J distances, kernel values and weights, and the n × J
        # features, their gradients and temporaries of the criterion
        n, d = self.x.shape
        return 8 * (3 * n * d + 3 * 3 * n * j + 8 * n * j)

    def criterion_and_grad(self, reg: float) -> CritGrad:
        return ume_criterion_and_grad(self.x, self.y, self.z, reg)

    def stats(
        self,
        locations: np.ndarray,
        sigma2: float,
        *,
        chunk_size: int | None = None,
        locations_from: str = "locations",
    ) -> PairedStats:
        return ume_stats(
            self.x,
            self.y,
            self.z,
            locations,
            sigma2,
            chunk_size=chunk_size,
            locations_from=locations_from,
        )

    def result_fields(self, stats: PairedStats, locations: np.ndarray) -> dict[str, Any]:
        return {**witness_fields(stats), "u2_p": stats.u2_p, "u2_q": stats.u2_q}


@accepts_legacy_optimizer_arguments
def optimize_ume(
    x: Any,
    y: Any,
    z: Any,
    *,
    n_locations: int = DEFAULT_N_LOCATIONS,
    locations: Any = None,
    bandwidth: float | None = None,
    optimizer: OptimizerOptions | str = DEFAULT_OPTIMIZER,
    seed: SeedLike = None,
    subsample: bool = False,
) -> UMEParams:
    """Choose the Gaussian width and test locations of Rel-UME by maximising the power criterion.

    All of ``x``, ``y`` and ``z`` are used for the fit: pass training data only, and test on other
    data (:func:`rel_ume` does this split for you).

    Parameters
    ----------
    x, y, z : array-like, shape (n, d)
        Training draws of P, Q and R (equal n, rows paired).
    n_locations : int
        The number J of test locations, started from J random rows of ``vstack(x, y, z)``.
    locations : array-like of shape (J, d), optional
        Given locations, kept fixed: only the width is optimised (``n_locations`` is then J).
    bandwidth : float, optional
        Starting width σ (clipped into the bounds). Default: the mean of the median distances of
        ``x ∪ z`` and ``y ∪ z`` (the paper's experiments).
    optimizer : OptimizerOptions or str
        The optimiser's options, or the name of a preset (see :class:`OptimizerOptions`; the
        default is the reference function's own: reg 1e-3, tol_fun 1e-6, max_iter 100,
        locs_bounds_frac 100, and σ² in ``[max(1e-2 med², 1e-2), min(1e2 med², 1e5)]``, med = the
        median distance of ``vstack(x, y, z)``).
    seed : int, Generator or None
        Random source of the starting locations and of the median-heuristic subsamples.
    subsample : bool
        Reduce unequal sample sizes to the smallest n by seeded subsampling instead of raising.

    Returns
    -------
    UMEParams
        The width, the locations, the criterion reached, the iterations and the convergence flag.

    Notes
    -----
    Maximises ``(Û²_P − Û²_Q) / √(ν̂ + reg)`` over ``[σ, vec(V)]`` with L-BFGS-B and an analytic
    gradient, as the reference code (kmod ``SC_GaussUME.optimize_3sample_criterion``) does with
    autograd. The optimum is local and depends on the start.

    References
    ----------
    .. [1] W. Jitkrittum et al. (2018). Informative Features for Model Comparison. Advances in
       Neural Information Processing Systems (NeurIPS). arXiv:1810.11630.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import optimize_ume, rel_ume
    >>> rng = np.random.default_rng(0)
    >>> x, y, z = (rng.normal(size=(600, 2)) + [s, 0.0] for s in (1.0, 0.0, 0.0))
    >>> par = optimize_ume(x[:200], y[:200], z[:200], n_locations=2, seed=0)   # fit on a split
    >>> par.locations.shape, par.bandwidth > 0
    ((2, 2), True)
    >>> rel_ume(x[200:], y[200:], z[200:], params=par).pvalue < 0.01
    True
    """
    rng, _ = check_seed(seed)
    (sub_rng,) = rng.spawn(1)
    features = UMEFeatures.from_samples(x, y, z, subsample=subsample, rng=sub_rng)
    settings = RunSettings(n_locations, locations, bandwidth, optimizer)
    return cast(UMEParams, optimize_locations(features, rng, settings))


@accepts_legacy_optimizer_arguments
def rel_ume(
    x: Any,
    y: Any,
    z: Any,
    *,
    n_locations: int = DEFAULT_N_LOCATIONS,
    locations: Any = None,
    bandwidth: float | None = None,
    optimizer: OptimizerOptions | str | None = DEFAULT_OPTIMIZER,
    train_fraction: float = 0.2,
    params: UMEParams | None = None,
    seed: SeedLike = None,
    subsample: bool = False,
    chunk_size: int | None = None,
) -> RelUMEResult:
    """Rel-UME: is Q closer to the reference R than P is, and where?

    Parameters
    ----------
    x, y, z : array-like, shape (n, d)
        Independent draws of the models P, Q and the reference R. Row i of each is paired, so the
        sizes must be equal (see ``subsample``).
    n_locations : int
        The number J of test locations: optimised from J random training rows, or, with
        ``optimizer=None``, J random rows of ``vstack(x, y, z)``.
    locations : array-like of shape (J, d), optional
        Given test locations, used as they are (the optimiser then tunes only the width).
    bandwidth : float, optional
        Gaussian width σ in ``exp(−‖a−b‖²/(2σ²))`` (σ² = bandwidth², the reference code's
        ``sigma2``). With an optimiser it is only the starting value; with ``optimizer=None``
        and no value, the median heuristic of ``vstack(x, y, z)`` is used.
    optimizer : OptimizerOptions, str or None
        How to choose width and locations on a ``train_fraction`` split before testing on the
        rest: an :class:`OptimizerOptions`, or a preset name (``"default"``, the reference
        function's options; ``"paper-ex1"``, ``"paper-ex2"``, ``"demo"``, the paper's). ``None``
        tests on all the data with the given or heuristic parameters, without optimising.
    train_fraction : float
        Share of rows used for optimisation (``int(train_fraction·n)`` rows; 0.2 as in the paper).
    params : UMEParams, optional
        Parameters from :func:`optimize_ume`; the test then runs on all the data with them, and
        ``n_locations``, ``locations``, ``bandwidth`` and ``optimizer`` must be left at their
        defaults (or ``optimizer=None``).
    seed : int, Generator or None
        Random source of the subsampling, the split, the random locations and the median heuristic.
    subsample : bool
        With unequal sizes, draw the smallest n from each sample at random instead of raising.
    chunk_size : int, optional
        Rows per chunk of the linear-time pass (default: about 2 MiB of data per chunk).

    Returns
    -------
    RelUMEResult
        The statistic, its p-value (``decision(alpha)`` rejects H0 when ``pvalue <= alpha``: Q
        fits better), the locations, the width and the per-location witnesses.

    Raises
    ------
    ValueError
        For unequal sample sizes (without ``subsample``), mismatched widths, bad options, an empty
        set of locations, or a width (given, a bound, or from the median heuristic) whose square
        underflows or overflows float64.
    TypeError
        For complex or non-numeric data, or a flag that is not a bool.
    ResourceLimitError
        When the optimiser's or the test pass's blocks (they grow with J and ``chunk_size``) would
        pass the memory limit (4 GiB unless ``MODELCOMPARE_MAX_MEMORY`` says otherwise).

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
    .. [1] W. Jitkrittum, H. Kanagawa, P. Sangkloy, J. Hays, B. Schölkopf, A. Gretton. Informative
       Features for Model Comparison. NeurIPS 2018. arXiv:1810.11630.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(1000, 2))
    >>> x = rng.normal(size=(1000, 2)) + [1.0, 0.0]   # P is shifted
    >>> y = rng.normal(size=(1000, 2))                # Q matches R
    >>> res = rel_ume(x, y, z, n_locations=3, seed=0)
    >>> res.pvalue < 0.01
    True
    """
    rng, seed_used = check_seed(seed)
    (sub_rng,) = rng.spawn(1)
    features = UMEFeatures.from_samples(x, y, z, subsample=subsample, rng=sub_rng)
    settings = RunSettings(
        n_locations, locations, bandwidth, optimizer, train_fraction, params, chunk_size
    )
    return cast(RelUMEResult, relative_test(features, rng, seed_used, settings))
