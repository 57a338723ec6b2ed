"""Kernels and width heuristics shared by the kernel tests.

The public Gaussian width is always ``bandwidth`` = σ in ``k(a, b) = exp(-‖a-b‖² / (2σ²))``. The
reference code of the relative tests (kgof/kmod) works with σ² (``sigma2``); convert once at the
boundary with :func:`sigma2_from_bandwidth` and keep σ² inside formulas.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import check_bandwidth

__all__ = [
    "GaussianKernel",
    "PolynomialKernel",
    "check_heuristic_bandwidth",
    "meddistance",
    "sigma2_from_bandwidth",
    "sq_distances",
]


def sigma2_from_bandwidth(bandwidth: float) -> float:
    """Return σ² for the public ``bandwidth`` σ (checked: σ² is a normal, finite float64).

    >>> sigma2_from_bandwidth(2.0)
    4.0
    """
    return check_bandwidth(bandwidth, "bandwidth") ** 2


def check_heuristic_bandwidth(value: float, what: str = "the median heuristic") -> float:
    """Check a width found by a heuristic as :func:`check_bandwidth` checks a given one.

    Data whose spread is near 1e-154 or 1e154 make σ² underflow or overflow; the message then says
    that the width came from the data, not from an argument.

    >>> check_heuristic_bandwidth(1.5)
    1.5
    """
    try:
        return check_bandwidth(value, "bandwidth")
    except ValueError:
        msg = (
            f"{what} gives a Gaussian width of {value:.3g}, whose square is not a normal float64 "
            "(the data are spread over a scale near the float64 limits); standardise the data or "
            "pass `bandwidth`."
        )
        raise ValueError(msg) from None


def sq_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances between the rows of ``a`` and ``b``, clipped at 0.

    Uses ‖a‖² + ‖b‖² − 2 a·bᵀ, which costs one matrix product instead of an (n, m, d) temporary.
    """
    d2 = np.einsum("ij,ij->i", a, a)[:, None] + np.einsum("ij,ij->i", b, b)[None, :]
    d2 -= 2.0 * (a @ b.T)
    np.maximum(d2, 0.0, out=d2)
    return d2


@dataclass(frozen=True)
class GaussianKernel:
    """Gaussian kernel ``exp(-‖a-b‖² / (2 bandwidth²))``.

    Parameters
    ----------
    bandwidth : float
        The width σ (not σ²): finite, positive, and with σ² neither underflowing nor overflowing
        (about 1.5e-154 ≤ σ ≤ 1.3e154).

    Examples
    --------
    >>> import numpy as np
    >>> k = GaussianKernel(1.0)
    >>> k(np.zeros((1, 2)), np.array([[0.0, 0.0], [1.0, 1.0]])).round(4)
    array([[1.    , 0.3679]])
    """

    bandwidth: float

    def __post_init__(self) -> None:
        check_bandwidth(self.bandwidth, "bandwidth")

    @property
    def sigma2(self) -> float:
        """The squared width σ², the reference code's parameter."""
        return float(self.bandwidth) ** 2

    def __call__(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Gram matrix between the rows of ``a`` and ``b``."""
        d2 = sq_distances(a, b)
        d2 *= -0.5 / self.sigma2
        return np.exp(d2, out=d2)

    def grad_x(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """∇ₐ k(a, b) for every pair, shape ``(n_a, n_b, d)``: −k(a, b)(a − b)/σ²."""
        gram = self(a, b)
        diff = a[:, None, :] - b[None, :, :]
        return -gram[:, :, None] * diff / self.sigma2


@dataclass(frozen=True)
class PolynomialKernel:
    """Polynomial kernel ``(gamma · a·b + coef0) ** degree``; KID uses degree 3, gamma = 1/d, coef0 = 1.

    Parameters
    ----------
    degree : int
        The power.
    gamma : float or None
        Scale of the inner product; ``None`` means 1 / n_features at call time.
    coef0 : float
        The additive constant.
    """

    degree: int = 3
    gamma: float | None = None
    coef0: float = 1.0

    def __call__(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Gram matrix between the rows of ``a`` and ``b``."""
        gamma = 1.0 / a.shape[1] if self.gamma is None else self.gamma
        gram = a @ b.T
        gram *= gamma
        gram += self.coef0
        return gram**self.degree


def meddistance(
    x: np.ndarray, *, subsample: int = 1000, seed: SeedLike = None, names: Sequence[str] = ()
) -> float:
    """Median pairwise Euclidean distance (kgof's ``meddistance``), with a mean fallback.

    Parameters
    ----------
    x : numpy.ndarray
        Samples, shape ``(n, d)``.
    subsample : int
        At most this many rows, drawn without replacement with ``seed``, enter the computation.
    seed : int, Generator or None
        Random source for the subsample (kgof fixes its own seed; we use the caller's).
    names : sequence of str
        The arguments ``x`` was pooled from, named in the error message when distances overflow.

    Returns
    -------
    float
        The median of the distances over pairs i > j. When it is 0 (ties, discrete data), the mean
        distance is returned instead; when every row is identical, 1.0 is returned so that callers
        never divide by zero.

    Raises
    ------
    ValueError
        When the distances overflow float64 (data of magnitude near 1e154 or above).

    Notes
    -----
    The Gaussian ``bandwidth`` from this heuristic is the returned value itself (σ² = med²).
    """
    n = x.shape[0]
    if n > subsample:
        rng, _ = check_seed(seed)
        x = x[np.sort(rng.choice(n, size=subsample, replace=False))]
    with np.errstate(over="ignore", invalid="ignore"):
        d2 = sq_distances(x, x)
    iu = np.tril_indices(x.shape[0], k=-1)
    dist = np.sqrt(d2[iu])
    if not np.isfinite(dist).all():
        of = ", ".join(f"`{n}`" for n in names) if names else "the data"
        msg = (
            f"the pairwise distances of {of} overflow float64 (largest |value| "
            f"{float(np.max(np.abs(x))):.3g}), so the median-heuristic width is undefined; "
            "standardise the data."
        )
        raise ValueError(msg)
    if dist.size == 0:
        return 1.0
    med = float(np.median(dist))
    if med > 0:
        return med
    mean = float(dist.mean())
    return mean if mean > 0 else 1.0
