"""Resumable sweeps: every finished task is written to disk under its config key."""

from __future__ import annotations

import contextlib
import json
import os
import socket
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from modelcompare._foundation.errors import MissingDependencyError
from modelcompare._foundation.optional import install_hint
from modelcompare._foundation.seeds import SeedLike
from modelcompare.experiments._run_many import (
    check_flag,
    check_n_jobs,
    config_columns,
    execute,
    fresh_base_seed,
    prepare_tasks,
    to_frame,
)

if TYPE_CHECKING:  # pandas is imported when a table is built, not when the package is
    import pandas as pd

__all__ = ["lock_path", "parts_dir", "run_sweep"]

_META = "_sweep.json"
FORMATS = {".parquet": "parquet", ".csv": "csv"}


def parts_dir(out: str | os.PathLike[str]) -> Path:
    """Folder next to ``out`` that holds one JSON record per finished task (``<key>.json``)."""
    out = Path(out)
    return out.with_name(out.name + ".parts")


def _check_out(out: Any) -> tuple[Path, str]:
    if not isinstance(out, str | os.PathLike):
        msg = f"`out` must be a path ending in .parquet or .csv; got {type(out).__name__}."
        raise TypeError(msg)
    path = Path(out)
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        msg = f"`out` must end in .parquet or .csv; got {str(out)!r}."
        raise ValueError(msg)
    if path.is_dir():
        msg = f"`out` must be a file path, not an existing folder; got {str(out)!r}."
        raise ValueError(msg)
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            msg = (
                f"writing .parquet results requires pyarrow: {install_hint('parquet')}, "
                "or use an `out` ending in .csv."
            )
            raise MissingDependencyError(msg) from None
    return path, fmt


def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


_INT64 = (-(2**63), 2**63 - 1)


def _parquet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """Parquet columns hold one type: a column mixing types (e.g. ints and names), or holding ints
    beyond int64 (e.g. a 128-bit seed passed by the user), becomes text."""
    out = frame.copy()
    for name in out.columns:
        if out[name].dtype != object:
            continue
        missing = out[name].isna().to_numpy()
        present = [v for v, gap in zip(out[name], missing, strict=True) if not gap]
        kinds = {type(v) for v in present}
        huge = any(isinstance(v, int) and not _INT64[0] <= v <= _INT64[1] for v in present)
        if huge or (len(kinds) > 1 and not kinds <= {int, float}):
            out[name] = [None if gap else str(v) for v, gap in zip(out[name], missing, strict=True)]
    return out


def _write_table(frame: pd.DataFrame, path: Path, fmt: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if fmt == "parquet":
        _parquet_safe(frame).to_parquet(tmp, index=False)
    else:
        frame.to_csv(tmp, index=False)
    tmp.replace(path)


def lock_path(out: str | os.PathLike[str]) -> Path:
    """The lock file a running sweep holds next to ``out`` (``<out>.lock``)."""
    out = Path(out)
    return out.with_name(out.name + ".lock")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, owned by someone else
        return True
    return True


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold ``<out>.lock`` while a sweep writes ``out``; a second sweep on it is refused.

    The lock records the host and the process id; a lock left by a process of this host that no
    longer runs (a killed sweep) is taken over.
    """
    lock = lock_path(path)
    mine = json.dumps({"host": socket.gethostname(), "pid": os.getpid()})
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                holder = json.loads(lock.read_text())
            except (OSError, ValueError):
                holder = {}
            same_host = holder.get("host") == socket.gethostname()
            pid = holder.get("pid")
            if same_host and isinstance(pid, int) and not _alive(pid):
                with contextlib.suppress(FileNotFoundError):
                    lock.unlink()  # stale: its sweep was killed
                continue
            msg = (
                f"`out` {str(path)!r} is being written by another sweep (host "
                f"{holder.get('host', '?')}, pid {pid if pid is not None else '?'}); wait for it "
                f"to finish or write to another `out`. If no sweep is running, delete {str(lock)!r}."
            )
            raise ValueError(msg) from None
        with os.fdopen(fd, "w") as handle:
            handle.write(mine)
        break
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            lock.unlink()


def _resolve_base(parts: Path, seed: SeedLike) -> int:
    meta_path = parts / _META
    if meta_path.exists():
        stored = int(json.loads(meta_path.read_text())["base_seed"])
        if seed is None:
            return stored
        wanted = fresh_base_seed(seed)
        if wanted != stored:
            msg = (
                f"the results in {parts} were produced with seed={stored}; resume with that seed "
                f"(or seed=None), or write to a new `out`. Got seed={wanted}."
            )
            raise ValueError(msg)
        return stored
    base = fresh_base_seed(seed)
    parts.mkdir(parents=True, exist_ok=True)
    _atomic_write_text(meta_path, json.dumps({"base_seed": base}))
    return base


def load_record(parts: Path, key: str) -> dict[str, Any] | None:
    """The stored record of task ``key``, or None."""
    path = parts / f"{key}.json"
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):  # a torn file cannot happen (atomic), but be safe
        return None


def run_sweep(
    fn: Callable[..., Any],
    configs: Sequence[Mapping[str, Any]],
    *,
    out: str | os.PathLike[str],
    seed: SeedLike = None,
    n_jobs: int | None = None,
    progress: bool = False,
    retry_failed: bool = True,
) -> pd.DataFrame:
    """Resumable :func:`run_many`: each finished task is saved at once; a rerun skips what is done.

    Parameters
    ----------
    fn, configs, n_jobs, progress
        As in :func:`run_many`.
    out : path
        The results table, ``.parquet`` (needs the ``parquet`` extra, pyarrow) or ``.csv``. Each
        finished task is also written, as it finishes, to ``<out>.parts/<key>.json`` (atomically);
        that folder is what a rerun resumes from, and ``out`` is rewritten from it at the end of
        every run, including an interrupted one.
    seed : int, numpy.random.Generator or None
        Base seed. It is stored in ``<out>.parts/_sweep.json``; a rerun with ``seed=None`` reuses
        it, and a rerun with a different seed is refused, so resumed and fresh runs agree.
    retry_failed : bool
        Rerun tasks whose stored record holds an error (default). With False they are kept as they
        are.

    Returns
    -------
    pandas.DataFrame
        The table of :func:`run_many` for ``configs``, with the same columns: rows loaded from
        disk and rows just run, in the order of ``configs``; after an interruption, only the
        tasks that finished. The same table is written to ``out``. ``frame.attrs`` holds
        ``seed_used`` (the base seed, int), ``config_columns`` (list of str), ``n_skipped``
        (tasks loaded from ``<out>.parts`` instead of run, int), ``n_run`` (tasks run now, int)
        and ``out`` (the table's path, str).

    Notes
    -----
    A task is identified by its config key (see :func:`modelcompare.experiments.config_key`), not by
    ``fn``: use a new ``out`` for a different function. Child seeds depend only on the base seed and
    the key, so the table of a sweep resumed after an interruption equals the table of an
    uninterrupted run (``runtime_s`` aside). To start afresh, delete ``out`` and ``<out>.parts``.

    One sweep at a time writes an ``out``: while it runs it holds ``<out>.lock`` (its host and
    process id), and a second sweep on the same ``out`` is refused with a ``ValueError``. A lock
    left by a killed sweep of the same host is taken over; on a shared file system, delete the
    lock file of a sweep that was killed on another host.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> def square(v, seed):
    ...     return {"square": v * v}
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "squares.csv"
    >>> t = run_sweep(square, [{"v": 1}, {"v": 2}], out=out, seed=0)
    >>> t2 = run_sweep(square, [{"v": 1}, {"v": 2}, {"v": 3}], out=out, seed=0)
    >>> t2.attrs["n_skipped"], list(t2["square"])
    (2, [1, 4, 9])
    """
    path, fmt = _check_out(out)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_flag(progress, "progress")
    retry_failed = check_flag(retry_failed, "retry_failed")
    configs_list, keys, _ = prepare_tasks(configs, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):
        return _run_locked(fn, configs_list, keys, path, fmt, seed, n_jobs, progress, retry_failed)


def _run_locked(
    fn: Callable[..., Any],
    configs_list: list[dict[str, Any]],
    keys: list[str],
    path: Path,
    fmt: str,
    seed: SeedLike,
    n_jobs: int | None,
    progress: bool,
    retry_failed: bool,
) -> pd.DataFrame:
    parts = parts_dir(path)
    base = _resolve_base(parts, seed)

    records: dict[str, dict[str, Any]] = {}
    todo_configs, todo_keys = [], []
    for config, key in zip(configs_list, keys, strict=True):
        record = load_record(parts, key)
        if record is not None and (record.get("error") is None or not retry_failed):
            records[key] = record
        else:
            todo_configs.append(config)
            todo_keys.append(key)
    n_skipped = len(records)

    def save(record: dict[str, Any]) -> None:
        _atomic_write_text(parts / f"{record['key']}.json", json.dumps(record, allow_nan=True))
        records[record["key"]] = record

    columns = config_columns(configs_list)
    finished = False
    try:
        execute(
            fn,
            todo_configs,
            todo_keys,
            base,
            n_jobs=n_jobs,
            progress=progress,
            on_record=save,
            desc="sweep",
        )
        finished = True
    finally:
        # Interrupted or not, the table holds every task that finished (the parts folder does too).
        done = [records[k] for k in keys if k in records]
        frame = to_frame(done, columns)
        if finished:
            _write_table(frame, path, fmt)
        else:
            with contextlib.suppress(Exception):
                _write_table(frame, path, fmt)
    frame.attrs.update(
        seed_used=base,
        n_skipped=n_skipped,
        n_run=len(done) - n_skipped,
        out=str(path),
        config_columns=columns,
    )
    return frame
