"""L-C2ST-NF's ``"quadratic"`` classifiers, B + 1 of them fitted by Newton's method.

The ``"quadratic"`` classifier of :func:`~modelcompare.lc2st_nf` is scikit-learn's pipeline
``PolynomialFeatures(2), StandardScaler(), LogisticRegression()``: logistic regression with an
intercept and the penalty ½‖w‖² (C = 1) on the standardised degree-2 monomials of [z, x]. Its
log-odds are a quadratic form in [z, x], so it sees shifts, dispersion and correlation of the
latent and their linear dependence on x, the departures of a Gaussian-like flow from N(0, I).

Each classifier is minimised by damped Newton steps to a gradient of 1e-8 per row, where
scikit-learn's L-BFGS stops at its tolerance of 1e-4; the predicted probabilities then agree to
about 1e-5. The objective is strictly convex (the penalty), so both find one and the same
optimum. The B + 1 training sets share their x columns, so the monomials of x alone are built
and standardised once, and each classifier rebuilds only those that involve z. A step reuses
the last Hessian's Cholesky factor while the gradient shrinks fast enough, and the last step
is a full Newton step: at p monomials a Hessian costs 2N · p² and a step without one 4N · p,
and at m + d = 20 (p = 230) a classifier takes three Hessians and about seven steps.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

import numpy as np
from scipy.linalg import cho_factor, cho_solve

__all__ = [
    "QUADRATIC_CHUNK_BYTES",
    "QUADRATIC_MAX_FEATURES",
    "n_quadratic_features",
    "quadratic_features",
    "quadratic_statistics",
]

#: Up to this many degree-2 monomials (m + d ≤ 20, the widest measured: about 10 ms a
#: classifier at N = 1,000 against 70 ms for scikit-learn's pipeline) the classifiers are
#: fitted here; wider ones are fitted one at a time by scikit-learn's pipeline.
QUADRATIC_MAX_FEATURES = 230

_TOL = 1e-8
#: Steps at most (a step refreshes the Hessian whenever the last one fell short).
_MAX_STEPS = 100
#: A step keeps the last Hessian factor while the gradient's largest entry shrinks at least
#: this much a step; otherwise the Hessian is recomputed at the current point.
_REFRESH = 0.25
_MAX_HALVINGS = 30
#: About the most memory the evaluation-row probabilities of one chunk of classifiers hold at once.
QUADRATIC_CHUNK_BYTES = 256 * 2**20


def _product_blocks(k: int) -> Iterator[tuple[int, slice]]:
    """(i, columns of x_i · x_j for j ≥ i), in PolynomialFeatures' order after the k linear terms."""
    col = k
    for i in range(k):
        yield i, slice(col, col + k - i)
        col += k - i


def quadratic_features(rows: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The degree-2 monomials of ``rows``' last axis, linear terms first (no constant).

    Written into ``out`` when given (shape ``(*rows.shape[:-1], n_quadratic_features(k))``).

    Examples
    --------
    >>> quadratic_features(np.array([[2.0, 3.0]]))
    array([[2., 3., 4., 6., 9.]])
    """
    k = rows.shape[-1]
    if out is None:
        out = np.empty((*rows.shape[:-1], n_quadratic_features(k)))
    out[..., :k] = rows
    for i, cols in _product_blocks(k):
        np.multiply(rows[..., i : i + 1], rows[..., i:], out=out[..., cols])
    return out


def n_quadratic_features(width: int) -> int:
    """The number of degree-2 monomials of ``width`` inputs, without the constant."""
    return width + width * (width + 1) // 2


def _objective(eta: np.ndarray, y: np.ndarray, coef: np.ndarray) -> float:
    """Σ log(1 + e^η) − yη plus ½‖w‖² (the intercept, last, is not penalised)."""
    return float(np.sum(np.logaddexp(0.0, eta) - y * eta) + 0.5 * np.sum(coef[:-1] ** 2))


def _hessian_factor(design32: np.ndarray, prob: np.ndarray | None, penalty: np.ndarray) -> tuple:
    """Cholesky factor of Xᵀ diag(p(1 − p)) X + diag(penalty); ``prob`` None means p = ½.

    The product, the 2N · p² part of the work, is taken in float32: the factor only scales the
    steps, while the gradient, in float64, decides where the iterations stop, so the optimum is
    the same and an inexact factor can only cost a step.
    """
    if prob is None:
        hess = 0.25 * (design32.T @ design32)
    else:
        weighted = design32 * np.sqrt(prob * (1.0 - prob)).astype(np.float32)[:, None]
        hess = weighted.T @ weighted
    hess = hess.astype(np.float64)
    hess[np.diag_indices_from(hess)] += penalty + 1e-12
    try:
        return cho_factor(hess, check_finite=False)
    except np.linalg.LinAlgError:  # rounding lost definiteness: the product in float64
        design = design32.astype(np.float64)
        weight = 0.25 if prob is None else prob * (1.0 - prob)
        hess = (design.T * weight) @ design
        hess[np.diag_indices_from(hess)] += penalty + 1e-12
        return cho_factor(hess, check_finite=False)


def _fit_one(design: np.ndarray, design32: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Minimise Σ log-loss + ½‖w‖² for one design (n, p + 1); returns p + 1 with intercept last.

    ``design32`` is the same design in float32, for the Hessians. A step keeps the last
    Hessian factor while the gradient's largest entry shrinks by ``_REFRESH`` or more, and
    refreshes it at the current point otherwise or after a damped step. The iterations stop
    as plain Newton's do: the last step is a full Newton step, taken from a gradient of at most
    1e-8 per row, so the optimum agrees with plain Newton's to rounding.
    """
    n, width = design.shape
    penalty = np.ones(width)
    penalty[-1] = 0.0
    coef, eta = np.zeros(width), np.zeros(n)
    value = _objective(eta, y, coef)
    tol = _TOL * max(1.0, float(n))
    # at coef = 0 every probability is ½: the first factor is the Hessian there
    factor, fresh, last = _hessian_factor(design32, None, penalty), True, np.inf
    for _ in range(_MAX_STEPS):
        with np.errstate(over="ignore"):
            prob = 1.0 / (1.0 + np.exp(-eta))
        grad = design.T @ (prob - y) + penalty * coef
        size = float(np.abs(grad).max())
        # the last step is always a full Newton step, so the optimum is plain Newton's
        if not fresh and (size > _REFRESH * last or size <= tol):
            factor = _hessian_factor(design32, prob, penalty)
        step = cho_solve(factor, grad, check_finite=False)
        moved = design @ step
        # damped: halve a step until the objective does not rise (it is convex, so one exists)
        scale = 1.0
        new_value = _objective(eta - moved, y, coef - step)
        for _ in range(_MAX_HALVINGS):
            if new_value <= value + 1e-12 * abs(value):
                break
            scale /= 2
            new_value = _objective(eta - scale * moved, y, coef - scale * step)
        coef, eta, value = coef - scale * step, eta - scale * moved, new_value
        if size <= tol:
            break
        fresh = False
        # a damped step says the factor is far from this point's Hessian: refresh it next
        last = size if scale == 1.0 else 0.0
    return coef


def _standardise(features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """StandardScaler's z-score of the columns, in place (ddof 0; a constant column keeps scale 1)."""
    mean = features.mean(axis=0)
    features -= mean
    scale = np.sqrt(np.einsum("ij,ij->j", features, features) / len(features))
    scale[scale == 0] = 1.0
    features /= scale
    return mean, scale


def quadratic_statistics(
    z_class0: np.ndarray,
    z_class1: np.ndarray,
    xs: np.ndarray,
    z_eval: np.ndarray,
    xe: np.ndarray,
) -> np.ndarray:
    """T(x₀) = mean_o (d(z_o, x₀) − ½)² of k quadratic logistic classifiers.

    Classifier i separates ([z_class0[i], xs], class 0) from ([z_class1[i], xs], class 1).

    Parameters
    ----------
    z_class0, z_class1 : numpy.ndarray, shape (k, N, m)
        The latent or base draws of each classifier's two classes.
    xs : numpy.ndarray, shape (N, d)
        The (z-scored) calibration x, shared by every classifier and both classes.
    z_eval : numpy.ndarray, shape (n_eval, m)
        Base draws at which each evaluation point is probed.
    xe : numpy.ndarray, shape (E, d)
        The (z-scored) evaluation points.

    Returns
    -------
    numpy.ndarray, shape (k, E)

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> z = rng.standard_normal((2, 3, 200, 1))
    >>> xs = rng.standard_normal((200, 1))
    >>> quadratic_statistics(z[0], z[1], xs, z[0, 0, :50], np.zeros((2, 1))).shape
    (3, 2)
    """
    k, m = len(z_class0), z_class0.shape[2]
    width = m + xs.shape[1]
    eval_rows = np.concatenate(
        [
            np.broadcast_to(z_eval, (len(xe), *z_eval.shape)),
            np.broadcast_to(xe[:, None, :], (len(xe), len(z_eval), xe.shape[1])),
        ],
        axis=-1,
    )
    eval_features = quadratic_features(eval_rows.reshape(-1, width))
    weights, intercept = _fitted(z_class0, z_class1, xs)
    # the probabilities of a chunk of classifiers on every evaluation row, with one temporary
    chunk = max(1, QUADRATIC_CHUNK_BYTES // (8 * 2 * len(eval_features)))
    out = np.empty((k, len(xe)))
    for start in range(0, k, chunk):
        stop = min(k, start + chunk)
        d = 1.0 / (1.0 + np.exp(-(eval_features @ weights[start:stop].T + intercept[start:stop])))
        out[start:stop] = ((d.T - 0.5) ** 2).reshape(stop - start, len(xe), -1).mean(axis=2)
    return out


def _z_columns(m: int, width: int) -> tuple[slice, slice]:
    """The monomials that involve z (its first m inputs): z itself, then z_i · [z, x] for i < m."""
    blocks = list(islice(_product_blocks(width), m))
    stop = blocks[-1][1].stop if blocks else width
    return slice(0, m), slice(width, stop)


def _fitted(
    z_class0: np.ndarray, z_class1: np.ndarray, xs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each classifier's weights on the raw monomials and its intercept, (k, p) and (k,).

    One design at a time in one reused buffer, so that it stays in cache while Newton's method
    passes over it and the memory does not grow with k. The columns of x alone are the same
    for every classifier (both classes share ``xs``): they are built and standardised once.
    """
    k, n, m = z_class0.shape
    width = m + xs.shape[1]
    p = n_quadratic_features(width)
    y = np.r_[np.zeros(n), np.ones(n)]
    rows = np.empty((2 * n, width), order="F")
    rows[:, :m] = 0.0
    rows[:n, m:] = xs
    rows[n:, m:] = xs
    design = np.empty((2 * n, p + 1), order="F")
    design[:, -1] = 1.0
    quadratic_features(rows, out=design[:, :p])
    mean, scale = np.zeros(p), np.ones(p)
    z_cols = _z_columns(m, width)
    x_cols = (slice(z_cols[0].stop, width), slice(z_cols[1].stop, p))
    for cols in x_cols:
        mean[cols], scale[cols] = _standardise(design[:, cols])
    design32 = design.astype(np.float32)
    weights, intercept = np.empty((k, p)), np.empty(k)
    for i in range(k):
        rows[:n, :m] = z_class0[i]
        rows[n:, :m] = z_class1[i]
        design[:, :m] = rows[:, :m]
        for j, cols in islice(_product_blocks(width), m):
            np.multiply(rows[:, j : j + 1], rows[:, j:], out=design[:, cols])
        for cols in z_cols:
            mean[cols], scale[cols] = _standardise(design[:, cols])
            design32[:, cols] = design[:, cols]
        coef = _fit_one(design, design32, y)
        # the z-score folded into the coefficients: one product for every evaluation row
        weights[i] = coef[:-1] / scale
        intercept[i] = coef[-1] - np.sum(weights[i] * mean)
    return weights, intercept
