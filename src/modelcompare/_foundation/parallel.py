"""Helpers for running many tasks: dispatch through joblib, a task's output as table cells."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from modelcompare._foundation.results import to_builtin

__all__ = ["flatten_config", "flatten_output", "results_as_they_finish"]

#: Result modes tried in turn: the first the active joblib backend accepts is used.
_STREAMING = ("generator_unordered", "generator")


def _streaming_runner(n_jobs: int | None) -> Any:
    """A ``joblib.Parallel`` that yields results one by one, or None if the backend cannot.

    Joblib refuses a generator mode at construction, with a ``ValueError``, for backends without
    asynchronous result retrieval (Ray's, and multiprocessing's); that refusal is the capability
    test, so no backend is recognised by name.
    """
    import joblib

    for mode in _STREAMING:
        try:
            return joblib.Parallel(n_jobs=n_jobs, return_as=mode)
        except ValueError as exc:
            if "return_as" not in str(exc):
                raise
    return None


def results_as_they_finish(
    func: Callable[..., Any], tasks: Iterable[Sequence[Any]], *, n_jobs: int | None
) -> Iterator[Any]:
    """Yield ``func(*args)`` for every ``args`` in ``tasks``, run by the active joblib backend.

    Results come as they finish where the backend allows it (``return_as="generator_unordered"``),
    else in task order as each finishes (``"generator"``), else in rounds of as many tasks as the
    backend has workers (one list call per round, in one pool). Each result is yielded as soon as
    it is back, so a caller that saves it at once loses at most the round in flight when
    interrupted.

    >>> sorted(results_as_they_finish(pow, [(2, 3), (3, 2)], n_jobs=1))
    [8, 9]
    """
    import joblib

    tasks = list(tasks)
    if not tasks:
        return
    runner = _streaming_runner(n_jobs)
    if runner is not None:
        yield from runner(joblib.delayed(func)(*args) for args in tasks)
        return
    size = max(1, joblib.effective_n_jobs(n_jobs))
    with joblib.Parallel(n_jobs=n_jobs) as pool:  # one pool for all rounds
        for start in range(0, len(tasks), size):
            yield from pool(joblib.delayed(func)(*args) for args in tasks[start : start + size])


def _cell(value: Any, *, include_arrays: bool = False) -> Any:
    """One table cell: scalars stay, lists and dicts become JSON text (arrays too, if asked)."""
    value = to_builtin(value, include_arrays=include_arrays)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return json.dumps(value, sort_keys=True)


def flatten_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """Config entries as table cells; an array value is kept, as JSON text of its list."""
    return {str(k): _cell(v, include_arrays=True) for k, v in config.items()}


def flatten_output(out: Any) -> dict[str, Any]:
    """A task's return value as table cells.

    A result object contributes its scalar fields (``to_dict(include_arrays=False)``, plus its
    ``statistic`` when that is a property); a mapping its entries; a number ``value``; None nothing.
    """
    if out is None:
        return {}
    if hasattr(out, "to_dict") and not hasattr(out, "columns"):
        fields = out.to_dict(include_arrays=False)
        row = {}
        if "statistic" not in fields and hasattr(out, "statistic"):
            row["statistic"] = _cell(out.statistic)
        row.update({str(k): _cell(v) for k, v in fields.items()})
        return row
    if isinstance(out, Mapping):
        return {str(k): _cell(v) for k, v in out.items()}
    if isinstance(out, bool | int | float | np.generic):
        return {"value": _cell(out)}
    msg = f"a task must return a result object, a dict or a number; got {type(out).__name__}."
    raise TypeError(msg)
