"""``run_many``: many independent tasks through joblib, each with a config-keyed child seed."""

from __future__ import annotations

import numbers
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from modelcompare._foundation.parallel import (
    flatten_config,
    flatten_output,
    results_as_they_finish,
)
from modelcompare._foundation.seeds import SeedLike
from modelcompare._foundation.task_seeds import base_seed, canonical_json, config_key, task_seed
from modelcompare._foundation.threads import limit_threads as one_thread

if TYPE_CHECKING:  # pandas is imported when a table is built, not when the package is
    import pandas as pd

__all__ = ["check_flag", "check_n_jobs", "fresh_base_seed", "run_many"]

META_COLUMNS = ("key", "seed", "base_seed", "error", "warnings", "runtime_s")


# --------------------------------------------------------------------------------------------------
# options


def check_n_jobs(n_jobs: Any) -> int | None:
    """Return ``n_jobs`` if it is None or a non-zero int (joblib's meaning); raise naming it."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool | float) or not isinstance(n_jobs, numbers.Integral):
        msg = (
            f"`n_jobs` must be None or a non-zero int (-1: all cores); got {n_jobs!r} "
            f"({type(n_jobs).__name__})."
        )
        raise TypeError(msg)
    if n_jobs == 0:
        msg = "`n_jobs` must be None or a non-zero int (-1: all cores); got 0."
        raise ValueError(msg)
    return int(n_jobs)


def check_flag(value: Any, name: str) -> bool:
    """Return ``value`` if it is a real bool (Python or numpy); raise a TypeError naming it."""
    if not isinstance(value, bool | np.bool_):
        msg = f"`{name}` must be True or False; got {value!r}."
        raise TypeError(msg)
    return bool(value)


# --------------------------------------------------------------------------------------------------
# tasks


def prepare_tasks(configs: Any, seed: SeedLike) -> tuple[list[dict[str, Any]], list[str], int]:
    """Validate ``configs`` and return (configs as dicts, their keys, the base seed)."""
    if isinstance(configs, Mapping | str | bytes) or not hasattr(configs, "__iter__"):
        msg = f"`configs` must be a list of dicts (one per task); got {type(configs).__name__}."
        raise TypeError(msg)
    configs = [dict(c) if isinstance(c, Mapping) else c for c in configs]
    keys: list[str] = []
    seen: dict[str, int] = {}
    for i, config in enumerate(configs):
        if not isinstance(config, dict):
            msg = f"`configs[{i}]` must be a dict of arguments; got {type(config).__name__}."
            raise TypeError(msg)
        bad = [k for k in config if not isinstance(k, str)]
        if bad:
            msg = (
                f"`configs[{i}]` has non-string key(s) {bad[:3]!r}; the keys are keyword "
                "arguments of `fn`, so they must be str."
            )
            raise TypeError(msg)
        if "seed" in config:
            msg = (
                f"`configs[{i}]` holds a `seed`; run_many passes each task its own child seed "
                "derived from `seed=` and the config, so leave it out."
            )
            raise ValueError(msg)
        key = config_key(config)
        if key in seen:
            msg = (
                f"`configs[{seen[key]}]` and `configs[{i}]` are the same task "
                f"({canonical_json(config)}), so they would get the same seed and result; "
                "add a field such as `replicate` to tell repeats apart."
            )
            raise ValueError(msg)
        seen[key] = i
        keys.append(key)
    return configs, keys, fresh_base_seed(seed)


def fresh_base_seed(seed: SeedLike) -> int:
    """The base seed of a run: ``seed`` normalised, or 63 bits of fresh entropy for None.

    63 bits (rather than the 128-bit entropy of :func:`numpy.random.SeedSequence`) keep the
    ``base_seed`` column an int64, which every table format (Parquet included) can store.
    """
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
    return base_seed(seed)


def _format_warning(w: warnings.WarningMessage) -> str:
    return f"{w.category.__name__}: {w.message}"


def run_task(
    fn: Callable[..., Any], config: dict[str, Any], key: str, base: int, limit_threads: bool
) -> dict[str, Any]:
    """Run one task and return its flat record; exceptions become an ``error`` entry.

    Warnings raised by the task are recorded in the ``warnings`` entry (they would otherwise be
    lost in worker processes) instead of being shown.
    """
    seed = task_seed(base, key)
    started = time.perf_counter()
    error = None
    outputs: dict[str, Any] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if limit_threads:
                with one_thread():
                    out = fn(**config, seed=seed)
            else:
                out = fn(**config, seed=seed)
            outputs = flatten_output(out)
        except Exception as exc:  # noqa: BLE001 - a failing task is recorded, not fatal
            error = f"{type(exc).__name__}: {exc}"
    record = flatten_config(config)
    for name, value in outputs.items():
        if name not in record:
            record[name] = value
        elif record[name] != value:  # an output that differs from the config entry it echoes
            record[f"{name}_result"] = value
    record.update(
        key=key,
        seed=seed,
        base_seed=base,
        error=error,
        warnings="; ".join(dict.fromkeys(_format_warning(w) for w in caught)) or None,
        runtime_s=time.perf_counter() - started,
    )
    return record


# --------------------------------------------------------------------------------------------------
# execution


def execute(
    fn: Callable[..., Any],
    configs: list[dict[str, Any]],
    keys: list[str],
    base: int,
    *,
    n_jobs: int | None,
    progress: bool,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    desc: str = "tasks",
) -> dict[str, dict[str, Any]]:
    """Run the tasks through joblib (results as they finish); return records by key.

    ``on_record`` sees each record as soon as it is back from its worker (see
    :func:`~modelcompare._foundation.parallel.results_as_they_finish` for backends that only
    return whole lists).
    """
    import joblib
    from tqdm.auto import tqdm

    if not callable(fn):
        msg = f"`fn` must be callable; got {type(fn).__name__}."
        raise TypeError(msg)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_flag(progress, "progress")
    records: dict[str, dict[str, Any]] = {}
    if not configs:
        return records
    parallel = joblib.effective_n_jobs(n_jobs) != 1
    # as they finish where the backend allows it (Ray's only returns lists: rounds of n_jobs)
    results = results_as_they_finish(
        run_task,
        ((fn, config, key, base, parallel) for config, key in zip(configs, keys, strict=True)),
        n_jobs=n_jobs,
    )
    bar = tqdm(total=len(configs), desc=desc, disable=not progress, file=sys.stderr, leave=False)
    try:
        for record in results:
            records[record["key"]] = record
            if on_record is not None:
                on_record(record)
            bar.update(1)
    finally:
        results.close()  # an interrupted run stops its workers' pool now, not at collection
        bar.close()
    return records


def to_frame(records: list[dict[str, Any]], config_columns: list[str]) -> pd.DataFrame:
    """Records in the given order as a DataFrame: config columns, outputs, then bookkeeping."""
    import pandas as pd

    columns: dict[str, None] = dict.fromkeys(config_columns)
    for record in records:
        columns.update(dict.fromkeys(k for k in record if k not in META_COLUMNS))
    columns.update(dict.fromkeys(META_COLUMNS))
    frame = pd.DataFrame.from_records(records, columns=list(columns))
    for name in frame.columns:
        # integer columns with gaps (failed tasks) stay integer: pandas' nullable Int64
        values = [r.get(name) for r in records]
        present = [v for v in values if v is not None]
        if (
            present
            and len(present) < len(values)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in present)
        ):
            frame[name] = pd.array(values, dtype="Int64")
    return frame.reset_index(drop=True)


def config_columns(configs: list[dict[str, Any]]) -> list[str]:
    """Union of config keys, in first-seen order."""
    names: dict[str, None] = {}
    for config in configs:
        names.update(dict.fromkeys(str(k) for k in config))
    return list(names)


def run_many(
    fn: Callable[..., Any],
    configs: Sequence[Mapping[str, Any]],
    *,
    n_jobs: int | None = None,
    seed: SeedLike = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Run ``fn(**config, seed=child_seed)`` for every config, in parallel through joblib.

    Parameters
    ----------
    fn : callable
        Called as ``fn(**config, seed=child_seed)`` with an int ``child_seed``. It returns a result
        object (its scalar fields become columns), a dict, or a number (column ``value``). It must
        be picklable (a module-level function or a :func:`functools.partial` of one) to run in
        worker processes.
    configs : sequence of dict
        One dict of keyword arguments per task, with JSON-like values (numbers, strings, bools,
        None, lists and dicts of these). Refer to data by name or path. Two equal configs are an
        error (they would be the same task); add e.g. a ``replicate`` field.
    n_jobs : int or None
        Number of joblib workers (a non-zero int; -1 means all cores). ``None`` means 1 unless a
        ``joblib.parallel_config`` context says otherwise, so
        ``with joblib.parallel_config(backend="dask"):`` sends the tasks to a Dask cluster
        unchanged.
    seed : int, numpy.random.Generator or None
        Base seed. Each task's child seed is derived from it and the task's config key.
    progress : bool
        Show a tqdm progress bar on stderr. Default False: the library writes nothing unless
        asked.

    Returns
    -------
    pandas.DataFrame
        One row per config, in the order of ``configs`` (index 0, 1, ...), with these columns:

        * the config's entries, one column per key (the union of all configs' keys, in first-seen
          order; an array value as the JSON text of its list);
        * the task's outputs: a result object's scalar fields (its ``to_dict()`` without arrays,
          plus ``statistic``), a dict's entries, or ``value`` for a number; an output that
          differs from the config entry of the same name is ``<name>_result``;
        * ``key`` (str, the config's stable key), ``seed`` (int, the child seed:
          ``fn(**config, seed=seed)`` reproduces the row), ``base_seed`` (int), ``error``
          (``"Type: message"`` or None; a failed task has no outputs), ``warnings`` (the
          warnings the task raised, ``"; "``-joined, or None) and ``runtime_s`` (float).

        An integer column with gaps (failed tasks) is pandas' nullable ``Int64``.
        ``frame.attrs`` holds ``seed_used`` (the base seed, int) and ``config_columns`` (the
        config's column names, list of str).

    Notes
    -----
    The child seed of a task is ``task_seed(base, config_key(config))``: a
    :class:`numpy.random.SeedSequence` with entropy ``base`` and the SHA-256 digest of the config's
    canonical JSON (sorted keys) as spawn key. It does not depend on the task's position, the
    number of workers, the backend, or which tasks ran before, so a rerun, a reordered list and a
    resumed sweep reproduce every task.

    A failing task does not stop the run: its row holds the error and no outputs. Warnings are
    recorded per task in the ``warnings`` column rather than shown. In parallel runs each task
    limits BLAS/OpenMP pools (threadpoolctl) and torch to one thread, so that workers do not
    oversubscribe the cores; Dask's worker processes also start with ``OMP_NUM_THREADS=1``.

    Examples
    --------
    >>> from modelcompare import c2st, run_many
    >>> import numpy as np
    >>> def task(shift, seed):
    ...     rng = np.random.default_rng(seed)
    ...     x, y = rng.normal(size=(100, 2)), rng.normal(shift, 1, size=(100, 2))
    ...     return c2st(x, y, classifier="logistic", seed=rng)
    >>> table = run_many(task, [{"shift": 0.0}, {"shift": 1.0}], seed=0)
    >>> list(table["shift"]), bool(table["pvalue"].iloc[1] < 0.01)
    ([0.0, 1.0], True)
    """
    n_jobs = check_n_jobs(n_jobs)
    progress = check_flag(progress, "progress")
    configs_list, keys, base = prepare_tasks(configs, seed)
    records = execute(fn, configs_list, keys, base, n_jobs=n_jobs, progress=progress)
    frame = to_frame([records[k] for k in keys], config_columns(configs_list))
    frame.attrs.update(seed_used=base, config_columns=config_columns(configs_list))
    return frame
