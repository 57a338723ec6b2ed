"""The sample space Ω = {0..c-1}^L: row validation, exact row grouping and seeded row hashing.

Elements of Ω are rows of ``L`` categories. Ω is never enumerated, and rows are never turned into a
single integer index except for small spaces (``c**L < 2**62``, the table layouts): 20^20 ≈ 1e26 does
not fit in int64. Rows are grouped by a 64-bit hash whose collisions are *detected* (rows are compared
after grouping) and resolved exactly, so no result depends on the hash being collision-free.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare._foundation.validation import as_numpy

__all__ = [
    "MAX_COUNT_TOTAL",
    "MAX_INDEX_SIZE",
    "check_counts",
    "check_probabilities",
    "check_rows",
    "group_rows",
    "hash_rows",
    "index_to_rows",
    "row_dtype",
    "rows_to_index",
]

#: Largest |Ω| for which rows may be mapped to a single integer index (table layouts).
MAX_INDEX_SIZE = 2**62

#: Largest total of a count vector: sums of counts must stay exact in int64 (and in float64 ratios).
MAX_COUNT_TOTAL = 2**53

_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_PRIME = np.uint64(0x100000001B3)
_GOLDEN = 0x9E3779B97F4A7C15


def row_dtype(n_categories: int) -> np.dtype:
    """Smallest unsigned dtype holding the categories ``0..n_categories-1``."""
    if n_categories <= 2**8:
        return np.dtype(np.uint8)
    if n_categories <= 2**16:
        return np.dtype(np.uint16)
    return np.dtype(np.uint32)


def _frame_codes(frame: Any, name: str) -> np.ndarray:
    cols = []
    for col in frame.columns:
        series = frame[col]
        if hasattr(series, "cat"):
            codes = series.cat.codes.to_numpy()
            if (codes < 0).any():
                msg = f"`{name}` column {col!r} holds missing values (NaN); rows must be complete."
                raise ValueError(msg)
            cols.append(codes.astype(np.int64))
        else:
            cols.append(as_numpy(series, name))
    return np.column_stack(cols) if cols else np.empty((len(frame), 0))


def check_rows(
    samples: Any,
    name: str = "samples",
    *,
    n_categories: int | None = None,
    length: int | None = None,
    min_samples: int = 1,
) -> np.ndarray:
    """Validate sequences of categories and return them as an ``(m, L)`` unsigned-int array.

    Parameters
    ----------
    samples : array-like of int, shape (m, L), or pandas.DataFrame
        Rows of ``L`` categories coded ``0..c-1``. Columns of a DataFrame may be pandas categoricals
        (their ``.cat.codes`` are used, so the category order defines the code) or integers.
    name : str
        Argument name used in error messages.
    n_categories, length : int, optional
        Expected ``c`` and ``L``; checked when given.
    min_samples : int
        Minimum number of rows.

    Returns
    -------
    numpy.ndarray
        A new C-contiguous array of the smallest unsigned dtype (the input is never modified).
    """
    if hasattr(samples, "columns") and hasattr(samples, "dtypes"):
        arr = _frame_codes(samples, name)
    else:
        arr = as_numpy(samples, name)
    if arr.ndim == 1:
        msg = (
            f"`{name}` must be a 2-D array of rows (m, L); got a 1-D array of length {arr.shape[0]}. "
            "Use x.reshape(-1, 1) for sequences of length 1."
        )
        raise ValueError(msg)
    if arr.ndim != 2:
        msg = f"`{name}` must be a 2-D array of rows (m, L); got {arr.ndim} dimensions."
        raise ValueError(msg)
    if arr.shape[0] < min_samples:
        msg = f"`{name}` needs at least {min_samples} row(s); got {arr.shape[0]}."
        raise ValueError(msg)
    if arr.shape[1] < 1:
        msg = f"`{name}` must have at least one column; got shape {arr.shape}."
        raise ValueError(msg)
    if length is not None and arr.shape[1] != length:
        msg = f"`{name}` rows must have length L={length}; got {arr.shape[1]} columns."
        raise ValueError(msg)
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            msg = f"`{name}` holds NaN or inf; categories must be integers 0..c-1."
            raise ValueError(msg)
        if (arr != np.round(arr)).any():
            msg = f"`{name}` holds non-integer values; categories must be integers 0..c-1."
            raise ValueError(msg)
    elif arr.dtype.kind not in "iu":
        msg = f"`{name}` must hold integer category codes; got dtype {arr.dtype}."
        raise TypeError(msg)
    if arr.size:
        lo, hi = arr.min(), arr.max()
        if lo < 0:
            msg = f"`{name}` holds negative category {int(lo)}; categories are coded 0..c-1."
            raise ValueError(msg)
        if n_categories is not None and hi >= n_categories:
            msg = (
                f"`{name}` holds category {int(hi)}, outside 0..{n_categories - 1} "
                f"(c={n_categories})."
            )
            raise ValueError(msg)
        top = int(hi) + 1
    else:
        top = 1
    dtype = row_dtype(max(n_categories or 0, top))
    return np.ascontiguousarray(arr, dtype=dtype)


def _numeric(arr: np.ndarray, name: str, what: str) -> np.ndarray:
    """Refuse complex, string, object and date dtypes with a TypeError naming ``name``."""
    if arr.dtype.kind == "c":
        msg = f"`{name}` must hold real {what}; got complex values (dtype {arr.dtype})."
        raise TypeError(msg)
    if arr.dtype.kind not in "biuf":
        msg = f"`{name}` must hold numeric {what}; got dtype {arr.dtype}."
        raise TypeError(msg)
    return arr


def check_counts(counts: Any, name: str = "counts", *, ndims: tuple[int, ...] = (1,)) -> np.ndarray:
    """Validate bin counts: finite, non-negative integers (floats allowed when integral).

    Parameters
    ----------
    counts : array-like
        Counts, numpy array, list or torch tensor (detached and moved to the CPU).
    name : str
        Argument name used in error messages.
    ndims : tuple of int
        Accepted numbers of dimensions.

    Returns
    -------
    numpy.ndarray
        A new int64 array (the input is never modified).
    """
    arr = _numeric(as_numpy(counts, name), name, "counts")
    if arr.ndim not in ndims:
        want = " or ".join(f"{d}-D" for d in ndims)
        msg = f"`{name}` must be a {want} array of counts; got shape {arr.shape}."
        raise ValueError(msg)
    if arr.size == 0:
        msg = f"`{name}` is empty; it needs at least one count."
        raise ValueError(msg)
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            msg = f"`{name}` holds NaN or inf; counts must be finite non-negative integers."
            raise ValueError(msg)
        if (arr != np.round(arr)).any():
            msg = f"`{name}` holds non-integer values; counts must be non-negative integers."
            raise ValueError(msg)
    if (arr < 0).any():
        msg = f"`{name}` holds negative values; counts must be non-negative integers."
        raise ValueError(msg)
    totals = np.sum(arr, axis=-1, dtype=np.float64)
    if (totals > MAX_COUNT_TOTAL).any():
        msg = f"`{name}` totals {float(totals.max()):.6g} samples, above 2**53; counts that large lose exactness."
        raise ValueError(msg)
    return np.array(arr, dtype=np.int64)


def check_probabilities(
    p: Any, name: str = "p", *, tol: float = 1e-6, table_shape: tuple[int, ...] | None = None
) -> np.ndarray:
    """Validate a probability vector: finite, non-negative, summing to 1 within ``tol``.

    Parameters
    ----------
    p : array-like
        Probabilities (flattened), numpy array, list or torch tensor (detached, moved to the CPU).
    name : str
        Argument name used in error messages.
    tol : float
        Allowed deviation of the sum from 1.
    table_shape : tuple of int, optional
        A shape that ``p`` may also have (a table read in C order); by default ``p`` is 1-D.

    Returns
    -------
    numpy.ndarray
        A new 1-D float64 array (the input is never modified).
    """
    arr = _numeric(as_numpy(p, name), name, "probabilities")
    if arr.ndim > 1 and arr.shape != table_shape:
        also = "" if table_shape is None else f" or of shape {table_shape}"
        msg = f"`{name}` must be a 1-D vector of probabilities{also}; got shape {arr.shape}."
        raise ValueError(msg)
    arr = np.array(arr, dtype=np.float64).reshape(-1)
    if arr.size == 0:
        msg = f"`{name}` is empty; it needs at least one probability."
        raise ValueError(msg)
    if not np.isfinite(arr).all():
        msg = f"`{name}` holds NaN or inf; probabilities must be finite."
        raise ValueError(msg)
    if (arr < 0).any():
        msg = f"`{name}` holds negative values; probabilities must be non-negative."
        raise ValueError(msg)
    total = float(arr.sum())
    if abs(total - 1.0) > tol:
        msg = f"`{name}` must be non-negative and sum to 1; got sum {total:.12g}."
        raise ValueError(msg)
    return arr


def _radix(n_categories: int, length: int) -> np.ndarray:
    size = n_categories**length
    if size >= MAX_INDEX_SIZE:
        msg = (
            f"|Ω| = {n_categories}^{length} is too large for an integer index (int64 overflow); "
            "use a rule layout that works on rows."
        )
        raise ValueError(msg)
    return np.array([n_categories ** (length - 1 - j) for j in range(length)], dtype=np.int64)


def rows_to_index(rows: np.ndarray, n_categories: int) -> np.ndarray:
    """Index of each row in ``itertools.product(range(c), repeat=L)`` order (small Ω only)."""
    radix = _radix(n_categories, rows.shape[1])
    out = np.zeros(rows.shape[0], dtype=np.int64)
    for j in range(rows.shape[1]):
        out += rows[:, j].astype(np.int64) * radix[j]
    return out


def index_to_rows(index: np.ndarray, n_categories: int, length: int) -> np.ndarray:
    """Inverse of :func:`rows_to_index`."""
    radix = _radix(n_categories, length)
    index = np.asarray(index, dtype=np.int64)
    out = np.empty((index.shape[0], length), dtype=row_dtype(n_categories))
    for j in range(length):
        out[:, j] = (index // radix[j]) % n_categories
    return out


def _packed_words(rows: np.ndarray) -> np.ndarray:
    """View each row's bytes as uint64 words (rows padded with zero bytes to a multiple of 8)."""
    rows = np.ascontiguousarray(rows)
    nbytes = rows.shape[1] * rows.itemsize
    width = -(-nbytes // 8)
    if nbytes == width * 8:
        return rows.view(np.uint8).reshape(rows.shape[0], nbytes).view(np.uint64)
    buf = np.zeros((rows.shape[0], width * 8), dtype=np.uint8)
    buf[:, :nbytes] = rows.view(np.uint8).reshape(rows.shape[0], nbytes)
    return buf.view(np.uint64)


def hash_rows(rows: np.ndarray, seed: int = 0) -> np.ndarray:
    """Seeded 64-bit hash of each row (64-bit words mixed in turn, splitmix64 finaliser).

    Different ``seed`` values give independent-looking hash functions; the seeded random-binning
    baseline and the extra cuts at large scale use ``hash_rows(rows, seed) % k``. The row is hashed
    by value (its category codes), so equal rows always get equal hashes.
    """
    words = _packed_words(rows)
    with np.errstate(over="ignore"):
        h = np.full(rows.shape[0], np.uint64((seed * _GOLDEN + 0x632BE59BD9B4E019) % 2**64))
        for j in range(words.shape[1]):
            h ^= words[:, j]
            h *= _PRIME
            h ^= h >> np.uint64(29)
            h *= _MIX1
        h ^= h >> np.uint64(30)
        h *= _MIX1
        h ^= h >> np.uint64(27)
        h *= _MIX2
        h ^= h >> np.uint64(31)
    return h


def group_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group identical rows exactly, without an integer index of Ω.

    Returns
    -------
    first : numpy.ndarray
        Index (into ``rows``) of one representative per distinct row.
    inverse : numpy.ndarray
        Group of each row (``rows[i] == rows[first[inverse[i]]]``).
    counts : numpy.ndarray
        Number of rows in each group.

    Notes
    -----
    Rows are sorted by a 64-bit hash and then compared with their group's representative, so a hash
    collision cannot merge two different rows: if one is detected, the exact (slower)
    ``numpy.unique(rows, axis=0)`` is used instead.
    """
    m = rows.shape[0]
    if m == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    h = hash_rows(rows)
    order = np.argsort(h, kind="stable")
    hs = h[order]
    start = np.empty(m, dtype=bool)
    start[0] = True
    np.not_equal(hs[1:], hs[:-1], out=start[1:])
    group_sorted = np.cumsum(start) - 1
    first = order[start]
    inverse = np.empty(m, dtype=np.int64)
    inverse[order] = group_sorted
    if not np.array_equal(rows, rows[first[inverse]]):  # a hash collision: fall back to exact
        _, first, inverse, counts = np.unique(
            rows, axis=0, return_index=True, return_inverse=True, return_counts=True
        )
        return first.astype(np.int64), inverse.reshape(-1).astype(np.int64), counts
    counts = np.diff(np.flatnonzero(np.append(start, True)))
    return first, inverse, counts
