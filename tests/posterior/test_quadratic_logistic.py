"""L-C2ST-NF's quadratic classifiers, fitted by Newton's method, are scikit-learn's."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler

from modelcompare import ConditionalGaussianModel
from modelcompare.posterior import lc2st_nf
from modelcompare.posterior._local._quadratic_logistic import (
    QUADRATIC_MAX_FEATURES,
    n_quadratic_features,
    quadratic_features,
    quadratic_statistics,
)

MODEL = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
X0 = np.array([[-1.0, -1.0], [0.0, 0.0], [1.5, 1.5]])


def _sklearn_statistics(z0, z1, xs, z_eval, xe, tol=1e-10):
    """The pipeline the ``"quadratic"`` classifier names, one classifier at a time."""
    out = np.empty((len(z0), len(xe)))
    y = np.r_[np.zeros(z0.shape[1]), np.ones(z1.shape[1])]
    for i in range(len(z0)):
        clf = make_pipeline(
            PolynomialFeatures(2), StandardScaler(), LogisticRegression(max_iter=5000, tol=tol)
        )
        clf.fit(np.vstack([np.hstack([z0[i], xs]), np.hstack([z1[i], xs])]), y)
        for e, x0 in enumerate(xe):
            rows = np.hstack([z_eval, np.repeat(x0[None], len(z_eval), axis=0)])
            out[i, e] = np.mean((clf.predict_proba(rows)[:, 1] - 0.5) ** 2)
    return out


def _plain_newton_statistics(z0, z1, xs, z_eval, xe):
    """The reference: one classifier at a time, a float64 Hessian at every damped Newton step.

    The same objective (standardised monomials, intercept unpenalised, ½‖w‖²) and the same stop
    (after the step taken from a gradient of at most 1e-8 per row).
    """
    n = z0.shape[1]
    y = np.r_[np.zeros(n), np.ones(n)]
    out = np.empty((len(z0), len(xe)))
    for i in range(len(z0)):
        raw = quadratic_features(np.vstack([np.hstack([z0[i], xs]), np.hstack([z1[i], xs])]))
        mean, scale = raw.mean(axis=0), raw.std(axis=0)
        scale[scale == 0] = 1.0
        design = np.hstack([(raw - mean) / scale, np.ones((2 * n, 1))])
        penalty = np.r_[np.ones(design.shape[1] - 1), 0.0]

        def objective(c, design=design, penalty=penalty):
            eta = design @ c
            return np.sum(np.logaddexp(0.0, eta) - y * eta) + 0.5 * np.sum(penalty * c**2)

        coef = np.zeros(design.shape[1])
        for _ in range(50):
            prob = 1.0 / (1.0 + np.exp(-(design @ coef)))
            grad = design.T @ (prob - y) + penalty * coef
            hess = (design.T * (prob * (1 - prob))) @ design + np.diag(penalty + 1e-12)
            step, scale_step, value = np.linalg.solve(hess, grad), 1.0, objective(coef)
            while objective(coef - scale_step * step) > value + 1e-12 * abs(value):
                scale_step /= 2
            coef = coef - scale_step * step
            if np.abs(grad).max() <= 1e-8 * 2 * n:
                break
        weights = coef[:-1] / scale
        intercept = coef[-1] - weights @ mean
        for e, x0 in enumerate(xe):
            rows = quadratic_features(np.hstack([z_eval, np.repeat(x0[None], len(z_eval), 0)]))
            out[i, e] = np.mean((1.0 / (1.0 + np.exp(-(rows @ weights + intercept))) - 0.5) ** 2)
    return out


def test_features_are_the_degree_two_monomials() -> None:
    rows = np.random.default_rng(0).normal(size=(5, 3))
    expected = PolynomialFeatures(2, include_bias=False).fit_transform(rows)
    np.testing.assert_allclose(quadratic_features(rows), expected, rtol=1e-15)


@pytest.mark.parametrize("shape", [(2, 2), (1, 3), (3, 1), (10, 10)])
def test_batched_newton_reaches_scikit_learns_optimum(shape: tuple[int, int]) -> None:
    m, d = shape
    rng = np.random.default_rng(1)
    z = rng.standard_normal((2, 6, 400, m))
    z[0, 0] *= 1.4  # a dispersed class, a shifted one, a tilted one: optima away from zero
    z[0, 1] += 0.3
    xs = rng.standard_normal((400, d))
    z[0, 2, :, 0] += 0.5 * xs[:, 0]
    z_eval, xe = rng.standard_normal((300, m)), rng.standard_normal((2, d))
    got = quadratic_statistics(z[0], z[1], xs, z_eval, xe)
    want = _sklearn_statistics(z[0], z[1], xs, z_eval, xe)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-10)


@pytest.mark.parametrize(
    ("m", "d", "spread"),
    [(2, 2, 1.0), (1, 1, 1.0), (5, 5, 1.3), (10, 10, 1.0), (10, 10, 0.33), (2, 2, 3.0)],
)
def test_newton_with_reused_hessians_is_plain_newton(m: int, d: int, spread: float) -> None:
    # exact-flow nulls, a dispersed class and a nearly separable one (many damped steps)
    rng = np.random.default_rng(10 * m + d)
    z = rng.standard_normal((2, 3, 500, m))
    z[0] *= spread
    z[0, 1] += 0.3
    xs = rng.standard_normal((500, d))
    z_eval, xe = rng.standard_normal((200, m)), rng.standard_normal((3, d))
    got = quadratic_statistics(z[0], z[1], xs, z_eval, xe)
    want = _plain_newton_statistics(z[0], z[1], xs, z_eval, xe)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-14)


def test_twenty_inputs_are_fitted_by_newtons_method() -> None:
    # m = d = 10 (sbibm's gaussian_linear) takes the fast path, not scikit-learn one at a time
    assert n_quadratic_features(20) <= QUADRATIC_MAX_FEATURES


def test_chunks_change_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from modelcompare.posterior._local import _quadratic_logistic as q

    rng = np.random.default_rng(2)
    z = rng.standard_normal((2, 5, 200, 2))
    xs, z_eval, xe = rng.standard_normal((200, 2)), rng.standard_normal((50, 2)), np.zeros((1, 2))
    whole = quadratic_statistics(z[0], z[1], xs, z_eval, xe)
    monkeypatch.setattr(q, "QUADRATIC_CHUNK_BYTES", 1)  # one classifier a chunk
    chunked = quadratic_statistics(z[0], z[1], xs, z_eval, xe)
    np.testing.assert_allclose(chunked, whole, rtol=1e-12)  # rounding of the batched products


def test_a_constant_x_column_gives_finite_statistics() -> None:
    rng = np.random.default_rng(3)
    z = rng.standard_normal((2, 3, 200, 2))
    xs = np.hstack([rng.standard_normal((200, 1)), np.zeros((200, 1))])
    got = quadratic_statistics(z[0], z[1], xs, rng.standard_normal((40, 2)), np.zeros((1, 2)))
    assert np.all(np.isfinite(got))


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")
def test_lc2st_nf_quadratic_is_the_one_at_a_time_pipeline() -> None:
    theta, x = MODEL.simulate(300, seed=4)
    flow = MODEL.exact_flow(scale_factor=1.2)
    batched = lc2st_nf(
        flow, theta, x, X0, classifier="quadratic", n_resamples=19, n_eval=200, seed=5
    )
    pipeline = make_pipeline(
        PolynomialFeatures(2), StandardScaler(), LogisticRegression(max_iter=5000, tol=1e-10)
    )
    one_by_one = lc2st_nf(
        flow, theta, x, X0, classifier=pipeline, n_resamples=19, n_eval=200, seed=5
    )
    np.testing.assert_allclose(batched.statistics, one_by_one.statistics, rtol=1e-5)
    np.testing.assert_allclose(batched.null_statistics, one_by_one.null_statistics, rtol=1e-5)
    np.testing.assert_array_equal(batched.pvalues, one_by_one.pvalues)


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")
def test_lc2st_nf_quadratic_holds_its_level_and_sees_dispersion() -> None:
    flow, wide = MODEL.exact_flow(), MODEL.exact_flow(scale_factor=1.5)
    reps, rejections, detections = 60, 0, 0
    for seed in range(reps):
        theta, x = MODEL.simulate(200, seed=100 + seed)
        args = {"classifier": "quadratic", "n_resamples": 39, "n_eval": 100, "seed": seed}
        rejections += lc2st_nf(flow, theta, x, X0[1:2], **args).pvalue <= 0.05
        if seed < 10:
            detections += lc2st_nf(wide, theta, x, X0[1:2], **args).pvalue <= 0.05
    # 60 exact flows: at most 8 rejections (binomial(60, 0.05) exceeds 7 with probability 0.03)
    assert rejections <= 8
    assert detections == 10
