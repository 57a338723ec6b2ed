"""L-C2ST-NF's ``"quadratic"`` classifiers, all B + 1 fitted together by Newton's method.

The ``"quadratic"`` classifier of :func:`~modelcompare.lc2st_nf` is scikit-learn's pipeline
``PolynomialFeatures(2), StandardScaler(), LogisticRegression()``: logistic regression with an
intercept and the penalty ½‖w‖² (C = 1) on the standardised degree-2 monomials of [z, x]. Its
log-odds are a quadratic form in [z, x], so it sees shifts, dispersion and correlation of the
latent and their linear dependence on x, the departures of a Gaussian-like flow from N(0, I).

All B + 1 training sets have the same shape, so this module minimises the same objective for all
of them at once, by damped Newton steps on a (k, p + 1, p + 1) stack of Hessians. It reaches the
optimum to a gradient norm of 1e-8 in a handful of iterations where scikit-learn's L-BFGS, one
classifier at a time, stops at its tolerance of 1e-4; the predicted probabilities then agree to
about 1e-5. The objective is strictly convex (the penalty), so both find one and the same optimum.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "QUADRATIC_CHUNK_BYTES",
    "QUADRATIC_MAX_FEATURES",
    "n_quadratic_features",
    "quadratic_features",
    "quadratic_statistics",
]

#: Beyond this many degree-2 monomials a Newton step (p³ per classifier) costs more than
#: L-BFGS's first-order steps, and the classifiers are fitted one at a time instead.
QUADRATIC_MAX_FEATURES = 90

_TOL = 1e-8
_MAX_NEWTON = 50
_MAX_HALVINGS = 30
#: About the most memory the designs and Hessians of one chunk of classifiers hold at once.
QUADRATIC_CHUNK_BYTES = 256 * 2**20


def quadratic_features(rows: np.ndarray) -> np.ndarray:
    """The degree-2 monomials of ``rows``' last axis, linear terms first (no constant).

    Examples
    --------
    >>> quadratic_features(np.array([[2.0, 3.0]]))
    array([[2., 3., 4., 6., 9.]])
    """
    k = rows.shape[-1]
    i, j = np.triu_indices(k)
    return np.concatenate([rows, rows[..., i] * rows[..., j]], axis=-1)


def n_quadratic_features(width: int) -> int:
    """The number of degree-2 monomials of ``width`` inputs, without the constant."""
    return width + width * (width + 1) // 2


def _linear(design: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """η = X β for each of the k designs, (k, n)."""
    return np.matmul(design, coef[..., None])[..., 0]


def _objective(design: np.ndarray, y: np.ndarray, coef: np.ndarray) -> np.ndarray:
    eta = _linear(design, coef)
    # log(1 + e^η) − yη, summed, plus ½‖w‖² (the intercept, last, is not penalised)
    loss = np.logaddexp(0.0, eta) - y * eta
    return loss.sum(axis=1) + 0.5 * np.sum(coef[:, :-1] ** 2, axis=1)


def _newton(design: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Minimise Σ log-loss + ½‖w‖² for each of the k designs; returns (k, p + 1) with intercept last."""
    k, _, width = design.shape
    penalty = np.ones(width)
    penalty[-1] = 0.0
    coef = np.zeros((k, width))
    value = _objective(design, y, coef)
    active = np.arange(k)
    for _ in range(_MAX_NEWTON):
        d, c = design[active], coef[active]
        prob = 1.0 / (1.0 + np.exp(-_linear(d, c)))
        d_t = d.transpose(0, 2, 1)
        grad = np.matmul(d_t, (prob - y)[..., None])[..., 0] + penalty * c
        hess = np.matmul(d_t * (prob * (1.0 - prob))[:, None, :], d) + np.diag(penalty + 1e-12)
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        # damped: halve a step until the objective does not rise (it is convex, so one exists)
        scale = np.ones(len(active))
        new_value = _objective(d, y, c - step)
        for _ in range(_MAX_HALVINGS):
            worse = new_value > value[active] + 1e-12 * np.abs(value[active])
            if not worse.any():
                break
            scale[worse] /= 2
            trial = c[worse] - scale[worse, None] * step[worse]
            new_value[worse] = _objective(d[worse], y, trial)
        coef[active] = c - scale[:, None] * step
        value[active] = new_value
        done = np.abs(grad).max(axis=1) <= _TOL * max(1.0, float(len(y)))
        active = active[~done]
        if active.size == 0:
            break
    return coef


def _standardised(features: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """StandardScaler's z-score of each stack (ddof 0; a constant column keeps scale 1)."""
    mean = features.mean(axis=-2, keepdims=True)
    scale = features.std(axis=-2, keepdims=True)
    scale[scale == 0] = 1.0
    return (features - mean) / scale, mean[..., 0, :], scale[..., 0, :]


def _with_intercept(a: np.ndarray) -> np.ndarray:
    return np.concatenate([a, np.ones((*a.shape[:-1], 1))], axis=-1)


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
    k, n, m = z_class0.shape
    width = m + xs.shape[1]
    y = np.r_[np.zeros(n), np.ones(n)]
    eval_rows = np.concatenate(
        [
            np.broadcast_to(z_eval, (len(xe), *z_eval.shape)),
            np.broadcast_to(xe[:, None, :], (len(xe), len(z_eval), xe.shape[1])),
        ],
        axis=-1,
    )
    eval_features = quadratic_features(eval_rows.reshape(-1, width))
    p = eval_features.shape[1]
    # a design, its weighted copy and transpose, the probabilities on the evaluation rows
    per_classifier = 8 * (3 * 2 * n * (p + 1) + len(eval_features) + (p + 1) ** 2)
    chunk = max(1, QUADRATIC_CHUNK_BYTES // per_classifier)
    out = np.empty((k, len(xe)))
    both_x = np.concatenate([xs, xs])
    for start in range(0, k, chunk):
        stop = min(k, start + chunk)
        z_both = np.concatenate([z_class0[start:stop], z_class1[start:stop]], axis=1)
        rows = np.concatenate(
            [z_both, np.broadcast_to(both_x, (stop - start, *both_x.shape))], axis=-1
        )
        train, mean, scale = _standardised(quadratic_features(rows))
        coef = _newton(_with_intercept(train), y)
        # the z-score folded into the coefficients: one product for every evaluation row
        weights = coef[:, :-1] / scale
        intercept = coef[:, -1] - np.sum(weights * mean, axis=1)
        d = 1.0 / (1.0 + np.exp(-(eval_features @ weights.T + intercept)))
        out[start:stop] = ((d.T - 0.5) ** 2).reshape(stop - start, len(xe), -1).mean(axis=2)
    return out
