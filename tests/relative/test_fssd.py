"""Rel-FSSD: exactness against a direct loop, score inputs, gradient, degenerate guard, size/power."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from modelcompare import DegenerateDataWarning, FSSDParams, optimize_fssd, rel_fssd
from modelcompare.densities import GaussBernRBM, GaussianMixture, IsotropicNormal, Normal
from modelcompare.kernels import meddistance
from modelcompare.relative._core import stats_from_features
from modelcompare.relative._fssd import fssd_criterion_and_grad, fssd_stats


def slow_stein_features(z, score, v, sigma2):
    """τ(z) = [s(z) k(z, v_j) + ∇_z k(z, v_j)]_j / √(dJ), one row at a time."""
    n, d = z.shape
    j = v.shape[0]
    rows = []
    for i in range(n):
        s = score(z[i : i + 1])[0]
        feats = []
        for m in range(j):
            k = math.exp(-float(np.sum((z[i] - v[m]) ** 2)) / (2 * sigma2))
            grad_k = -k * (z[i] - v[m]) / sigma2
            feats.append(s * k + grad_k)
        rows.append(np.concatenate(feats) / math.sqrt(d * j))
    return np.array(rows)


def _rbm(rng, d=4, dh=2, shift=0.0):
    b_mat = rng.choice([-1.0, 1.0], size=(d, dh))
    b_mat[0, 0] += shift
    return GaussBernRBM(b_mat, rng.normal(size=d), rng.normal(size=dh), burn_in=50)


def test_statistic_and_variance_match_direct_loop(rng):
    z = rng.normal(size=(35, 3))
    p = IsotropicNormal([0.3, 0.0, 0.0], 1.0)
    q = Normal([0.0, 0.2, 0.0], np.diag([1.0, 2.0, 0.5]))
    v = rng.normal(size=(3, 3))
    for bw in (0.8, 2.0):
        ref = stats_from_features(
            slow_stein_features(z, p.score, v, bw * bw), slow_stein_features(z, q.score, v, bw * bw)
        )
        res = rel_fssd(p, q, z, locations=v, bandwidth=bw, optimizer=None)
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-8, abs=0)
        assert res.variance == pytest.approx(ref.variance, rel=1e-8, abs=0)
        assert res.sigma2 == pytest.approx(bw * bw)
        # plain callables are scores
        res2 = rel_fssd(p.score, q.score, z, locations=v, bandwidth=bw, optimizer=None)
        assert res2.statistic == res.statistic


def test_hand_computed_single_point_features():
    # d = 1, J = 1, v = 0, σ² = 1: ξ(z) = k(z)(s(z) − z) with k(z) = exp(−z²/2).
    z = np.array([[0.0], [1.0], [-1.0], [2.0]])
    sp = -z  # N(0, 1)
    sq = -(z - 1.0)  # N(1, 1)
    k = np.exp(-(z**2) / 2)
    fp, fq = k * (sp - z), k * (sq - z)
    ref = stats_from_features(fp, fq)
    st = fssd_stats(z, sp, sq, np.array([[0.0]]), 1.0)
    assert st.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert st.variance == pytest.approx(ref.variance, rel=1e-12)


def test_rbm_scores_and_chunking(rng):
    r = _rbm(rng)
    q = _rbm(np.random.default_rng(5))
    z = r.sample(40, seed=1)
    v = rng.normal(size=(2, 4))
    ref = stats_from_features(
        slow_stein_features(z, r.score, v, 1.5), slow_stein_features(z, q.score, v, 1.5)
    )
    for chunk in (1, 7, 40):
        st = fssd_stats(z, r.score(z), q.score(z), v, 1.5, chunk_size=chunk)
        assert st.statistic == pytest.approx(ref.statistic, rel=1e-9)
        assert st.variance == pytest.approx(ref.variance, rel=1e-9)


def test_witness_fields(rng):
    z = rng.normal(size=(50, 2))
    p, q = IsotropicNormal([1.0, 0.0]), IsotropicNormal([0.0, 0.0])
    v = rng.normal(size=(3, 2))
    res = rel_fssd(p, q, z, locations=v, bandwidth=1.0, optimizer=None)
    k = np.exp(-((z[:, None, :] - v[None]) ** 2).sum(-1) / 2)
    g_p = np.einsum("ij,ijd->jd", k, p.score(z)[:, None, :] - (z[:, None, :] - v[None])) / 50
    np.testing.assert_allclose(res.witness_p, g_p, rtol=1e-10)
    np.testing.assert_allclose(
        res.relative_witness, ((res.witness_p**2).sum(1) - (res.witness_q**2).sum(1)) / 2
    )


def test_gradient_matches_finite_differences(rng):
    z = rng.normal(size=(30, 2))
    p, q = IsotropicNormal([0.5, 0.0]), GaussianMixture([[0.0, 0.0], [2.0, 1.0]], np.eye(2))
    f = fssd_criterion_and_grad(z, p.score(z), q.score(z), 1e-3)
    v = rng.normal(size=(2, 2))
    sigma = 1.2
    crit, g_s, g_v = f(sigma, v)
    eps = 1e-6
    assert g_s == pytest.approx((f(sigma + eps, v)[0] - f(sigma - eps, v)[0]) / (2 * eps), rel=1e-5)
    num = np.zeros_like(v)
    for idx in np.ndindex(*v.shape):
        vp, vm = v.copy(), v.copy()
        vp[idx] += eps
        vm[idx] -= eps
        num[idx] = (f(sigma, vp)[0] - f(sigma, vm)[0]) / (2 * eps)
    np.testing.assert_allclose(g_v, num, rtol=1e-5, atol=1e-9)
    st = fssd_stats(z, p.score(z), q.score(z), v, sigma**2)
    assert crit == pytest.approx(st.criterion(1e-3), rel=1e-12)


def test_degenerate_same_model(rng):
    z = rng.normal(size=(40, 2))
    p = IsotropicNormal([0.0, 0.0])
    with pytest.warns(DegenerateDataWarning):
        res = rel_fssd(p, p, z, n_locations=2, bandwidth=1.0, optimizer=None, seed=0)
    assert res.pvalue == 1.0
    assert res.degenerate


def test_bad_models_and_scores(rng):
    z = rng.normal(size=(20, 2))
    with pytest.raises(TypeError, match="score function"):
        rel_fssd(3.0, IsotropicNormal([0, 0]), z)
    with pytest.raises(ValueError, match="same shape"):
        rel_fssd(lambda a: a[:, :1], IsotropicNormal([0, 0]), z)
    with pytest.raises(ValueError, match="NaN"):
        rel_fssd(lambda a: a * np.nan, IsotropicNormal([0, 0]), z)


def test_optimize_and_defaults(rng):
    z = rng.normal(size=(200, 2))
    p, q = IsotropicNormal([1.0, 0.0]), IsotropicNormal([0.0, 0.0])
    res = rel_fssd(p, q, z, n_locations=2, seed=3)
    assert res.optimized
    assert res.n_train == 40
    assert res.n == 160
    assert res.pvalue < 0.01
    same = rel_fssd(p, q, z, n_locations=2, seed=3)
    assert same.statistic == res.statistic
    plain = rel_fssd(p, q, z, n_locations=2, optimizer=None, seed=3)
    assert plain.bandwidth == pytest.approx(meddistance(z))
    par = optimize_fssd(p, q, z, n_locations=1, seed=0, optimizer="paper-ex2")
    assert isinstance(par, FSSDParams)
    assert 0.1 - 1e-12 <= par.bandwidth <= 10 + 1e-12
    again = rel_fssd(p, q, z, params=par, optimizer=None)
    assert again.bandwidth == par.bandwidth


@pytest.mark.filterwarnings("ignore::modelcompare.DegenerateDataWarning")
def test_size_and_power_mean_shift():
    """H0 true (p closer to r = N(0, I)): rejection ≤ α; swapped roles: high power."""
    alpha, trials, n, d = 0.05, 100, 300, 3
    p = IsotropicNormal(np.r_[0.4, np.zeros(d - 1)])
    q = IsotropicNormal(np.r_[0.8, np.zeros(d - 1)])
    rej_null = rej_alt = 0
    for t in range(trials):
        z = np.random.default_rng(t).normal(size=(n, d))
        rej_null += rel_fssd(p, q, z, n_locations=1, seed=t).pvalue <= alpha
        rej_alt += rel_fssd(q, p, z, n_locations=1, seed=t).pvalue <= alpha
    assert binomtest(int(rej_null), trials, alpha, alternative="greater").pvalue > 0.01
    assert rej_alt >= 80


@pytest.mark.filterwarnings("ignore::modelcompare.DegenerateDataWarning")
def test_rbm_size_and_power_small():
    """The paper's RBM study in miniature: r = RBM(B), q: B₁₁ + 0.3, p: B₁₁ + ε."""
    g = np.random.default_rng(11)
    b_mat, b, c = g.choice([-1.0, 1.0], size=(5, 2)), g.normal(size=5), g.normal(size=2)

    def rbm(delta):
        bb = b_mat.copy()
        bb[0, 0] += delta
        return GaussBernRBM(bb, b, c, burn_in=200)

    r, q, p_null, p_alt = rbm(0.0), rbm(0.3), rbm(0.1), rbm(1.5)
    alpha, trials, n = 0.05, 100, 300
    rej_null = rej_alt = 0
    for t in range(trials):
        z = r.sample(n, seed=t + 30)
        rej_null += rel_fssd(p_null, q, z, n_locations=1, seed=t).pvalue <= alpha
        rej_alt += rel_fssd(p_alt, q, z, n_locations=1, seed=t).pvalue <= alpha
    assert binomtest(int(rej_null), trials, alpha, alternative="greater").pvalue > 0.01
    assert rej_alt >= 70
