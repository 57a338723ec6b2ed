"""The relative FID's jackknife against a direct leave-a-group-out computation, its hypothesis,
power against the block test, the old keyword names, and FID reference statistics."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from modelcompare import FIDStats, ModelCompareWarning, fid, load_fid_stats, rel_fid


def test_jackknife_equals_a_direct_leave_a_group_out_computation(rng):
    z = rng.normal(size=(203, 3))
    x = rng.normal(size=(197, 3)) + np.array([0.5, 0.0, 0.0])
    y = rng.normal(size=(210, 3)) + np.array([0.1, 0.0, 0.0])
    k = 6
    res = rel_fid(x, y, z, n_blocks=k, seed=3)
    # The documented split: shuffle each sample (x, then y, then z) and cut into K groups.
    g = np.random.default_rng(3)
    gx, gy, gz = (np.array_split(g.permutation(n), k) for n in (197, 210, 203))
    want = []
    for j in range(k):
        keep_z = np.delete(z, gz[j], axis=0)
        want.append(
            fid(np.delete(x, gx[j], axis=0), keep_z).value
            - fid(np.delete(y, gy[j], axis=0), keep_z).value
        )
    want = np.array(want)
    np.testing.assert_allclose(res.replicates, want, rtol=1e-10)
    full = fid(x, z).value - fid(y, z).value
    assert res.statistic == pytest.approx(full, rel=1e-12)
    se = np.sqrt((k - 1) / k * np.sum((want - want.mean()) ** 2))
    assert res.std_error == pytest.approx(se, rel=1e-10)
    assert res.t == pytest.approx(full / se, rel=1e-10)
    assert res.pvalue == pytest.approx(stats.t.sf(full / se, k - 1), rel=1e-9)
    assert res.scheme == "jackknife"
    assert "E[FID_n(P, R)] <= E[FID_n(Q, R)]" in res.hypothesis
    assert "n_x = 197, n_y = 210, n_z = 203" in res.hypothesis
    assert (res.block_size, res.reference_block_size) == (32, 33)


def test_blocks_state_their_block_size(rng):
    x, y, z = (rng.normal(size=(100, 2)) for _ in range(3))
    res = rel_fid(x, y, z, n_blocks=4, scheme="blocks", seed=0)
    assert "FID_m" in res.hypothesis
    assert "m = 25" in res.hypothesis


def test_swapping_p_and_q_negates_the_difference(rng):
    x, y, z = (rng.normal(size=(150, 2)) * s for s in (1.2, 1.0, 1.0))
    a, b = rel_fid(x, y, z, seed=0), rel_fid(y, x, z, seed=0)
    assert b.statistic == pytest.approx(-a.statistic, rel=1e-12)
    assert not (a.decision(0.05) and b.decision(0.05))


def test_the_jackknife_has_more_power_than_the_blocks():
    # Every row enters each jackknife replicate; a block FID sees a tenth of them.
    rng = np.random.default_rng(11)
    trials, hits = 40, {"jackknife": 0, "blocks": 0}
    for _ in range(trials):
        z, x, y = (rng.normal(size=(400, 20)) for _ in range(3))
        x[:, 0] += 0.6
        for scheme in hits:
            hits[scheme] += rel_fid(x, y, z, scheme=scheme, seed=rng).decision(0.05)
    assert hits["jackknife"] >= 0.75 * trials  # 35 of 40 with this seed
    assert hits["jackknife"] >= hits["blocks"] + 12  # blocks: 12 of 40


@pytest.mark.parametrize("old", ["n_resamples", "n_bootstrap"])
def test_old_keywords_become_n_blocks_with_a_warning(rng, old):
    x, y, z = (rng.normal(size=(60, 2)) for _ in range(3))
    with pytest.warns(FutureWarning, match="renamed `n_blocks`"):
        res = rel_fid(x, y, z, seed=0, **{old: 5})
    assert res.n_blocks == 5
    with pytest.raises(TypeError, match="n_blocks"):
        rel_fid(x, y, z, n_blocks=5, **{old: 5})


# --------------------------------------------------------------------------------------------------
# reference statistics


def test_fid_stats_round_trip(tmp_path, rng):
    z = rng.normal(size=(400, 5)) @ rng.normal(size=(5, 5))
    x = rng.normal(size=(300, 5))
    ref = FIDStats.from_samples(z)
    path = tmp_path / "ref.npz"
    ref.save(path)
    back = load_fid_stats(path)
    assert back.n == 400
    np.testing.assert_array_equal(back.mu, ref.mu)
    np.testing.assert_allclose(back.sigma, np.cov(z, rowvar=False), rtol=1e-12)
    want = fid(x, z)
    for method in ("eigh", "sqrtm", "eigvals"):
        got = fid(x, back, method=method)
        assert got.value == pytest.approx(fid(x, z, method=method).value, rel=1e-9), method
    assert got.n_z == 400
    assert fid(x, back).mean_term == pytest.approx(want.mean_term, rel=1e-12)


def test_pytorch_fid_layout_and_the_gram_route(tmp_path, rng):
    # pytorch-fid's --save-stats and clean-fid write float arrays mu and sigma, no n
    z = rng.normal(size=(200, 20))
    path = tmp_path / "stats.npz"
    np.savez(path, mu=z.mean(axis=0), sigma=np.cov(z, rowvar=False))
    ref = load_fid_stats(path)
    assert ref.n is None
    x = rng.normal(size=(12, 20))  # n_x <= d: the Gram route on the x side
    with pytest.warns(ModelCompareWarning, match="n_x = 12"):
        got = fid(x, ref)
    with pytest.warns(ModelCompareWarning, match="n_x = 12"):
        want = fid(x, z)
    assert got.value == pytest.approx(want.value, rel=1e-9)
    assert got.n_z is None


def test_fid_stats_bad_input(tmp_path, rng):
    with pytest.raises(ValueError, match="`sigma`"):
        FIDStats(np.zeros(3), np.eye(2))
    with pytest.raises(ValueError, match="`mu`"):
        FIDStats(np.zeros((3, 1)), np.eye(3))
    with pytest.raises(ValueError, match="symmetric"):
        FIDStats(np.zeros(2), np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="finite"):
        FIDStats(np.array([0.0, np.nan]), np.eye(2))
    missing = tmp_path / "mu_only.npz"
    np.savez(missing, mu=np.zeros(2))
    with pytest.raises(ValueError, match="lacks sigma"):
        load_fid_stats(missing)
    single = tmp_path / "one.npy"
    np.save(single, np.zeros(2))
    with pytest.raises(ValueError, match="`path`"):
        load_fid_stats(single)
    with pytest.raises(ValueError, match=r"`path` .*no such file"):
        load_fid_stats(tmp_path / "absent.npz")
    with pytest.raises(TypeError, match="`path`"):
        load_fid_stats(3)
    with pytest.raises(ValueError, match="features"):
        fid(rng.normal(size=(50, 3)), FIDStats(np.zeros(2), np.eye(2)))


def test_fid_stats_do_not_share_the_callers_arrays():
    mu, sigma = np.zeros(2), np.eye(2)
    ref = FIDStats(mu, sigma)
    mu[0] = 5.0
    assert ref.mu[0] == 0.0
    with pytest.raises(ValueError, match="read-only"):
        ref.sigma[0, 0] = 2.0


def test_fid_warns_when_rows_do_not_exceed_features(rng):
    a, b = rng.normal(size=(40, 50)), rng.normal(size=(40, 50))
    with pytest.warns(ModelCompareWarning, match="n_x = 40 and n_z = 40 rows for d = 50"):
        value = fid(a, b).value
    assert value > 10  # two samples of one distribution, far from 0: the bias
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fid(rng.normal(size=(60, 50)), rng.normal(size=(60, 50)))
