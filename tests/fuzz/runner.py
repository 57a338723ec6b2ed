"""Running one case and classifying how it ended."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import math
import os
import re
import resource
import signal
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from tests.fuzz.cases import Case


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What a case ended in: ``kind`` is error, result, missing-dependency or escape."""

    kind: str
    detail: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.kind != "escape"


class CaseTimeout(BaseException):
    """A case ran past its time limit (a BaseException, so no ``except Exception`` hides it)."""


@contextlib.contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    if not seconds or not hasattr(signal, "setitimer"):
        yield
        return

    def _raise(_signum: int, _frame: Any) -> None:
        raise CaseTimeout

    previous = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _snapshot(value: Any) -> Any:
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        return ("tensor", value.detach().cpu().numpy().copy(), bool(value.requires_grad))
    if isinstance(value, np.ndarray):
        return ("array", value.copy(), value.flags.writeable)
    if hasattr(value, "to_numpy") and hasattr(value, "copy"):
        return ("pandas", value.copy(deep=True))
    if isinstance(value, list | tuple | dict):
        try:
            snapshot = copy.deepcopy(value)
        except Exception:  # noqa: BLE001 - an uncopyable container is not compared
            return None
        # a container of objects without value equality (estimators, flows) is not compared
        return ("plain", snapshot) if _same(snapshot, value) else None
    return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind in "fc":
            return bool(np.array_equal(a, b, equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001
        return a is b


def _unchanged(snapshot: Any, value: Any) -> bool:
    kind = snapshot[0]
    if kind == "tensor":
        now = value.detach().cpu().numpy()
        return _same(snapshot[1], now) and bool(value.requires_grad) == snapshot[2]
    if kind == "array":
        return _same(snapshot[1], value) and value.flags.writeable == snapshot[2]
    if kind == "pandas":
        return bool(snapshot[1].equals(value))
    return _same(snapshot[1], value)


_PVALUE_COLUMNS = {"p", "p_adjusted", "pvalue", "pvalues"}


def _is_pvalue(name: str) -> bool:
    return "pvalue" in name or name in _PVALUE_COLUMNS


def _bad_pvalues(values: Any) -> bool:
    arr = np.asarray(values, dtype=float)
    return not (np.isfinite(arr).all() and (arr >= 0).all() and (arr <= 1).all())


def _check_result(result: Any, case: Case) -> str | None:
    """Why ``result`` breaks the protocol, or None."""
    from modelcompare._foundation.results import Result

    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}
        for name, value in fields.items():
            if "pvalue" in name and _looks_numeric(value) and _bad_pvalues(value):
                return f"`{name}` not finite in [0, 1]: {np.asarray(value).ravel()[:4]}"
        degenerate = fields.get("degenerate")
        for name in ("statistic", "value"):
            value = fields.get(name)
            if isinstance(value, float | np.floating) and not math.isfinite(value):
                if degenerate is not True:
                    return f"`{name}` = {value} but not flagged degenerate=True"
                # a threshold rule has no p-value (None); a p-value must then be 1
                if fields.get("pvalue") not in (None, 1.0):
                    return f"degenerate with pvalue {fields['pvalue']} (expected 1.0)"
        if case.degenerate and degenerate is not True:
            return f"expected degenerate=True, got {degenerate!r}"
        table = fields.get("table")
        if hasattr(table, "columns") and hasattr(table, "to_numpy"):  # a collection's table
            problem = _check_table(table)
            if problem is not None:
                return problem
        if isinstance(result, Result):
            try:
                json.dumps(result.to_dict())
            except Exception as exc:  # noqa: BLE001
                return f"to_dict() failed: {type(exc).__name__}: {exc}"
        return None
    if case.degenerate:
        return f"expected a degenerate result, got {type(result).__name__}"
    if hasattr(result, "columns") and hasattr(result, "to_numpy"):  # a pandas table
        return _check_table(result)
    if (
        isinstance(result, np.ndarray)
        and result.dtype.kind == "f"
        and not np.isfinite(result).all()
    ):
        return "returned array holds NaN or inf"
    return None


def _check_table(table: Any) -> str | None:
    """Why the p-value columns of a pandas table break the protocol, or None."""
    for column in table.columns:
        if _is_pvalue(str(column)):
            values = table[column]
            if "error" in table.columns:
                values = values[table["error"].isna()]
            if _bad_pvalues(values.to_numpy(dtype=float)):
                return f"column `{column}` not finite in [0, 1]"
    return None


def _looks_numeric(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float | np.number):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"


def _named(message: str, names: tuple[str, ...]) -> bool:
    """Whether ``message`` names one of ``names`` in backticks (``x``, or a part ``x[0] ...``)."""
    return any(re.search(rf"`{re.escape(name)}(\[[^`]*)?`", message) for name in names)


def _address_space() -> int | None:
    """Bytes of virtual memory this process maps now (Linux), or None."""
    try:
        pages = int(Path("/proc/self/statm").read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


@contextlib.contextmanager
def memory_cap(headroom: int | None) -> Iterator[None]:
    """Cap the address space at what is mapped now plus ``headroom`` bytes, then restore it.

    An allocation past the cap fails with ``MemoryError`` (an escape) instead of swapping.
    """
    now = _address_space()
    if headroom is None or now is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = now + headroom
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


CASE_MEMORY = 3 * 1024**3  # headroom of one case; MODELCOMPARE_MAX_MEMORY stays below it


def run_case(
    case: Case, *, timeout: float | None = 30.0, memory: int | None = CASE_MEMORY
) -> Outcome:
    """Run one case and classify how it ended."""
    import modelcompare as mc
    from modelcompare import MissingDependencyError

    fn: Any = mc
    for part in case.function.split("."):  # "workflows.report_from_arrays": a subpackage's
        fn = getattr(fn, part)
    start = time.perf_counter()
    try:
        kwargs = case.build()
    except MissingDependencyError as exc:
        return Outcome("missing-dependency", str(exc), 0.0)
    snapshots = {k: _snapshot(v) for k, v in kwargs.items()}
    kind, detail = "escape", ""
    try:
        with memory_cap(memory), _time_limit(timeout), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                result = fn(**kwargs)
    except CaseTimeout:
        kind, detail = "escape", f"timeout after {timeout:g} s"
    except MissingDependencyError as exc:
        kind, detail = "missing-dependency", _first_line(exc)
    except (ValueError, TypeError) as exc:
        message = str(exc)
        if _named(message, case.names):
            kind, detail = "error", f"{type(exc).__name__}: {_first_line(exc)}"
        else:
            names = ", ".join(f"`{n}`" for n in case.names)
            kind = "escape"
            detail = f"{type(exc).__name__} not naming {names}: {_first_line(exc)}"
    except Exception as exc:  # noqa: BLE001 - every other exception is an escape
        kind, detail = "escape", f"{type(exc).__name__}: {_first_line(exc)}"
    else:
        problem = _check_result(result, case)
        if case.must_fail:
            kind, detail = "escape", f"accepted ({type(result).__name__})"
        elif problem is not None:
            kind, detail = "escape", problem
        else:
            kind, detail = "result", type(result).__name__
    finally:
        _close_figures()
    seconds = time.perf_counter() - start
    for name, snap in snapshots.items():
        if snap is not None and not _unchanged(snap, kwargs[name]):
            return Outcome("escape", f"mutated `{name}`; {detail}", seconds)
    return Outcome(kind, detail, seconds)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else repr(exc))[:160]


def _close_figures() -> None:
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
