"""Bad and unusual inputs to c2st and c2st_many: non-bool flags, bad worker counts, empty pair
lists, complex data, oversized networks, and the array types that must pass unchanged."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from modelcompare import ResourceLimitError, c2st, c2st_many
from modelcompare.twosample._api import mlp_memory_bytes


@pytest.fixture
def xy(rng):
    return rng.normal(size=(60, 2)), rng.normal(0.3, 1.0, size=(60, 2))


@pytest.mark.parametrize("value", ["yes", "x", 1, None])
def test_flags_must_be_bools(xy, value):
    x, y = xy
    for kwargs in ({"z_score": value}, {"progress": value}):
        name = next(iter(kwargs))
        with pytest.raises(TypeError, match=f"`{name}` must be True or False"):
            c2st(x, y, classifier="logistic", **kwargs)
        with pytest.raises(TypeError, match=f"`{name}` must be True or False"):
            c2st_many([(x, y)], classifier="logistic", **kwargs)


def test_progress_callable_still_accepted(xy):
    x, y = xy
    seen = []
    c2st(x, y, classifier="logistic", progress=seen.append, seed=0)  # logistic: never called


@pytest.mark.parametrize(("n_jobs", "error"), [(0, ValueError), (1.5, TypeError), ("2", TypeError)])
def test_n_jobs_is_checked(xy, n_jobs, error):
    with pytest.raises(error, match="n_jobs"):
        c2st_many([xy], classifier="logistic", n_jobs=n_jobs)


@pytest.mark.parametrize("pairs", [[], {}, ()])
def test_empty_pairs_are_refused(pairs):
    with pytest.raises(ValueError, match="`pairs` must not be empty"):
        c2st_many(pairs, classifier="logistic")


def test_complex_data_is_refused(xy):
    x, y = xy
    with pytest.raises(TypeError, match="real numbers"):
        c2st(x + 1j, y, classifier="logistic")
    with pytest.raises(TypeError, match="real numbers"):
        c2st_many([(x, y * 1j)], classifier="logistic")


def _never_train(*args, **kwargs):
    raise AssertionError("the network was trained before the memory check refused it")


def test_huge_network_is_refused_before_training(xy, monkeypatch):
    from modelcompare._foundation.mlp import trainer

    monkeypatch.setattr(trainer, "train_mlp", _never_train)
    x, y = xy
    with pytest.raises(ResourceLimitError, match="`hidden`"):
        c2st(x, y, hidden=10**9, seed=0)
    with pytest.raises(ResourceLimitError, match="`hidden` or `group_size`"):
        c2st_many([(x, y)], hidden=(10**5, 10**5), seed=0)


def test_mlp_memory_estimate():
    # sbibm's default network at d = 10 is tiny; a 10⁹-wide layer is not
    small = mlp_memory_bytes(10, (100, 100), n_train=8000, n_test=2000, n_networks=5)
    assert small < 50 * 2**20
    big = mlp_memory_bytes(2, (10**9,), n_train=100, n_test=20, n_networks=5)
    assert big > 5 * 4 * 4 * 10**9
    # grows linearly with the number of networks trained together
    one = mlp_memory_bytes(5, (50, 50), 400, 100, 1)
    two = mlp_memory_bytes(5, (50, 50), 400, 100, 2)
    three = mlp_memory_bytes(5, (50, 50), 400, 100, 3)
    assert three - two == two - one > 0


def test_limit_follows_the_environment(xy, monkeypatch):
    x, y = xy
    monkeypatch.setenv("MODELCOMPARE_MAX_MEMORY", "1K")
    with pytest.raises(ResourceLimitError, match="MODELCOMPARE_MAX_MEMORY"):
        c2st(x, y, hidden=(8,), max_epochs=2, seed=0)


def test_array_types_pass_unchanged(xy):
    torch = pytest.importorskip("torch")
    x, y = xy
    want = c2st(x, y, classifier="logistic", seed=0)
    ro = x.copy()
    ro.setflags(write=False)
    wide = np.zeros((x.shape[0], 4))
    wide[:, ::2] = x
    variants = {
        "list": x.tolist(),
        "dataframe": pd.DataFrame(x, columns=["a", "b"]),
        "read-only": ro,
        "non-contiguous": wide[:, ::2],
        "tensor-grad": torch.tensor(x, requires_grad=True),
    }
    for name, xv in variants.items():
        got = c2st(xv, y, classifier="logistic", seed=0)
        assert got.statistic == want.statistic, name
        assert got.pvalue == want.pvalue, name
    np.testing.assert_array_equal(ro, x)
    np.testing.assert_array_equal(wide[:, ::2], x)
    assert variants["tensor-grad"].requires_grad
    many = c2st_many({"t": (variants["tensor-grad"], y)}, classifier="logistic", seed=0)
    assert np.isfinite(many["t"].statistic)
