"""Bad and unusual inputs to the relative tests: overflow, extreme widths, broken kernels, empty
location sets, non-bool flags, complex data, oversized options, and the array types that must pass
unchanged.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from modelcompare import DegenerateDataWarning, OptimizerOptions, ResourceLimitError
from modelcompare.densities import IsotropicNormal
from modelcompare.kernels import GaussianKernel, meddistance, sigma2_from_bandwidth
from modelcompare.relative import (
    UMEParams,
    _rel_fid,
    fid,
    fssd_power_criterion_map,
    kid,
    optimize_ume,
    power_criterion_map,
    rel_fid,
    rel_fssd,
    rel_kid,
    rel_mmd,
    rel_ume,
    select_locations,
)


@pytest.fixture
def xyz(rng):
    return tuple(rng.normal(size=(60, 2)) + np.array([s, 0.0]) for s in (1.0, 0.0, 0.0))


def _score(a):
    return -a


# --------------------------------------------------------------------------------------------------
# FID / KID overflow: never a decision on a non-finite statistic
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("method", ["eigh", "sqrtm", "eigvals"])
def test_relative_fid_overflow_is_refused(rng, d, method):
    x, y, z = (rng.normal(size=(50, d)) * 1e300 for _ in range(3))
    with pytest.raises(ValueError, match=r"not finite.*not scale-invariant"):
        rel_fid(x, y, z, method=method, seed=0)
    with pytest.raises(ValueError, match="not finite"):
        fid(x, z, method=method)


def test_relative_fid_block_overflow_gives_no_decision(rng, monkeypatch):
    x, y, z = (rng.normal(size=(60, 2)) + np.array([s, 0.0]) for s in (2.0, 0.0, 0.0))
    real = _rel_fid.fid_of
    calls = {"n": 0}

    def flaky(*args):
        calls["n"] += 1
        return float("inf") if calls["n"] == 5 else real(*args)  # one block overflows

    monkeypatch.setattr(_rel_fid, "fid_of", flaky)
    with pytest.warns(DegenerateDataWarning, match="not finite"):
        res = rel_fid(x, y, z, seed=0)
    assert res.degenerate
    assert res.pvalue == 1.0
    assert not res.decision(alpha=0.5)
    assert np.isfinite(res.fid_p)
    assert np.isfinite(res.fid_q)


def test_kid_overflow_is_refused(rng):
    x, z = rng.normal(size=(40, 3)) * 1e120, rng.normal(size=(40, 3)) * 1e120
    with pytest.raises(ValueError, match="KID is not finite"):
        kid(x, z, n_subsets=2, subset_size=20, seed=0)
    with pytest.raises(ValueError, match="`kernel` returned NaN or inf"):
        rel_kid(x, z, z)


# --------------------------------------------------------------------------------------------------
# widths whose square underflows or overflows
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bandwidth", [1e-300, 1e300, 0.0, -1.0, float("nan"), float("inf")])
def test_every_bandwidth_entry_is_checked(xyz, bandwidth):
    x, y, z = xyz
    cand = z[:3]
    calls = [
        lambda: rel_ume(x, y, z, bandwidth=bandwidth, optimizer=None, seed=0),
        lambda: rel_ume(x, y, z, bandwidth=bandwidth, seed=0),
        lambda: optimize_ume(x, y, z, bandwidth=bandwidth, seed=0),
        lambda: rel_fssd(_score, _score, z, bandwidth=bandwidth, optimizer=None, seed=0),
        lambda: rel_mmd(x, y, z, bandwidth=bandwidth),
        lambda: power_criterion_map(x, y, z, cand, bandwidth=bandwidth),
        lambda: fssd_power_criterion_map(_score, _score, z, cand, bandwidth=bandwidth),
        lambda: select_locations(x, y, z, cand, n_locations=1, bandwidth=bandwidth),
        lambda: rel_ume(x, y, z, optimizer=OptimizerOptions(bandwidth_bounds=(bandwidth, 2.0))),
        lambda: rel_ume(x, y, z, optimizer=OptimizerOptions(bandwidth_bounds=(0.5, bandwidth))),
        lambda: rel_ume(x, y, z, params=UMEParams(bandwidth, z[:2]), optimizer=None),
        lambda: GaussianKernel(bandwidth),
        lambda: sigma2_from_bandwidth(bandwidth),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="bandwidth"):
            call()


def test_tiny_width_kernel_is_zero_between_distinct_points(xyz):
    # ‖a‖²/σ² overflows for σ = 1e-150: the kernel must still be 0 off the diagonal, never 1.
    from modelcompare.relative._mmd import _Tiles
    from modelcompare.relative._ume import gauss_block

    x, y, z = (a * 10.0 for a in xyz)
    k = gauss_block(x, z[:4], np.einsum("ij,ij->i", z[:4], z[:4]), 1e-300)
    assert np.all(k == 0.0)
    tile = _Tiles(GaussianKernel(1e-150), {"x": x, "y": y, "z": z})(
        "x", "z", slice(0, 10), slice(0, 10)
    )
    assert np.all(tile == 0.0)
    same = _Tiles(GaussianKernel(1e-150), {"x": x, "y": y, "z": z})(
        "x", "x", slice(0, 5), slice(0, 5)
    )
    np.testing.assert_array_equal(same, np.eye(5))


def test_extreme_but_valid_bandwidths_run(xyz):
    x, y, z = xyz
    for bw in (1e-150, 1e150):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            res = rel_ume(x, y, z, bandwidth=bw, optimizer=None, seed=0)
            mmd = rel_mmd(x, y, z, bandwidth=bw)
        for r in (res, mmd):
            assert np.isfinite(r.pvalue)
            assert np.isfinite(r.statistic) or (r.degenerate and r.pvalue == 1.0)


@pytest.mark.parametrize("scale", [1e-160, 1e200])
def test_median_heuristic_on_extreme_scales_is_refused(rng, scale):
    x, y, z = (rng.normal(size=(40, 2)) * scale for _ in range(3))
    for call in (
        lambda: rel_ume(x, y, z, optimizer=None, seed=0),
        lambda: rel_mmd(x, y, z, seed=0),
        lambda: rel_fssd(_score, _score, z, optimizer=None, seed=0),
    ):
        with pytest.raises(ValueError, match=r"median heuristic|overflow"):
            call()
    if scale > 1:
        with pytest.raises(ValueError, match="overflow float64"):
            meddistance(x)


# --------------------------------------------------------------------------------------------------
# kernels and locations
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_kernel_returning_nan_is_refused(xyz, bad):
    x, y, z = xyz

    def kernel(a, b):
        out = np.exp(-((a[:, None, :] - b[None, :, :]) ** 2).sum(-1))
        out[0, -1] = bad
        return out

    with pytest.raises(ValueError, match="`kernel` returned NaN or inf"):
        rel_mmd(x, y, z, kernel=kernel)


@pytest.mark.parametrize("locations", [0, np.int64(0), -1, np.empty((0, 2)), [], [[]]])
def test_zero_locations_are_refused(xyz, locations):
    x, y, z = xyz
    arg = "locations" if isinstance(locations, np.ndarray | list) else "n_locations"
    for optimizer in ("default", None):
        with pytest.raises(ValueError, match="locations"):
            rel_ume(x, y, z, **{arg: locations}, optimizer=optimizer, seed=0)
    with pytest.raises(ValueError, match="locations"):
        rel_fssd(_score, _score, z, **{arg: locations}, optimizer=None, seed=0)


def test_zero_locations_in_params_are_refused():
    with pytest.raises(ValueError, match="at least one location"):
        UMEParams(1.0, np.empty((0, 2)))


def test_empty_candidates_are_refused(xyz):
    x, y, z = xyz
    with pytest.raises(ValueError, match="candidates"):
        power_criterion_map(x, y, z, np.empty((0, 2)))
    with pytest.raises(ValueError, match="candidates"):
        select_locations(x, y, z, np.empty((0, 2)))


# --------------------------------------------------------------------------------------------------
# flags, complex data, scores
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["yes", "x", 1, None, "False"])
def test_flags_must_be_bools(xyz, value):
    x, y, z = xyz
    calls = {
        "subsample": [
            lambda: rel_ume(x, y, z, subsample=value),
            lambda: optimize_ume(x, y, z, subsample=value),
            lambda: rel_mmd(x, y, z, subsample=value),
            lambda: rel_kid(x, y, z, subsample=value),
            lambda: power_criterion_map(x, y, z, z[:2], subsample=value),
        ],
    }
    for name, fns in calls.items():
        for call in fns:
            with pytest.raises(TypeError, match=f"`{name}` must be True or False"):
                call()


def test_complex_data_is_refused(xyz):
    x, y, z = xyz
    xc = x + 1j
    for call in (
        lambda: rel_ume(xc, y, z),
        lambda: rel_mmd(x, xc, z),
        lambda: rel_kid(x, y, xc),
        lambda: rel_fid(xc, y, z),
        lambda: fid(xc, z),
        lambda: kid(xc, z),
        lambda: rel_fssd(_score, _score, xc),
        lambda: rel_fssd(lambda a: a + 1j, _score, z),
        lambda: rel_ume(x, y, z, locations=z[:2] + 1j),
    ):
        with pytest.raises(TypeError, match="real numbers"):
            call()


# --------------------------------------------------------------------------------------------------
# resource guards
# --------------------------------------------------------------------------------------------------


def test_oversized_options_are_refused_up_front(xyz, monkeypatch):
    x, y, z = xyz
    with monkeypatch.context() as env:
        env.setenv("MODELCOMPARE_MAX_SECONDS", "1e-12")
        with pytest.raises(ResourceLimitError, match="subsample the rows"):
            rel_fid(x, y, z)
    with pytest.raises(ResourceLimitError, match="n_subsets"):
        kid(x, z, n_subsets=10**12)
    monkeypatch.setenv("MODELCOMPARE_MAX_MEMORY", "64K")
    with pytest.raises(ResourceLimitError, match="chunk_size"):
        rel_mmd(x, y, z, bandwidth=1.0, chunk_size=10**9)
    with pytest.raises(ResourceLimitError, match="chunk_size"):
        rel_kid(x, y, z, chunk_size=10**9)
    with pytest.raises(ResourceLimitError, match="chunk_size"):
        rel_ume(x, y, z, n_locations=30, optimizer=None, chunk_size=10**9, seed=0)
    with pytest.raises(ResourceLimitError, match="locations"):
        rel_ume(x, y, z, n_locations=150, seed=0)
    with pytest.raises(ResourceLimitError, match="locations"):
        rel_fssd(_score, _score, z, n_locations=40, seed=0)
    with pytest.raises(ResourceLimitError, match="candidates"):
        select_locations(x, y, z, np.tile(z, (10, 1)), n_locations=1, bandwidth=1.0)
    with pytest.raises(ResourceLimitError, match="subset_size"):
        kid(np.tile(x, (20, 1)), np.tile(z, (20, 1)), n_subsets=1, subset_size=1000)


def test_resource_error_is_a_value_error(xyz, monkeypatch):
    x, y, z = xyz
    with pytest.raises(ValueError, match="MODELCOMPARE_MAX_MEMORY"):
        kid(x, z, n_subsets=10**12)
    monkeypatch.setenv("MODELCOMPARE_MAX_SECONDS", "1e-12")
    with pytest.raises(ValueError, match="MODELCOMPARE_MAX_SECONDS"):
        rel_fid(x, y, z)


# --------------------------------------------------------------------------------------------------
# array types: accepted, unchanged, same numbers
# --------------------------------------------------------------------------------------------------


def _variants(a):
    torch = pytest.importorskip("torch")
    ro = a.copy()
    ro.setflags(write=False)
    wide = np.zeros((a.shape[0], 2 * a.shape[1]))
    wide[:, ::2] = a
    return {
        "list": a.tolist(),
        "dataframe": pd.DataFrame(a, columns=["u", "v"]),
        "read-only": ro,
        "non-contiguous": wide[:, ::2],
        "fortran": np.asfortranarray(a),
        "tensor-grad": torch.tensor(a, requires_grad=True),
    }


def test_array_types_pass_unchanged(xyz):
    x, y, z = xyz
    want_mmd = rel_mmd(x, y, z, seed=0)
    want_ume = rel_ume(x, y, z, n_locations=2, seed=0)
    want_fid = rel_fid(x, y, z, seed=0)
    want_fssd = rel_fssd(IsotropicNormal([1.0, 0.0]), IsotropicNormal([0.0, 0.0]), z, seed=0)
    for name, xv in _variants(x).items():
        before = np.array(np.asarray(xv.detach() if hasattr(xv, "detach") else xv), copy=True)
        got = rel_mmd(xv, y, z, seed=0)
        assert got.statistic == want_mmd.statistic, name
        assert rel_ume(xv, y, z, n_locations=2, seed=0).statistic == want_ume.statistic, name
        # the covariance sums in memory order, so a DataFrame's layout moves FID in the last bits
        fid_got = rel_fid(xv, y, z, seed=0)
        assert fid_got.statistic == pytest.approx(want_fid.statistic, rel=1e-12), name
        assert fid_got.pvalue == pytest.approx(want_fid.pvalue, rel=1e-9), name
        after = np.asarray(xv.detach() if hasattr(xv, "detach") else xv)
        np.testing.assert_array_equal(before, after, err_msg=name)
        if hasattr(xv, "requires_grad"):
            assert xv.requires_grad
            assert xv.grad is None
    for name, zv in _variants(z).items():
        got = rel_fssd(IsotropicNormal([1.0, 0.0]), IsotropicNormal([0.0, 0.0]), zv, seed=0)
        assert got.statistic == want_fssd.statistic, name


def test_params_of_the_wrong_width_or_too_many_locations_name_params(xyz, monkeypatch):
    x, y, z = xyz
    with pytest.raises(ValueError, match=r"`params` holds locations of 3 columns.*the data have 2"):
        rel_ume(x, y, z, params=UMEParams(1.0, np.zeros((2, 3))), optimizer=None)
    monkeypatch.setenv("MODELCOMPARE_MAX_MEMORY", "64K")
    many = UMEParams(1.0, np.zeros((200, 2)))
    with pytest.raises(ResourceLimitError, match="lower `params`"):
        rel_ume(x, y, z, params=many, optimizer=None)
    with pytest.raises(ResourceLimitError, match="lower `locations`"):
        rel_ume(x, y, z, locations=np.zeros((200, 2)), optimizer=None)
