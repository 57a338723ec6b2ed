"""Input validation shared by every public function.

Every array-like argument passes through :func:`check_samples` or :func:`check_vector`, and every
option through the small ``check_*`` helpers, so that messages have one style: the argument in
backticks, the bad value, and what was expected.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "as_numpy",
    "check_bandwidth",
    "check_bool",
    "check_choice",
    "check_float32_range",
    "check_fraction",
    "check_int",
    "check_n_jobs",
    "check_nonempty",
    "check_output_path",
    "check_positive",
    "check_same_rows",
    "check_same_width",
    "check_samples",
    "check_vector",
]

_FINITE_CHUNK_ROWS = 65536


def _tensor_to_numpy(t: Any) -> np.ndarray:
    """A torch tensor as numpy: detached from autograd, on the CPU, bfloat16/half widened."""
    t = t.detach().cpu()
    if str(getattr(t, "dtype", "")) in ("torch.bfloat16", "torch.float16"):
        t = t.float()  # numpy has no bfloat16; float32 holds both exactly
    return t.numpy()


def _is_tensor(x: Any) -> bool:
    return hasattr(x, "detach") and hasattr(x, "cpu")  # torch.Tensor, without importing torch


def _has_tensor(x: Any) -> bool:
    if _is_tensor(x):
        return True
    if isinstance(x, list | tuple):
        return any(_has_tensor(v) for v in x)
    return False


def _untensor(x: Any) -> Any:
    """Nested lists/tuples with tensors inside, the tensors replaced by numpy arrays."""
    if _is_tensor(x):
        return _tensor_to_numpy(x)
    if isinstance(x, list | tuple):
        return [_untensor(v) for v in x]
    return x


def as_numpy(x: Any, name: str) -> np.ndarray:
    """Turn an array-like into a numpy array without copying when avoidable.

    Torch tensors (on any device, with or without ``requires_grad``, also inside lists) are
    detached and moved to the CPU; pandas objects are taken by value; anything else goes through
    ``np.asarray``. Complex data is refused: its imaginary part would be dropped silently later.

    Raises
    ------
    TypeError
        For a string, or complex data.
    ValueError
        For ragged nested lists.
    """
    if _is_tensor(x):
        x = _tensor_to_numpy(x)
    elif hasattr(x, "to_numpy"):  # pandas DataFrame / Series
        x = x.to_numpy()
    if isinstance(x, str | bytes):
        msg = f"`{name}` must be numeric array-like data; got a {type(x).__name__}."
        raise TypeError(msg)
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError, RuntimeError) as exc:
        # A list of tensors that need grad, or live on a GPU, fails inside numpy: convert them
        # one by one. Checked only on failure, so plain nested lists pay nothing.
        if not _has_tensor(x):
            msg = f"`{name}` could not be read as an array: {exc}"  # ragged lists
            raise ValueError(msg) from None
        try:
            arr = np.asarray(_untensor(x))
        except (ValueError, TypeError) as exc2:
            msg = f"`{name}` could not be read as an array: {exc2}"
            raise ValueError(msg) from None
    _refuse_complex(arr, name)
    return arr


def _refuse_complex(arr: np.ndarray, name: str) -> None:
    if arr.dtype.kind == "c":
        msg = (
            f"`{name}` must hold real numbers; got complex values (dtype {arr.dtype}). "
            "Pass the real part (x.real) or the modulus (abs(x)) explicitly."
        )
        raise TypeError(msg)


def _to_float(arr: np.ndarray, name: str, dtype: Any) -> np.ndarray:
    _refuse_complex(arr, name)
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
    """Validate an integer option within ``[low, high]``.

    Ints and numpy integers pass; so does a float with an integral value (``1e4``), as in SciPy.
    Bools, NaN, infinities and non-integral floats are refused.
    """
    if isinstance(value, bool | np.bool_):
        msg = f"`{name}` must be an int; got {value!r}."
        raise TypeError(msg)
    if not isinstance(value, numbers.Integral):
        if not isinstance(value, numbers.Real):
            msg = f"`{name}` must be an int; got {value!r}."
            raise TypeError(msg)
        as_float = float(value)
        if not np.isfinite(as_float):
            msg = f"`{name}` must be a finite int; got {as_float}."
            raise ValueError(msg)
        if not as_float.is_integer():
            msg = f"`{name}` must be an int; got {as_float}, which is not a whole number."
            raise TypeError(msg)
        value = as_float
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        msg = f"`{name}` must be in [{lo}, {hi}]; got {value}."
        raise ValueError(msg)
    return value


def check_bool(value: Any, name: str) -> bool:
    """Validate a flag: only ``True``/``False`` (Python or numpy bools) pass.

    Strings such as ``'yes'`` or ``'False'``, ints and ``None`` are refused rather than read by
    truthiness (``'False'`` would be true).
    """
    if not isinstance(value, bool | np.bool_):
        msg = f"`{name}` must be True or False; got {value!r}."
        raise TypeError(msg)
    return bool(value)


def check_output_path(path: Any, name: str = "path") -> Path:
    """Validate a file to be written: a str or path-like whose folder exists, not a folder itself.

    Checked before the caller spends time producing the content.

    Raises
    ------
    TypeError
        If ``path`` is not a str or ``os.PathLike``.
    ValueError
        If it is empty, an existing folder, or its parent folder does not exist.

    Examples
    --------
    >>> check_output_path("report.html").name
    'report.html'
    >>> try:
    ...     check_output_path(3)
    ... except TypeError as err:
    ...     print(err)
    `path` must be a file path (str or os.PathLike); got int.
    """
    if not isinstance(path, str | os.PathLike) or isinstance(path, bytes):
        msg = f"`{name}` must be a file path (str or os.PathLike); got {type(path).__name__}."
        raise TypeError(msg)
    out = Path(path)
    if str(path) == "":
        msg = f"`{name}` must be a file path; got an empty string."
        raise ValueError(msg)
    if out.is_dir():
        msg = f"`{name}` must be a file to write, not the existing folder '{out}'."
        raise ValueError(msg)
    parent = out.parent
    if not parent.is_dir():
        msg = f"`{name}`'s folder '{parent}' does not exist; create it first."
        raise ValueError(msg)
    return out


def check_n_jobs(value: Any, name: str = "n_jobs") -> int | None:
    """Validate a joblib worker count: ``None`` or a non-zero int (negative counts from the end).

    ``None`` is returned unchanged so that an enclosing ``joblib.parallel_config`` still decides.
    """
    if value is None:
        return None
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        msg = f"`{name}` must be None or a non-zero int (-1 for all cores); got {value!r}."
        raise TypeError(msg)
    if int(value) == 0:
        msg = f"`{name}` must be None or a non-zero int (-1 for all cores); got 0."
        raise ValueError(msg)
    return int(value)


def check_nonempty(seq: Any, name: str) -> Any:
    """Validate that a grid, a list of pairs or a mapping holds at least one entry.

    Returns ``seq`` itself, or a list of its items when it is an iterator without a length.
    """
    if seq is None or isinstance(seq, str | bytes):
        msg = f"`{name}` must be a non-empty collection; got {seq!r}."
        raise TypeError(msg)
    if isinstance(seq, np.ndarray):
        size = seq.size
    elif hasattr(seq, "__len__"):
        size = len(seq)
    elif isinstance(seq, Iterable):
        seq = list(seq)
        size = len(seq)
    else:
        msg = f"`{name}` must be a non-empty collection; got {type(seq).__name__}."
        raise TypeError(msg)
    if size == 0:
        msg = f"`{name}` must not be empty; got an empty {type(seq).__name__}."
        raise ValueError(msg)
    return seq


def check_positive(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """Validate a finite positive real number (NaN and infinities are refused)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        msg = f"`{name}` must be a real number; got {value!r}."
        raise TypeError(msg)
    value = float(value)
    ok = value >= 0 if allow_zero else value > 0
    if not (np.isfinite(value) and ok):
        bound = "non-negative" if allow_zero else "positive"
        msg = f"`{name}` must be a finite {bound} number; got {value}."
        raise ValueError(msg)
    return value


_TINY = float(np.finfo(np.float64).tiny)


def check_bandwidth(value: Any, name: str = "bandwidth") -> float:
    """Validate a Gaussian bandwidth σ: finite, positive, and σ² a normal float64.

    Kernels divide by σ²; a σ whose square underflows to 0 (σ below about 1.5e-154) or overflows
    to inf (σ above about 1.3e154) would turn every kernel value into NaN, 0 or 1.
    """
    value = check_positive(value, name)
    sigma2 = value * value
    if sigma2 < _TINY:
        msg = (
            f"`{name}` must be at least about 1.5e-154 so that its square is a normal float64; "
            f"got {value} (σ² = {sigma2} underflows). Standardise the data instead."
        )
        raise ValueError(msg)
    if not np.isfinite(sigma2):
        msg = (
            f"`{name}` must be at most about 1.3e154 so that its square is finite; got {value} "
            "(σ² overflows to inf). Standardise the data instead."
        )
        raise ValueError(msg)
    return value


def check_fraction(value: Any, name: str, *, closed: bool = False) -> float:
    """Validate a number in (0, 1), or [0, 1] when ``closed`` (NaN is refused)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
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


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def check_float32_range(
    arr: np.ndarray, name: str, *, what: str = "", subject: str | None = None
) -> None:
    """Refuse finite values that a float32 computation would turn into inf.

    Parameters
    ----------
    arr : numpy.ndarray
        Validated, finite float data (after any rescaling the computation applies).
    name : str
        The argument the values come from, named in the message.
    what : str
        What computes in float32, for the message (``"the classifiers"``).
    subject : str, optional
        The message's subject, when the values are derived from ``name`` (default: ```name```).

    Raises
    ------
    ValueError
        If some absolute value exceeds the largest float32, about 3.4e38.

    Examples
    --------
    >>> check_float32_range(np.array([1.0, -3e38]), "x")
    >>> check_float32_range(np.array([1.0, 1e300]), "x", what="the classifiers")
    Traceback (most recent call last):
    ...
    ValueError: `x` holds values beyond the float32 range of the classifiers (largest |value| ...
    """
    if arr.size == 0:
        return
    largest = float(np.max(np.abs(arr)))
    if largest > _FLOAT32_MAX:
        of = f" of {what}" if what else ""
        subject = f"`{name}`" if subject is None else subject
        msg = (
            f"{subject} holds values beyond the float32 range{of} (largest |value| {largest:.3g}, "
            "float32 holds up to 3.4e38); rescale the data."
        )
        raise ValueError(msg)
