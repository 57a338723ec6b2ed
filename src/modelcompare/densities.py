"""Densities with exact scores and seeded samplers, for Rel-FSSD and for simulation studies.

Every density here follows one small protocol (no base class needed):

- ``dim`` — the dimension d;
- ``log_density(x)`` — log p(x) for rows of ``x`` (shape ``(n, d)`` → ``(n,)``), possibly up to an
  additive constant (said so in each class);
- ``score(x)`` — ∇ₓ log p(x), shape ``(n, d)`` → ``(n, d)``;
- ``sample(n, *, seed=None)`` — ``n`` draws, shape ``(n, d)``.

Rel-FSSD (:func:`modelcompare.rel_fssd`) only calls ``score``. :func:`from_log_density` turns a
log-density written with torch operations into such an object, with the score from autograd.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
from scipy.special import logsumexp

from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import check_int, check_positive, check_samples

__all__ = [
    "Density",
    "GaussBernRBM",
    "GaussianMixture",
    "IsotropicNormal",
    "LogDensity",
    "Normal",
    "from_log_density",
]

_LOG2PI = float(np.log(2.0 * np.pi))


@runtime_checkable
class Density(Protocol):
    """What Rel-FSSD and the simulation studies need from a density."""

    @property
    def dim(self) -> int:
        """Dimension d."""
        ...

    def log_density(self, x: Any) -> np.ndarray:
        """Log density (possibly unnormalised) of each row."""
        ...

    def score(self, x: Any) -> np.ndarray:
        """∇ₓ log p(x) of each row."""
        ...


def _rows(x: Any, dim: int) -> np.ndarray:
    arr = check_samples(x, "x", min_samples=1)
    if arr.shape[1] != dim:
        msg = f"`x` must have {dim} columns for this density; got {arr.shape[1]}."
        raise ValueError(msg)
    return arr


def _mean_vector(mean: Any) -> np.ndarray:
    arr = np.array(mean, dtype=float, ndmin=1)
    if arr.ndim != 1 or not np.all(np.isfinite(arr)):
        msg = f"`mean` must be a finite 1-D vector; got shape {arr.shape}."
        raise ValueError(msg)
    arr.setflags(write=False)
    return arr


def _cholesky(cov: Any, d: int, name: str) -> tuple[np.ndarray, np.ndarray]:
    c = np.array(cov, dtype=float)
    if c.shape != (d, d) or not np.all(np.isfinite(c)):
        msg = f"`{name}` must be a finite ({d}, {d}) matrix; got shape {c.shape}."
        raise ValueError(msg)
    if not np.allclose(c, c.T, rtol=1e-10, atol=1e-12):
        msg = f"`{name}` must be symmetric."
        raise ValueError(msg)
    try:
        chol = np.linalg.cholesky(c)
    except np.linalg.LinAlgError:
        msg = f"`{name}` must be positive definite."
        raise ValueError(msg) from None
    c.setflags(write=False)
    return c, chol


@dataclass(frozen=True, eq=False)
class IsotropicNormal:
    """Gaussian N(mean, variance · I).

    Parameters
    ----------
    mean : array-like, shape (d,)
        The mean.
    variance : float
        The variance of every coordinate (σ², not σ).

    Notes
    -----
    ``log_density`` is normalised; ``score(x) = −(x − mean) / variance``.

    Examples
    --------
    >>> p = IsotropicNormal([0.0, 0.0], 1.0)
    >>> p.score([[1.0, -2.0]]).tolist()
    [[-1.0, 2.0]]
    """

    mean: np.ndarray
    variance: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "mean", _mean_vector(self.mean))
        object.__setattr__(self, "variance", check_positive(self.variance, "variance"))

    @property
    def dim(self) -> int:
        """Dimension d."""
        return int(self.mean.shape[0])

    def log_density(self, x: Any) -> np.ndarray:
        """Normalised log density of each row."""
        x = _rows(x, self.dim)
        sq = np.sum((x - self.mean) ** 2, axis=1)
        return -0.5 * sq / self.variance - 0.5 * self.dim * (_LOG2PI + np.log(self.variance))

    def score(self, x: Any) -> np.ndarray:
        """``−(x − mean) / variance``."""
        x = _rows(x, self.dim)
        return (self.mean - x) / self.variance

    def sample(self, n: int, *, seed: SeedLike = None) -> np.ndarray:
        """``n`` independent draws."""
        n = check_int(n, "n", low=1)
        rng, _ = check_seed(seed)
        return self.mean + np.sqrt(self.variance) * rng.standard_normal((n, self.dim))


@dataclass(frozen=True, eq=False)
class Normal:
    """Gaussian N(mean, cov) with a full covariance matrix.

    Parameters
    ----------
    mean : array-like, shape (d,)
        The mean.
    cov : array-like, shape (d, d)
        Symmetric positive-definite covariance.

    Notes
    -----
    ``log_density`` is normalised; ``score(x) = −cov⁻¹ (x − mean)`` (solved through the Cholesky
    factor, never an explicit inverse).
    """

    mean: np.ndarray
    cov: np.ndarray
    _chol: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        mean = _mean_vector(self.mean)
        cov, chol = _cholesky(self.cov, mean.shape[0], "cov")
        object.__setattr__(self, "mean", mean)
        object.__setattr__(self, "cov", cov)
        object.__setattr__(self, "_chol", chol)

    @property
    def dim(self) -> int:
        """Dimension d."""
        return int(self.mean.shape[0])

    def _whiten(self, x: np.ndarray) -> np.ndarray:
        # rows of L⁻¹ (x − mean)
        from scipy.linalg import solve_triangular

        return solve_triangular(self._chol, (x - self.mean).T, lower=True).T

    def log_density(self, x: Any) -> np.ndarray:
        """Normalised log density of each row."""
        x = _rows(x, self.dim)
        w = self._whiten(x)
        logdet = 2.0 * np.sum(np.log(np.diag(self._chol)))
        return -0.5 * np.sum(w * w, axis=1) - 0.5 * (self.dim * _LOG2PI + logdet)

    def score(self, x: Any) -> np.ndarray:
        """``−cov⁻¹ (x − mean)`` for each row."""
        from scipy.linalg import cho_solve

        x = _rows(x, self.dim)
        return -cho_solve((self._chol, True), (x - self.mean).T).T

    def sample(self, n: int, *, seed: SeedLike = None) -> np.ndarray:
        """``n`` independent draws."""
        n = check_int(n, "n", low=1)
        rng, _ = check_seed(seed)
        return self.mean + rng.standard_normal((n, self.dim)) @ self._chol.T


@dataclass(frozen=True, eq=False)
class GaussianMixture:
    """Mixture Σₖ wₖ N(meansₖ, covariancesₖ).

    Parameters
    ----------
    means : array-like, shape (K, d)
        Component means.
    covariances : array-like, shape (K, d, d) or (d, d)
        Component covariances (one shared matrix if 2-D).
    weights : array-like, shape (K,), optional
        Mixture weights (positive; normalised to sum 1). Equal weights by default.

    Notes
    -----
    ``log_density`` is normalised (log-sum-exp over components). The score is
    ``Σₖ rₖ(x) · (−Σₖ⁻¹ (x − μₖ))`` with the posterior responsibilities ``rₖ(x)``.

    Examples
    --------
    >>> gm = GaussianMixture([[0.0], [6.0]], [[[1.0]], [[1.0]]])
    >>> round(float(gm.score([[3.0]])[0, 0]), 12)  # the midpoint is a stationary point
    0.0
    """

    means: np.ndarray
    covariances: np.ndarray
    weights: np.ndarray | None = None
    _chols: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        means = np.array(self.means, dtype=float)
        if means.ndim != 2 or not np.all(np.isfinite(means)):
            msg = f"`means` must be a finite (K, d) array; got shape {means.shape}."
            raise ValueError(msg)
        k, d = means.shape
        covs = np.array(self.covariances, dtype=float)
        if covs.ndim == 2:
            covs = np.broadcast_to(covs, (k, d, d)).copy()
        if covs.shape != (k, d, d):
            msg = f"`covariances` must have shape ({k}, {d}, {d}) or ({d}, {d}); got {covs.shape}."
            raise ValueError(msg)
        chols = np.stack([_cholesky(c, d, f"covariances[{i}]")[1] for i, c in enumerate(covs)])
        if self.weights is None:
            w = np.full(k, 1.0 / k)
        else:
            w = np.array(self.weights, dtype=float).reshape(-1)
            if w.shape != (k,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
                msg = f"`weights` must be {k} positive numbers; got {self.weights!r}."
                raise ValueError(msg)
            w = w / w.sum()
        for a in (means, covs, w, chols):
            a.setflags(write=False)
        object.__setattr__(self, "means", means)
        object.__setattr__(self, "covariances", covs)
        object.__setattr__(self, "weights", w)
        object.__setattr__(self, "_chols", chols)

    @property
    def dim(self) -> int:
        """Dimension d."""
        return int(self.means.shape[1])

    def _component_terms(self, x: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """Per-component log wₖ N(x; μₖ, Σₖ) (n, K) and the precision-times-residuals."""
        from scipy.linalg import cho_solve, solve_triangular

        logs, prec_res = [], []
        d = self.dim
        for mean, chol, w in zip(self.means, self._chols, self.weights):  # type: ignore[arg-type]
            res = x - mean
            white = solve_triangular(chol, res.T, lower=True).T
            logdet = 2.0 * np.sum(np.log(np.diag(chol)))
            logs.append(np.log(w) - 0.5 * np.sum(white**2, axis=1) - 0.5 * (d * _LOG2PI + logdet))
            prec_res.append(cho_solve((chol, True), res.T).T)
        return np.stack(logs, axis=1), prec_res

    def log_density(self, x: Any) -> np.ndarray:
        """Normalised log density of each row."""
        x = _rows(x, self.dim)
        logs, _ = self._component_terms(x)
        return logsumexp(logs, axis=1)

    def score(self, x: Any) -> np.ndarray:
        """Responsibility-weighted sum of the component scores."""
        x = _rows(x, self.dim)
        logs, prec_res = self._component_terms(x)
        resp = np.exp(logs - logsumexp(logs, axis=1, keepdims=True))
        out = np.zeros_like(x)
        for k, pr in enumerate(prec_res):
            out -= resp[:, k : k + 1] * pr
        return out

    def sample(self, n: int, *, seed: SeedLike = None) -> np.ndarray:
        """``n`` independent draws (component labels multinomial, then Gaussian noise)."""
        n = check_int(n, "n", low=1)
        rng, _ = check_seed(seed)
        labels = rng.choice(self.means.shape[0], size=n, p=self.weights)
        noise = rng.standard_normal((n, self.dim))
        out = np.empty((n, self.dim))
        for k in range(self.means.shape[0]):
            idx = labels == k
            out[idx] = self.means[k] + noise[idx] @ self._chols[k].T
        return out


@dataclass(frozen=True, eq=False)
class GaussBernRBM:
    """Gaussian–Bernoulli restricted Boltzmann machine, as in kgof's ``GaussBernRBM``.

    The joint density is ``p(x, h) ∝ exp(½ xᵀB h + bᵀx + cᵀh − ½‖x‖²)`` with ``h ∈ {−1, +1}^dh``.

    Parameters
    ----------
    B : array-like, shape (d, dh)
        Interaction weights.
    b : array-like, shape (d,)
        Visible biases.
    c : array-like, shape (dh,)
        Hidden biases.
    burn_in : int
        Blocked-Gibbs steps before the draws are taken (2000 in the reference code).

    Notes
    -----
    The factor ½ in front of ``xᵀBh`` is the reference code's (the paper omits it).

    - Unnormalised marginal: ``log p(x) = bᵀx − ½‖x‖² + Σⱼ log(2 cosh(½ (Bᵀx)ⱼ + cⱼ))``.
    - Score: ``∇ log p(x) = b − x + ½ B tanh(½ Bᵀx + c)``.
    - Sampler: ``n`` parallel chains, one draw each; start at x ~ N(0, I), h = +1; each step draws
      ``h | x`` with ``P(hⱼ = +1 | x) = sigmoid((Bᵀx)ⱼ + 2cⱼ)`` and then ``x | h ~ N(b + ½ B h, I)``;
      as in kgof's ``DSGaussBernRBM``, ``burn_in`` steps are discarded and one more step gives the
      draw.

    References
    ----------
    Liu, Lee & Jordan (2016); Jitkrittum et al. (2017, 2018), experiment "RBM".
    """

    B: np.ndarray
    b: np.ndarray
    c: np.ndarray
    burn_in: int = 2000

    def __post_init__(self) -> None:
        B = np.array(self.B, dtype=float)
        b = np.array(self.b, dtype=float).reshape(-1)
        c = np.array(self.c, dtype=float).reshape(-1)
        if B.ndim != 2 or B.shape != (b.shape[0], c.shape[0]):
            msg = (
                f"`B` must have shape (len(b), len(c)) = ({b.shape[0]}, {c.shape[0]}); "
                f"got {B.shape}."
            )
            raise ValueError(msg)
        if not (np.all(np.isfinite(B)) and np.all(np.isfinite(b)) and np.all(np.isfinite(c))):
            msg = "`B`, `b` and `c` must be finite."
            raise ValueError(msg)
        for a in (B, b, c):
            a.setflags(write=False)
        object.__setattr__(self, "B", B)
        object.__setattr__(self, "b", b)
        object.__setattr__(self, "c", c)
        object.__setattr__(self, "burn_in", check_int(self.burn_in, "burn_in", low=0))

    @property
    def dim(self) -> int:
        """Dimension d of the visible units."""
        return int(self.b.shape[0])

    @property
    def dim_hidden(self) -> int:
        """Number of hidden units dh."""
        return int(self.c.shape[0])

    def log_density(self, x: Any) -> np.ndarray:
        """Unnormalised marginal log density ``bᵀx − ½‖x‖² + Σⱼ log 2cosh(½(Bᵀx)ⱼ + cⱼ)``."""
        x = _rows(x, self.dim)
        a = 0.5 * (x @ self.B) + self.c
        # log(2 cosh a) = |a| + log1p(exp(−2|a|)), stable for large |a|
        abs_a = np.abs(a)
        log2cosh = abs_a + np.log1p(np.exp(-2.0 * abs_a))
        return x @ self.b - 0.5 * np.sum(x * x, axis=1) + np.sum(log2cosh, axis=1)

    def score(self, x: Any) -> np.ndarray:
        """``b − x + ½ B tanh(½ Bᵀx + c)``."""
        x = _rows(x, self.dim)
        return self.b - x + 0.5 * np.tanh(0.5 * (x @ self.B) + self.c) @ self.B.T

    def sample(self, n: int, *, seed: SeedLike = None) -> np.ndarray:
        """``n`` draws from ``n`` parallel blocked-Gibbs chains (``burn_in`` + 1 steps each)."""
        n = check_int(n, "n", low=1)
        rng, _ = check_seed(seed)
        x = rng.standard_normal((n, self.dim))
        h = np.ones((n, self.dim_hidden))
        for _ in range(self.burn_in + 1):  # burn-in, then the step that gives the draw (kgof)
            prob = 1.0 / (1.0 + np.exp(-(x @ self.B + 2.0 * self.c)))
            h = np.where(rng.random(prob.shape) < prob, 1.0, -1.0)
            x = self.b + 0.5 * (h @ self.B.T) + rng.standard_normal((n, self.dim))
        return x


@dataclass(frozen=True, eq=False)
class LogDensity:
    """A log density written with torch operations; the score comes from autograd.

    Build it with :func:`from_log_density`.
    """

    fn: Callable[[Any], Any]
    dim: int | None = None

    def log_density(self, x: Any) -> np.ndarray:
        """Evaluate the wrapped function on the rows of ``x``."""
        torch = _torch_for_scores()
        x = check_samples(x, "x", min_samples=1)
        with torch.no_grad():
            out = self.fn(torch.as_tensor(x, dtype=torch.float64))
        return np.asarray(out.detach().cpu().numpy(), dtype=float).reshape(-1)

    def score(self, x: Any) -> np.ndarray:
        """∇ₓ log p(x) by torch autograd (float64)."""
        torch = _torch_for_scores()
        x = check_samples(x, "x", min_samples=1)
        xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        out = self.fn(xt)
        if tuple(out.shape) not in ((x.shape[0],), (x.shape[0], 1)):
            msg = (
                "the log density must map an (n, d) tensor to n values; "
                f"got shape {tuple(out.shape)} for n = {x.shape[0]}."
            )
            raise ValueError(msg)
        (grad,) = torch.autograd.grad(out.sum(), xt)
        return grad.detach().cpu().numpy()


def _torch_for_scores() -> Any:
    from modelcompare._foundation.torch_support import import_torch

    return import_torch(
        "differentiating a log density (from_log_density)",
        hint="Without torch, pass the score function ∇ log p(x) ((n, d) -> (n, d)) instead.",
    )


def from_log_density(fn: Callable[[Any], Any], *, dim: int | None = None) -> LogDensity:
    """Wrap a log density so that its score is computed by torch autograd.

    Parameters
    ----------
    fn : callable
        Maps a float64 torch tensor of shape ``(n, d)`` to the ``n`` log densities (an additive
        constant does not matter). It must use torch operations so that autograd can differentiate
        it.
    dim : int, optional
        The dimension, for information only.

    Returns
    -------
    LogDensity
        An object with ``log_density`` and ``score``, usable by :func:`modelcompare.rel_fssd`.

    Raises
    ------
    MissingDependencyError
        If torch is not installed (pass the score function directly instead).

    Examples
    --------
    >>> import numpy as np
    >>> p = from_log_density(lambda x: -0.5 * (x**2).sum(dim=1))  # doctest: +SKIP
    >>> p.score(np.array([[1.0, 2.0]]))  # doctest: +SKIP
    array([[-1., -2.]])
    """
    if not callable(fn):
        msg = f"`fn` must be callable; got {type(fn).__name__}."
        raise TypeError(msg)
    _torch_for_scores()  # fail early, with the hint to pass the score instead
    return LogDensity(fn, dim)
