"""Densities: exact log densities, scores against finite differences, samplers against moments."""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from modelcompare import MissingDependencyError
from modelcompare.densities import (
    Density,
    GaussBernRBM,
    GaussianMixture,
    IsotropicNormal,
    Normal,
    from_log_density,
)


def _fd_score(density, x, eps=1e-6):
    out = np.zeros_like(x)
    for j in range(x.shape[1]):
        e = np.zeros(x.shape[1])
        e[j] = eps
        out[:, j] = (density.log_density(x + e) - density.log_density(x - e)) / (2 * eps)
    return out


def _rbm(seed=0, d=3, dh=2):
    g = np.random.default_rng(seed)
    return GaussBernRBM(g.choice([-1.0, 1.0], size=(d, dh)), g.normal(size=d), g.normal(size=dh))


def _all_densities():
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    return [
        IsotropicNormal([0.5, -1.0, 2.0], 0.7),
        Normal([0.0, 1.0, -1.0], cov),
        GaussianMixture([[0, 0, 0], [3, 1, 0]], [np.eye(3), cov], weights=[0.3, 0.7]),
        _rbm(),
    ]


@pytest.mark.parametrize("density", _all_densities(), ids=lambda d: type(d).__name__)
def test_score_is_gradient_of_log_density(density, rng):
    x = rng.normal(size=(6, 3))
    np.testing.assert_allclose(density.score(x), _fd_score(density, x), rtol=1e-6, atol=1e-7)
    assert isinstance(density, Density)


def test_normalised_gaussians(rng):
    x = rng.normal(size=(5, 3))
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    mean = np.array([0.0, 1.0, -1.0])
    np.testing.assert_allclose(
        Normal(mean, cov).log_density(x), multivariate_normal(mean, cov).logpdf(x), rtol=1e-12
    )
    np.testing.assert_allclose(
        IsotropicNormal(mean, 0.5).log_density(x),
        multivariate_normal(mean, 0.5 * np.eye(3)).logpdf(x),
        rtol=1e-12,
    )
    gm = GaussianMixture([mean, -mean], [cov, np.eye(3)], weights=[1, 3])
    expected = np.log(
        0.25 * multivariate_normal(mean, cov).pdf(x) + 0.75 * multivariate_normal(-mean).pdf(x)
    )
    np.testing.assert_allclose(gm.log_density(x), expected, rtol=1e-12)


def test_rbm_marginal_sums_the_joint_over_hidden_states(rng):
    # log p(x) from its closed form (Liu et al. 2016, Gauss-Bernoulli RBM) equals log Σ_h exp(½xᵀBh + bᵀx + cᵀh − ½‖x‖²)
    rbm = _rbm(3)
    x = rng.normal(size=(4, 3))
    joint = []
    for h in itertools.product([-1.0, 1.0], repeat=2):
        h = np.array(h)
        joint.append(0.5 * x @ rbm.B @ h + x @ rbm.b + rbm.c @ h - 0.5 * np.sum(x * x, 1))
    brute = np.log(np.sum(np.exp(np.array(joint)), axis=0))
    np.testing.assert_allclose(rbm.log_density(x), brute, rtol=1e-12)
    # and the score has both factors of ½
    expected = rbm.b - x + 0.5 * np.tanh(0.5 * x @ rbm.B + rbm.c) @ rbm.B.T
    np.testing.assert_allclose(rbm.score(x), expected, rtol=1e-12)


def test_rbm_gibbs_sampler_matches_exact_mean():
    # E[x] = Σ_h π(h)(b + ½Bh) with π(h) ∝ exp(cᵀh + ½‖b + ½Bh‖²) (x integrated out).
    rbm = GaussBernRBM(*[_rbm(7).B, _rbm(7).b, _rbm(7).c], burn_in=100)
    hs = [np.array(h) for h in itertools.product([-1.0, 1.0], repeat=2)]
    logw = np.array([rbm.c @ h + 0.5 * np.sum((rbm.b + 0.5 * rbm.B @ h) ** 2) for h in hs])
    w = np.exp(logw - logw.max())
    w /= w.sum()
    mean = sum(wi * (rbm.b + 0.5 * rbm.B @ h) for wi, h in zip(w, hs))
    xs = rbm.sample(20000, seed=0)
    se = xs.std(0) / np.sqrt(20000)
    assert np.all(np.abs(xs.mean(0) - mean) < 4 * se)
    np.testing.assert_array_equal(xs[:5], rbm.sample(20000, seed=0)[:5])


def test_samplers_moments_and_seeds():
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    s = Normal([1.0, -1.0], cov).sample(40000, seed=1)
    np.testing.assert_allclose(s.mean(0), [1.0, -1.0], atol=0.03)
    np.testing.assert_allclose(np.cov(s.T), cov, atol=0.05)
    gm = GaussianMixture([[0.0], [10.0]], [[1.0]], weights=[0.2, 0.8])
    g = gm.sample(20000, seed=2)
    assert abs(np.mean(g > 5) - 0.8) < 0.015
    iso = IsotropicNormal([0.0], 4.0)
    assert abs(iso.sample(20000, seed=3).std() - 2.0) < 0.05
    np.testing.assert_array_equal(iso.sample(5, seed=4), iso.sample(5, seed=4))


def test_validation():
    with pytest.raises(ValueError, match="positive definite"):
        Normal([0, 0], [[1, 2], [2, 1]])
    with pytest.raises(ValueError, match="`B`"):
        GaussBernRBM(np.ones((3, 2)), np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="`weights`"):
        GaussianMixture([[0.0], [1.0]], [[1.0]], weights=[1.0, -1.0])
    with pytest.raises(ValueError, match="2 columns"):
        IsotropicNormal([0, 0]).score(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="`variance`"):
        IsotropicNormal([0.0], 0.0)


@pytest.mark.torch
def test_from_log_density_uses_autograd(rng):
    pytest.importorskip("torch")
    rbm = _rbm(1)
    B, b, c = (np.array(a) for a in (rbm.B, rbm.b, rbm.c))  # writable copies for torch

    def logp(x):
        import torch

        bt, bb, cc = (torch.as_tensor(a) for a in (B, b, c))
        a = 0.5 * x @ bt + cc
        return x @ bb - 0.5 * (x * x).sum(1) + torch.log(2 * torch.cosh(a)).sum(1)

    dens = from_log_density(logp)
    x = rng.normal(size=(5, 3))
    np.testing.assert_allclose(dens.score(x), rbm.score(x), rtol=1e-12)
    np.testing.assert_allclose(dens.log_density(x), rbm.log_density(x), rtol=1e-12)


def test_from_log_density_without_torch_asks_for_the_score(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingDependencyError, match="score function"):
        from_log_density(lambda x: -(x**2).sum(1))
