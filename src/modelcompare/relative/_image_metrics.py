"""KID and FID on feature arrays, and their relative (three-sample) versions.

``kid`` and ``fid`` compute the scores as torchmetrics and clean-fid define them; ``relative_kid``
is Rel-MMD with the KID kernel (the comparator of Jitkrittum et al. 2018) and ``relative_fid`` a
bootstrap test of FID(P, R) − FID(Q, R) ≤ 0.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
import scipy.linalg

from modelcompare._foundation.errors import DegenerateDataWarning, TooFewResamplesWarning
from modelcompare._foundation.pvalues import monte_carlo_pvalue
from modelcompare._foundation.resources import check_memory, estimate_array_bytes
from modelcompare._foundation.results import (
    ConfidenceInterval,
    ScoreResult,
    TestResult,
    check_alpha,
    result_class,
)
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    check_choice,
    check_int,
    check_same_width,
    check_samples,
)
from modelcompare.kernels import PolynomialKernel
from modelcompare.relative._mmd import RelMMDResult, rel_mmd

__all__ = ["FIDResult", "KIDResult", "RelFIDResult", "fid", "kid", "relative_fid", "relative_kid"]

FID_METHODS = ("sqrtm", "eigvals")
#: Full Gram matrices are precomputed for KID when they hold at most this many entries in all.
_KID_FULL_GRAM_ENTRIES = 3 * (1 << 22)
#: clean-fid/pytorch-fid's tolerance on the imaginary part of the diagonal of √(C_x C_z).
_IMAG_ATOL = 1e-3
_FID_EPS = 1e-6


# --------------------------------------------------------------------------------------------------
# KID
# --------------------------------------------------------------------------------------------------


@result_class
class KIDResult(ScoreResult):
    """Result of :func:`kid`: a score.

    Attributes
    ----------
    value : float
        Mean of the unbiased MMD² over the subsets (the KID).
    std : float
        Standard deviation of the subset values (ddof = 0, as torchmetrics reports it).
    values : numpy.ndarray
        The per-subset unbiased MMD² values.
    n_subsets : int
        Number of subsets.
    subset_size : int
        Rows per subset actually used (``min(subset_size, n_x, n_z)``).
    seed_used : int or None
        Seed reproducing the subsets.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import kid
    >>> rng = np.random.default_rng(0)
    >>> res = kid(rng.normal(size=(300, 4)) * 1.5, rng.normal(size=(300, 4)), n_subsets=5,
    ...           subset_size=100, seed=0)
    >>> res.value > 0, res.values.shape
    (True, (5,))
    """

    value: float
    std: float
    values: np.ndarray
    n_subsets: int
    subset_size: int
    seed_used: int | None

    _repr_fields: ClassVar[tuple[str, ...]] = ("value", "std", "n_subsets", "subset_size")


def _mmd2_kid(k_xx: np.ndarray, k_zz: np.ndarray, k_xz: np.ndarray) -> float:
    """Bińkowski et al.'s unbiased MMD²: diagonals out of the within sums, all m² cross pairs."""
    m = k_xx.shape[0]
    within = (k_xx.sum() - np.trace(k_xx) + k_zz.sum() - np.trace(k_zz)) / (m * (m - 1))
    return float(within - 2.0 * k_xz.sum() / (m * m))


def kid(
    x: Any,
    z: Any,
    *,
    n_subsets: int = 100,
    subset_size: int = 1000,
    seed: SeedLike = None,
) -> KIDResult:
    r"""Kernel Inception Distance (Bińkowski et al. 2018) on feature arrays.

    Parameters
    ----------
    x : array-like, shape (n_x, d)
        Features of the generated samples (e.g. Inception pool3 features).
    z : array-like, shape (n_z, d)
        Features of the reference (real) samples.
    n_subsets : int
        Number of random subsets.
    subset_size : int
        Rows per subset, drawn without replacement, independently for x and z; clipped to
        ``min(n_x, n_z)`` as clean-fid does (torchmetrics raises instead).
    seed : int, Generator or None
        Random source of the subsets.

    Returns
    -------
    KIDResult
        ``value`` (the mean over subsets), ``std`` and the per-subset values.

    Raises
    ------
    ValueError
        For bad data or options, or when the cubic kernel overflows float64.
    ResourceLimitError
        When ``n_subsets`` values or three ``subset_size`` × ``subset_size`` Gram matrices would
        pass the memory limit.

    Notes
    -----
    The kernel is :math:`k(a, b) = (a^\top b / d + 1)^3`
    (:class:`~modelcompare.kernels.PolynomialKernel`). Each subset contributes

    .. math::

        \frac{\sum_{i\ne j}k(x_i,x_j) + \sum_{i\ne j}k(z_i,z_j)}{m(m-1)}
        - \frac{2}{m^2}\sum_{i,j}k(x_i,z_j),

    as in torchmetrics' ``KernelInceptionDistance`` and clean-fid's ``kernel_distance``; ``std``
    uses ddof = 0 like torchmetrics. KID is a score, not a test: use
    :func:`relative_kid` to compare two models.

    References
    ----------
    M. Bińkowski, D. J. Sutherland, M. Arbel, A. Gretton. Demystifying MMD GANs. ICLR 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import kid
    >>> rng = np.random.default_rng(0)
    >>> res = kid(rng.normal(size=(500, 8)), rng.normal(size=(500, 8)), n_subsets=10,
    ...           subset_size=200, seed=0)
    >>> abs(res.value) < 0.05
    True
    """
    x = check_samples(x, "x")
    z = check_samples(z, "z")
    check_same_width([("x", x), ("z", z)], what="KID")
    n_subsets = check_int(n_subsets, "n_subsets", low=1)
    subset_size = check_int(subset_size, "subset_size", low=2)
    rng, seed_used = check_seed(seed)
    m = min(subset_size, x.shape[0], z.shape[0])
    kernel = PolynomialKernel(degree=3)
    nx, nz = x.shape[0], z.shape[0]
    full = nx * nx + nz * nz + nx * nz <= _KID_FULL_GRAM_ENTRIES
    check_memory(estimate_array_bytes(n_subsets), "the per-subset KID values", "n_subsets")
    check_memory(
        estimate_array_bytes((2 * 3, m, m)), f"three {m} × {m} subset Gram matrices", "subset_size"
    )
    values = np.empty(n_subsets)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below
        if full:
            gxx, gzz, gxz = kernel(x, x), kernel(z, z), kernel(x, z)
        for s in range(n_subsets):
            ix = rng.choice(nx, size=m, replace=False)
            iz = rng.choice(nz, size=m, replace=False)
            if full:
                k_xx, k_zz, k_xz = gxx[np.ix_(ix, ix)], gzz[np.ix_(iz, iz)], gxz[np.ix_(ix, iz)]
            else:
                xs, zs = x[ix], z[iz]
                k_xx, k_zz, k_xz = kernel(xs, xs), kernel(zs, zs), kernel(xs, zs)
            values[s] = _mmd2_kid(k_xx, k_zz, k_xz)
    if not np.isfinite(values).all():
        msg = (
            "the KID is not finite: the cubic kernel (aᵀb/d + 1)³ overflows float64 on the "
            f"features `x` and `z` (largest |value| {max(np.max(np.abs(x)), np.max(np.abs(z))):.3g}). KID is "
            "not scale-invariant: divide both samples by one common factor and compare on that "
            "scale."
        )
        raise ValueError(msg)
    return KIDResult(
        value=float(values.mean()),
        std=float(values.std()),
        values=values,
        n_subsets=n_subsets,
        subset_size=m,
        seed_used=seed_used,
    )


def relative_kid(
    x: Any,
    y: Any,
    z: Any,
    *,
    subsample: bool = False,
    seed: SeedLike = None,
    chunk_size: int | None = None,
) -> RelMMDResult:
    """Relative KID test: Rel-MMD with the KID kernel and its analytic variance.

    This is the KID comparator of Jitkrittum et al. (2018, ``met_kid_mmd``): :func:`rel_mmd` with
    ``kernel=PolynomialKernel(degree=3)``, i.e. k(a, b) = (aᵀb/d + 1)³, on the full samples (no
    subsets). H0: MMD_k(P, R) ≤ MMD_k(Q, R) ("P is at least as close to R as Q").

    Parameters
    ----------
    x, y : array-like, shape (n, d)
        Features of the samples of the models P and Q.
    z : array-like, shape (n, d)
        Features of the reference sample.
    subsample : bool
        Subsample unequal samples to the smallest size (seeded); otherwise unequal sizes raise.
    seed : int, Generator or None
        Random source of ``subsample``.
    chunk_size : int, optional
        Rows per chunk (the edge of the square Gram-matrix tiles).

    Returns
    -------
    RelMMDResult
        As :func:`rel_mmd`; ``bandwidth`` and ``sigma2`` are None.

    Raises
    ------
    ValueError
        As :func:`rel_mmd`; the cubic kernel overflowing float64 (features of large magnitude)
        is refused.

    Notes
    -----
    The statistic, variance and p-value are those of :func:`rel_mmd`; the MMD² inside is the
    one-sample U-statistic of Rel-MMD (the x_i–z_i diagonal is removed from the cross term), which
    differs from the subset KID of :func:`kid` by O(1/n).

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import relative_kid
    >>> rng = np.random.default_rng(1)
    >>> z = rng.normal(size=(300, 4))
    >>> x = 2.0 * rng.normal(size=(300, 4))   # P: too spread out
    >>> y = rng.normal(size=(300, 4))         # Q: matches R
    >>> res = relative_kid(x, y, z)
    >>> res.pvalue < 0.05
    True
    """
    return rel_mmd(
        x,
        y,
        z,
        kernel=PolynomialKernel(degree=3),
        subsample=subsample,
        seed=seed,
        chunk_size=chunk_size,
    )


# --------------------------------------------------------------------------------------------------
# FID
# --------------------------------------------------------------------------------------------------


def _mean_cov(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # Overflow (features near the float64 limit) shows up as inf/NaN and is refused by the callers.
    with np.errstate(over="ignore", invalid="ignore"):
        return a.mean(axis=0), np.atleast_2d(np.cov(a, rowvar=False, ddof=1))


def _sqrtm(a: np.ndarray) -> np.ndarray:
    if not np.isfinite(a).all():  # scipy raises an internal error on inf; report it as not finite
        return np.full(a.shape, np.nan)
    with warnings.catch_warnings():
        # scipy warns on (near-)singular products; finiteness and complex parts are checked below.
        warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(scipy.linalg.sqrtm(a))


def _trace_sqrt_product(c1: np.ndarray, c2: np.ndarray, method: str) -> float:
    """tr((C1 C2)^{1/2}) as clean-fid (``sqrtm``) or torchmetrics (``eigvals``) computes it."""
    with np.errstate(over="ignore", invalid="ignore"):
        product = c1 @ c2
    if method == "eigvals":
        if not np.isfinite(product).all():
            return float("nan")
        eig = scipy.linalg.eigvals(product)
        return float(np.sqrt(eig.astype(complex)).real.sum())
    covmean = _sqrtm(product)
    if not np.isfinite(covmean).all():
        offset = np.eye(c1.shape[0]) * _FID_EPS
        covmean = _sqrtm((c1 + offset) @ (c2 + offset))
    if np.iscomplexobj(covmean):
        imag = float(np.max(np.abs(np.diagonal(covmean).imag)))
        if imag > _IMAG_ATOL:
            warnings.warn(
                f"The square root of the covariance product has an imaginary part up to {imag:.3g} "
                "on its diagonal (near-singular covariances, e.g. fewer rows than features); "
                "its real part is used.",
                DegenerateDataWarning,
                stacklevel=4,
            )
        covmean = covmean.real
    return float(np.trace(covmean))


def _frechet(
    mu1: np.ndarray, c1: np.ndarray, mu2: np.ndarray, c2: np.ndarray, method: str
) -> float:
    """The Fréchet distance; NaN or inf when a moment or the matrix root overflows float64."""
    if not all(np.isfinite(a).all() for a in (mu1, c1, mu2, c2)):
        return float("nan")
    with np.errstate(over="ignore", invalid="ignore"):
        diff = mu1 - mu2
        return float(
            diff @ diff + np.trace(c1) + np.trace(c2) - 2.0 * _trace_sqrt_product(c1, c2, method)
        )


def _refuse_overflow(value: float, names: str, arrays: tuple[np.ndarray, ...]) -> None:
    """Raise a ValueError when an FID on the full samples is not finite (float64 overflow).

    FID is not scale-invariant (it scales as the square of the features), so the data are not
    rescaled behind the caller's back.
    """
    if np.isfinite(value):
        return
    largest = max(float(np.max(np.abs(a))) for a in arrays)
    msg = (
        f"the FID of {names} is not finite: the feature means, covariances or the square root of "
        f"their product overflow float64 (largest |value| {largest:.3g}). FID is not "
        "scale-invariant, so it is not rescaled here: divide all the samples by one common factor "
        "(e.g. their largest absolute value) and compare the FIDs on that scale."
    )
    raise ValueError(msg)


@result_class
class FIDResult(ScoreResult):
    r"""Result of :func:`fid`: a score.

    Attributes
    ----------
    value : float
        The Fréchet distance :math:`\|m_x - m_z\|^2 + \mathrm{tr}(C_x) + \mathrm{tr}(C_z)
        - 2\,\mathrm{tr}((C_x C_z)^{1/2})`.
    mean_term : float
        Its mean part :math:`\|m_x - m_z\|^2`; ``value − mean_term`` is the covariance part.
    method : str
        The matrix square root used (``"sqrtm"`` or ``"eigvals"``).
    n_x, n_z : int
        Rows of the two feature arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import fid
    >>> a = np.random.default_rng(0).normal(size=(1000, 3))
    >>> res = fid(a + [1.0, 0.0, 0.0], a)
    >>> round(res.value, 6), round(res.mean_term, 6), res.method
    (1.0, 1.0, 'sqrtm')
    """

    value: float
    mean_term: float
    method: str
    n_x: int
    n_z: int


def fid(x: Any, z: Any, *, method: str = "sqrtm") -> FIDResult:
    r"""Fréchet (Inception) distance between two feature arrays (Heusel et al. 2017).

    Parameters
    ----------
    x : array-like, shape (n_x, d)
        Features of the generated samples.
    z : array-like, shape (n_z, d)
        Features of the reference samples.
    method : {"sqrtm", "eigvals"}
        ``"sqrtm"`` (default): ``scipy.linalg.sqrtm`` of C_x C_z, retried with 1e-6 added to both
        diagonals when not finite, real part taken (clean-fid, pytorch-fid and the reference code).
        ``"eigvals"``: the sum of the square roots of the eigenvalues of C_x C_z, real part
        (torchmetrics). The two agree to rounding on well-conditioned covariances.

    Returns
    -------
    FIDResult
        ``value`` = :math:`\|m_x - m_z\|^2 + \mathrm{tr}(C_x) + \mathrm{tr}(C_z)
        - 2\,\mathrm{tr}((C_x C_z)^{1/2})`, with ddof = 1 covariances, and its mean part.

    Raises
    ------
    ValueError
        For mismatched widths, NaN/inf or complex input, or when the distance overflows float64
        (features of magnitude near 1e150 or above): FID is not scale-invariant, so the data are
        not rescaled silently.

    Warns
    -----
    DegenerateDataWarning
        With ``"sqrtm"``, when the diagonal of the root has an imaginary part above 1e-3 (clean-fid
        raises there); the real part is used.

    Notes
    -----
    FID is a biased score with no calibrated threshold: comparing FID(P, R) with FID(Q, R) decides
    for one model about half of the time when both are equally good. Use :func:`relative_fid`.

    References
    ----------
    M. Heusel, H. Ramsauer, T. Unterthiner, B. Nessler, S. Hochreiter. GANs Trained by a Two
    Time-Scale Update Rule Converge to a Local Nash Equilibrium. NeurIPS 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import fid
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=(2000, 3))
    >>> round(fid(a + [2.0, 0.0, 0.0], a).value, 6)   # same covariance: the squared mean shift
    4.0
    """
    x = check_samples(x, "x")
    z = check_samples(z, "z")
    check_same_width([("x", x), ("z", z)], what="FID")
    method = check_choice(method, "method", FID_METHODS)
    mx, cx = _mean_cov(x)
    mz, cz = _mean_cov(z)
    value = _frechet(mx, cx, mz, cz, method)
    _refuse_overflow(value, "`x` and `z`", (x, z))
    diff = mx - mz
    return FIDResult(
        value=value,
        mean_term=float(diff @ diff),
        method=method,
        n_x=x.shape[0],
        n_z=z.shape[0],
    )


# --------------------------------------------------------------------------------------------------
# relative FID
# --------------------------------------------------------------------------------------------------


@result_class
class RelFIDResult(TestResult):
    """Result of :func:`relative_fid`: a test with a p-value, and a bootstrap interval.

    Attributes
    ----------
    statistic : float
        FID(P, R) − FID(Q, R) on the full samples; positive favours Q.
    pvalue : float
        Bootstrap p-value (1 + #{Δ* ≤ 0}) / (1 + B) of H0: FID(P, R) − FID(Q, R) ≤ 0;
        ``decision(alpha)`` rejects when ``pvalue <= alpha``: Q fits R better than P.
    fid_p, fid_q : float
        FID(P, R) and FID(Q, R).
    bootstrap_std : float
        Standard deviation of the bootstrap differences Δ*.
    n_resamples : int
        The number B of bootstrap resamples.
    method : str
        Matrix square root used (see :func:`fid`).
    degenerate : bool
        True when every Δ* is equal (e.g. constant data; ``pvalue`` is then 1 unless all Δ* > 0),
        or when some Δ* is not finite (features near the float64 overflow limit; ``pvalue`` is
        then 1 and ``bootstrap_std`` NaN).
    seed_used : int or None
        Seed reproducing the resamples.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import relative_fid
    >>> rng = np.random.default_rng(0)
    >>> x, y, z = (rng.normal(size=(300, 2)) + [s, 0.0] for s in (1.0, 0.0, 0.0))
    >>> res = relative_fid(x, y, z, n_resamples=100, seed=0)
    >>> res.decision(alpha=0.05), res.bootstrap.shape
    (True, (100,))
    >>> low, high = res.confidence_interval(confidence_level=0.9)   # 1 − 2α for α = 0.05
    >>> bool(low > 0)
    True
    """

    statistic: float
    pvalue: float
    fid_p: float
    fid_q: float
    bootstrap_std: float
    n_resamples: int
    method: str
    degenerate: bool
    seed_used: int | None
    _bootstrap: np.ndarray

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "n_resamples")

    @property
    def bootstrap(self) -> np.ndarray:
        """The B bootstrap differences Δ* = FID(X*, Z*) − FID(Y*, Z*)."""
        return self._bootstrap

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Two-sided percentile bootstrap interval for FID(P, R) − FID(Q, R).

        Parameters
        ----------
        confidence_level : float
            Coverage c in (0, 1). The ends are the (1 − c)/2 and (1 + c)/2 quantiles of the
            bootstrap differences; with c = 1 − 2α the lower end is the one-sided 1 − α bound that
            ``decision(alpha)`` compares with 0 (up to the +1 of the p-value).

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``.
        """
        level = check_alpha(confidence_level, "confidence_level")
        # (1 − c)/2 is rounded to 12 significant digits so that c = 1 − 2α gives α back exactly
        # (0.05, not 0.04999999999999999) and the ends are the α and 1 − α quantiles to the bit.
        tail = float(f"{(1.0 - level) / 2.0:.12g}")
        low, high = np.quantile(self._bootstrap, [tail, 1.0 - tail])
        return ConfidenceInterval(float(low), float(high))


def relative_fid(
    x: Any,
    y: Any,
    z: Any,
    *,
    n_resamples: int = 200,
    method: str = "sqrtm",
    seed: SeedLike = None,
) -> RelFIDResult:
    r"""Bootstrap test of H0: FID(P, R) − FID(Q, R) ≤ 0 ("P is at least as close to R as Q").

    Parameters
    ----------
    x, y : array-like, shape (n_x, d) and (n_y, d)
        Features of the samples of the models P and Q.
    z : array-like, shape (n_z, d)
        Features of the reference sample. Sample sizes may differ.
    n_resamples : int
        Number B of bootstrap resamples (each costs two FIDs: two d×d matrix square roots).
    method : {"sqrtm", "eigvals"}
        Matrix square root, as in :func:`fid`.
    seed : int, Generator or None
        Random source of the resamples.

    Returns
    -------
    RelFIDResult
        The difference, its bootstrap p-value and the bootstrap distribution;
        ``confidence_interval(confidence_level)`` gives a percentile interval.

    Raises
    ------
    ValueError
        For mismatched widths, NaN/inf or complex input, or when FID(P, R) or FID(Q, R) overflows
        float64 on the full samples (FID is not scale-invariant: rescale all three samples by one
        common factor yourself). A bootstrap resample that overflows instead gives p = 1 and
        ``degenerate=True`` with a :class:`~modelcompare.DegenerateDataWarning`.
    ResourceLimitError
        When the ``n_resamples`` bootstrap differences would pass the memory limit.

    Notes
    -----
    Each resample draws X*, Y* and Z* with replacement (sizes n_x, n_y, n_z) and computes
    Δ* = FID(X*, Z*) − FID(Y*, Z*); the same Z* enters both terms, which keeps their correlation.
    The p-value is the percentile-bootstrap one, (1 + #{Δ* ≤ 0}) / (1 + B): H0 is rejected at α when
    the lower 1 − α percentile bound of the difference is above 0 (up to the +1 of the p-value).

    **Calibration.** This is an asymptotic test, *not* an exact or proven-calibrated one. At the
    boundary FID(P, R) = FID(Q, R) with P ≠ Q the difference is asymptotically normal (the delta
    method applies) and the percentile bootstrap is first-order correct; at P = Q = R the first-order
    term vanishes and the bootstrap is not consistent. Its size was measured by simulation
    (the relative-FID rows of ``benchmarks/relative_mmd_studies.py``); FID's estimator bias depends
    on the covariances, so models that differ in kind (a mean shift against a covariance change of
    equal population FID) are a harder case. A P/Q label permutation would be exact only when P = Q,
    so it is not used.

    References
    ----------
    W. Jitkrittum et al. Informative Features for Model Comparison. NeurIPS 2018 (Table 1: comparing
    raw FIDs decides for one model about half the time when both fit equally well).

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import relative_fid
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(400, 3))
    >>> x = rng.normal(size=(400, 3)) + [1.0, 0.0, 0.0]
    >>> y = rng.normal(size=(400, 3))
    >>> relative_fid(x, y, z, n_resamples=100, seed=0).decision(alpha=0.05)
    True
    """
    x = check_samples(x, "x")
    y = check_samples(y, "y")
    z = check_samples(z, "z")
    check_same_width([("x", x), ("y", y), ("z", z)], what="relative FID")
    n_resamples = check_int(n_resamples, "n_resamples", low=1)
    method = check_choice(method, "method", FID_METHODS)
    check_memory(estimate_array_bytes(n_resamples), "the bootstrap differences", "n_resamples")
    rng, seed_used = check_seed(seed)
    if n_resamples < 100:
        warnings.warn(
            f"`n_resamples` = {n_resamples} resamples resolve the p-value only to "
            f"1/{n_resamples + 1}; use at least 100.",
            TooFewResamplesWarning,
            stacklevel=2,
        )

    def delta(a: np.ndarray, b: np.ndarray, r: np.ndarray) -> tuple[float, float]:
        mr, cr = _mean_cov(r)
        ma, ca = _mean_cov(a)
        mb, cb = _mean_cov(b)
        return _frechet(ma, ca, mr, cr, method), _frechet(mb, cb, mr, cr, method)

    fid_p, fid_q = delta(x, y, z)
    _refuse_overflow(fid_p, "`x` and `z`", (x, z))
    _refuse_overflow(fid_q, "`y` and `z`", (y, z))
    statistic = fid_p - fid_q
    boot = np.empty(n_resamples)
    nx, ny, nz = x.shape[0], y.shape[0], z.shape[0]
    for b in range(n_resamples):
        xs = x[rng.integers(0, nx, nx)]
        ys = y[rng.integers(0, ny, ny)]
        zs = z[rng.integers(0, nz, nz)]
        fp, fq = delta(xs, ys, zs)
        boot[b] = fp - fq
    n_bad = int(np.count_nonzero(~np.isfinite(boot)))
    if n_bad or not np.isfinite(statistic):
        # A resample whose FID overflows float64 leaves no usable null: no decision.
        warnings.warn(
            f"{n_bad} of {n_resamples} bootstrap differences (or the difference itself) are not "
            "finite: the features are near the float64 overflow limit. Returning p = 1 with "
            "degenerate=True; divide all three samples by one common factor and rerun.",
            DegenerateDataWarning,
            stacklevel=2,
        )
        pvalue, degenerate = 1.0, True
        spread = float("nan")
    else:
        pvalue = monte_carlo_pvalue(0.0, -boot)  # (1 + #{Δ* ≤ 0}) / (1 + B)
        degenerate = bool(np.ptp(boot) == 0.0)
        if degenerate:
            warnings.warn(
                "Every bootstrap difference is identical (constant data?); the bootstrap has no "
                "spread.",
                DegenerateDataWarning,
                stacklevel=2,
            )
        spread = float(boot.std(ddof=1)) if n_resamples > 1 else 0.0
    return RelFIDResult(
        statistic=float(statistic),
        pvalue=float(pvalue),
        fid_p=float(fid_p),
        fid_q=float(fid_q),
        bootstrap_std=spread,
        n_resamples=n_resamples,
        method=method,
        degenerate=degenerate,
        seed_used=seed_used,
        _bootstrap=boot,
    )
