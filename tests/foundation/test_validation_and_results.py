"""Shared conventions: validation, seeds, results and the import-time dependency promise."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from modelcompare._foundation.results import ConfidenceInterval, Result, result_class
from modelcompare._foundation.seeds import check_seed
from modelcompare._foundation.validation import (
    check_choice,
    check_fraction,
    check_int,
    check_same_width,
    check_samples,
    check_vector,
)
from modelcompare.kernels import GaussianKernel, meddistance


def test_import_does_not_import_torch_or_matplotlib():
    code = textwrap.dedent(
        """
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split('.')[0] in ('torch', 'matplotlib'):
                    raise ImportError('blocked ' + name)
        sys.meta_path.insert(0, Block())
        import modelcompare
        assert 'torch' not in sys.modules and 'matplotlib' not in sys.modules
        import numpy as np
        r = modelcompare.c2st(np.random.default_rng(0).normal(size=(50, 2)),
                              np.random.default_rng(1).normal(size=(50, 2)),
                              classifier='logistic', seed=0)
        try:
            modelcompare.c2st(np.zeros((50, 2)) + np.arange(50)[:, None],
                              np.ones((50, 2)), seed=0)
        except modelcompare.MissingDependencyError as e:
            assert 'modelcompare[torch]' in str(e) and 'logistic' in str(e)
        else:
            raise AssertionError('mlp without torch did not raise')
        print('ok')
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@pytest.mark.parametrize(
    ("value", "exc", "match"),
    [
        (np.array([1.0, 2.0, 3.0]), ValueError, "reshape"),
        (np.zeros((2, 2, 2)), ValueError, "2-D"),
        (np.array([[1.0, np.nan], [1.0, 2.0]]), ValueError, "NaN at row 0, column 1"),
        (np.array([[1.0, 2.0], [np.inf, 2.0]]), ValueError, "inf at row 1"),
        (np.array([["a", "b"], ["c", "d"]]), TypeError, "numeric"),
        (np.zeros((1, 3)), ValueError, "at least 2 rows"),
        (np.zeros((3, 0)), ValueError, "at least one column"),
        ("abc", TypeError, "numeric"),
        ([[1, 2], [3]], ValueError, "could not be read"),
    ],
)
def test_check_samples_rejects(value, exc, match):
    with pytest.raises(exc, match=match) as info:
        check_samples(value, "x")
    assert "`x`" in str(info.value)


def test_check_samples_accepts_lists_frames_and_tensors():
    import pandas as pd

    a = check_samples([[1, 2], [3, 4]], "x")
    assert a.dtype == np.float64
    assert a.shape == (2, 2)
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4.0, 5.0, 6.0]})
    np.testing.assert_array_equal(check_samples(frame, "x"), frame.to_numpy())
    torch = pytest.importorskip("torch")
    t = torch.arange(6.0, requires_grad=True).reshape(3, 2)
    np.testing.assert_array_equal(check_samples(t, "x"), np.arange(6.0).reshape(3, 2))


def test_check_samples_large_finite_values_pass():
    # the fast path overflows to inf; the exact check must still accept finite data
    x = np.full((4, 2), 1e308)
    assert check_samples(x, "x") is not None


def test_check_samples_does_not_copy_or_modify():
    x = np.random.default_rng(0).normal(size=(10, 3))
    before = x.copy()
    out = check_samples(x, "x")
    assert out is x or np.shares_memory(out, x)
    np.testing.assert_array_equal(x, before)


def test_small_checks():
    with pytest.raises(ValueError, match="`y`, `z` must have the same number of columns"):
        check_same_width([("y", np.zeros((2, 2))), ("z", np.zeros((2, 3)))])
    with pytest.raises(TypeError, match="`n` must be an int"):
        check_int(2.5, "n")
    with pytest.raises(ValueError, match=r"`n` must be in \[2, inf\]; got 1"):
        check_int(1, "n", low=2)
    with pytest.raises(ValueError, match=r"`f` must be in \(0, 1\); got 1.5"):
        check_fraction(1.5, "f")
    with pytest.raises(ValueError, match="`mode` must be one of 'a', 'b'; got 'c'"):
        check_choice("c", "mode", ["a", "b"])
    with pytest.raises(ValueError, match="1-D"):
        check_vector(np.zeros((3, 3)), "scores")
    assert check_vector(np.zeros((3, 1)), "scores").shape == (3,)


def test_check_seed():
    rng, used = check_seed(7)
    assert used == 7
    assert rng.integers(1000) == np.random.default_rng(7).integers(1000)
    gen = np.random.default_rng(3)
    same, used = check_seed(gen)
    assert same is gen
    assert used is None
    _, fresh = check_seed(None)
    assert isinstance(fresh, int)
    with pytest.raises(TypeError, match="RandomState"):
        check_seed(np.random.RandomState(0))
    with pytest.raises(TypeError, match="`seed`"):
        check_seed(1.5)
    with pytest.raises(ValueError, match="non-negative"):
        check_seed(-1)


def test_result_base_to_dict_and_repr():
    @result_class
    class DemoResult(Result):
        statistic: float
        pvalue: float
        values: np.ndarray
        _private: int = 0

    r = DemoResult(np.float64(1.5), 0.25, np.arange(3))
    assert r.to_dict() == {"statistic": 1.5, "pvalue": 0.25, "values": [0, 1, 2]}
    assert type(r.to_dict()["statistic"]) is float
    assert r.to_dict(include_arrays=False) == {"statistic": 1.5, "pvalue": 0.25}
    assert repr(r) == "DemoResult(statistic=1.5, pvalue=0.25)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.pvalue = 0.5  # type: ignore[misc]
    assert ConfidenceInterval(0.1, 0.2).high == 0.2


def test_gaussian_kernel_convention():
    a = np.array([[0.0, 0.0]])
    b = np.array([[3.0, 4.0]])
    k = GaussianKernel(bandwidth=2.0)
    assert k.sigma2 == 4.0
    np.testing.assert_allclose(k(a, b), [[np.exp(-25 / 8)]], rtol=1e-14)
    with pytest.raises(ValueError, match="`bandwidth`"):
        GaussianKernel(bandwidth=0.0)


def test_meddistance_median_and_ties():
    x = np.array([[0.0], [1.0], [3.0]])
    assert meddistance(x) == 2.0  # distances 1, 3, 2
    tied = np.array([[0.0]] * 5 + [[1.0]])
    assert meddistance(tied) == pytest.approx(5 / 15)  # median 0 -> mean distance
    assert meddistance(np.zeros((4, 2))) == 1.0
