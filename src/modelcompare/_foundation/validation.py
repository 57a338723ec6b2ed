"""Input validation shared by every public function.

Every array-like argument passes through :func:`check_samples` or :func:`check_vector`, and every
option through the small ``check_*`` helpers, so that messages have one style: the argument in
backticks, the bad value, and what was expected.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "as_numpy",
    "check_choice",
    "check_fraction",
    "check_int",
    "check_positive",
    "check_same_rows",
    "check_same_width",
    "check_samples",
    "check_vector",
]

_FINITE_CHUNK_ROWS = 65536


def as_numpy(x: Any, name: str) -> np.ndarray:
    """Turn an array-like into a numpy array without copying when avoidable.

    Torch tensors (on any device) are detached and moved to the CPU; pandas objects are taken by
    value; anything else goes through ``np.asarray``.
    """
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # torch.Tensor, without importing torch
        x = x.detach().cpu().numpy()
    elif hasattr(x, "to_numpy"):  # pandas DataFrame / Series
        x = x.to_numpy()
    if isinstance(x, str | bytes):
        msg = f"`{name}` must be numeric array-like data; got a {type(x).__name__}."
        raise TypeError(msg)
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as exc:  # ragged lists
        msg = f"`{name}` could not be read as an array: {exc}"
        raise ValueError(msg) from None
    return arr


def _to_float(arr: np.ndarray, name: str, dtype: Any) -> np.ndarray:
    if arr.dtype.kind not in "biuf":
        try:
            out = arr.astype(dtype)
        except (ValueError, TypeError):
            msg = f"`{name}` must hold numeric data; got dtype {arr.dtype}."
            raise TypeError(msg) from None
        if arr.dtype.kind in "OUS":  # strings that happen to parse are still refused
            msg = f"`{name}` must hold numeric data; got dtype {arr.dtype}."
            raise TypeError(msg)
        return out
    return np.asarray(arr, dtype=dtype)


def _check_finite(arr: np.ndarray, name: str) -> None:
    # A single reduction is cheap and allocation-free; only when it is not finite (a NaN/inf, or an
    # overflow of legitimately huge values) do we look row block by row block.
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(arr, axis=None)
    if np.isfinite(total):
        return
    flat = arr.reshape(arr.shape[0], -1) if arr.ndim > 1 else arr.reshape(-1, 1)
    for start in range(0, flat.shape[0], _FINITE_CHUNK_ROWS):
        block = flat[start : start + _FINITE_CHUNK_ROWS]
        bad = ~np.isfinite(block)
        if bad.any():
            row, col = np.argwhere(bad)[0]
            kind = "NaN" if np.isnan(block[row, col]) else "inf"
            where = f"row {start + row}" + (f", column {col}" if arr.ndim > 1 else "")
            msg = f"`{name}` must be finite; found {kind} at {where}."
            raise ValueError(msg)


def check_samples(
    x: Any,
    name: str = "x",
    *,
    min_samples: int = 2,
    dtype: Any = np.float64,
) -> np.ndarray:
    """Validate a sample matrix of shape ``(n_samples, n_features)``.

    Parameters
    ----------
    x : array-like
        Numpy array, nested list, pandas DataFrame or torch tensor (any device).
    name : str
        Argument name used in error messages.
    min_samples : int
        Minimum number of rows.
    dtype : numpy dtype
        Floating dtype of the returned array (float64 by default).

    Returns
    -------
    numpy.ndarray
        A 2-D array of ``dtype``. It may share memory with ``x``; callers never write into it.

    Raises
    ------
    TypeError
        For non-numeric data.
    ValueError
        For a wrong number of dimensions, too few rows, no columns, or NaN/inf values.
    """
    arr = as_numpy(x, name)
    if arr.ndim == 1:
        msg = (
            f"`{name}` must be 2-D (n_samples, n_features); got a 1-D array of length "
            f"{arr.shape[0]}. Use x.reshape(-1, 1) for one feature."
        )
        raise ValueError(msg)
    if arr.ndim != 2:
        msg = f"`{name}` must be 2-D (n_samples, n_features); got shape {arr.shape}."
        raise ValueError(msg)
    arr = _to_float(arr, name, dtype)
    if arr.shape[1] == 0:
        msg = f"`{name}` must have at least one column; got shape {arr.shape}."
        raise ValueError(msg)
    if arr.shape[0] < min_samples:
        msg = f"`{name}` needs at least {min_samples} rows; got {arr.shape[0]}."
        raise ValueError(msg)
    _check_finite(arr, name)
    return arr


def check_vector(
    x: Any,
    name: str,
    *,
    min_size: int = 1,
    dtype: Any = np.float64,
    allow_nan: bool = False,
) -> np.ndarray:
    """Validate a 1-D numeric vector (per-split scores, one PIT column, ...)."""
    arr = as_numpy(x, name)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        msg = f"`{name}` must be 1-D; got shape {arr.shape}."
        raise ValueError(msg)
    arr = _to_float(arr, name, dtype)
    if arr.shape[0] < min_size:
        msg = f"`{name}` needs at least {min_size} values; got {arr.shape[0]}."
        raise ValueError(msg)
    if allow_nan:
        if np.isinf(arr).any():
            msg = f"`{name}` must not contain inf."
            raise ValueError(msg)
    else:
        _check_finite(arr, name)
    return arr


def check_same_width(arrays: Sequence[tuple[str, np.ndarray]], *, what: str = "") -> int:
    """Check that 2-D arrays share their number of columns and return it."""
    widths = [a.shape[1] for _, a in arrays]
    if len(set(widths)) > 1:
        names = ", ".join(f"`{n}`" for n, _ in arrays)
        got = ", ".join(str(w) for w in widths)
        suffix = f" for {what}" if what else ""
        msg = f"{names} must have the same number of columns{suffix}; got {got}."
        raise ValueError(msg)
    return widths[0]


def check_same_rows(arrays: Sequence[tuple[str, np.ndarray]], *, what: str = "") -> int:
    """Check that arrays share their number of rows and return it."""
    rows = [a.shape[0] for _, a in arrays]
    if len(set(rows)) > 1:
        names = ", ".join(f"`{n}`" for n, _ in arrays)
        got = ", ".join(str(r) for r in rows)
        suffix = f" for {what}" if what else ""
        msg = f"{names} must have the same number of rows{suffix}; got {got}."
        raise ValueError(msg)
    return rows[0]


def check_int(
    value: Any,
    name: str,
    *,
    low: int | None = None,
    high: int | None = None,
) -> int:
    """Validate an integer option within ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        msg = f"`{name}` must be an int; got {value!r}."
        raise TypeError(msg)
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        msg = f"`{name}` must be in [{lo}, {hi}]; got {value}."
        raise ValueError(msg)
    return value


def check_positive(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """Validate a finite positive real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        msg = f"`{name}` must be a real number; got {value!r}."
        raise TypeError(msg)
    value = float(value)
    ok = value >= 0 if allow_zero else value > 0
    if not (np.isfinite(value) and ok):
        bound = "non-negative" if allow_zero else "positive"
        msg = f"`{name}` must be a finite {bound} number; got {value}."
        raise ValueError(msg)
    return value


def check_fraction(value: Any, name: str, *, closed: bool = False) -> float:
    """Validate a number in (0, 1), or [0, 1] when ``closed``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        msg = f"`{name}` must be a real number; got {value!r}."
        raise TypeError(msg)
    value = float(value)
    ok = 0.0 <= value <= 1.0 if closed else 0.0 < value < 1.0
    if not ok:
        interval = "[0, 1]" if closed else "(0, 1)"
        msg = f"`{name}` must be in {interval}; got {value}."
        raise ValueError(msg)
    return value


def check_choice(value: Any, name: str, options: Iterable[str]) -> str:
    """Validate a string option against its allowed values."""
    options = tuple(options)
    if not isinstance(value, str) or value not in options:
        allowed = ", ".join(repr(o) for o in options)
        msg = f"`{name}` must be one of {allowed}; got {value!r}."
        raise ValueError(msg)
    return value
