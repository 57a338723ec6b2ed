"""Rel-MMD (Bounliphone et al. 2016): exactness against the published formulas, invariances,
guards, size and power."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.spatial.distance import cdist

from modelcompare import DegenerateDataWarning
from modelcompare.kernels import GaussianKernel, PolynomialKernel
from modelcompare.relative import rel_kid, rel_mmd
from modelcompare.relative._mmd import _bounliphone_bandwidth as bounliphone_bandwidth

# --------------------------------------------------------------------------------------------------
# An independent, slow formulation of Bounliphone et al. (2016): Gram matrices from explicit double
# loops, then the authors' full-matrix expressions (matrix products included).
# --------------------------------------------------------------------------------------------------


def _gauss_loop(a, b, sigma2):
    out = np.empty((len(a), len(b)))
    for i in range(len(a)):
        for j in range(len(b)):
            out[i, j] = math.exp(-sum((a[i] - b[j]) ** 2) / (2.0 * sigma2))
    return out


def _poly_loop(a, b):
    d = a.shape[1]
    out = np.empty((len(a), len(b)))
    for i in range(len(a)):
        for j in range(len(b)):
            out[i, j] = (float(np.dot(a[i], b[j])) / d + 1.0) ** 3
    return out


def _ref_mmd2_var(kxx, kzz, kxz):
    m = kxx.shape[0]
    n = kzz.shape[0]
    kxxd = kxx - np.diag(np.diag(kxx))
    kzzd = kzz - np.diag(np.diag(kzz))
    kxzd = kxz - np.diag(np.diag(kxz))
    mmd2 = kxxd.sum() / (m * (m - 1)) + kzzd.sum() / (n * (n - 1)) - 2 * kxzd.sum() / (m * (n - 1))
    rx, rz = kxxd.sum(1), kzzd.sum(1)
    rowxz, colxz = kxz.sum(1), kxz.sum(0)
    sx, sz, sxz = kxxd.sum(), kzzd.sum(), kxz.sum()
    fro = (kxz**2).sum()
    v = [
        (rx @ rx - (kxxd**2).sum()) / (m * (m - 1) * (m - 2)),
        -((sx / (m * (m - 1))) ** 2),
        -2 * (rx @ rowxz) / (m * (m - 1) * n),
        2 * sx * sxz / (m**2 * (m - 1) * n),
        (rz @ rz - (kzzd**2).sum()) / (n * (n - 1) * (n - 2)),
        -((sz / (n * (n - 1))) ** 2),
        -2 * (rz @ colxz) / (n * (n - 1) * m),
        2 * sz * sxz / (n**2 * (n - 1) * m),
        (rowxz @ rowxz - fro) / (n * (n - 1) * m),
        -2 * (sxz / (n * m)) ** 2,
        (colxz @ colxz - fro) / (m * (m - 1) * n),
    ]
    var1 = 4 * (m - 2) / (m * (m - 1)) * sum(v)
    var2 = 2 / (m * (m - 1) * n * (n - 1)) * ((kxxd + kzzd - kxzd - kxzd.T) ** 2).sum()
    var = var1 + var2
    return mmd2, (var if var >= 0 else var2)


def _ref_cov(kzz, kzx, kzy):
    nz, nx, ny = kzz.shape[0], kzx.shape[1], kzy.shape[1]
    kt = kzz - np.diag(np.diag(kzz))
    u_zz = kt.sum() / (nz * (nz - 1))
    u_zx, u_zy = kzx.mean(), kzy.mean()
    ct1 = np.sum(kt @ kt) / (nz * (nz - 1) ** 2) - u_zz**2
    ct3 = np.sum(kt @ kzy) / (nz * (nz - 1) * ny) - u_zz * u_zy
    ct5 = np.sum(kt @ kzx) / (nz * (nz - 1) * nx) - u_zz * u_zx
    ct7 = np.sum(kzx.T @ kzy) / (nx * nz * ny) - u_zx * u_zy
    return 4 * (nz - 2) / (nz * (nz - 1)) * (ct1 - ct3 - ct5 + ct7)


def _ref_test(x, y, z, gram):
    n = len(z)
    mp, vp = _ref_mmd2_var(gram(x, x), gram(z, z), gram(x, z))
    mq, vq = _ref_mmd2_var(gram(y, y), gram(z, z), gram(y, z))
    cov = _ref_cov(gram(z, z), gram(z, x), gram(z, y))
    stat = math.sqrt(n) * (mp - mq)
    nu = n * (vp - 2 * cov + vq)
    return {
        "statistic": stat,
        "variance": nu,
        "mmd2_p": mp,
        "mmd2_q": mq,
        "var_p": vp,
        "var_q": vq,
        "cov_pq": cov,
    }


def _three(rng, n=30, d=3, shift_x=0.0, shift_y=0.0):
    x = rng.normal(size=(n, d))
    x[:, 0] += shift_x
    y = rng.normal(size=(n, d)) * 1.2
    y[:, 0] += shift_y
    z = rng.normal(size=(n, d))
    return x, y, z


@pytest.mark.parametrize("chunk_size", [None, 1, 7, 30])
def test_gaussian_matches_reference_formulation(rng, chunk_size):
    x, y, z = _three(rng, shift_x=0.8, shift_y=0.3)
    bw = 1.7
    want = _ref_test(x, y, z, lambda a, b: _gauss_loop(a, b, bw**2))
    res = rel_mmd(x, y, z, bandwidth=bw, chunk_size=chunk_size)
    for key, value in want.items():
        assert getattr(res, key) == pytest.approx(value, rel=1e-8, abs=1e-14), key
    assert res.pvalue == pytest.approx(
        stats.norm.sf(want["statistic"] / math.sqrt(want["variance"]))
    )
    assert res.bandwidth == bw
    assert res.sigma2 == pytest.approx(bw**2)
    assert res.bandwidth_method == "given"
    assert not res.degenerate


def test_kid_kernel_matches_reference_formulation(rng):
    x, y, z = _three(rng, n=25, d=4, shift_x=0.5)
    want = _ref_test(x, y, z, _poly_loop)
    res = rel_kid(x, y, z, variance="bounliphone", chunk_size=6)
    for key, value in want.items():
        assert getattr(res, key) == pytest.approx(value, rel=1e-8), key
    assert res.variance_method == "bounliphone"


def test_pluggable_kernel_equals_bandwidth(rng):
    x, y, z = _three(rng)
    a = rel_mmd(x, y, z, bandwidth=0.9)
    b = rel_mmd(x, y, z, kernel=GaussianKernel(0.9))
    assert a.statistic == b.statistic
    assert a.variance == b.variance
    assert b.bandwidth == 0.9


def test_second_order_term_and_covariance_matter(rng):
    # The variance must differ from first-order-only and from a zero-covariance version.
    x, y, z = _three(rng, n=40, shift_x=0.5, shift_y=0.4)
    res = rel_mmd(x, y, z, bandwidth=1.0)
    assert abs(res.cov_pq) > 1e-3 * (res.var_p + res.var_q)
    k = GaussianKernel(1.0)
    kxx, kzz, kxz = k(x, x), k(z, z), k(x, z)
    kxxd = kxx - np.diag(np.diag(kxx))
    kzzd = kzz - np.diag(np.diag(kzz))
    kxzd = kxz - np.diag(np.diag(kxz))
    m = len(x)
    var2 = 2 / (m * (m - 1)) ** 2 * ((kxxd + kzzd - kxzd - kxzd.T) ** 2).sum()
    assert var2 > 1e-6 * res.var_p


def test_variance_estimate_tracks_monte_carlo_variance():
    # ν̂ estimates Var(statistic): compare its average with the spread over replications.
    rng = np.random.default_rng(7)
    stats_, nus = [], []
    for _ in range(300):
        x, y, z = _three(rng, n=60, d=2, shift_x=1.0, shift_y=0.5)
        res = rel_mmd(x, y, z, bandwidth=1.0)
        stats_.append(res.statistic)
        nus.append(res.variance)
    ratio = np.var(stats_, ddof=1) / np.mean(nus)
    assert 0.75 < ratio < 1.33


# --------------------------------------------------------------------------------------------------
# invariances
# --------------------------------------------------------------------------------------------------


def test_swapping_p_and_q_negates_statistic(rng):
    x, y, z = _three(rng, shift_x=0.7)
    a = rel_mmd(x, y, z, bandwidth=1.2)
    b = rel_mmd(y, x, z, bandwidth=1.2)
    assert b.statistic == pytest.approx(-a.statistic, rel=1e-12)
    assert b.variance == pytest.approx(a.variance, rel=1e-10)
    assert a.pvalue + b.pvalue == pytest.approx(1.0, rel=1e-10)


def test_joint_row_permutation_invariance(rng):
    # The one-sample U-statistic pairs x_i with z_i (its diagonal is removed), so the invariance is
    # under one permutation applied to the rows of all three samples.
    x, y, z = _three(rng, n=35, shift_x=0.6)
    perm = rng.permutation(35)
    a = rel_mmd(x, y, z, bandwidth=1.1)
    b = rel_mmd(x[perm], y[perm], z[perm], bandwidth=1.1)
    assert b.statistic == pytest.approx(a.statistic, rel=1e-10)
    assert b.variance == pytest.approx(a.variance, rel=1e-10)
    assert b.cov_pq == pytest.approx(a.cov_pq, rel=1e-10)


def test_permuting_y_alone_leaves_p_side_unchanged(rng):
    x, y, z = _three(rng, n=35, shift_x=0.6)
    a = rel_mmd(x, y, z, bandwidth=1.1)
    b = rel_mmd(x, y[rng.permutation(35)], z, bandwidth=1.1)
    assert b.mmd2_p == a.mmd2_p
    assert b.var_p == a.var_p


def test_rotation_and_translation_invariance(rng):
    x, y, z = _three(rng, n=30, d=3, shift_x=0.5)
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    shift = np.array([3.0, -1.0, 2.0])
    a = rel_mmd(x, y, z, bandwidth=1.3)
    b = rel_mmd(x @ q + shift, y @ q + shift, z @ q + shift, bandwidth=1.3)
    assert b.statistic == pytest.approx(a.statistic, rel=1e-8)
    assert b.variance == pytest.approx(a.variance, rel=1e-8)


def test_inputs_not_modified(rng):
    x, y, z = _three(rng)
    copies = [x.copy(), y.copy(), z.copy()]
    rel_mmd(x, y, z, seed=0)
    for before, after in zip(copies, (x, y, z)):
        np.testing.assert_array_equal(before, after)


# --------------------------------------------------------------------------------------------------
# width heuristic
# --------------------------------------------------------------------------------------------------


def test_bounliphone_kmod_width(rng):
    x, y, z = _three(rng, n=50, d=2, shift_x=2.0)
    med_yz = np.median(cdist(y, z, "sqeuclidean")) ** 0.5
    med_xz = np.median(cdist(x, z, "sqeuclidean")) ** 0.5
    sigma2 = 0.5 * np.mean([med_yz, med_xz]) ** 2
    bw = bounliphone_bandwidth(x, y, z, seed=0)
    assert bw**2 == pytest.approx(sigma2, rel=1e-12)
    res = rel_mmd(x, y, z, seed=0)
    assert res.sigma2 == pytest.approx(sigma2, rel=1e-12)
    assert res.bandwidth_method == "kmod"


def test_bounliphone_matlab_width(rng):
    x, y, z = _three(rng, n=50, d=2, shift_x=2.0)
    sig = np.mean([np.sqrt(np.median(cdist(z, x)) / 2), np.sqrt(np.median(cdist(z, y)) / 2)])
    assert bounliphone_bandwidth(x, y, z, method="matlab", seed=0) == pytest.approx(sig, rel=1e-12)
    res = rel_mmd(x, y, z, bandwidth_method="matlab", seed=0)
    assert res.bandwidth == pytest.approx(sig, rel=1e-12)
    assert res.bandwidth_method == "matlab"


def test_width_subsample_is_seeded():
    rng = np.random.default_rng(3)
    x, y, z = (rng.normal(size=(1100, 2)) for _ in range(3))
    a = bounliphone_bandwidth(x, y, z, seed=5)
    assert bounliphone_bandwidth(x, y, z, seed=5) == a
    assert bounliphone_bandwidth(x, y, z, seed=6) != a
    r1, r2 = rel_mmd(x, y, z, seed=11), rel_mmd(x, y, z, seed=11)
    assert (r1.statistic, r1.pvalue, r1.bandwidth) == (r2.statistic, r2.pvalue, r2.bandwidth)
    assert r1.seed_used == 11


def test_zero_median_distance_falls_back():
    # More than half the pairs tie at distance 0: the median is 0, the mean distance is used.
    x = np.zeros((10, 1))
    x[:2] = 1.0
    with pytest.warns(DegenerateDataWarning, match="median"):
        bw = bounliphone_bandwidth(x, x, x)
    assert np.isfinite(bw)
    assert bw > 0


# --------------------------------------------------------------------------------------------------
# degenerate cases and input validation
# --------------------------------------------------------------------------------------------------


def test_identical_samples_are_degenerate(rng):
    x = rng.normal(size=(30, 2))
    with pytest.warns(DegenerateDataWarning, match="not positive"):
        res = rel_mmd(x, x, x, bandwidth=1.0)
    assert res.degenerate
    assert res.pvalue == 1.0
    assert res.statistic == 0.0


def test_tiny_width_is_degenerate(rng):
    x, y, z = _three(rng, shift_x=1.0)
    with pytest.warns(DegenerateDataWarning):
        res = rel_mmd(x, y, z, bandwidth=1e-8)
    assert res.degenerate
    assert res.pvalue == 1.0
    assert np.isfinite(res.statistic)
    assert np.isfinite(res.variance)


def test_unequal_sizes_raise_or_subsample(rng):
    x = rng.normal(size=(40, 2))
    y = rng.normal(size=(35, 2))
    z = rng.normal(size=(50, 2))
    with pytest.raises(ValueError, match=r"same number of rows.*40, 35, 50.*subsample=True"):
        rel_mmd(x, y, z)
    a = rel_mmd(x, y, z, subsample=True, seed=3)
    b = rel_mmd(x, y, z, subsample=True, seed=3)
    assert a.n == 35
    assert a.subsampled
    assert a.statistic == b.statistic
    assert not rel_mmd(x[:35], y, z[:35], seed=0).subsampled


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"bandwidth": 0.0}, ValueError, "bandwidth"),
        ({"bandwidth": 1.0, "kernel": GaussianKernel(1.0)}, ValueError, "not both"),
        ({"kernel": "gauss"}, TypeError, "kernel"),
        ({"bandwidth_method": "scott"}, ValueError, "bandwidth_method"),
        ({"subsample": 1}, TypeError, "subsample"),
        ({"chunk_size": 0}, ValueError, "chunk_size"),
        ({"seed": np.random.RandomState(0)}, TypeError, "seed"),
    ],
)
def test_bad_options(rng, kwargs, exc, match):
    x, y, z = _three(rng)
    with pytest.raises(exc, match=match):
        rel_mmd(x, y, z, **kwargs)


def test_bad_data(rng):
    x, y, z = _three(rng)
    with pytest.raises(ValueError, match="columns"):
        rel_mmd(x, y[:, :2], z)
    with pytest.raises(ValueError, match="reshape"):
        rel_mmd(x[:, 0], y, z)
    with pytest.raises(ValueError, match="at least 3 rows"):
        rel_mmd(x[:2], y[:2], z[:2])
    bad = z.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="`z` must be finite"):
        rel_mmd(x, y, bad)
    with pytest.raises(ValueError, match="Gram matrix of shape"):
        rel_mmd(x, y, z, kernel=lambda a, b: np.ones((2, 2)))


def test_polynomial_kernel_gamma_default(rng):
    x = rng.normal(size=(5, 4))
    np.testing.assert_allclose(PolynomialKernel()(x, x), _poly_loop(x, x), rtol=1e-12)


# --------------------------------------------------------------------------------------------------
# size and power (small CI versions; larger studies live in benchmarks/)
# --------------------------------------------------------------------------------------------------


def _boundary_trial(rng, n, delta):
    # R = N(0, I); P = N(+δe₁, I) and Q = N(−δe₁, I) are different but equally close to R.
    z = rng.normal(size=(n, 2))
    x = rng.normal(size=(n, 2))
    y = rng.normal(size=(n, 2))
    x[:, 0] += delta
    y[:, 0] -= delta
    return x, y, z


@pytest.mark.parametrize("test", [rel_mmd, rel_kid])
def test_size_at_boundary(test):
    rng = np.random.default_rng(2024)
    trials, alpha = 120, 0.05
    rejections = sum(
        test(*_boundary_trial(rng, 100, 1.0), seed=rng).pvalue <= alpha for _ in range(trials)
    )
    assert stats.binomtest(rejections, trials, alpha, alternative="greater").pvalue > 0.01


def test_power_when_q_is_closer():
    rng = np.random.default_rng(99)
    trials, alpha = 60, 0.05
    rejections = 0
    for _ in range(trials):
        z = rng.normal(size=(100, 2))
        x = rng.normal(size=(100, 2)) + np.array([1.0, 0.0])
        y = rng.normal(size=(100, 2)) + np.array([0.2, 0.0])
        rejections += rel_mmd(x, y, z, seed=rng).pvalue <= alpha
    assert rejections >= 0.8 * trials


def test_negative_variance_falls_back_to_second_order_term():
    # At tiny n the first-order estimate can make var1 + var2 < 0: var2 alone is then kept.
    rng = np.random.default_rng(1)
    n = int(rng.integers(3, 8))
    x = rng.normal(size=(n, 1))
    z = rng.normal(size=(n, 1)) * rng.uniform(0.1, 3)
    kxx, kzz, kxz = (_gauss_loop(a, b, 1.0) for a, b in ((x, x), (z, z), (x, z)))
    kxxd, kzzd, kxzd = (k - np.diag(np.diag(k)) for k in (kxx, kzz, kxz))
    var2 = 2 / (n * (n - 1)) ** 2 * ((kxxd + kzzd - kxzd - kxzd.T) ** 2).sum()
    _, var = _ref_mmd2_var(kxx, kzz, kxz)
    assert var == var2  # the fallback is active in this case
    res = rel_mmd(x, z + 0.5, z, bandwidth=1.0)
    assert res.var_p == pytest.approx(var2, rel=1e-10)


def test_memory_stays_below_one_gram_matrix():
    # O(n) memory beyond a few tiles: the peak allocation must stay far below one n×n matrix.
    import tracemalloc

    rng = np.random.default_rng(5)
    n = 2000  # one n×n float64 matrix is 32 MB; the tiles and O(n) vectors take about 2.5 MB
    x, y, z = (rng.normal(size=(n, 2)) for _ in range(3))
    tracemalloc.start()
    try:
        rel_mmd(x, y, z, bandwidth=1.0, chunk_size=256)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 0.25 * n * n * 8


def test_decision_method(rng):
    x, y, z = _three(rng, n=60, shift_x=2.0)
    res = rel_mmd(x, y, z, bandwidth=1.0)
    assert res.decision(0.05) == (res.pvalue <= 0.05)
    assert res.decision(1.0 - 1e-12) or res.pvalue == 1.0
    assert not hasattr(res, "reject")
