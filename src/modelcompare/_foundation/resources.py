"""Guards against allocations that grow with a user-chosen size.

A call such as ``n_resamples=10**9`` or a grid of a million points should fail at once with a
message naming the argument, not after minutes of swapping or with a bare ``MemoryError``. Before
allocating an array whose size follows from user options, a function estimates its bytes with
:func:`estimate_array_bytes` and calls :func:`check_memory`.

The limit is :data:`DEFAULT_MAX_MEMORY` (4 GiB) per allocation. The environment variable
``MODELCOMPARE_MAX_MEMORY`` changes it: a number of bytes (``"8000000000"``) or a number with a
binary suffix, ``K``, ``M``, ``G`` or ``T`` (powers of 1024, an optional trailing ``B`` or ``iB``,
any case: ``"8G"``, ``"512M"``, ``"1.5GiB"``).

Computations whose cost grows with the data (a d × d eigendecomposition per block, an n × n Gram
matrix) are guarded the same way for time: a function counts the floating-point operations of its
leading terms and calls :func:`check_time`, which converts them to seconds at
:data:`FLOPS_PER_SECOND` (10¹⁰ float64 operations per second, the low end of one core running
matrix products, so that the estimate errs long) and refuses a call past :data:`DEFAULT_MAX_SECONDS` (one
hour). The environment variable ``MODELCOMPARE_MAX_SECONDS`` changes the limit: a number of seconds
(``"600"``), or a number with a suffix ``s``, ``m``/``min`` or ``h`` (``"30m"``, ``"2h"``).
"""

from __future__ import annotations

import math
import numbers
import os
import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from modelcompare._foundation.errors import ResourceLimitError

__all__ = [
    "DEFAULT_MAX_MEMORY",
    "DEFAULT_MAX_SECONDS",
    "FLOPS_PER_SECOND",
    "GENERATOR_BYTES",
    "MAX_MEMORY_ENV",
    "MAX_SECONDS_ENV",
    "check_memory",
    "check_time",
    "estimate_array_bytes",
    "memory_limit",
    "parse_seconds",
    "parse_size",
    "time_limit",
]

GIB = 1024**3
DEFAULT_MAX_MEMORY = 4 * GIB
MAX_MEMORY_ENV = "MODELCOMPARE_MAX_MEMORY"
#: bytes of one child of ``Generator.spawn`` (generator, bit generator and seed sequence; about
#: 0.9 KiB measured): a Monte Carlo loop that spawns one child per resample holds this many
GENERATOR_BYTES = 1024
DEFAULT_MAX_SECONDS = 3600.0
MAX_SECONDS_ENV = "MODELCOMPARE_MAX_SECONDS"
#: the rate at which :func:`check_time` converts operation counts to seconds; one core of a
#: 2020s CPU runs float64 matrix products at 10–50 × 10⁹ per second, eigensolvers slower
FLOPS_PER_SECOND = 1e10

_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_SECONDS = {"": 1.0, "S": 1.0, "M": 60.0, "MIN": 60.0, "H": 3600.0}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)(?:e(-?\d+))?\s*(S|M|MIN|H)?\s*$", re.IGNORECASE)
_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)(?:e(\d+))?\s*([KMGT]?)(?:I?B)?\s*$", re.IGNORECASE)


def parse_size(text: str, name: str = MAX_MEMORY_ENV) -> int:
    """Read a size in bytes: ``"4294967296"``, ``"8G"``, ``"512M"``, ``"1.5GiB"``.

    Raises
    ------
    ValueError
        For anything else, zero or a negative size included.
    """
    match = _SIZE.match(text) if isinstance(text, str) else None
    if match is None:
        msg = (
            f"`{name}` must be a size in bytes, or a number with a suffix K, M, G or T "
            f"(powers of 1024), e.g. '8G' or '512M'; got {text!r}."
        )
        raise ValueError(msg)
    number, exponent, unit = match.groups()
    value = float(number) * (10 ** int(exponent) if exponent else 1) * _UNITS[unit.upper()]
    if not (math.isfinite(value) and value >= 1):
        msg = f"`{name}` must be a positive size of at least 1 byte; got {text!r}."
        raise ValueError(msg)
    return int(value)


def memory_limit() -> int:
    """The per-allocation limit in bytes: ``MODELCOMPARE_MAX_MEMORY`` if set, else 4 GiB.

    The variable is read at every call, so it can be changed while the program runs.
    """
    text = os.environ.get(MAX_MEMORY_ENV)
    if text is None or not text.strip():
        return DEFAULT_MAX_MEMORY
    return parse_size(text)


def estimate_array_bytes(shape: int | Iterable[int], dtype: Any = np.float64) -> int:
    """Bytes of an array of ``shape`` and ``dtype``, computed exactly (no integer overflow).

    >>> estimate_array_bytes((1000, 1000))
    8000000
    >>> estimate_array_bytes(10, dtype="float32")
    40
    """
    dims = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    total = 1
    for dim in dims:
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or dim < 0:
            msg = f"`shape` must hold non-negative ints; got {tuple(dims)!r}."
            raise ValueError(msg)
        total *= int(dim)
    return total * np.dtype(dtype).itemsize


def _gib(n_bytes: float) -> str:
    value = n_bytes / GIB
    return f"{value:.3g} GiB" if value < 1000 else f"{value:.3e} GiB"


def check_memory(n_bytes: float, what: str, argument: str) -> None:
    """Refuse an allocation of about ``n_bytes`` that would pass the memory limit.

    Parameters
    ----------
    n_bytes : int or float
        The estimate (:func:`estimate_array_bytes`; sum several when they live at once).
    what : str
        What would be allocated, for the message (``"the null statistics"``).
    argument : str
        The user option the size grows with; the message tells the user to lower it.

    Raises
    ------
    ResourceLimitError
        A ``ValueError`` naming ``argument`` and giving the estimate and the limit in GiB.

    Examples
    --------
    >>> check_memory(estimate_array_bytes((1000, 100)), "the null draws", "n_resamples")
    >>> check_memory(estimate_array_bytes((10**6, 10**5)), "the null draws", "n_resamples")
    Traceback (most recent call last):
    ...
    modelcompare._foundation.errors.ResourceLimitError: the null draws would need about 745 GiB, ...
    """
    limit = memory_limit()
    if not n_bytes <= limit:  # also refuses NaN
        msg = (
            f"{what} would need about {_gib(float(n_bytes))}, over the limit of "
            f"{_gib(limit)}; lower `{argument}`, or raise the limit with the environment variable "
            f"{MAX_MEMORY_ENV} (bytes, or e.g. '16G')."
        )
        raise ResourceLimitError(msg)


def parse_seconds(text: str, name: str = MAX_SECONDS_ENV) -> float:
    """Read a duration in seconds: ``"600"``, ``"90s"``, ``"30m"``, ``"30min"``, ``"2h"``.

    Raises
    ------
    ValueError
        For anything else, zero included.

    Examples
    --------
    >>> parse_seconds("30m"), parse_seconds("2h"), parse_seconds("45")
    (1800.0, 7200.0, 45.0)
    """
    match = _DURATION.match(text) if isinstance(text, str) else None
    if match is None:
        msg = (
            f"`{name}` must be a number of seconds, or a number with a suffix s, m (or min) or h, "
            f"e.g. '600' or '30m'; got {text!r}."
        )
        raise ValueError(msg)
    number, exponent, unit = match.groups()
    value = (
        float(number) * (10 ** int(exponent) if exponent else 1) * _SECONDS[(unit or "").upper()]
    )
    if not (math.isfinite(value) and value > 0):
        msg = f"`{name}` must be a positive duration; got {text!r}."
        raise ValueError(msg)
    return value


def time_limit() -> float:
    """The per-call limit in seconds: ``MODELCOMPARE_MAX_SECONDS`` if set, else one hour.

    The variable is read at every call, so it can be changed while the program runs.
    """
    text = os.environ.get(MAX_SECONDS_ENV)
    if text is None or not text.strip():
        return DEFAULT_MAX_SECONDS
    return parse_seconds(text)


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.3g} s"
    if seconds < 7200:
        return f"{seconds / 60:.3g} min"
    return f"{seconds / 3600:.3g} h"


def check_time(n_flops: float, what: str, cheaper: str) -> None:
    """Refuse a computation of about ``n_flops`` operations that would pass the time limit.

    Parameters
    ----------
    n_flops : int or float
        Floating-point operations of the computation's leading terms.
    what : str
        What would be computed, for the message (``"the relative FID"``).
    cheaper : str
        How to make the call cheaper, for the message (``"use fewer rows"``).

    Raises
    ------
    ResourceLimitError
        A ``ValueError`` giving the estimate, the limit and ``cheaper``.

    Examples
    --------
    >>> check_time(1e9, "the FID", "use fewer rows")
    >>> check_time(1e16, "the FID", "use fewer rows")
    Traceback (most recent call last):
    ...
    modelcompare._foundation.errors.ResourceLimitError: the FID would take about 278 h ...
    """
    limit = time_limit()
    seconds = float(n_flops) / FLOPS_PER_SECOND
    if not seconds <= limit:  # also refuses NaN
        msg = (
            f"{what} would take about {_duration(seconds)} (an estimated {float(n_flops):.3g} "
            f"floating-point operations at {FLOPS_PER_SECOND:.0e} per second), over the limit of "
            f"{_duration(limit)}; {cheaper}, or raise the limit with the environment variable "
            f"{MAX_SECONDS_ENV} (seconds, or e.g. '30m', '2h')."
        )
        raise ResourceLimitError(msg)
