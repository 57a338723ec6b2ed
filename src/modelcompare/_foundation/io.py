"""Readers for the CLI, chosen by file suffix. I/O only: no statistics here."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np

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


def _looks_numeric(cells: list[str]) -> bool:
    try:
        [float(c) for c in cells if c.strip() != ""]
    except ValueError:
        return False
    return True


def read_table(spec: str, *, columns: list[str] | None = None):  # -> pandas.DataFrame
    """Read a CSV/TSV (header auto-detected) or Parquet file into a pandas DataFrame."""
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
        if suffix in (".csv", ".tsv", ".txt"):
            with path.open() as fh:
                first = fh.readline()
    try:
        if suffix == ".parquet":
            try:
                import pyarrow  # noqa: F401
            except ImportError:
                msg = "reading .parquet requires pyarrow: pip install 'modelcompare[parquet]'."
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
                f"{spec}: unsupported file type {suffix!r} (use .npy, .npz, .csv, .tsv, .parquet)."
            )
            raise DataError(msg)
    except DataError:
        raise
    except Exception as exc:  # noqa: BLE001 - pandas/pyarrow raise many types for bad files
        msg = f"{spec}: could not read file ({type(exc).__name__}: {exc})."
        raise DataError(msg) from None
    if columns:
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            msg = f"{spec}: no column(s) {missing}; it has {list(frame.columns)}."
            raise DataError(msg)
        frame = frame[columns]
    return frame


def read_matrix(spec: str, *, columns: list[str] | None = None) -> np.ndarray:
    """Read a numeric sample matrix from ``.npy``, ``.npz[:key]``, ``.csv``/``.tsv``, ``.parquet`` or ``-``.

    1-D arrays are read as one column. Non-numeric columns raise :class:`DataError`.
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
            msg = f"{path_str}: could not read file ({type(exc).__name__}: {exc})."
            raise DataError(msg) from None
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
