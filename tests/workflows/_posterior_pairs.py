"""Estimator pairs with known divergences to the posterior of a one-dimensional Gaussian model.

The model is θ ~ N(0, 1), x = θ + ε, ε ~ N(0, 1): the posterior is N(x/2, 1/2) at every x, so a
divergence that depends only on the shape of an estimator relative to it is the same at every x.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import optimize, special, stats

import modelcompare as mc

MODEL = mc.ConditionalGaussianModel(noise_cov=np.eye(1))
POSTERIOR_SD = math.sqrt(0.5)


def kl_scale(c: float) -> float:
    """KL(N(0, 1) ‖ N(0, c²)) = log c + 1/(2c²) − 1/2."""
    return math.log(c) + 1.0 / (2.0 * c * c) - 0.5


def equal_kl_scale(c1: float) -> float:
    """The scale c2 > 1 with the KL of c1 < 1."""
    target = kl_scale(c1)
    return float(optimize.brentq(lambda c: kl_scale(c) - target, 1.0 + 1e-9, 50.0))


def energy_distance_scale(c: float) -> float:
    """D_E(N(0, 1), N(0, c²)) in one dimension, from E|X − Y| = √(2/π)·√(a² + b²)."""
    k = math.sqrt(2.0 / math.pi)
    return k * (2.0 * math.sqrt(1.0 + c * c) - math.sqrt(2.0) * c - math.sqrt(2.0))


def equal_energy_scale(c1: float) -> float:
    """The scale c2 > 1 with the energy distance of c1 < 1."""
    target = energy_distance_scale(c1)
    return float(optimize.brentq(lambda c: energy_distance_scale(c) - target, 1.0 + 1e-9, 50.0))


class GeneralisedNormal:
    """q(θ | x) = the generalised normal of shape β, centre x/2, scale α·sd: lighter-tailed for β > 2."""

    def __init__(self, beta: float, alpha: float) -> None:
        self.beta, self.scale = beta, alpha * POSTERIOR_SD

    def log_prob(self, theta: Any, x: Any) -> np.ndarray:
        z = (np.asarray(theta)[:, 0] - np.asarray(x)[:, 0] / 2.0) / self.scale
        return stats.gennorm.logpdf(z, self.beta) - math.log(self.scale)

    def sample(self, x: Any, n: int, seed: Any = None) -> np.ndarray:
        rng = np.random.default_rng(seed)
        z = stats.gennorm.rvs(self.beta, size=(len(x), n, 1), random_state=rng)
        return np.asarray(x)[:, None, :] / 2.0 + self.scale * z


def kl_generalised_normal(beta: float, alpha: float) -> float:
    """KL(N(0, 1) ‖ GN(β, α)) in standardised units, by quadrature of E|z|^β."""
    moment = 2 ** (beta / 2) * special.gamma((beta + 1) / 2) / math.sqrt(math.pi)
    log_norm = math.log(beta / (2 * alpha * special.gamma(1 / beta)))
    return -0.5 * math.log(2 * math.pi) - 0.5 - log_norm + moment / alpha**beta


def equal_kl_gaussian_scale(kl: float) -> float:
    """The Gaussian scale c > 1 with KL(N(0, 1) ‖ N(0, c²)) = ``kl``."""
    return float(optimize.brentq(lambda c: kl_scale(c) - kl, 1.0 + 1e-9, 50.0))


def simulate(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    return MODEL.simulate(n, seed=seed)
