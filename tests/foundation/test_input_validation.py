"""Validation edge cases: flags, complex data, bandwidths, worker counts, empty grids, counts."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from modelcompare._foundation.validation import (
    as_numpy,
    check_bandwidth,
    check_bool,
    check_float32_range,
    check_fraction,
    check_int,
    check_n_jobs,
    check_nonempty,
    check_positive,
    check_samples,
    check_vector,
)

# ------------------------------------------------------------------------------------ check_bool


@pytest.mark.parametrize("value", [True, False, np.bool_(True), np.bool_(False)])
def test_check_bool_accepts_real_bools(value):
    out = check_bool(value, "progress")
    assert out is bool(value)
    assert type(out) is bool


@pytest.mark.parametrize("value", ["yes", "False", 1, 0, None, 1.0, np.int64(1), [True]])
def test_check_bool_refuses_everything_else(value):
    with pytest.raises(TypeError, match=r"`progress` must be True or False; got"):
        check_bool(value, "progress")


# ------------------------------------------------------------------------------------ complex data


@pytest.mark.parametrize(
    "value",
    [
        np.array([[1 + 2j, 3.0], [4.0, 5.0]]),
        [[1 + 0j, 2.0], [3.0, 4.0]],
        np.ones((3, 2), dtype=np.complex64),
    ],
)
def test_check_samples_refuses_complex(value):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning on the way
        with pytest.raises(TypeError, match=r"`x` must hold real numbers; got complex"):
            check_samples(value, "x")


def test_check_vector_and_as_numpy_refuse_complex():
    with pytest.raises(TypeError, match=r"`scores` must hold real numbers"):
        check_vector(np.array([1.0, 2j, 3.0]), "scores")
    with pytest.raises(TypeError, match=r"`locations` must hold real numbers"):
        as_numpy([1j, 2.0], "locations")


def test_complex_torch_tensor_refused():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match=r"`x` must hold real numbers"):
        check_samples(torch.ones(3, 2, dtype=torch.complex64), "x")


def test_real_data_still_passes_without_copy():
    x = np.arange(6.0).reshape(3, 2)
    assert check_samples(x, "x") is x
    assert as_numpy(x, "x") is x


# ------------------------------------------------------------------------------------ bandwidth


@pytest.mark.parametrize("value", [1e-150, 0.3, 1, np.float32(2.0), 1e150])
def test_check_bandwidth_accepts(value):
    out = check_bandwidth(value)
    assert out == float(value)
    assert 0 < out * out < np.inf


@pytest.mark.parametrize(
    ("value", "exc", "match"),
    [
        (1e-300, ValueError, "underflows"),
        (1e-160, ValueError, "underflows"),  # σ² subnormal: 1/σ² would be inf
        (1e300, ValueError, "overflows"),
        (1e155, ValueError, "overflows"),
        (0.0, ValueError, "finite positive"),
        (-1.0, ValueError, "finite positive"),
        (np.nan, ValueError, "finite positive"),
        (np.inf, ValueError, "finite positive"),
        ("1.0", TypeError, "real number"),
        (True, TypeError, "real number"),
        (None, TypeError, "real number"),
    ],
)
def test_check_bandwidth_refuses(value, exc, match):
    with pytest.raises(exc, match=match) as info:
        check_bandwidth(value)
    assert "`bandwidth`" in str(info.value)


def test_check_bandwidth_names_its_argument():
    with pytest.raises(ValueError, match=r"`sigma` must be at least about 1.5e-154"):
        check_bandwidth(1e-300, "sigma")


# ------------------------------------------------------------------------------------ n_jobs


@pytest.mark.parametrize("value", [None, 1, 2, -1, -2, np.int64(4)])
def test_check_n_jobs_accepts(value):
    out = check_n_jobs(value)
    assert out == value
    assert out is None or type(out) is int


@pytest.mark.parametrize(
    ("value", "exc"),
    [(0, ValueError), (np.int32(0), ValueError), (True, TypeError), (False, TypeError),
     (2.0, TypeError), ("2", TypeError)],
)  # fmt: skip
def test_check_n_jobs_refuses(value, exc):
    with pytest.raises(exc, match=r"`n_jobs` must be None or a non-zero int"):
        check_n_jobs(value)


# ------------------------------------------------------------------------------------ non-empty


@pytest.mark.parametrize("value", [[0.5], (1, 2), np.array([0.1, 0.2]), {"a": (1, 2)}, range(3)])
def test_check_nonempty_accepts_and_returns_the_same_object(value):
    assert check_nonempty(value, "grid") is value


def test_check_nonempty_materialises_iterators():
    assert check_nonempty(iter([1, 2]), "pairs") == [1, 2]
    assert check_nonempty((i for i in range(2)), "pairs") == [0, 1]


@pytest.mark.parametrize("value", [[], (), np.array([]), np.zeros((0, 2)), {}, iter([]), range(0)])
def test_check_nonempty_refuses_empty(value):
    with pytest.raises(ValueError, match=r"`grid` must not be empty"):
        check_nonempty(value, "grid")


@pytest.mark.parametrize("value", [None, "abc", 3])
def test_check_nonempty_refuses_non_collections(value):
    with pytest.raises(TypeError, match=r"`pairs` must be a non-empty collection"):
        check_nonempty(value, "pairs")


# ------------------------------------------------------------------------------------ check_int


@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan, float("inf"), np.float32("nan")])
def test_check_int_refuses_non_finite_floats_clearly(value):
    with pytest.raises(ValueError, match=r"`n_resamples` must be a finite int; got (-?inf|nan)\.$"):
        check_int(value, "n_resamples", low=1)


@pytest.mark.parametrize("value", [2.5, 1e-3, np.float64(7.25)])
def test_check_int_refuses_non_integral_floats(value):
    with pytest.raises(TypeError, match=r"`n` must be an int; got .*not a whole number"):
        check_int(value, "n")


def test_check_int_accepts_integral_floats_and_numpy_ints():
    assert check_int(1e4, "n") == 10_000
    assert type(check_int(np.float64(3.0), "n")) is int
    assert type(check_int(np.int32(5), "n", low=1)) is int
    with pytest.raises(ValueError, match=r"`n` must be in \[1, inf\]; got 0"):
        check_int(0.0, "n", low=1)


@pytest.mark.parametrize("value", [True, np.bool_(False), "3", None, 1j])
def test_check_int_refuses_other_types(value):
    with pytest.raises(TypeError, match=r"`n` must be an int"):
        check_int(value, "n")


# ------------------------------------------------------------------------------ fraction, positive


@pytest.mark.parametrize("closed", [False, True])
def test_check_fraction_refuses_nan(closed):
    with pytest.raises(ValueError, match=r"`alpha` must be in .*; got nan"):
        check_fraction(np.nan, "alpha", closed=closed)


@pytest.mark.parametrize("allow_zero", [False, True])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_check_positive_refuses_nan_and_inf(value, allow_zero):
    with pytest.raises(ValueError, match=r"`scale` must be a finite"):
        check_positive(value, "scale", allow_zero=allow_zero)


def test_numpy_bools_are_not_numbers():
    with pytest.raises(TypeError):
        check_positive(np.bool_(True), "scale")
    with pytest.raises(TypeError):
        check_fraction(np.bool_(True), "alpha")


# ------------------------------------------------------------------------------------ torch input


def test_as_numpy_detaches_tensors_everywhere():
    torch = pytest.importorskip("torch")
    t = torch.arange(6.0, requires_grad=True).reshape(3, 2)
    expected = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(as_numpy(t, "x"), expected)
    np.testing.assert_array_equal(check_samples(t * 2, "x"), 2 * expected)  # non-leaf tensor
    rows = [torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([3.0, 4.0])]
    np.testing.assert_array_equal(check_samples(rows, "x"), [[1.0, 2.0], [3.0, 4.0]])
    nested = [[torch.tensor(1.0, requires_grad=True), 2.0], (3.0, torch.tensor(4.0))]
    np.testing.assert_array_equal(check_samples(nested, "x"), [[1.0, 2.0], [3.0, 4.0]])
    scores = [torch.tensor(0.5, requires_grad=True), torch.tensor(0.7, requires_grad=True)]
    np.testing.assert_allclose(check_vector(scores, "scores"), [0.5, 0.7])
    assert t.requires_grad  # the caller's tensor is untouched


def test_as_numpy_reads_half_precision_tensors():
    torch = pytest.importorskip("torch")
    for dtype in (torch.bfloat16, torch.float16):
        t = torch.tensor([[1.5, 2.0], [3.0, 4.0]], dtype=dtype, requires_grad=True)
        np.testing.assert_array_equal(check_samples(t, "x"), [[1.5, 2.0], [3.0, 4.0]])


def test_ragged_lists_of_tensors_still_say_so():
    torch = pytest.importorskip("torch")
    ragged = [torch.ones(2, requires_grad=True), torch.ones(3)]
    with pytest.raises(ValueError, match=r"`x` could not be read as an array"):
        check_samples(ragged, "x")


# ------------------------------------------------------------------------- check_float32_range
@pytest.mark.parametrize(
    "value", [np.zeros((0, 2)), np.array([1.0, -3.4e38]), np.array([[np.finfo(np.float32).max]])]
)
def test_check_float32_range_accepts(value):
    check_float32_range(value, "x")


@pytest.mark.parametrize("big", [3.5e38, -1e300, np.inf])
def test_check_float32_range_refuses(big):
    with pytest.raises(ValueError, match=r"^`x` holds values beyond the float32 range \(largest"):
        check_float32_range(np.array([[0.0, big]]), "x")


def test_check_float32_range_says_what_and_whose():
    with pytest.raises(
        ValueError, match=r"float32 range of the classifiers \(largest \|value\| 1e\+300"
    ):
        check_float32_range(np.array([1e300]), "x", what="the classifiers")
    with pytest.raises(ValueError, match=r"^the latent of `theta` holds values beyond"):
        check_float32_range(np.array([1e300]), "theta", subject="the latent of `theta`")
