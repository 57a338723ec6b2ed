"""The relative KID: the U-statistic variance against brute force, the case where the Rel-MMD
plug-in variance goes negative, symmetry, size, power, degenerate data and the old names."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

import modelcompare
from modelcompare import DegenerateDataWarning
from modelcompare.kernels import GaussianKernel, PolynomialKernel
from modelcompare.relative import rel_kid, rel_mmd


def _ustat_brute_force(x, y, z, k):
    """√n·U and 4·var(row means) of h(i, j), written out pair by pair."""
    n = len(z)

    def h(i, j):
        return (
            k(x[i], x[j])
            - k(y[i], y[j])
            - k(x[i], z[j])
            - k(x[j], z[i])
            + k(y[i], z[j])
            + k(y[j], z[i])
        )

    rows = np.array([sum(h(i, j) for j in range(n) if j != i) / (n - 1) for i in range(n)])
    u = sum(h(i, j) for i in range(n) for j in range(n) if i != j) / (n * (n - 1))
    return math.sqrt(n) * u, 4.0 * float(np.var(rows, ddof=1))


def _cubic(a, b):
    return (float(a @ b) / a.shape[0] + 1.0) ** 3


def _gauss(a, b, bw=0.8):
    return math.exp(-float((a - b) @ (a - b)) / (2 * bw**2))


def test_ustat_variance_equals_brute_force(rng):
    x, y, z = (rng.normal(size=(9, 3)) + s for s in (0.4, 0.1, 0.0))
    want_stat, want_var = _ustat_brute_force(x, y, z, _cubic)
    res = rel_kid(x, y, z, chunk_size=4)  # several tiles, off-diagonal mirrors included
    assert res.statistic == pytest.approx(want_stat, rel=1e-10)
    assert res.variance == pytest.approx(want_var, rel=1e-10)
    assert res.variance_method == "ustat"
    assert res.pvalue == pytest.approx(stats.norm.sf(want_stat / math.sqrt(want_var)), rel=1e-9)
    # the same estimator behind rel_mmd's option, for a Gaussian kernel
    want_stat, want_var = _ustat_brute_force(x, y, z, _gauss)
    res = rel_mmd(x, y, z, kernel=GaussianKernel(0.8), variance="ustat", chunk_size=5)
    assert res.statistic == pytest.approx(want_stat, rel=1e-10)
    assert res.variance == pytest.approx(want_var, rel=1e-10)
    assert res.variance_method == "ustat"
    # rel_mmd keeps the authors' estimator by default
    assert rel_mmd(x, y, z, kernel=GaussianKernel(0.8)).variance_method == "bounliphone"


def _relu_features(rng, n, shift, scale, w):
    return np.maximum((scale * rng.normal(size=(n, w.shape[0])) + shift) @ w, 0.0)


def test_ustat_variance_stays_positive_where_the_plug_in_goes_negative():
    # P = Q close to each other and far from a wider R, in 64 non-negative (ReLU) features: the
    # shared z's dominate both MMD² estimates, and the plug-in covariance exceeds its
    # Cauchy–Schwarz bound.
    rng = np.random.default_rng(0)
    w = rng.normal(size=(8, 64)) / math.sqrt(8)
    z = _relu_features(rng, 50, 0.0, 2.0, w)
    x, y = (_relu_features(rng, 50, 0.5, 0.3, w) for _ in range(2))
    with pytest.warns(DegenerateDataWarning, match="not positive"):
        old = rel_kid(x, y, z, variance="bounliphone")
    assert old.variance < 0
    assert old.cov_pq > math.sqrt(old.var_p * old.var_q)  # past the Cauchy–Schwarz bound
    assert old.degenerate
    assert old.pvalue == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = rel_kid(x, y, z)
    assert new.variance > 0
    assert not new.degenerate
    assert 0.0 < new.pvalue < 1.0
    assert new.statistic == old.statistic  # only the variance differs


def test_swapping_p_and_q_flips_the_statistic(rng):
    x, y, z = (rng.normal(size=(40, 3)) * s for s in (1.3, 1.0, 1.0))
    a, b = rel_kid(x, y, z), rel_kid(y, x, z)
    assert b.statistic == pytest.approx(-a.statistic, rel=1e-12)
    assert b.variance == pytest.approx(a.variance, rel=1e-12)
    assert a.pvalue + b.pvalue == pytest.approx(1.0, abs=1e-12)


def test_identical_model_samples_are_degenerate(rng):
    x, z = rng.normal(size=(30, 3)), rng.normal(size=(30, 3))
    with pytest.warns(DegenerateDataWarning):
        res = rel_kid(x, x.copy(), z)  # h ≡ 0: no spread at all
    assert res.degenerate
    assert res.pvalue == 1.0
    assert res.variance == pytest.approx(0.0, abs=1e-20)


def test_size_at_p_equal_q_not_r():
    # P = Q ≠ R: ζ₁ > 0, so the normal test holds its level at the boundary.
    rng = np.random.default_rng(7)
    trials, alpha, rejections = 200, 0.05, 0
    for _ in range(trials):
        z = rng.normal(size=(80, 3))
        x, y = (rng.normal(size=(80, 3)) * 1.5 for _ in range(2))
        rejections += rel_kid(x, y, z).decision(alpha)
    assert stats.binomtest(rejections, trials, alpha, alternative="greater").pvalue > 0.01


def test_power_against_a_spread_model():
    rng = np.random.default_rng(8)
    trials, rejections = 30, 0
    for _ in range(trials):
        z = rng.normal(size=(150, 3))
        x = rng.normal(size=(150, 3)) * 1.6
        y = rng.normal(size=(150, 3)) * 1.1
        rejections += rel_kid(x, y, z).decision(0.05)
    assert rejections >= 0.8 * trials


def test_bad_input_names_the_argument(rng):
    x = rng.normal(size=(20, 2))
    with pytest.raises(ValueError, match="`variance`"):
        rel_kid(x, x, x, variance="jackknife")
    with pytest.raises(ValueError, match="`variance`"):
        rel_mmd(x, x, x, variance="plug-in")
    with pytest.raises(ValueError, match="same number of rows"):
        rel_kid(x, x, x[:10])
    with pytest.raises(ValueError, match="columns"):
        rel_kid(x, x, rng.normal(size=(20, 3)))


def test_inputs_are_not_modified(rng):
    x, y, z = (rng.normal(size=(20, 2)) for _ in range(3))
    copies = [a.copy() for a in (x, y, z)]
    rel_kid(x, y, z)
    for a, b in zip((x, y, z), copies, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        (modelcompare, "relative_kid", "rel_kid"),
        (modelcompare, "relative_fid", "rel_fid"),
        (modelcompare.relative, "relative_kid", "rel_kid"),
        (modelcompare.relative, "relative_fid", "rel_fid"),
    ],
)
def test_old_names_warn_and_serve_the_new(module, old, new):
    with pytest.warns(FutureWarning, match=rf"renamed `(modelcompare\.)?(relative\.)?{new}`"):
        fn = getattr(module, old)
    assert fn is getattr(module, new)
    assert old not in module.__all__
    with pytest.raises(AttributeError):
        module.relative_mmd  # noqa: B018 (never a name)


def test_kid_kernel_is_the_polynomial_kernel(rng):
    x, y, z = (rng.normal(size=(25, 4)) for _ in range(3))
    res = rel_kid(x, y, z, variance="bounliphone")
    ref = rel_mmd(x, y, z, kernel=PolynomialKernel(degree=3))
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.variance == pytest.approx(ref.variance, rel=1e-12)
