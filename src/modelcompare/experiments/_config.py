"""Sweep configs: a grid of tests over named data files, run resumably (``modelcompare sweep``).

Schema (YAML or JSON)::

    seed: 0                        # optional base seed
    out: results.parquet           # optional; `out=` / `--out` wins
    n_jobs: null                   # optional joblib workers
    data:                          # name -> file (relative to the config's folder)
      reference: data/reference.npy
      npe: data/npe.npy
      snle: {path: data/snle.csv, columns: [a, b]}
    tests:
      - test: c2st                 # a name in SWEEP_TESTS
        x: reference               # data arguments: a data name, or a list of names (crossed)
        y: [npe, snle]
        options: {classifier: logistic}     # fixed keyword arguments
        grid: {n_folds: [5, 10]}            # keyword arguments crossed (every combination)
        replicates: 1                       # repeats with independent seeds (column `replicate`)
"""

from __future__ import annotations

import functools
import importlib
import inspect
import itertools
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from modelcompare._foundation.seeds import SeedLike
from modelcompare.experiments._run_many import check_n_jobs
from modelcompare.experiments._sweep import FORMATS, run_sweep

__all__ = ["SWEEP_TESTS", "ConfigError", "load_config", "run_config", "sweep_tasks"]

#: Tests a sweep config can name: ``name -> "module:function"``, imported when a config uses it.
#: The data arguments of a test are its positional parameters; its keyword parameters are the
#: options. Adding a test is one line here.
SWEEP_TESTS: dict[str, str] = {
    "c2st": "modelcompare:c2st",
    "rel_ume": "modelcompare:rel_ume",
    "rel_mmd": "modelcompare:rel_mmd",
    "corrected_ttest": "modelcompare:corrected_ttest",
    "local_coverage_test": "modelcompare:local_coverage_test",
    "granularity": "modelcompare:granularity",
}

_TOP_KEYS = ("seed", "out", "n_jobs", "data", "tests")
_TEST_KEYS = ("test", "options", "grid", "replicates")
_RESERVED = ("test", "replicate", "seed")


class ConfigError(ValueError):
    """An invalid sweep config (the CLI exits with code 3 and one ``Error: ...`` line)."""


def _fail(where: str, what: str) -> ConfigError:
    return ConfigError(f"{where}: {what}")


def _names(keys: Any) -> list[Any]:
    """Keys sorted for a message; YAML keys may mix types (``1: x`` is an int key)."""
    return sorted(keys, key=lambda k: (type(k).__name__, str(k)))


def _config_n_jobs(value: Any) -> int | None:
    try:
        return check_n_jobs(value)
    except (TypeError, ValueError):
        raise ConfigError(
            f"n_jobs: must be null or a non-zero int (-1: all cores); got {value!r}."
        ) from None


def _yaml_problem(exc: Exception) -> str:
    """A YAML parser error in one line: where (1-based line and column) and what."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return where + " ".join(str(problem).split())


def load_config(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a sweep config from ``.yaml``/``.yml`` (PyYAML, a core dependency) or ``.json``.

    Parameters
    ----------
    path : path
        The config file.

    Returns
    -------
    dict
        The config, not yet validated (:func:`run_config` validates it).

    Raises
    ------
    ConfigError
        A missing file, an unknown suffix, or text that does not parse into a mapping.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from modelcompare.experiments import load_config
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sweep.json"
    >>> _ = path.write_text(json.dumps({"data": {"x": "x.npy"}, "tests": []}))
    >>> sorted(load_config(path))
    ['data', 'tests']
    """
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"{path}: no such file.")
    suffix = path.suffix.lower()
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: could not read the config ({exc}).") from None
    if suffix in (".yaml", ".yml"):
        from modelcompare._foundation.optional import import_optional

        yaml = import_optional("yaml", purpose="reading YAML sweep configs", hint="Or use JSON.")
        try:
            config = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML ({_yaml_problem(exc)}).") from None
    elif suffix == ".json":
        try:
            config = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})."
            ) from None
    else:
        raise ConfigError(f"{path}: a sweep config must end in .yaml, .yml or .json.")
    if not isinstance(config, dict):
        raise ConfigError(f"{path}: the config must be a mapping with `data` and `tests`.")
    return config


def _resolve_test(name: Any, where: str) -> tuple[Callable[..., Any], inspect.Signature]:
    if not isinstance(name, str) or name not in SWEEP_TESTS:
        known = ", ".join(sorted(SWEEP_TESTS))
        raise _fail(where, f"unknown test {name!r}; known tests: {known}.")
    module_name, attr = SWEEP_TESTS[name].split(":")
    fn = getattr(importlib.import_module(module_name), attr, None)
    if fn is None:
        raise _fail(where, f"test {name!r} is not available in this version of modelcompare.")
    return fn, inspect.signature(fn)


def _data_params(sig: inspect.Signature) -> list[inspect.Parameter]:
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p for p in sig.parameters.values() if p.kind in kinds]


def _option_names(sig: inspect.Signature) -> tuple[set[str] | None, bool]:
    params = sig.parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None, "seed" in sig.parameters
    names = {p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}
    return names - {"seed"}, "seed" in sig.parameters


def _parse_data(config: Mapping[str, Any], base_dir: Path) -> dict[str, tuple[str, tuple | None]]:
    data = config.get("data")
    if not isinstance(data, Mapping) or not data:
        raise ConfigError("data: must be a non-empty mapping of names to files.")
    files: dict[str, tuple[str, tuple | None]] = {}
    for name, spec in data.items():
        where = f"data.{name}"
        columns = None
        if isinstance(spec, Mapping):
            extra = set(spec) - {"path", "columns"}
            if extra or "path" not in spec:
                raise _fail(where, "a data entry is a path or {path: ..., columns: [...]}.")
            columns = spec.get("columns")
            if columns is not None and (
                not isinstance(columns, list) or not all(isinstance(c, str) for c in columns)
            ):
                raise _fail(where, "`columns` must be a list of column names.")
            spec = spec["path"]
        if not isinstance(spec, str) or not spec:
            raise _fail(where, f"expected a file path; got {spec!r}.")
        path_part = spec.split(".npz:")[0] + (".npz" if ".npz:" in spec else "")
        full = Path(path_part) if Path(path_part).is_absolute() else base_dir / path_part
        if not full.exists():
            raise _fail(where, f"no such file {spec!r} (looked for {full}).")
        resolved = str(full) + (spec[len(path_part) :] if ".npz:" in spec else "")
        files[str(name)] = (resolved, tuple(columns) if columns else None)
    return files


def sweep_tasks(
    config: Mapping[str, Any], base_dir: str | os.PathLike[str] = "."
) -> tuple[list[dict[str, Any]], dict[str, tuple[str, tuple | None]]]:
    """Validate a config and expand it into task configs; also return the data files by name."""
    if not isinstance(config, Mapping):
        raise ConfigError("the config must be a mapping with `data` and `tests`.")
    unknown = set(config) - set(_TOP_KEYS)
    if unknown:
        raise ConfigError(
            f"unknown top-level key(s) {_names(unknown)}; allowed: {', '.join(_TOP_KEYS)}."
        )
    files = _parse_data(config, Path(base_dir))
    tests = config.get("tests")
    if not isinstance(tests, list) or not tests:
        raise ConfigError("tests: must be a non-empty list of test entries.")
    tasks: list[dict[str, Any]] = []
    for i, entry in enumerate(tests):
        where = f"tests[{i}]"
        if not isinstance(entry, Mapping) or "test" not in entry:
            raise _fail(where, "each entry is a mapping with at least `test`.")
        name = entry["test"]
        _, sig = _resolve_test(name, f"{where}.test")
        data_params = _data_params(sig)
        data_names = [p.name for p in data_params]
        allowed, _ = _option_names(sig)
        unknown = set(entry) - set(_TEST_KEYS) - set(data_names)
        if unknown:
            raise _fail(
                where,
                f"unknown key(s) {_names(unknown)} for {name}; data arguments are "
                f"{', '.join(data_names)}; other keys: {', '.join(_TEST_KEYS)}.",
            )
        axes: list[list[tuple[str, Any]]] = []
        for p in data_params:
            value = entry.get(p.name)
            if value is None:
                if p.default is inspect.Parameter.empty:
                    raise _fail(where, f"{name} needs data argument `{p.name}` (a data name).")
                continue
            names = value if isinstance(value, list) else [value]
            for n in names:
                if not isinstance(n, str) or n not in files:
                    raise _fail(
                        f"{where}.{p.name}",
                        f"unknown data name {n!r}; known: {', '.join(files)}.",
                    )
            axes.append([(p.name, n) for n in names])
        options = entry.get("options") or {}
        grid = entry.get("grid") or {}
        for key, block in (("options", options), ("grid", grid)):
            if not isinstance(block, Mapping):
                raise _fail(f"{where}.{key}", "must be a mapping of option names to values.")
            for opt in block:
                if opt in _RESERVED or opt in data_names:
                    raise _fail(
                        f"{where}.{key}.{opt}",
                        "is set by the sweep (seed, replicate) or is a data argument; "
                        "give data arguments as data names at the top of the entry.",
                    )
                if allowed is not None and opt not in allowed:
                    raise _fail(
                        f"{where}.{key}.{opt}",
                        f"unknown option for {name}; options: {', '.join(sorted(allowed))}.",
                    )
        overlap = set(options) & set(grid)
        if overlap:
            raise _fail(where, f"option(s) {_names(overlap)} appear in both `options` and `grid`.")
        for opt, levels in grid.items():
            if not isinstance(levels, list) or not levels:
                raise _fail(f"{where}.grid.{opt}", "must be a non-empty list of values.")
            axes.append([(str(opt), v) for v in levels])
        replicates = entry.get("replicates", 1)
        if isinstance(replicates, bool) or not isinstance(replicates, int) or replicates < 1:
            raise _fail(f"{where}.replicates", f"must be a positive int; got {replicates!r}.")
        tasks.extend(
            {"test": name, **dict(combo), **options, "replicate": r}
            for combo in itertools.product(*axes)
            for r in range(replicates)
        )
    return tasks, files


@functools.lru_cache(maxsize=16)
def _load(path: str, columns: tuple | None) -> Any:
    from modelcompare._foundation.io import read_matrix

    arr = read_matrix(path, columns=list(columns) if columns else None)
    arr.setflags(write=False)  # shared between tasks of a worker
    return arr


def _check_readable(files: Mapping[str, tuple[str, tuple | None]]) -> None:
    """Read every data file once before any task runs: an unreadable one is a config error."""
    from modelcompare._foundation.errors import ResourceLimitError
    from modelcompare._foundation.io import DataError

    for name, (path, columns) in files.items():
        try:
            _load(path, columns)
        except ResourceLimitError:
            raise
        except (DataError, ValueError, TypeError, OSError) as exc:
            raise _fail(f"data.{name}", str(exc)) from None


def run_test_task(
    files: Mapping[str, tuple[str, tuple | None]],
    *,
    seed: int,
    test: str,
    replicate: int,
    **arguments: Any,
) -> Any:
    """One sweep task: read the named data files and call the test with the options and seed."""
    del replicate  # only part of the task's identity (and so of its seed)
    fn, sig = _resolve_test(test, "test")
    data_names = {p.name for p in _data_params(sig)}
    kwargs = {}
    for key, value in arguments.items():
        kwargs[key] = _load(*files[value]) if key in data_names else value
    if "seed" in sig.parameters:
        kwargs["seed"] = seed
    return fn(**kwargs)


def run_config(
    config: Mapping[str, Any] | str | os.PathLike[str],
    *,
    out: str | os.PathLike[str] | None = None,
    seed: SeedLike = None,
    n_jobs: int | None = None,
    progress: bool = False,
    retry_failed: bool = True,
    base_dir: str | os.PathLike[str] | None = None,
) -> Any:
    """Run a sweep config (a mapping, or a ``.yaml``/``.json`` path) resumably; return the table.

    Parameters
    ----------
    config : dict or path
        The config (schema in this module's docstring), or its ``.yaml``/``.yml``/``.json`` file.
    out : path, optional
        The results table (``.parquet`` or ``.csv``); wins over the config's ``out``.
    seed : int, numpy.random.Generator or None
        Base seed; wins over the config's ``seed``. None (and no ``seed`` in the config) draws
        fresh entropy, recorded in ``frame.attrs["seed_used"]``.
    n_jobs : int or None
        joblib workers; wins over the config's ``n_jobs``.
    progress : bool
        Show a progress bar on stderr (default False; ``modelcompare sweep`` turns it on unless
        ``--quiet``).
    retry_failed : bool
        Rerun tasks whose stored record holds an error.
    base_dir : path, optional
        The folder that paths in ``data`` are relative to (default: the config file's folder, or
        the working directory).

    Returns
    -------
    pandas.DataFrame
        The table of :func:`run_sweep`: one row per task.

    Notes
    -----
    Each task is ``{"test", <data arguments as names>, <options>, "replicate"}``; its key and
    so its seed come from that dict: tasks are identified by data *names*, not file contents.
    See :func:`run_sweep` for the files written and the resume rules.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import numpy as np
    >>> from modelcompare.experiments import run_config
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> rng = np.random.default_rng(0)
    >>> np.save(folder / "a.npy", rng.normal(size=(20, 1)))
    >>> np.save(folder / "b.npy", rng.normal(0.3, 1.0, size=(20, 1)))
    >>> config = {
    ...     "seed": 0,
    ...     "data": {"a": "a.npy", "b": "b.npy"},
    ...     "tests": [{"test": "corrected_ttest", "scores_a": "a", "scores_b": "b",
    ...                "options": {"n_train": 90, "n_test": 10}}],
    ... }
    >>> table = run_config(config, out=folder / "results.csv", base_dir=folder)
    >>> len(table), bool(table["error"].isna().all())
    (1, True)
    """
    if isinstance(config, str | os.PathLike):
        if base_dir is None:
            base_dir = Path(config).parent
        config = load_config(config)
    tasks, files = sweep_tasks(config, base_dir or ".")
    out = out if out is not None else config.get("out")
    if out is None:
        raise ConfigError("no results file: give `out` in the config or --out.")
    if Path(str(out)).suffix.lower() not in FORMATS:
        raise ConfigError(f"out: must end in .parquet or .csv; got {str(out)!r}.")
    if (
        not Path(str(out)).is_absolute()
        and base_dir is not None
        and "out" in config
        and (out == config.get("out"))
    ):
        out = Path(base_dir) / str(out)
    seed = seed if seed is not None else config.get("seed")
    n_jobs = check_n_jobs(n_jobs) if n_jobs is not None else _config_n_jobs(config.get("n_jobs"))
    _check_readable(files)
    fn = functools.partial(run_test_task, files)
    return run_sweep(
        fn, tasks, out=out, seed=seed, n_jobs=n_jobs, progress=progress, retry_failed=retry_failed
    )
