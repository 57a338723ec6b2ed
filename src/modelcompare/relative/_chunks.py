"""Chunked passes over rows, shared by Rel-UME, Rel-FSSD and the power-criterion maps.

The linear-time tests accumulate sums over row chunks instead of holding n × J feature matrices
(Jitkrittum et al. 2018); these helpers choose the chunk and check that it fits in memory.
"""

from __future__ import annotations

from modelcompare._foundation.resources import check_memory
from modelcompare._foundation.validation import check_int

__all__ = ["CHUNK_BYTES", "check_pass_memory", "chunk_rows"]

#: Bytes of one data chunk (rows × d × 8) processed at a time by the chunked passes (by default).
CHUNK_BYTES = 1 << 21


def chunk_rows(d: int, chunk_size: int | None) -> int:
    """Rows per chunk: ``chunk_size`` checked, or by default :data:`CHUNK_BYTES` of ``d`` columns.

    Examples
    --------
    >>> chunk_rows(4, None), chunk_rows(4, 100)
    (65536, 100)
    """
    if chunk_size is not None:
        return check_int(chunk_size, "chunk_size", low=1)
    return max(256, CHUNK_BYTES // (8 * d))


def check_pass_memory(
    n: int, d: int, j: int, rows: int, per_row: int, fixed: int, *, argument: str = "locations"
) -> None:
    """Refuse a chunked pass whose blocks would pass the memory limit.

    A chunk of ``min(rows, n)`` rows holds ``per_row`` float64 values per row (kernel blocks of J
    columns, features, data slices); ``fixed`` float64 values (J × J or J × d sums) live throughout.
    ``argument`` is the option the J locations come from, named when they are too many.
    """
    r = min(rows, n)
    check_memory(8 * fixed, f"the sums over {j} test locations", argument)
    check_memory(8 * r * per_row, f"one chunk of {r} rows × {j} test locations", "chunk_size")
