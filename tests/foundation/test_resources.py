"""The memory guard: estimates, the limit and its environment variable, the error."""

from __future__ import annotations

import numpy as np
import pytest

from modelcompare._foundation.errors import ModelCompareError, ResourceLimitError
from modelcompare._foundation.resources import (
    DEFAULT_MAX_MEMORY,
    MAX_MEMORY_ENV,
    check_memory,
    estimate_array_bytes,
    memory_limit,
    parse_size,
)

GIB = 1024**3


@pytest.fixture(autouse=True)
def _no_limit_from_outside(monkeypatch):
    monkeypatch.delenv(MAX_MEMORY_ENV, raising=False)


def test_estimate_array_bytes():
    assert estimate_array_bytes((1000, 1000)) == 8_000_000
    assert estimate_array_bytes(10, dtype=np.float32) == 40
    assert estimate_array_bytes((3, 0, 5)) == 0
    assert estimate_array_bytes(()) == 8
    assert estimate_array_bytes([2, np.int64(3)], dtype=bool) == 6
    # no int64 overflow: the exact product of huge sizes
    assert estimate_array_bytes((10**10, 10**10)) == 8 * 10**20


@pytest.mark.parametrize("shape", [(-1, 2), (2.5,), (True, 2), ("3",)])
def test_estimate_array_bytes_refuses_bad_shapes(shape):
    with pytest.raises(ValueError, match="`shape` must hold non-negative ints"):
        estimate_array_bytes(shape)


def test_default_limit_is_4_gib():
    assert DEFAULT_MAX_MEMORY == 4 * GIB
    assert memory_limit() == 4 * GIB
    check_memory(4 * GIB, "the null draws", "n_resamples")  # at the limit: fine


def test_check_memory_message_and_class():
    with pytest.raises(ResourceLimitError) as info:
        check_memory(estimate_array_bytes((10**5, 10**4)), "the null statistics", "n_resamples")
    err = info.value
    assert isinstance(err, ValueError)
    assert isinstance(err, ModelCompareError)
    text = str(err)
    assert text.startswith("the null statistics would need about 7.45 GiB")
    assert "over the limit of 4 GiB" in text
    assert "lower `n_resamples`" in text
    assert MAX_MEMORY_ENV in text


@pytest.mark.parametrize("n_bytes", [float("inf"), float("nan"), 10**30])
def test_check_memory_refuses_absurd_estimates(n_bytes):
    with pytest.raises(ResourceLimitError, match="lower `grid`"):
        check_memory(n_bytes, "the grid", "grid")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8G", 8 * GIB),
        ("8g", 8 * GIB),
        ("8GB", 8 * GIB),
        ("8GiB", 8 * GIB),
        ("512M", 512 * 1024**2),
        ("1.5G", int(1.5 * GIB)),
        ("2T", 2 * 1024**4),
        ("100K", 102_400),
        ("123456789", 123_456_789),
        (" 16 G ", 16 * GIB),
        ("1e9", 10**9),
    ],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "lots", "8X", "-1G", "G", "8 G B x", "0", "0.1"])
def test_parse_size_refuses(text):
    with pytest.raises(ValueError, match=MAX_MEMORY_ENV):
        parse_size(text)


def test_environment_variable_changes_the_limit(monkeypatch):
    monkeypatch.setenv(MAX_MEMORY_ENV, "1M")
    assert memory_limit() == 1024**2
    check_memory(1024**2, "the kernel matrix", "n_samples")
    with pytest.raises(ResourceLimitError, match=r"over the limit of 0.000977 GiB"):
        check_memory(1024**2 + 1, "the kernel matrix", "n_samples")
    monkeypatch.setenv(MAX_MEMORY_ENV, "64G")
    check_memory(estimate_array_bytes((10**5, 10**4)), "the null statistics", "n_resamples")
    monkeypatch.setenv(MAX_MEMORY_ENV, "  ")  # blank: the default
    assert memory_limit() == DEFAULT_MAX_MEMORY


def test_bad_environment_variable_is_a_clear_error(monkeypatch):
    monkeypatch.setenv(MAX_MEMORY_ENV, "eight gigs")
    with pytest.raises(
        ValueError, match=r"`MODELCOMPARE_MAX_MEMORY` must be a size in bytes.*'8G'"
    ):
        check_memory(10, "the grid", "grid")
