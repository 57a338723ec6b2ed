"""KID, FID and relative FID: definitions, closed forms, guards and the relative-FID size."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from modelcompare import DegenerateDataWarning, TooFewResamplesWarning
from modelcompare.relative import _image_metrics, fid, kid, relative_fid

# --------------------------------------------------------------------------------------------------
# KID
# --------------------------------------------------------------------------------------------------


def _kid_mmd2_loop(x, z):
    """torchmetrics' / clean-fid's per-subset estimate written out pair by pair."""
    m, d = x.shape

    def k(a, b):
        return (float(a @ b) / d + 1.0) ** 3

    xx = sum(k(x[i], x[j]) for i in range(m) for j in range(m) if i != j)
    zz = sum(k(z[i], z[j]) for i in range(m) for j in range(m) if i != j)
    xz = sum(k(x[i], z[j]) for i in range(m) for j in range(m))
    return (xx + zz) / (m * (m - 1)) - 2.0 * xz / m**2


def test_kid_full_subset_equals_loop(rng):
    x = rng.normal(size=(30, 5)) + 0.3
    z = rng.normal(size=(30, 5))
    res = kid(x, z, n_subsets=3, subset_size=30, seed=0)
    want = _kid_mmd2_loop(x, z)  # a full-size subset is a permutation: same value every time
    np.testing.assert_allclose(res.values, want, rtol=1e-10)
    assert res.value == pytest.approx(want, rel=1e-10)
    assert res.std == pytest.approx(0.0, abs=1e-12)
    assert res.subset_size == 30


def test_kid_subsets_and_std(rng):
    x = rng.normal(size=(80, 4)) * 1.3
    z = rng.normal(size=(60, 4))
    res = kid(x, z, n_subsets=20, subset_size=25, seed=4)
    # Recompute each subset from the same draws (x then z per subset, without replacement).
    g = np.random.default_rng(4)
    want = []
    for _ in range(20):
        ix = g.choice(80, size=25, replace=False)
        iz = g.choice(60, size=25, replace=False)
        want.append(_kid_mmd2_loop(x[ix], z[iz]))
    np.testing.assert_allclose(res.values, want, rtol=1e-9)
    assert res.std == pytest.approx(np.std(want), rel=1e-9)  # ddof = 0, as torchmetrics
    assert res.value > 0  # x is over-dispersed


def test_kid_full_gram_and_per_subset_paths_agree(rng, monkeypatch):
    x = rng.normal(size=(70, 3))
    z = rng.normal(size=(50, 3)) + 0.2
    a = kid(x, z, n_subsets=8, subset_size=20, seed=1)
    monkeypatch.setattr(_image_metrics, "_KID_FULL_GRAM_ENTRIES", 0)
    b = kid(x, z, n_subsets=8, subset_size=20, seed=1)
    np.testing.assert_allclose(a.values, b.values, rtol=1e-10)


def test_kid_clips_subset_and_is_seeded(rng):
    x = rng.normal(size=(40, 3))
    z = rng.normal(size=(30, 3))
    a = kid(x, z, n_subsets=5, seed=9)
    assert a.subset_size == 30
    b = kid(x, z, n_subsets=5, seed=9)
    np.testing.assert_array_equal(a.values, b.values)
    assert a.seed_used == 9


def test_kid_bad_input(rng):
    x = rng.normal(size=(40, 3))
    with pytest.raises(ValueError, match="columns"):
        kid(x, x[:, :2])
    with pytest.raises(ValueError, match="n_subsets"):
        kid(x, x, n_subsets=0)
    with pytest.raises(TypeError, match="subset_size"):
        kid(x, x, subset_size=2.5)


# --------------------------------------------------------------------------------------------------
# FID
# --------------------------------------------------------------------------------------------------


def _with_moments(rng, n, mean, cov):
    """Rows whose sample mean and (ddof=1) covariance are exactly ``mean`` and ``cov``."""
    d = len(mean)
    w = rng.normal(size=(n, d))
    w -= w.mean(axis=0)
    w = w @ np.linalg.inv(np.linalg.cholesky(np.atleast_2d(np.cov(w, rowvar=False)))).T
    return w @ np.linalg.cholesky(cov).T + mean


def _sqrt_psd(a):
    vals, vecs = np.linalg.eigh(a)
    return (vecs * np.sqrt(np.clip(vals, 0, None))) @ vecs.T


def _fid_symmetric(x, z):
    """Independent form: tr((C_x C_z)^½) = tr((C_x^½ C_z C_x^½)^½), by symmetric eigh."""
    mx, mz = x.mean(0), z.mean(0)
    cx, cz = np.cov(x, rowvar=False), np.cov(z, rowvar=False)
    root = _sqrt_psd(cx)
    inner = np.linalg.eigvalsh(root @ cz @ root)
    return float(
        (mx - mz) @ (mx - mz)
        + np.trace(cx)
        + np.trace(cz)
        - 2 * np.sqrt(np.clip(inner, 0, None)).sum()
    )


@pytest.mark.parametrize("method", ["sqrtm", "eigvals"])
def test_fid_closed_form_diagonal_gaussians(rng, method):
    # For commuting covariances FID = ‖Δμ‖² + Σ (√a − √b)².
    a = np.array([1.0, 4.0, 0.25])
    b = np.array([2.0, 1.0, 1.0])
    x = _with_moments(rng, 200, np.array([1.0, 0.0, -1.0]), np.diag(a))
    z = _with_moments(rng, 300, np.zeros(3), np.diag(b))
    want = 2.0 + np.sum((np.sqrt(a) - np.sqrt(b)) ** 2)
    assert fid(x, z, method=method).value == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("method", ["sqrtm", "eigvals"])
def test_fid_matches_independent_formula(rng, method):
    d = 6
    ax = rng.normal(size=(d, d))
    az = rng.normal(size=(d, d))
    x = rng.normal(size=(400, d)) @ ax + 0.5
    z = rng.normal(size=(300, d)) @ az
    assert fid(x, z, method=method).value == pytest.approx(_fid_symmetric(x, z), rel=1e-9)
    assert fid(z, x, method=method).value == pytest.approx(fid(x, z, method=method).value, rel=1e-9)


def test_fid_one_dimension(rng):
    x = _with_moments(rng, 50, np.array([2.0]), np.array([[9.0]]))
    z = _with_moments(rng, 80, np.array([-1.0]), np.array([[1.0]]))
    res = fid(x, z)
    assert res.value == pytest.approx(9.0 + (3.0 - 1.0) ** 2, rel=1e-10)
    assert res.mean_term == pytest.approx(9.0, rel=1e-10)
    assert (res.method, res.n_x, res.n_z) == ("sqrtm", 50, 80)
    assert fid(z, z).value == pytest.approx(0.0, abs=1e-10)


def test_fid_rank_deficient_covariances_stay_finite(rng):
    # Fewer rows than features (as with 2048-d Inception features and n < 2048).
    x = rng.normal(size=(12, 30))
    z = rng.normal(size=(15, 30))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        a = fid(x, z).value
    b = fid(x, z, method="eigvals").value
    assert np.isfinite(a)
    assert np.isfinite(b)
    assert a == pytest.approx(_fid_symmetric(x, z), rel=1e-4)
    assert b == pytest.approx(_fid_symmetric(x, z), rel=1e-4)


def test_fid_bad_input(rng):
    x = rng.normal(size=(20, 3))
    with pytest.raises(ValueError, match="method"):
        fid(x, x, method="cholesky")
    with pytest.raises(ValueError, match="columns"):
        fid(x, x[:, :2])


# --------------------------------------------------------------------------------------------------
# relative FID
# --------------------------------------------------------------------------------------------------


def test_relative_fid_statistic_and_reproducibility(rng):
    z = rng.normal(size=(150, 3))
    x = rng.normal(size=(120, 3)) + np.array([0.8, 0, 0])
    y = rng.normal(size=(130, 3)) + np.array([0.1, 0, 0])
    res = relative_fid(x, y, z, n_resamples=150, seed=5)
    assert res.fid_p == pytest.approx(fid(x, z).value, rel=1e-12)
    assert res.fid_q == pytest.approx(fid(y, z).value, rel=1e-12)
    assert res.statistic == pytest.approx(res.fid_p - res.fid_q, rel=1e-12)
    assert res.decision(0.05)
    assert res.pvalue == pytest.approx((1 + np.sum(res.bootstrap <= 0)) / 151)
    assert res.confidence_interval(confidence_level=0.9).low > 0
    again = relative_fid(x, y, z, n_resamples=150, seed=5)
    np.testing.assert_array_equal(res.bootstrap, again.bootstrap)
    swapped = relative_fid(y, x, z, n_resamples=150, seed=5)
    assert swapped.statistic == pytest.approx(-res.statistic, rel=1e-12)
    assert not swapped.decision(0.05)


def test_relative_fid_interval_is_the_alpha_quantile_pair(rng):
    z = rng.normal(size=(80, 2))
    x, y = rng.normal(size=(80, 2)) + 0.5, rng.normal(size=(80, 2))
    res = relative_fid(x, y, z, n_resamples=120, seed=1)
    for alpha in (0.05, 0.025, 0.1, 0.01):
        want = np.quantile(res.bootstrap, [alpha, 1.0 - alpha])
        got = res.confidence_interval(confidence_level=1 - 2 * alpha)
        assert (got.low, got.high) == (float(want[0]), float(want[1]))  # to the bit
    wide, narrow = res.confidence_interval(0.95), res.confidence_interval(0.5)
    assert wide.low <= narrow.low <= narrow.high <= wide.high
    assert "bootstrap" not in res.to_dict()
    assert not hasattr(res, "reject")
    assert not hasattr(res, "alpha")
    with pytest.raises(ValueError, match="confidence_level"):
        res.confidence_interval(1.5)


def test_relative_fid_guards(rng):
    x = rng.normal(size=(30, 2))
    with pytest.warns(TooFewResamplesWarning):
        relative_fid(x, x, x, n_resamples=20, seed=0)
    const = np.ones((20, 2))
    with pytest.warns(DegenerateDataWarning, match="spread"):
        res = relative_fid(const, const, const, n_resamples=100, seed=0)
    assert res.degenerate
    assert res.pvalue == 1.0
    with pytest.raises(ValueError, match="n_resamples"):
        relative_fid(x, x, x, n_resamples=0)


def test_relative_fid_size_at_equal_distance_boundary():
    # R = N(0, I); P = N(+δe₁, I), Q = N(−δe₁, I): different models, equally close to R.
    rng = np.random.default_rng(31)
    trials, alpha, n, delta = 100, 0.05, 150, 0.5
    rejections = 0
    for _ in range(trials):
        z = rng.normal(size=(n, 2))
        x = rng.normal(size=(n, 2)) + np.array([delta, 0.0])
        y = rng.normal(size=(n, 2)) - np.array([delta, 0.0])
        rejections += relative_fid(x, y, z, n_resamples=100, seed=rng).decision(alpha)
    assert stats.binomtest(rejections, trials, alpha, alternative="greater").pvalue > 0.01


def test_relative_fid_power():
    rng = np.random.default_rng(32)
    trials, rejections = 30, 0
    for _ in range(trials):
        z = rng.normal(size=(150, 2))
        x = rng.normal(size=(150, 2)) + np.array([0.8, 0.0])
        y = rng.normal(size=(150, 2)) + np.array([0.1, 0.0])
        rejections += relative_fid(x, y, z, n_resamples=100, seed=rng).decision(0.05)
    assert rejections >= 0.8 * trials
