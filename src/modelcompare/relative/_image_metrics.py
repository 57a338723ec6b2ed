"""KID and FID on feature arrays, and their relative (three-sample) versions.

``kid`` and ``fid`` compute the scores as torchmetrics and clean-fid define them; ``relative_kid``
is Rel-MMD with the KID kernel (the comparator of Jitkrittum et al. 2018) and ``relative_fid`` a
t-test over disjoint blocks of FID(P_k, R_k) − FID(Q_k, R_k) ≤ 0.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
import scipy.linalg
from scipy import stats

from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.resources import check_memory, check_time, estimate_array_bytes
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

FID_METHODS = ("eigh", "sqrtm", "eigvals")
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
        pass the memory limit, or the estimated time the time limit
        (``MODELCOMPARE_MAX_SECONDS``, one hour by default).

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
    .. [1] M. Bińkowski, D. J. Sutherland, M. Arbel, A. Gretton. Demystifying MMD GANs. ICLR 2018.
       arXiv:1801.01401.

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
    gram_flops = 2.0 * (nx * nx + nz * nz + nx * nz) * x.shape[1] if full else 0.0
    check_time(
        gram_flops + (0.0 if full else 6.0 * n_subsets * m * m * x.shape[1]),
        "the KID",
        "lower `n_subsets` or `subset_size`",
    )
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
    ResourceLimitError
        When the estimated time (six n × n Gram matrices) passes ``MODELCOMPARE_MAX_SECONDS``
        (one hour by default).

    Notes
    -----
    The statistic, variance and p-value are those of :func:`rel_mmd`; the MMD² inside is the
    one-sample U-statistic of Rel-MMD (the x_i–z_i diagonal is removed from the cross term), which
    differs from the subset KID of :func:`kid` by O(1/n).

    References
    ----------
    .. [1] W. Bounliphone et al. (2016). A Test of Relative Similarity for Model Selection in
       Generative Models. International Conference on Learning Representations (ICLR).
       arXiv:1511.04581.
    .. [2] M. Bińkowski, D. J. Sutherland, M. Arbel and A. Gretton (2018). Demystifying MMD GANs.
       International Conference on Learning Representations (ICLR). arXiv:1801.01401.

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
    # estimated before validation, so a malformed input counts as no rows and reaches its check
    rows = [(_shape(a) or (0,))[0] for a in (x, y, z)]
    n_rows = min(rows) if subsample else rows[2]
    width = _shape(z)[1] if len(_shape(z)) == 2 else 1
    # six n × n Gram matrices (xx, yy, zz, xy, xz, yz) of 2·n²·d operations each
    check_time(
        12.0 * float(n_rows) ** 2 * width,
        "the relative KID",
        "subsample the rows (the cost grows as n²·d)",
    )
    return rel_mmd(
        x,
        y,
        z,
        kernel=PolynomialKernel(degree=3),
        subsample=subsample,
        seed=seed,
        chunk_size=chunk_size,
    )


def _shape(a: Any) -> tuple[int, ...]:
    """The shape of an array-like for a cost estimate; () for what validation refuses anyway."""
    try:
        return np.shape(a)
    except ValueError:  # ragged
        return ()


# --------------------------------------------------------------------------------------------------
# FID
# --------------------------------------------------------------------------------------------------


def _mean_cov(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # Overflow (features near the float64 limit) shows up as inf/NaN and is refused by the callers.
    with np.errstate(over="ignore", invalid="ignore"):
        return a.mean(axis=0), np.atleast_2d(np.cov(a, rowvar=False, ddof=1))


class _Moments:
    """Mean and ddof = 1 covariance of one sample, with what the ``"eigh"`` route needs.

    ``scaled`` is the centred sample divided by √(n − 1), so that C = scaledᵀ scaled; the d × d
    covariance and its factor F (F Fᵀ = C) are built only when asked for. ``raw`` is the sample
    itself, for the ``"sqrtm"`` and ``"eigvals"`` routes.
    """

    def __init__(self, a: np.ndarray) -> None:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            self.mean = a.mean(axis=0)
            self.scaled = (a - self.mean) / np.sqrt(a.shape[0] - 1.0)
            self.trace = float(np.einsum("ij,ij->", self.scaled, self.scaled))
        self.n, self.d = a.shape
        self.raw = a
        self._cov: np.ndarray | None = None
        self._factor: tuple[np.ndarray, bool] | None = None

    @property
    def finite(self) -> bool:
        return bool(np.isfinite(self.trace) and np.isfinite(self.mean).all())

    @property
    def cov(self) -> np.ndarray:
        if self._cov is None:
            with np.errstate(over="ignore", invalid="ignore"):
                self._cov = self.scaled.T @ self.scaled  # numpy runs this as one syrk
        return self._cov

    def factor(self) -> tuple[np.ndarray, bool]:
        """F with F Fᵀ = C and whether F is lower triangular.

        The Cholesky factor when C is numerically positive definite; otherwise (a rank-deficient
        covariance: duplicated or constant features) V·diag(√max(λ, 0)) from the eigendecomposition
        of C, which is exact for PSD C.
        """
        if self._factor is None:
            try:
                self._factor = (
                    scipy.linalg.cholesky(self.cov, lower=True, check_finite=False),
                    True,
                )
            except np.linalg.LinAlgError:
                vals, vecs = scipy.linalg.eigh(self.cov, check_finite=False)
                self._factor = (vecs * np.sqrt(_drop_rounding(vals)), False)
        return self._factor


#: eigenvalues of a symmetric PSD matrix below this many ε·λ_max are rounding (LAPACK leaves
#: about ±2ε·λ_max where the true value is 0) and are set to 0, so that they add nothing to Σ √λ
_ZERO_EIG = 8.0


def _drop_rounding(vals: np.ndarray) -> np.ndarray:
    """Eigenvalues of a PSD matrix with the rounding-level ones (negatives included) set to 0."""
    top = float(vals.max()) if vals.size else 0.0
    return np.where(vals > _ZERO_EIG * np.finfo(float).eps * top, vals, 0.0)


def _use_gram(a: _Moments, b: _Moments) -> bool:
    """The n × n Gram form when a covariance has fewer rows than features (it is singular)."""
    return min(a.n, b.n) <= a.d


def _trace_sqrt_eigh(a: _Moments, ref: _Moments) -> float:
    r"""tr((C_a C_r)^{1/2}) from symmetric PSD eigenvalue problems, never a non-symmetric one.

    With F Fᵀ = C_r, C_a C_r and Fᵀ C_a F have the same eigenvalues, all real and ≥ 0. When
    n_a − 1 or n_r − 1 < d, write C_a = Aᵀ A and C_r = Bᵀ B with the scaled centred samples A, B:
    the nonzero eigenvalues of C_a C_r are those of (B Aᵀ)(B Aᵀ)ᵀ, the squared singular values of
    the n_r × n_a matrix B Aᵀ, so the trace is its nuclear norm (no d × d matrix at all).
    """
    if not (a.finite and ref.finite):
        return float("nan")
    with np.errstate(over="ignore", invalid="ignore"):
        if _use_gram(a, ref):
            cross = ref.scaled @ a.scaled.T
            if not np.isfinite(cross).all():
                return float("nan")
            return float(scipy.linalg.svdvals(cross, check_finite=False).sum())
        cov = a.cov
        if not np.isfinite(cov).all():
            return float("nan")
        f, lower = ref.factor()
        if lower:  # Lᵀ C_a L by two triangular products
            inner = scipy.linalg.blas.dtrmm(1.0, f, cov, side=0, lower=1, trans_a=1)
            inner = scipy.linalg.blas.dtrmm(1.0, f, inner, side=1, lower=1)
        else:
            inner = f.T @ cov @ f
        if not np.isfinite(inner).all():
            return float("nan")
        inner = (inner + inner.T) / 2.0  # exact symmetry for the symmetric solver
        vals = scipy.linalg.eigh(inner, eigvals_only=True, check_finite=False)
    return float(np.sqrt(_drop_rounding(vals)).sum())


def _frechet_eigh(a: _Moments, ref: _Moments) -> float:
    """The Fréchet distance by the ``"eigh"`` route; NaN or inf on float64 overflow."""
    if not (a.finite and ref.finite):
        return float("nan")
    with np.errstate(over="ignore", invalid="ignore"):
        diff = a.mean - ref.mean
        return float(diff @ diff + a.trace + ref.trace - 2.0 * _trace_sqrt_eigh(a, ref))


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
                stacklevel=5,
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


def _fid_of(a: _Moments, ref: _Moments, method: str) -> float:
    """FID(a, ref) by ``method``; NaN or inf when it overflows float64."""
    if method == "eigh":
        return _frechet_eigh(a, ref)
    # np.cov as clean-fid, pytorch-fid and torch-fidelity compute it, so these stay bit for bit
    (ma, ca), (mr, cr) = _mean_cov(a.raw), _mean_cov(ref.raw)
    return _frechet(ma, ca, mr, cr, method)


def _fid_flops(n_a: int, n_r: int, d: int, method: str, *, ref_ready: bool = False) -> float:
    """Floating-point operations of one FID (leading terms; for the time guard)."""
    if method == "eigh" and min(n_a, n_r) <= d:
        m, k = min(n_a, n_r), max(n_a, n_r)
        return 2.0 * n_a * n_r * d + 4.0 * m * m * k + 4.0 * m**3
    covs = float(n_a) * d * d + (0.0 if ref_ready else float(n_r) * d * d)
    if method == "eigh":  # Cholesky, two triangular products, symmetric eigenvalues
        return covs + (0.0 if ref_ready else d**3 / 3.0) + 2.0 * d**3 + 4.0 * d**3 / 3.0
    return covs + 2.0 * d**3 + 28.0 * d**3  # the product, then a Schur form and its root


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
        The route to tr((C_x C_z)^{1/2}) used (``"eigh"``, ``"sqrtm"`` or ``"eigvals"``).
    n_x, n_z : int
        Rows of the two feature arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import fid
    >>> a = np.random.default_rng(0).normal(size=(1000, 3))
    >>> res = fid(a + [1.0, 0.0, 0.0], a)
    >>> round(res.value, 6), round(res.mean_term, 6), res.method
    (1.0, 1.0, 'eigh')
    """

    value: float
    mean_term: float
    method: str
    n_x: int
    n_z: int


def fid(x: Any, z: Any, *, method: str = "eigh") -> FIDResult:
    r"""Fréchet (Inception) distance between two feature arrays (Heusel et al. 2017).

    Parameters
    ----------
    x : array-like, shape (n_x, d)
        Features of the generated samples.
    z : array-like, shape (n_z, d)
        Features of the reference samples.
    method : {"eigh", "sqrtm", "eigvals"}
        How tr((C_x C_z)^{1/2}) is computed. ``"eigh"`` (default): from symmetric positive
        semi-definite eigenvalue problems only (see Notes), about 3 to 4 times faster than
        ``"sqrtm"`` at d = 2048 and free of complex parts. ``"sqrtm"``: ``scipy.linalg.sqrtm`` of
        C_x C_z, retried with 1e-6 added to both diagonals when not finite, real part taken
        (clean-fid, pytorch-fid and the reference code). ``"eigvals"``: the sum of the square
        roots of the eigenvalues of C_x C_z, real part (torchmetrics). All three compute the same
        number; they differ by rounding.

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
    ResourceLimitError
        When the estimated cost passes the time limit (``MODELCOMPARE_MAX_SECONDS``, one hour
        by default; see :func:`~modelcompare._foundation.resources.check_time`).

    Warns
    -----
    DegenerateDataWarning
        With ``"sqrtm"``, when the diagonal of the root has an imaginary part above 1e-3 (clean-fid
        raises there); the real part is used.

    Notes
    -----
    **The ``"eigh"`` route.** With F Fᵀ = C_z (the Cholesky factor; for a rank-deficient C_z, where
    Cholesky fails, F = V Λ^{1/2} from the eigendecomposition C_z = V Λ Vᵀ), C_x C_z and the
    symmetric PSD matrix Fᵀ C_x F have the same eigenvalues, so
    tr((C_x C_z)^{1/2}) = Σ √λᵢ(Fᵀ C_x F); the cost is two covariances, a Cholesky factor, two
    triangular products and one symmetric eigenvalue problem. When n_x ≤ d or n_z ≤ d (a singular
    covariance for certain), the n × n Gram form is used instead: with C_x = Aᵀ A and C_z = Bᵀ B
    (A, B the centred samples over √(n − 1)), the nonzero eigenvalues of C_x C_z are the squared
    singular values of B Aᵀ, and the trace is their sum, the nuclear norm of that n_z × n_x
    matrix; no d × d matrix is formed.

    *Numerical guarantees.* Every step is backward stable and works on symmetric PSD matrices, so
    the eigenvalues are real; rounding leaves each with an absolute error of order
    ε·‖C_x‖‖C_z‖ (ε = 2.2e-16), and those below 8ε·λ_max, negative ones included, are set to 0
    (where the true value is 0, as for duplicated features, √(rounding) would otherwise add about
    √ε·√λ_max each). The value is
    therefore never complex and carries no 1e-6 regularisation. Across random full-rank,
    rank-deficient (duplicated features) and n < d cases it agrees with ``"sqrtm"`` to within
    1e-9·(tr C_x + tr C_z) (the test suite checks this); at exactly singular products the ``"eigh"``
    value is the more accurate one.

    FID is a biased score with no calibrated threshold: comparing FID(P, R) with FID(Q, R) decides
    for one model about half of the time when both are equally good. Use :func:`relative_fid`.

    References
    ----------
    .. [1] M. Heusel, H. Ramsauer, T. Unterthiner, B. Nessler, S. Hochreiter. GANs Trained by a Two
       Time-Scale Update Rule Converge to a Local Nash Equilibrium. NeurIPS 2017. arXiv:1706.08500.

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
    check_time(
        _fid_flops(x.shape[0], z.shape[0], x.shape[1], method),
        "the FID",
        'use method="eigh" or fewer features',
    )
    mx, mz = _Moments(x), _Moments(z)
    value = _fid_of(mx, mz, method)
    _refuse_overflow(value, "`x` and `z`", (x, z))
    diff = mx.mean - mz.mean
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
    """Result of :func:`relative_fid`: a test with a p-value, and a t interval.

    Attributes
    ----------
    statistic : float
        The mean over the K blocks of FID(P_k, R_k) − FID(Q_k, R_k), the estimate of the
        difference of the block-size FIDs; positive favours Q.
    pvalue : float
        One-sided t-test p-value (K − 1 degrees of freedom) of H0: E[FID(P_k, R_k) −
        FID(Q_k, R_k)] ≤ 0; ``decision(alpha)`` rejects when ``pvalue <= alpha``: Q fits R better
        than P.
    t : float
        The t statistic, ``statistic / std_error``.
    std_error : float
        Standard error of ``statistic``: the standard deviation (ddof = 1) of the block
        differences over √K.
    block_differences : numpy.ndarray
        The K differences FID(P_k, R_k) − FID(Q_k, R_k).
    fid_p, fid_q : float
        FID(P, R) and FID(Q, R) on the full samples (for reading; the test uses the blocks).
    n_blocks : int
        The number K of disjoint blocks.
    block_size : int
        Rows of x and of y in each block.
    reference_block_size : int
        Rows of z in each block.
    method : str
        Route to the matrix square root (see :func:`fid`).
    degenerate : bool
        True when the block differences have no spread (e.g. constant data) or one is not finite
        (features near the float64 overflow limit); ``pvalue`` is then 1.
    seed_used : int or None
        Seed reproducing the split into blocks.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import relative_fid
    >>> rng = np.random.default_rng(0)
    >>> x, y, z = (rng.normal(size=(1000, 2)) + [s, 0.0] for s in (1.0, 0.0, 0.0))
    >>> res = relative_fid(x, y, z, seed=0)
    >>> res.decision(alpha=0.05), res.block_differences.shape, res.block_size
    (True, (10,), 100)
    >>> low, high = res.confidence_interval(confidence_level=0.9)
    >>> bool(low > 0)
    True
    """

    statistic: float
    pvalue: float
    t: float
    std_error: float
    block_differences: np.ndarray
    fid_p: float
    fid_q: float
    n_blocks: int
    block_size: int
    reference_block_size: int
    method: str
    degenerate: bool
    seed_used: int | None

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "n_blocks", "block_size")

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Two-sided t interval for the difference of the block-size FIDs.

        Parameters
        ----------
        confidence_level : float
            Coverage c in (0, 1): ``statistic`` ± t_{K−1, (1 + c)/2} · ``std_error``. With
            c = 1 − 2α the lower end is above 0 exactly when ``decision(alpha)`` rejects.

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``; ``(nan, nan)`` when the result is degenerate with a non-finite
            difference.
        """
        level = check_alpha(confidence_level, "confidence_level")
        half = float(stats.t.ppf(0.5 + level / 2.0, self.n_blocks - 1)) * self.std_error
        return ConfidenceInterval(self.statistic - half, self.statistic + half)


def _blocks(n: int, size: int, n_blocks: int, rng: np.random.Generator) -> np.ndarray:
    """Row indices of ``n_blocks`` disjoint random blocks of ``size`` rows, shape (K, size)."""
    return rng.permutation(n)[: n_blocks * size].reshape(n_blocks, size)


def _relative_fid_flops(nx: int, ny: int, nz: int, d: int, k: int, method: str) -> float:
    m, mz = min(nx, ny) // k, nz // k
    full = _fid_flops(nx, nz, d, method) + _fid_flops(ny, nz, d, method, ref_ready=True)
    block = _fid_flops(m, mz, d, method) + _fid_flops(m, mz, d, method, ref_ready=True)
    return full + k * block


def relative_fid(
    x: Any,
    y: Any,
    z: Any,
    *,
    n_blocks: int = 10,
    method: str = "eigh",
    seed: SeedLike = None,
) -> RelFIDResult:
    r"""Block t-test of H0: FID(P, R) ≤ FID(Q, R) at the block size ("P is at least as close").

    Parameters
    ----------
    x, y : array-like, shape (n_x, d) and (n_y, d)
        Features of the samples of the models P and Q.
    z : array-like, shape (n_z, d)
        Features of the reference sample. Sample sizes may differ.
    n_blocks : int
        Number K ≥ 2 of disjoint blocks each sample is split into (Bińkowski et al. 2018 and
        Jitkrittum et al. 2018 use 10 subsamples). Each block holds m = ⌊min(n_x, n_y)/K⌋ rows
        of x and of y and ⌊n_z/K⌋ rows of z; left-over rows are not used in the test.
    method : {"eigh", "sqrtm", "eigvals"}
        Route to the matrix square root, as in :func:`fid`.
    seed : int, Generator or None
        Random source of the split into blocks (rows are shuffled first, so ordered data are
        fine).

    Returns
    -------
    RelFIDResult
        The mean block difference, its t-test p-value and standard error, the K block
        differences and the full-sample FIDs; ``confidence_interval(confidence_level)`` gives
        the t interval.

    Raises
    ------
    ValueError
        For mismatched widths, NaN/inf or complex input, fewer than 2 rows per block, or when
        FID(P, R) or FID(Q, R) overflows float64 on the full samples (FID is not scale-invariant:
        rescale all three samples by one common factor yourself). A block whose FID overflows
        instead gives p = 1 and ``degenerate=True`` with a :class:`~modelcompare.DegenerateDataWarning`.
    ResourceLimitError
        When the estimated cost passes the time limit (``MODELCOMPARE_MAX_SECONDS``, one hour by
        default): the message says how to make the call cheaper.

    Notes
    -----
    **What is tested.** The rows of each sample are shuffled (seeded) and cut into K disjoint
    blocks P_k, Q_k, R_k, and D_k = FID(P_k, R_k) − FID(Q_k, R_k) is computed for each; the
    same R_k enters both terms, which cancels much of its noise. The D_k are independent and
    identically distributed, so the one-sided t-test on them (K − 1 degrees of freedom) tests
    H0: E[D_k] ≤ 0, the difference of the **block-size FIDs** E[FID_m(P, R)] − E[FID_m(Q, R)].
    An FID estimated from m rows is biased upward by a term of order d/m (Bińkowski et al.
    2018); P and Q get blocks of the same size m, so the bias enters both terms at the same
    order, but it depends on the covariances and is not identical for two different models:
    the test compares the two models as FID at m rows sees them, which can differ from the
    full-sample (or population) ordering when the two FIDs are close. ``fid_p`` and ``fid_q`` are
    the full-sample FIDs, for reading.

    **Calibration.** When P = Q the D_k are symmetric about 0 (P_k and Q_k are exchangeable), and
    the t-test holds its level up to the normal approximation of a mean of K symmetric terms; at
    the boundary E[D_k] = 0 with P ≠ Q it is a t-test of K i.i.d. means. Measured at α = 0.05
    (BENCHMARKS.md; ``benchmarks/relative_fid_study.py``, ``benchmarks/relative_mmd_studies.py``):
    size 0.052 and 0.054 at P = Q (d = 10, n = 1000, 500 replicates), 0.043–0.057 at P = Q = R and
    at a mean-shift boundary (d = 5, 20). For two models of equal *population* FID that differ in
    kind (a mean shift against a covariance change) the block-size FIDs differ: the rate was
    0.007–0.023 with the covariance change as Q and 0.13–0.17 with it as P; there the test
    correctly reports the block-size difference, which is not the population one. Power against
    a mean shift δ = 0.3 was 0.39 and against a spread of 1.1 was 0.84 (d = 10, n = 1000). No
    bootstrap is used: each resample would cost two full-size FIDs (hours at d = 2048), and the
    percentile bootstrap is not consistent at P = Q = R.

    **Cost.** Two full-sample FIDs and 2K block FIDs by ``method``; with ``"eigh"``, blocks of
    m ≤ d rows use the m × m Gram form. At d = 2048 and n = 10,000 rows per sample the default
    took 23 s on one core of a loaded machine (BENCHMARKS.md).

    References
    ----------
    .. [1] M. Bińkowski, D. J. Sutherland, M. Arbel, A. Gretton. Demystifying MMD GANs. ICLR 2018
       (FID's bias; 10 subsamples). arXiv:1801.01401.
    .. [2] W. Jitkrittum et al. Informative Features for Model Comparison. NeurIPS 2018 (Table 1:
       comparing raw FIDs decides for one model about half the time when both fit equally well).
    .. [3] M. Heusel et al. (2017). GANs Trained by a Two Time-Scale Update Rule Converge to a Local
       Nash Equilibrium. Advances in Neural Information Processing Systems (NeurIPS).
       arXiv:1706.08500.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import relative_fid
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(1000, 3))
    >>> x = rng.normal(size=(1000, 3)) + [1.0, 0.0, 0.0]
    >>> y = rng.normal(size=(1000, 3))
    >>> relative_fid(x, y, z, seed=0).decision(alpha=0.05)
    True
    """
    x = check_samples(x, "x")
    y = check_samples(y, "y")
    z = check_samples(z, "z")
    check_same_width([("x", x), ("y", y), ("z", z)], what="relative FID")
    n_blocks = check_int(n_blocks, "n_blocks", low=2)
    method = check_choice(method, "method", FID_METHODS)
    nx, ny, nz = x.shape[0], y.shape[0], z.shape[0]
    m, mz = min(nx, ny) // n_blocks, nz // n_blocks
    rows = {"x": nx // n_blocks, "y": ny // n_blocks, "z": mz}
    short = [name for name, per in rows.items() if per < 2]
    if short or m < 2:
        short = short or [min(("x", "y"), key=lambda a: rows[a])]
        msg = (
            f"`n_blocks` = {n_blocks} leaves fewer than 2 rows of `{short[0]}` per block "
            f"(n_x = {nx}, n_y = {ny}, n_z = {nz}); each block needs at least 2 rows of each "
            "sample: lower `n_blocks` or pass more rows."
        )
        raise ValueError(msg)
    check_time(
        _relative_fid_flops(nx, ny, nz, x.shape[1], n_blocks, method),
        "the relative FID",
        'use method="eigh", subsample the rows, or reduce the feature dimension',
    )
    rng, seed_used = check_seed(seed)
    mom_z = _Moments(z)
    fid_p = _fid_of(_Moments(x), mom_z, method)
    fid_q = _fid_of(_Moments(y), mom_z, method)
    _refuse_overflow(fid_p, "`x` and `z`", (x, z))
    _refuse_overflow(fid_q, "`y` and `z`", (y, z))
    ix, iy, iz = (
        _blocks(nx, m, n_blocks, rng),
        _blocks(ny, m, n_blocks, rng),
        _blocks(nz, mz, n_blocks, rng),
    )
    diffs = np.empty(n_blocks)
    for k in range(n_blocks):
        ref = _Moments(z[iz[k]])
        diffs[k] = _fid_of(_Moments(x[ix[k]]), ref, method) - _fid_of(
            _Moments(y[iy[k]]), ref, method
        )
    return _block_t_test(diffs, fid_p, fid_q, m, mz, method, seed_used)


def _block_t_test(
    diffs: np.ndarray,
    fid_p: float,
    fid_q: float,
    m: int,
    mz: int,
    method: str,
    seed_used: int | None,
) -> RelFIDResult:
    k = diffs.size
    mean = float(diffs.mean())
    se = float(diffs.std(ddof=1) / np.sqrt(k)) if np.isfinite(diffs).all() else float("nan")
    degenerate = not (np.isfinite(se) and se > 0.0)
    if not np.isfinite(se):
        # A block whose FID overflows float64 leaves no usable spread: no decision.
        warnings.warn(
            f"{int(np.count_nonzero(~np.isfinite(diffs)))} of {k} block differences are not "
            "finite: the features are near the float64 overflow limit. Returning p = 1 with "
            "degenerate=True; divide all three samples by one common factor and rerun.",
            DegenerateDataWarning,
            stacklevel=3,
        )
    elif degenerate:
        warnings.warn(
            "Every block difference is identical (constant data?); the blocks have no spread. "
            "Returning p = 1 with degenerate=True.",
            DegenerateDataWarning,
            stacklevel=3,
        )
    t = mean / se if not degenerate else float("nan")
    pvalue = 1.0 if degenerate else float(np.clip(stats.t.sf(t, k - 1), 0.0, 1.0))
    return RelFIDResult(
        statistic=mean,
        pvalue=pvalue,
        t=float(t),
        std_error=se,
        block_differences=diffs,
        fid_p=float(fid_p),
        fid_q=float(fid_q),
        n_blocks=k,
        block_size=m,
        reference_block_size=mz,
        method=method,
        degenerate=bool(degenerate),
        seed_used=seed_used,
    )
