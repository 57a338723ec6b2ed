"""The conditional-flow protocol, the exact affine Gaussian flow and the latent/log-density self-check.

A *flow* here is any object with ``to_latent(theta, x) -> z``: the normalising direction
T⁻¹(θ; x) onto a standard normal base. Optionally it has ``log_prob(theta, x)`` (for the self-check)
and ``sample(x, n, seed)`` (for SBC and TARP). Adapters for zuko, nflows and sbi live in
``_adapters.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np
from scipy import linalg

from modelcompare._foundation.results import CheckResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    check_int,
    check_positive,
    check_same_rows,
    check_samples,
)

__all__ = [
    "AffineGaussianFlow",
    "ConditionalFlow",
    "ConditionalGaussianModel",
    "FlowCheckResult",
    "check_flow",
    "check_pairs",
    "latents",
    "require_latent",
]

_LOG_2PI = float(np.log(2 * np.pi))


@runtime_checkable
class ConditionalFlow(Protocol):
    """A conditional normalising flow q(θ | x) with a standard normal base.

    Only ``to_latent`` is required. ``log_prob(theta, x) -> (N,)`` enables :func:`check_flow`;
    ``sample(x, n, seed) -> (N, n, m)`` enables SBC and TARP. Every method takes paired rows:
    ``theta`` of shape ``(N, m)`` and ``x`` of shape ``(N, d)``.
    """

    def to_latent(self, theta: Any, x: Any) -> np.ndarray:
        """Return z = T⁻¹(θ; x), shape ``(N, m)`` (the normalising direction θ → z)."""
        ...


def check_pairs(theta: Any, x: Any) -> tuple[np.ndarray, np.ndarray]:
    """``theta`` and ``x`` checked as 2-d float arrays with the same rows (the (θ, x) pairs).

    Examples
    --------
    >>> theta, x = check_pairs([[1.0], [2.0]], [[0.0, 1.0], [2.0, 3.0]])
    >>> theta.shape, x.shape
    ((2, 1), (2, 2))
    """
    theta = check_samples(theta, "theta", min_samples=1)
    x = check_samples(x, "x", min_samples=1)
    check_same_rows([("theta", theta), ("x", x)], what="a flow")
    return theta, x


def require_latent(flow: Any, name: str = "flow") -> None:
    """Refuse a ``flow`` without ``to_latent``, with a message naming the argument.

    Raises
    ------
    TypeError
        If ``flow`` has no ``to_latent`` method.
    """
    if not hasattr(flow, "to_latent"):
        msg = (
            f"`{name}` must have a `to_latent(theta, x)` method (the normalising direction); got "
            f"{type(flow).__name__}. Wrap zuko/nflows/sbi estimators with modelcompare.as_flow."
        )
        raise TypeError(msg)


def check_flow_width(flow: Any, theta: np.ndarray, name: str = "theta") -> None:
    """Refuse a ``theta`` whose columns differ from the flow's ``n_params``, where it has one.

    Raises
    ------
    ValueError
        If ``flow.n_params`` is an int other than ``theta.shape[1]``.

    Examples
    --------
    >>> flow = AffineGaussianFlow(np.eye(2), np.eye(2))
    >>> try:
    ...     check_flow_width(flow, np.zeros((4, 3)))
    ... except ValueError as err:
    ...     print(err)
    `theta` has 3 columns but the flow models 2 parameters.
    """
    m = getattr(flow, "n_params", None)
    if isinstance(m, (int, np.integer)) and not isinstance(m, bool) and theta.shape[1] != m:
        msg = f"`{name}` has {theta.shape[1]} columns but the flow models {int(m)} parameters."
        raise ValueError(msg)


def latents(
    flow: Any, theta: np.ndarray, x: np.ndarray, *, chunk_size: int | None = None
) -> np.ndarray:
    """z = ``flow.to_latent(theta, x)`` as a float64 array of ``theta``'s shape, checked finite.

    ``theta`` and ``x`` are validated arrays with the same rows; ``chunk_size`` rows are passed to
    the flow at a time (all at once by default).

    Raises
    ------
    ValueError
        If the flow returns another shape, NaN or inf.
    """
    n, m = theta.shape
    check_flow_width(flow, theta)
    step = n if chunk_size is None else chunk_size
    parts = []
    for start in range(0, n, step):
        z = np.asarray(flow.to_latent(theta[start : start + step], x[start : start + step]))
        rows = min(step, n - start)
        if z.size != rows * m:  # a flat or (rows, 1, m) latent is read as (rows, m)
            msg = f"`flow.to_latent` returned shape {z.shape}; expected ({rows}, {m})."
            raise ValueError(msg)
        parts.append(np.asarray(z, dtype=float).reshape(rows, m))
    z = np.concatenate(parts, axis=0)
    if not np.all(np.isfinite(z)):
        msg = "`flow.to_latent` returned NaN or inf."
        raise ValueError(msg)
    return z


class AffineGaussianFlow:
    """Exact affine "flow" of a conditional Gaussian: θ = T(z; x) = K x + b(x) + L z.

    The normalising direction is T⁻¹(θ; x) = L⁻¹(θ − K x − b(x)). With a lower-triangular ``L`` the
    map is triangular, so the PIT is the Rosenblatt transform in the order θ_1, θ_2, ...

    Parameters
    ----------
    mean_matrix : array-like, shape (m, d)
        K, the posterior mean is ``K @ x + offset(x)``.
    scale : array-like, shape (m, m)
        L, any invertible matrix (a Cholesky factor for the exact posterior). q(θ|x) = N(Kx + b, L Lᵀ).
    offset : array-like of shape (m,), or callable ``x (N, d) -> (N, m)``, optional
        b(x), an added shift (zero by default). A callable gives x-dependent errors such as a bias
        confined to a region of x.

    Examples
    --------
    >>> import numpy as np
    >>> flow = AffineGaussianFlow(np.eye(2) * 0.5, np.eye(2))
    >>> flow.to_latent(np.array([[1.0, 0.0]]), np.array([[2.0, 0.0]]))
    array([[0., 0.]])
    """

    def __init__(
        self,
        mean_matrix: Any,
        scale: Any,
        offset: Any | Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> None:
        k = check_samples(mean_matrix, "mean_matrix", min_samples=1)
        scale_arr = check_samples(scale, "scale", min_samples=1)
        m = k.shape[0]
        if scale_arr.shape != (m, m):
            msg = (
                f"`scale` must have shape ({m}, {m}) to match `mean_matrix`; got {scale_arr.shape}."
            )
            raise ValueError(msg)
        sign, logdet = np.linalg.slogdet(scale_arr)
        if sign == 0 or not np.isfinite(logdet):
            msg = "`scale` must be invertible."
            raise ValueError(msg)
        self.mean_matrix = k.copy()
        self.scale = scale_arr.copy()
        self._lower = bool(np.allclose(scale_arr, np.tril(scale_arr)))
        self._log_abs_det = float(logdet)
        if offset is None or callable(offset):
            self.offset = offset
        else:
            off = np.asarray(offset, dtype=float).reshape(-1)
            if off.shape != (m,):
                msg = f"`offset` must have shape ({m},); got {np.shape(offset)}."
                raise ValueError(msg)
            self.offset = off

    @property
    def n_params(self) -> int:
        """m, the dimension of θ."""
        return int(self.mean_matrix.shape[0])

    def mean(self, x: Any) -> np.ndarray:
        """Posterior mean K x + b(x), shape ``(N, m)``."""
        x = check_samples(x, "x", min_samples=1)
        if x.shape[1] != self.mean_matrix.shape[1]:
            msg = f"`x` must have {self.mean_matrix.shape[1]} columns; got {x.shape[1]}."
            raise ValueError(msg)
        mu = x @ self.mean_matrix.T
        if callable(self.offset):
            mu = mu + np.asarray(self.offset(x), dtype=float).reshape(mu.shape)
        elif self.offset is not None:
            mu = mu + self.offset
        return mu

    def _solve(self, r: np.ndarray) -> np.ndarray:
        if self._lower:
            return linalg.solve_triangular(self.scale, r.T, lower=True).T
        return np.linalg.solve(self.scale, r.T).T

    def to_latent(self, theta: Any, x: Any) -> np.ndarray:
        """z = L⁻¹(θ − K x − b(x)), shape ``(N, m)``."""
        theta, x = check_pairs(theta, x)
        check_flow_width(self, theta)
        return self._solve(theta - self.mean(x))

    def latent_and_logdet(self, theta: Any, x: Any) -> tuple[np.ndarray, np.ndarray]:
        """Return z and log|det ∂z/∂θ| = −log|det L| for each row."""
        z = self.to_latent(theta, x)
        return z, np.full(z.shape[0], -self._log_abs_det)

    def forward(self, z: Any, x: Any) -> np.ndarray:
        """The sampling direction θ = K x + b(x) + L z."""
        z, x = check_pairs(z, x)
        return self.mean(x) + z @ self.scale.T

    def log_prob(self, theta: Any, x: Any) -> np.ndarray:
        """log q(θ | x), computed from the Gaussian density with covariance L Lᵀ (not from z)."""
        theta, x = check_pairs(theta, x)
        cov = self.scale @ self.scale.T
        chol = np.linalg.cholesky(cov)
        r = linalg.solve_triangular(chol, (theta - self.mean(x)).T, lower=True)
        m = theta.shape[1]
        return -0.5 * np.sum(r**2, axis=0) - 0.5 * m * _LOG_2PI - np.sum(np.log(np.diag(chol)))

    def sample(self, x: Any, n: int, seed: SeedLike = None) -> np.ndarray:
        """Draw ``n`` posterior samples per row of ``x``: shape ``(N, n, m)``."""
        x = check_samples(x, "x", min_samples=1)
        n = check_int(n, "n", low=1)
        rng, _ = check_seed(seed)
        z = rng.standard_normal((x.shape[0], n, self.n_params))
        return self.mean(x)[:, None, :] + z @ self.scale.T


class ConditionalGaussianModel:
    """θ ~ N(0, prior_cov), x = θ + ε with ε ~ N(0, noise_cov): a model with an exact posterior.

    The posterior is N(K x, S) with S = (prior_cov⁻¹ + noise_cov⁻¹)⁻¹ and K = S noise_cov⁻¹. Its
    covariance does not depend on x. :meth:`exact_flow` returns the triangular affine flow
    T(z; x) = K x + chol(S) z, whose PIT is exactly iid U(0, 1)^m and independent of x.

    Parameters
    ----------
    noise_cov : array-like, shape (m, m)
        Σε, for example the correlated ``0.5 * [[1, 0.8], [0.8, 1]]``.
    prior_cov : array-like, shape (m, m), optional
        Prior covariance (identity by default).

    Examples
    --------
    >>> model = ConditionalGaussianModel(0.5 * np.array([[1, 0.8], [0.8, 1]]))
    >>> theta, x = model.simulate(5, seed=0)
    >>> model.exact_flow().to_latent(theta, x).shape
    (5, 2)
    """

    def __init__(self, noise_cov: Any, prior_cov: Any | None = None) -> None:
        noise = check_samples(noise_cov, "noise_cov", min_samples=1)
        m = noise.shape[0]
        if noise.shape != (m, m):
            msg = f"`noise_cov` must be square; got shape {noise.shape}."
            raise ValueError(msg)
        prior = np.eye(m) if prior_cov is None else check_samples(prior_cov, "prior_cov")
        if prior.shape != (m, m):
            msg = f"`prior_cov` must have shape ({m}, {m}); got {prior.shape}."
            raise ValueError(msg)
        for name, c in (("noise_cov", noise), ("prior_cov", prior)):
            if not np.allclose(c, c.T) or np.linalg.eigvalsh(c).min() <= 0:
                msg = f"`{name}` must be symmetric positive definite."
                raise ValueError(msg)
        self.noise_cov = noise.copy()
        self.prior_cov = prior.copy()
        noise_inv = np.linalg.inv(noise)
        self.posterior_cov = np.linalg.inv(np.linalg.inv(prior) + noise_inv)
        self.posterior_cov = 0.5 * (self.posterior_cov + self.posterior_cov.T)
        self.posterior_mean_matrix = self.posterior_cov @ noise_inv

    @property
    def n_params(self) -> int:
        """m, the dimension of θ (and of x)."""
        return int(self.noise_cov.shape[0])

    def simulate(self, n: int, seed: SeedLike = None) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``n`` pairs (θ, x) from the joint; returns ``theta, x`` of shape ``(n, m)``."""
        n = check_int(n, "n", low=1)
        rng, _ = check_seed(seed)
        m = self.n_params
        theta = rng.standard_normal((n, m)) @ np.linalg.cholesky(self.prior_cov).T
        x = theta + rng.standard_normal((n, m)) @ np.linalg.cholesky(self.noise_cov).T
        return theta, x

    def exact_flow(self, *, scale_factor: float = 1.0, offset: Any = None) -> AffineGaussianFlow:
        """The exact posterior flow, optionally with a dispersion error or a shift.

        Parameters
        ----------
        scale_factor : float
            c in L → c L (c > 1 over-dispersed, c < 1 under-dispersed; 1 is exact).
        offset : array-like or callable, optional
            An added mean error b(x) (see :class:`AffineGaussianFlow`).
        """
        c = check_positive(scale_factor, "scale_factor")
        chol = np.linalg.cholesky(self.posterior_cov)
        return AffineGaussianFlow(self.posterior_mean_matrix, c * chol, offset)


@result_class
class FlowCheckResult(CheckResult):
    """Outcome of :func:`check_flow`: how far log q is from log N(z) + log|det ∂z/∂θ|.

    Attributes
    ----------
    passed : bool
        Whether the largest error is at most ``tolerance``.
    statistic : float
        The largest absolute error over the rows.
    tolerance : float
        The absolute tolerance it was checked against (``check_flow``'s ``atol``).
    errors : numpy.ndarray, shape (N,)
        The absolute error of each row.
    logdet_method : str
        ``"flow"`` (the flow's own log-determinant) or ``"finite differences"``.

    Examples
    --------
    >>> import numpy as np
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(5, seed=0)
    >>> res = check_flow(model.exact_flow(), theta, x)
    >>> res.passed, res.tolerance
    (True, 0.0001)
    """

    passed: bool
    statistic: float
    tolerance: float
    errors: np.ndarray
    logdet_method: str

    _repr_fields = ("passed", "statistic", "tolerance", "logdet_method")


_EPS_BY_DTYPE = {
    "float64": float(np.finfo(np.float64).eps),
    "float32": float(np.finfo(np.float32).eps),
    "float16": float(np.finfo(np.float16).eps),
    "bfloat16": 2.0**-7,
}


def _working_dtype(flow: Any, z: Any) -> str:
    """The precision a flow computes in: its ``dtype`` attribute, else the dtype ``to_latent`` returns.

    Both numpy and torch dtypes are understood (``float32`` and ``torch.float32`` alike); anything
    else (a Python list, an integer array) counts as float64.
    """
    for candidate in (getattr(flow, "dtype", None), getattr(z, "dtype", None)):
        name = str(candidate).removeprefix("torch.")
        if name in _EPS_BY_DTYPE:
            return name
    return "float64"


def _logdet_finite_differences(flow: Any, theta: np.ndarray, x: np.ndarray) -> np.ndarray:
    """log|det ∂z/∂θ| per row from central differences of ``flow.to_latent``.

    The step is h_j = ε^(1/3) max(|θ_j|, 1), with ε the machine epsilon of the precision the flow
    computes in (see :func:`_working_dtype`): the step that balances the O(h²) truncation error of a
    central difference against its O(ε/h) rounding error (Nocedal and Wright, *Numerical
    Optimization*, 2nd ed., §8.1). It is about 6e-6 for float64 and 5e-3 for float32; a fixed
    float64-sized step would drown a float32 flow's Jacobian in rounding noise. The perturbed points
    are rounded to that precision before use, so the divisor is the step the flow actually sees.
    """
    n, m = theta.shape
    name = _working_dtype(flow, flow.to_latent(theta[:1], x[:1]))
    rounding = np.dtype(name) if name != "bfloat16" else None
    h = _EPS_BY_DTYPE[name] ** (1 / 3) * np.maximum(np.abs(theta), 1.0)
    jac = np.empty((n, m, m))
    for j in range(m):
        step = np.zeros_like(theta)
        step[:, j] = h[:, j]
        plus, minus = theta + step, theta - step
        if rounding is not None:
            plus = plus.astype(rounding).astype(float)
            minus = minus.astype(rounding).astype(float)
        zp = np.asarray(flow.to_latent(plus, x), dtype=float)
        zm = np.asarray(flow.to_latent(minus, x), dtype=float)
        jac[:, :, j] = (zp - zm) / (plus[:, j : j + 1] - minus[:, j : j + 1])
    return np.linalg.slogdet(jac)[1]


def _check_finite_densities(log_q: np.ndarray, implied: np.ndarray) -> None:
    """Both log-densities of every row must be finite for their difference to mean anything."""
    bad = ~(np.isfinite(log_q) & np.isfinite(implied))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        msg = (
            f"the log-densities at row {row} of `theta` and `x` are not finite (flow.log_prob gives "
            f"{log_q[row]:.3g}, log N(z; 0, I) + log|det ∂z/∂θ| gives {implied[row]:.3g}), so they "
            f"cannot be compared ({int(bad.sum())} such row(s)); check the flow at points where its "
            "density is positive and its latent of moderate size, such as calibration pairs."
        )
        raise ValueError(msg)


def check_flow(flow: Any, theta: Any, x: Any, *, atol: float = 1e-4) -> FlowCheckResult:
    """Self-check that a flow's latent is the one its density uses.

    Verifies ``log q(θ|x) = log N(z; 0, I) + log|det ∂z/∂θ|`` with z = ``flow.to_latent(θ, x)`` on the
    given rows. A failure means the adapter does not compute the latent that the density uses (a
    swapped direction, or sbi's un-embedded context, see the module docs).

    Parameters
    ----------
    flow : object
        Must have ``to_latent`` and ``log_prob``. If it also has ``latent_and_logdet(theta, x)`` the
        log-determinant comes from it; otherwise from central finite differences of ``to_latent``.
    theta, x : array-like, shapes (N, m) and (N, d)
        A few test points (e.g. 10 calibration pairs).
    atol : float
        Absolute tolerance on the largest error (1e-4 suits float32 torch flows; the exact affine
        flow agrees to ~1e-12). The result stores it as ``tolerance``.

    Returns
    -------
    FlowCheckResult
        ``statistic`` is the largest absolute error, ``passed`` whether it is ≤ ``atol``.

    Raises
    ------
    TypeError
        If ``flow`` has no ``log_prob``, or neither ``latent_and_logdet`` nor ``to_latent``.
    ValueError
        If a row's log-densities are not finite (θ where the flow's density vanishes, or a latent
        so large that its squared norm overflows): the check has nothing to compare there.

    Examples
    --------
    >>> import numpy as np
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(10, seed=0)
    >>> res = check_flow(model.exact_flow(), theta, x)
    >>> res.passed, bool(res.statistic < 1e-10)
    (True, True)
    """
    theta, x = check_pairs(theta, x)
    atol = check_positive(atol, "atol")
    if not hasattr(flow, "log_prob"):
        msg = "`flow` has no `log_prob(theta, x)`; the self-check needs it."
        raise TypeError(msg)
    if hasattr(flow, "latent_and_logdet"):
        z, logdet = flow.latent_and_logdet(theta, x)
        method = "flow"
    else:
        require_latent(flow)
        z = flow.to_latent(theta, x)
        logdet = _logdet_finite_differences(flow, theta, x)
        method = "finite differences"
    n = theta.shape[0]
    z = np.asarray(z, dtype=float)
    if z.shape != theta.shape:
        msg = f"the flow's latent has shape {z.shape}; expected {theta.shape} like `theta`."
        raise ValueError(msg)
    with np.errstate(over="ignore", invalid="ignore"):
        implied = -0.5 * np.sum(z**2, axis=1) - 0.5 * z.shape[1] * _LOG_2PI
        implied = implied + np.asarray(logdet, dtype=float).reshape(-1)
    log_q = np.asarray(flow.log_prob(theta, x), dtype=float).reshape(-1)
    if log_q.shape != (n,) or implied.shape != (n,):
        msg = (
            f"`flow.log_prob` and the log-determinant must give one value per row ({n}); got "
            f"{log_q.size} and {implied.size}."
        )
        raise ValueError(msg)
    _check_finite_densities(log_q, implied)
    errors = np.abs(log_q - implied)
    stat = float(np.max(errors))
    return FlowCheckResult(
        passed=bool(stat <= atol),
        statistic=stat,
        tolerance=atol,
        errors=errors,
        logdet_method=method,
    )
