"""Fréchet distance on any features, with a bootstrap standard error, and FD∞ (Chong & Forsyth).

FD-DINOv2 (Stein et al. 2023) is this Fréchet distance on DINOv2 ViT-L/14 features; FID is the
same on Inception pool3 features.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.resources import check_time
from modelcompare._foundation.results import ConfidenceInterval, ScoreResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    check_bool,
    check_choice,
    check_int,
    check_same_width,
    check_samples,
)
from modelcompare.relative._image_metrics import FID_METHODS, fid
from modelcompare.relative._intervals import normal_interval

__all__ = ["FDInfinityResult", "FDResult", "fd", "fd_infinity"]


def _fd_flops(n: int, d: int) -> float:
    return 2.0 * n * d * min(n, d) + 12.0 * min(n, d) ** 3


@result_class
class FDResult(ScoreResult):
    """Result of :func:`fd`: a Fréchet distance with its bootstrap standard error.

    Attributes
    ----------
    value : float
        The Fréchet distance between the two feature samples.
    mean_term : float
        Its mean part ‖m_x − m_z‖².
    std_error : float
        Bootstrap standard error (NaN when ``n_resamples`` = 0).
    n_resamples : int
        Bootstrap resamples.
    method : str
        Route to the matrix square root.
    n_x, n_z : int
        Rows of the two samples.
    seed_used : int or None
        Seed reproducing the resamples.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import fd
    >>> rng = np.random.default_rng(0)
    >>> res = fd(rng.normal(size=(400, 3)) + 1.0, rng.normal(size=(400, 3)), n_resamples=50,
    ...          seed=0)
    >>> 2.0 < res.value < 4.0, res.std_error > 0
    (True, True)
    """

    value: float
    mean_term: float
    std_error: float
    n_resamples: int
    method: str
    n_x: int
    n_z: int
    seed_used: int | None

    _repr_fields: ClassVar[tuple[str, ...]] = ("value", "std_error", "n_x", "n_z")

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Normal interval value ± z·std_error for E[FD_n], the expected FD at these sizes.

        FD_n is biased upward by O(d/n) (Chong & Forsyth 2020), so the interval is not one for
        the population FD: use :func:`fd_infinity` for that.

        Parameters
        ----------
        confidence_level : float
            In (0, 1).

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``, clipped at 0.
        """
        return normal_interval(self.value, self.std_error, confidence_level, low=0.0)


def fd(
    x: Any,
    z: Any,
    *,
    n_resamples: int = 50,
    method: str = "eigh",
    seed: SeedLike = None,
) -> FDResult:
    """Fréchet distance between two feature samples, with a bootstrap standard error.

    Parameters
    ----------
    x : array-like, shape (n_x, d)
        Features of the generated samples.
    z : array-like, shape (n_z, d)
        Features of the reference samples.
    n_resamples : int
        Resamples (rows of x and of z drawn with replacement, independently) for the standard
        error; 0 for none. Each costs one FD.
    method : {"eigh", "sqrtm", "eigvals"}
        Route to tr((C_x C_z)^{1/2}), as in :func:`fid`.
    seed : int, Generator or None
        Random source of the resamples.

    Returns
    -------
    FDResult
        The value (equal to :func:`fid`), its standard error and ``confidence_interval()``.

    Notes
    -----
    The value is :func:`fid` on whatever features are given: FD-DINOv2 (Stein et al. 2023) on
    DINOv2 ViT-L/14 features, FID on Inception pool3 features. The bootstrap standard error
    describes the spread of FD_n; the interval is for E[FD_n] (95 % interval: coverage 0.96 over
    200 replicates at d = 5, n = 300, ``benchmarks/generative_intervals.py``), which exceeds the population FD by a bias of order
    d/n: :func:`fd_infinity` extrapolates it away. To test which of two models is closer to the
    data, use :func:`rel_fid`.

    References
    ----------
    .. [1] G. Stein et al. Exposing flaws of generative model evaluation metrics and their unfair
       treatment of diffusion models. NeurIPS 2023. arXiv:2306.04675.
    .. [2] M. Heusel et al. GANs Trained by a Two Time-Scale Update Rule Converge to a Local Nash
       Equilibrium. NeurIPS 2017. arXiv:1706.08500.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import fd, fid
    >>> rng = np.random.default_rng(0)
    >>> x, z = rng.normal(size=(300, 4)), rng.normal(size=(300, 4))
    >>> fd(x, z, n_resamples=0).value == fid(x, z).value
    True
    """
    x = check_samples(x, "x")
    z = check_samples(z, "z")
    d = check_same_width([("x", x), ("z", z)], what="FD")
    n_resamples = check_int(n_resamples, "n_resamples", low=0)
    method = check_choice(method, "method", FID_METHODS)
    nx, nz = x.shape[0], z.shape[0]
    check_time(
        (1 + n_resamples) * _fd_flops(max(nx, nz), d),
        "the FD and its bootstrap",
        "lower `n_resamples`",
    )
    rng, seed_used = check_seed(seed)
    base = fid(x, z, method=method)
    boot = [
        fid(x[rng.integers(0, nx, nx)], z[rng.integers(0, nz, nz)], method=method).value
        for _ in range(n_resamples)
    ]
    se = float(np.std(boot, ddof=1)) if n_resamples > 1 else float("nan")
    return FDResult(
        value=base.value,
        mean_term=base.mean_term,
        std_error=se,
        n_resamples=n_resamples,
        method=method,
        n_x=nx,
        n_z=nz,
        seed_used=seed_used,
    )


# -- FD∞ -------------------------------------------------------------------------------------------


@result_class
class FDInfinityResult(ScoreResult):
    """Result of :func:`fd_infinity`: the FD extrapolated to infinitely many samples.

    Attributes
    ----------
    value : float
        FD∞, the intercept of the line FD_N = FD∞ + slope / N.
    slope : float
        The fitted slope (the bias coefficient).
    std_error : float
        Bootstrap standard error of ``value`` (NaN when ``n_resamples`` < 2).
    sizes : numpy.ndarray
        The subset sizes N.
    fd_values : numpy.ndarray
        FD_N at each size.
    n_resamples : int
        Bootstrap repetitions of the whole procedure.
    subsample_reference : bool
        Whether the reference sample was subsampled too.
    seed_used : int or None
        Seed reproducing the subsets and resamples.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import fd_infinity
    >>> rng = np.random.default_rng(0)
    >>> res = fd_infinity(rng.normal(size=(2000, 8)) + 0.5, rng.normal(size=(2000, 8)),
    ...                   n_resamples=0, seed=0)
    >>> int(res.sizes[0]), int(res.sizes[-1]), len(res.fd_values)
    (400, 2000, 15)
    """

    value: float
    slope: float
    std_error: float
    sizes: np.ndarray
    fd_values: np.ndarray
    n_resamples: int
    subsample_reference: bool
    seed_used: int | None

    _repr_fields: ClassVar[tuple[str, ...]] = ("value", "std_error", "slope", "n_resamples")

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Normal interval value ± z·std_error for FD∞, the population FD.

        Parameters
        ----------
        confidence_level : float
            In (0, 1).

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``.
        """
        return normal_interval(self.value, self.std_error, confidence_level)


def _extrapolate(
    x: np.ndarray,
    z: np.ndarray,
    sizes: np.ndarray,
    both: bool,
    method: str,
    rng: np.random.Generator,
) -> tuple[float, float, np.ndarray]:
    """Chong & Forsyth's loop: shuffle, take the first N rows, FD against z; fit FD on 1/N."""
    fds = np.empty(sizes.size)
    for i, n in enumerate(sizes):
        xs = x[rng.permutation(x.shape[0])[:n]]
        zs = z[rng.permutation(z.shape[0])[:n]] if both else z
        fds[i] = fid(xs, zs, method=method).value
    slope, intercept = np.polyfit(1.0 / sizes, fds, 1)
    return float(intercept), float(slope), fds


def fd_infinity(
    x: Any,
    z: Any,
    *,
    sizes: Any = None,
    subsample_reference: bool = False,
    n_resamples: int = 50,
    method: str = "eigh",
    seed: SeedLike = None,
) -> FDInfinityResult:
    r"""FD∞: the Fréchet distance extrapolated to infinitely many samples (Chong & Forsyth 2020).

    Parameters
    ----------
    x : array-like, shape (n_x, d)
        Features of the generated samples.
    z : array-like, shape (n_z, d)
        Features of the reference samples.
    sizes : sequence of int, optional
        Subset sizes N. Default: 15 sizes evenly spaced from min(5,000, n_x // 5) to n_x, as the
        reference (5,000 to 50,000 for 50,000 images).
    subsample_reference : bool
        Subsample ``z`` to N rows too (needs n_z ≥ max N). The reference (False) keeps all of z,
        which leaves z's own O(1/n_z) bias in FD∞; True extrapolates both away.
    n_resamples : int
        Repetitions of the whole procedure on bootstrap resamples of x and z, for the standard
        error (each costs ``len(sizes)`` FDs); 0 for none.
    method : {"eigh", "sqrtm", "eigvals"}
        Route to the matrix square root, as in :func:`fid`.
    seed : int, Generator or None
        Random source of the subsets and resamples.

    Returns
    -------
    FDInfinityResult
        FD∞, the slope, the FD_N values and ``confidence_interval()``.

    Notes
    -----
    FD_N is biased upward, with a bias linear in 1/N to first order: E[FD_N] ≈ FD∞ + c/N. For
    each N the rows of x are shuffled and the first N taken (the reference's ``np.random.shuffle``
    then ``activations[:N]``), FD_N is computed against z, and the least-squares line of FD_N on
    1/N is evaluated at 1/N = 0 (the reference's ``LinearRegression().predict([[0]])``).

    The subsets overlap, so the regression's own standard error is wrong; the standard error here
    is the bootstrap one of the whole procedure, and the interval is for FD∞ (95 % interval:
    coverage 0.935, 95 % CI [0.89, 0.97], over 200 replicates at d = 5, n = 1,000 with
    ``subsample_reference=True``; ``benchmarks/generative_intervals.py``).

    References
    ----------
    .. [1] M. J. Chong, D. Forsyth. Effectively Unbiased FID and Inception Score and Where to Find
       Them. CVPR 2020. arXiv:1911.07023.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import fd_infinity, fid
    >>> rng = np.random.default_rng(1)
    >>> z = rng.normal(size=(4000, 16))
    >>> x = rng.normal(size=(4000, 16))      # same distribution: population FD = 0
    >>> res = fd_infinity(x, z, subsample_reference=True, n_resamples=0, seed=0)
    >>> abs(res.value) < fid(x, z).value
    True
    """
    x = check_samples(x, "x")
    z = check_samples(z, "z")
    d = check_same_width([("x", x), ("z", z)], what="FD∞")
    nx, nz = x.shape[0], z.shape[0]
    both = check_bool(subsample_reference, "subsample_reference")
    if sizes is None:
        sizes_arr = np.linspace(min(5000, nx // 5), nx, 15).astype(int)
    else:
        sizes_arr = np.asarray(sizes)
        if sizes_arr.ndim != 1 or not np.issubdtype(sizes_arr.dtype, np.integer):
            msg = f"`sizes` must be a 1-D sequence of ints; got {sizes!r}."
            raise ValueError(msg)
    top = min(nx, nz) if both else nx
    if sizes_arr.size < 2 or sizes_arr.min() < 2 or sizes_arr.max() > top:
        msg = (
            f"`sizes` must hold at least 2 subset sizes in [2, {top}] (the rows of `x`"
            f"{' and `z`' if both else ''}); got {sizes_arr.tolist()}."
        )
        raise ValueError(msg)
    if np.unique(sizes_arr).size < 2:
        msg = f"`sizes` must hold at least 2 different sizes; got {sizes_arr.tolist()}."
        raise ValueError(msg)
    n_resamples = check_int(n_resamples, "n_resamples", low=0)
    method = check_choice(method, "method", FID_METHODS)
    check_time(
        (1 + n_resamples) * sum(_fd_flops(int(n), d) for n in sizes_arr),
        "FD∞ and its bootstrap",
        "lower `n_resamples` or pass fewer `sizes`",
    )
    rng, seed_used = check_seed(seed)
    value, slope, fds = _extrapolate(x, z, sizes_arr, both, method, rng)
    boot = []
    for child in rng.spawn(n_resamples):
        xb, zb = x[child.integers(0, nx, nx)], z[child.integers(0, nz, nz)]
        boot.append(_extrapolate(xb, zb, sizes_arr, both, method, child)[0])
    se = float(np.std(boot, ddof=1)) if n_resamples > 1 else float("nan")
    return FDInfinityResult(
        value=value,
        slope=slope,
        std_error=se,
        sizes=sizes_arr,
        fd_values=fds,
        n_resamples=n_resamples,
        subsample_reference=both,
        seed_used=seed_used,
    )
