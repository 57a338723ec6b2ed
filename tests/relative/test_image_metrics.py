"""KID, FID and relative FID: definitions, closed forms, guards and the relative-FID size."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from modelcompare import DegenerateDataWarning, ModelCompareWarning
from modelcompare.relative import _image_metrics, fid, kid, rel_fid, rel_kid

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
    with pytest.warns(ModelCompareWarning, match="standard error cannot be estimated"):
        res = kid(x, z, n_subsets=3, subset_size=30, seed=0)
    want = _kid_mmd2_loop(x, z)  # a full-size subset is a permutation: same value every time
    np.testing.assert_allclose(res.values, want, rtol=1e-10)
    assert res.value == pytest.approx(want, rel=1e-10)
    assert np.isnan(res.std)  # the spread of identical computations is not a standard error
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


@pytest.mark.parametrize("method", ["eigh", "sqrtm", "eigvals"])
def test_fid_closed_form_diagonal_gaussians(rng, method):
    # For commuting covariances FID = ‖Δμ‖² + Σ (√a − √b)².
    a = np.array([1.0, 4.0, 0.25])
    b = np.array([2.0, 1.0, 1.0])
    x = _with_moments(rng, 200, np.array([1.0, 0.0, -1.0]), np.diag(a))
    z = _with_moments(rng, 300, np.zeros(3), np.diag(b))
    want = 2.0 + np.sum((np.sqrt(a) - np.sqrt(b)) ** 2)
    assert fid(x, z, method=method).value == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("method", ["eigh", "sqrtm", "eigvals"])
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
    assert (res.method, res.n_x, res.n_z) == ("eigh", 50, 80)
    assert fid(z, z).value == pytest.approx(0.0, abs=1e-10)


@pytest.mark.filterwarnings("ignore:n_[xz] = .* rows for d:modelcompare.ModelCompareWarning")
def test_fid_rank_deficient_covariances_stay_finite(rng):
    # Fewer rows than features (as with 2048-d Inception features and n < 2048).
    x = rng.normal(size=(12, 30))
    z = rng.normal(size=(15, 30))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        a = fid(x, z, method="sqrtm").value
    b = fid(x, z, method="eigvals").value
    assert np.isfinite(a)
    assert np.isfinite(b)
    assert a == pytest.approx(_fid_symmetric(x, z), rel=1e-4)
    assert b == pytest.approx(_fid_symmetric(x, z), rel=1e-4)


def _fid_gram(x, z):
    """Independent reference: tr((C_x C_z)^½) is the nuclear norm of B Aᵀ (C_x = AᵀA, C_z = BᵀB)."""
    a = (x - x.mean(0)) / np.sqrt(len(x) - 1)
    b = (z - z.mean(0)) / np.sqrt(len(z) - 1)
    diff = x.mean(0) - z.mean(0)
    scale = float((a * a).sum() + (b * b).sum())
    return float(diff @ diff + scale - 2 * np.linalg.svd(b @ a.T, compute_uv=False).sum()), scale


# (n_x, n_z, d, duplicated features of x): full rank, rank-deficient with n > d, and n < d
_CASES = [
    (400, 300, 20, 0),
    (400, 300, 20, 5),
    (500, 500, 60, 10),
    (1000, 1200, 150, 30),
    (300, 200, 100, 0),
    (30, 40, 50, 0),
    (80, 500, 100, 0),
    (600, 90, 120, 0),
    (200, 200, 200, 0),
]


def _case(rng, n_x, n_z, d, dup):
    x = rng.normal(size=(n_x, d)) @ rng.normal(size=(d, d)) + 0.3
    z = rng.normal(size=(n_z, d)) * rng.uniform(0.5, 2.0, size=d)
    if dup:
        x[:, :dup] = x[:, dup : 2 * dup]
    return x, z


@pytest.mark.filterwarnings("ignore:n_[xz] = .* rows for d:modelcompare.ModelCompareWarning")
@pytest.mark.parametrize(("n_x", "n_z", "d", "dup"), _CASES)
def test_fid_eigh_equals_sqrtm_and_the_exact_gram_form(n_x, n_z, d, dup):
    rng = np.random.default_rng(n_x + n_z + d + dup)
    x, z = _case(rng, n_x, n_z, d, dup)
    exact, scale = _fid_gram(x, z)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        today = fid(x, z, method="sqrtm").value
    for a, b in ((x, z), (z, x)):
        new = fid(a, b, method="eigh").value
        assert abs(new - exact) <= 1e-12 * scale
        # sqrtm's own error reaches ~2e-9·scale when a covariance is singular (duplicated
        # features, n ≤ d); "eigh" stays within 1e-12·scale of the exact form there (above).
        singular = dup > 0 or min(n_x, n_z) <= d
        assert abs(new - today) <= (5e-9 if singular else 1e-9) * scale


def test_fid_eigh_falls_back_when_cholesky_fails(rng):
    # A constant column makes the reference covariance exactly singular with n > d.
    x = rng.normal(size=(300, 6))
    z = rng.normal(size=(400, 6))
    z[:, 2] = 1.5
    z[:, 4] = z[:, 0]
    exact, scale = _fid_gram(x, z)
    assert abs(fid(x, z).value - exact) <= 1e-12 * scale
    assert abs(fid(z, x).value - exact) <= 1e-12 * scale


def test_fid_time_guard(rng, monkeypatch):
    from modelcompare._foundation.errors import ResourceLimitError

    x = rng.normal(size=(300, 40))
    monkeypatch.setenv("MODELCOMPARE_MAX_SECONDS", "1e-6")
    with pytest.raises(ResourceLimitError, match="MODELCOMPARE_MAX_SECONDS"):
        fid(x, x)
    with pytest.raises(ResourceLimitError, match="subsample the rows"):
        rel_fid(x, x, x)
    with pytest.raises(ResourceLimitError, match="subsample the rows"):
        rel_kid(x, x, x)
    with pytest.raises(ResourceLimitError, match="n_subsets"):
        kid(x, x, n_subsets=5, subset_size=50)
    monkeypatch.setenv("MODELCOMPARE_MAX_SECONDS", "soon")
    with pytest.raises(ValueError, match="MODELCOMPARE_MAX_SECONDS"):
        fid(x, x)
    monkeypatch.setenv("MODELCOMPARE_MAX_SECONDS", "1h")
    assert np.isfinite(rel_fid(x, x, x, seed=0).statistic)


def test_fid_bad_input(rng):
    x = rng.normal(size=(20, 3))
    with pytest.raises(ValueError, match="method"):
        fid(x, x, method="cholesky")
    with pytest.raises(ValueError, match="columns"):
        fid(x, x[:, :2])


# --------------------------------------------------------------------------------------------------
# relative FID
# --------------------------------------------------------------------------------------------------


def test_relative_fid_blocks_and_reproducibility(rng):
    z = rng.normal(size=(400, 3))
    x = rng.normal(size=(350, 3)) + np.array([0.8, 0, 0])
    y = rng.normal(size=(380, 3)) + np.array([0.1, 0, 0])
    res = rel_fid(x, y, z, n_blocks=5, scheme="blocks", seed=5)
    assert res.fid_p == pytest.approx(fid(x, z).value, rel=1e-12)
    assert res.fid_q == pytest.approx(fid(y, z).value, rel=1e-12)
    assert (res.n_blocks, res.block_size, res.reference_block_size) == (5, 70, 80)
    # The blocks, recomputed from the documented split: shuffle, cut, FID difference per block.
    g = np.random.default_rng(5)
    ix = g.permutation(350)[:350].reshape(5, 70)
    iy = g.permutation(380)[:350].reshape(5, 70)
    iz = g.permutation(400)[:400].reshape(5, 80)
    want = [fid(x[ix[k]], z[iz[k]]).value - fid(y[iy[k]], z[iz[k]]).value for k in range(5)]
    np.testing.assert_allclose(res.block_differences, want, rtol=1e-12)
    assert res.statistic == pytest.approx(np.mean(want), rel=1e-12)
    t = stats.ttest_1samp(want, 0.0, alternative="greater")
    assert res.pvalue == pytest.approx(t.pvalue, rel=1e-10)
    assert res.t == pytest.approx(t.statistic, rel=1e-10)
    assert res.decision(0.05)
    assert res.confidence_interval(confidence_level=0.9).low > 0
    again = rel_fid(x, y, z, n_blocks=5, scheme="blocks", seed=5)
    np.testing.assert_array_equal(res.block_differences, again.block_differences)
    swapped = rel_fid(y, x, z, n_blocks=5, scheme="blocks", seed=5)
    assert not swapped.decision(0.05)


@pytest.mark.parametrize("scheme", ["jackknife", "blocks"])
def test_relative_fid_interval_is_the_t_interval(rng, scheme):
    z = rng.normal(size=(400, 2))
    x, y = rng.normal(size=(400, 2)) + 0.5, rng.normal(size=(400, 2))
    res = rel_fid(x, y, z, scheme=scheme, seed=1)
    for alpha in (0.05, 0.025, 0.1, 0.01):
        got = res.confidence_interval(confidence_level=1 - 2 * alpha)
        half = stats.t.ppf(1 - alpha, res.n_blocks - 1) * res.std_error
        assert got.low == pytest.approx(res.statistic - half, rel=1e-12)
        assert got.high == pytest.approx(res.statistic + half, rel=1e-12)
        assert (got.low > 0) == res.decision(alpha)
    wide, narrow = res.confidence_interval(0.95), res.confidence_interval(0.5)
    assert wide.low <= narrow.low <= narrow.high <= wide.high
    assert not hasattr(res, "reject")
    assert not hasattr(res, "alpha")
    with pytest.raises(ValueError, match="confidence_level"):
        res.confidence_interval(1.5)


def test_relative_fid_guards(rng):
    x = rng.normal(size=(30, 2))
    const = np.ones((40, 2))
    with pytest.warns(DegenerateDataWarning, match="spread"):
        res = rel_fid(const, const, const, n_blocks=4, seed=0)
    assert res.degenerate
    assert res.pvalue == 1.0
    with pytest.raises(ValueError, match="n_blocks"):
        rel_fid(x, x, x, n_blocks=1)
    with pytest.raises(ValueError, match="n_blocks"):
        rel_fid(x, x, x, n_blocks=20, scheme="blocks")
    with pytest.raises(ValueError, match="n_blocks"):
        rel_fid(x, x, x, n_blocks=31)
    with pytest.raises(ValueError, match="scheme"):
        rel_fid(x, x, x, scheme="bootstrap")


@pytest.mark.parametrize("scheme", ["jackknife", "blocks"])
def test_relative_fid_size_at_equal_fit(scheme):
    # P = Q: the replicates are symmetric about 0 and the t-test holds its level.
    rng = np.random.default_rng(31)
    trials, alpha, n = 200, 0.05, 300
    rejections = 0
    for _ in range(trials):
        z = rng.normal(size=(n, 2))
        x = rng.normal(size=(n, 2)) * 1.2
        y = rng.normal(size=(n, 2)) * 1.2
        rejections += rel_fid(x, y, z, scheme=scheme, seed=rng).decision(alpha)
    assert stats.binomtest(rejections, trials, alpha, alternative="greater").pvalue > 0.01


def test_relative_fid_power():
    rng = np.random.default_rng(32)
    trials, rejections = 30, 0
    for _ in range(trials):
        z = rng.normal(size=(500, 2))
        x = rng.normal(size=(500, 2)) + np.array([0.8, 0.0])
        y = rng.normal(size=(500, 2)) + np.array([0.1, 0.0])
        rejections += rel_fid(x, y, z, seed=rng).decision(0.05)
    assert rejections >= 0.8 * trials
