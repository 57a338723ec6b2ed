"""Readers for the CLI, chosen by file suffix. I/O only: no statistics here."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import numpy as np

from modelcompare._foundation.optional import install_hint

__all__ = ["DataError", "read_matrix", "read_table"]


class DataError(Exception):
    """An unreadable or invalid data file (CLI exit code 3)."""


def _split_key(spec: str) -> tuple[str, str | None]:
    # `file.npz:key`; a Windows drive letter is not a key.
    if ".npz:" in spec:
        path, key = spec.rsplit(":", 1)
        return path, key
    return spec, None


def _read_npz(path: Path, key: str | None) -> np.ndarray:
    with np.load(path, allow_pickle=False) as archive:
        keys = list(archive.keys())
        if key is None:
            if len(keys) != 1:
                msg = f"{path} holds arrays {keys}; name one as {path}:KEY."
                raise DataError(msg)
            key = keys[0]
        if key not in keys:
            msg = f"{path} has no array {key!r}; it holds {keys}."
            raise DataError(msg)
        return np.asarray(archive[key])


_TABLE_SUFFIXES = (".csv", ".tsv", ".txt")
_RAGGED = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _one_line(text: str) -> str:
    """Collapse a (possibly multi-line) parser message into one line."""
    return " ".join(str(text).split())


def _read_failed(spec: str, exc: Exception) -> DataError:
    """A one-line DataError for a file a parser could not read, naming the line when known."""
    ragged = _RAGGED.search(str(exc))
    if type(exc).__name__ == "EmptyDataError":
        msg = f"{spec}: the file is empty."
    elif ragged:
        expected, line, saw = ragged.groups()
        msg = (
            f"{spec}: line {line} has {saw} fields where the lines before have {expected}; every "
            "row needs the same number of fields."
        )
    else:
        msg = f"{spec}: could not read file ({type(exc).__name__}: {_one_line(exc)})."
    return DataError(msg)


def _looks_numeric(cells: list[str]) -> bool:
    try:
        [float(c) for c in cells if c.strip() != ""]
    except ValueError:
        return False
    return True


def read_table(spec: str, *, columns: list[str] | None = None):  # -> pandas.DataFrame
    """Read a CSV/TSV (header auto-detected) or Parquet file into a pandas DataFrame.

    Parameters
    ----------
    spec : str
        A ``.csv``/``.txt`` (comma), ``.tsv`` (tab) or ``.parquet`` path, or ``-`` for CSV on
        stdin. A first line of numbers is data (columns ``x0, x1, ...``); otherwise a header.
    columns : list of str, optional
        Keep only these columns, in this order.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    DataError
        A missing, empty, ragged or unparsable file, an unsupported suffix, unknown columns, or a
        table with no data rows. The message is one line naming the file (and the line of a
        ragged row).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "scores.csv"
    >>> _ = path.write_text("model,s0,s1\\nrbf,0.9,0.8\\nlinear,0.7,0.6\\n")
    >>> read_table(str(path), columns=["s1"])["s1"].tolist()
    [0.8, 0.6]
    >>> _ = path.write_text("1,2\\n3,4,5\\n")
    >>> read_table(str(path))
    Traceback (most recent call last):
    ...
    modelcompare._foundation.io.DataError: ...: line 2 has 3 fields where the lines before have 2; every row needs the same number of fields.
    """
    import pandas as pd

    if spec == "-":
        text = sys.stdin.read()
        source: object = io.StringIO(text)
        suffix = ".csv"
        first = text.splitlines()[0] if text.strip() else ""
    else:
        path = Path(spec)
        if not path.exists():
            msg = f"{spec}: no such file."
            raise DataError(msg)
        suffix = path.suffix.lower()
        source = path
        first = ""
        if suffix in _TABLE_SUFFIXES:
            try:
                with path.open() as fh:
                    first = fh.readline()
            except (OSError, UnicodeDecodeError) as exc:
                raise _read_failed(spec, exc) from None
    try:
        if suffix == ".parquet":
            try:
                import pyarrow  # noqa: F401
            except ImportError:
                msg = f"reading .parquet requires pyarrow: {install_hint('parquet')}."
                raise DataError(msg) from None
            frame = pd.read_parquet(source)
        elif suffix in (".csv", ".tsv", ".txt"):
            sep = "\t" if suffix == ".tsv" else ","
            header = None if _looks_numeric(first.strip().split(sep)) else 0
            frame = pd.read_csv(source, sep=sep, header=header)
            if header is None:
                frame.columns = [f"x{i}" for i in range(frame.shape[1])]
        else:
            msg = (
                f"{spec}: unsupported file type {suffix!r} for a table (use .csv, .tsv, .parquet)."
            )
            raise DataError(msg)
    except DataError:
        raise
    except Exception as exc:  # noqa: BLE001 - pandas/pyarrow raise many types for bad files
        raise _read_failed(spec, exc) from None
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        msg = f"{spec}: the table has no data rows."
        raise DataError(msg)
    if columns:
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            msg = f"{spec}: no column(s) {missing}; it has {list(frame.columns)}."
            raise DataError(msg)
        frame = frame[columns]
    return frame


def read_matrix(spec: str, *, columns: list[str] | None = None) -> np.ndarray:
    """Read a numeric sample matrix from ``.npy``, ``.npz[:key]``, ``.csv``/``.tsv``, ``.parquet`` or ``-``.

    Parameters
    ----------
    spec : str
        The file; ``archive.npz:key`` names one array of an archive (required when it holds
        several). Tables are read by :func:`read_table`.
    columns : list of str, optional
        Columns of a table to keep.

    Returns
    -------
    numpy.ndarray
        A float64 array; a 1-D array becomes one column. NaN and inf are passed on (the library
        refuses them with the argument's name).

    Raises
    ------
    DataError
        An unreadable file, non-numeric data, or an ``.npz`` key problem (one line).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import numpy as np
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "draws.npz"
    >>> np.savez(path, ref=np.zeros((3, 2)), npe=np.ones(3))
    >>> read_matrix(f"{path}:npe").shape
    (3, 1)
    """
    path_str, key = _split_key(spec)
    suffix = Path(path_str).suffix.lower()
    if suffix in (".npy", ".npz"):
        path = Path(path_str)
        if not path.exists():
            msg = f"{path_str}: no such file."
            raise DataError(msg)
        try:
            arr = _read_npz(path, key) if suffix == ".npz" else np.load(path, allow_pickle=False)
        except DataError:
            raise
        except Exception as exc:  # noqa: BLE001 - numpy raises many types for bad files
            raise _read_failed(path_str, exc) from None
    else:
        frame = read_table(spec, columns=columns)
        non_numeric = [c for c in frame.columns if frame[c].dtype.kind not in "biuf"]
        if non_numeric:
            msg = f"{spec}: column(s) {non_numeric} are not numeric."
            raise DataError(msg)
        arr = frame.to_numpy(dtype=float)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.dtype.kind not in "biuf":
        msg = f"{spec}: data must be numeric; got dtype {arr.dtype}."
        raise DataError(msg)
    return np.asarray(arr, dtype=float)
