"""Shared CLI plumbing: common options, output (table or JSON) and exit codes.

Exit codes: 0 the test ran; 1 ``--fail-on-reject`` and H0 rejected; 2 usage error (a bad option,
or a request over a resource limit); 3 unreadable or invalid data; 141 (128 + SIGPIPE) when the
reader of stdout went away, as ``yes | head -1`` does, without a message. Errors are one line
``Error: ...`` on stderr; a traceback only with ``MODELCOMPARE_DEBUG=1``.
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import click

from modelcompare._foundation.errors import MissingDependencyError
from modelcompare._foundation.io import DataError
from modelcompare._foundation.results import TestResult, ThresholdResult, to_builtin

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_DATA",
    "EXIT_REJECT",
    "EXIT_USAGE",
    "FiniteFloat",
    "common_options",
    "decide",
    "emit",
    "handle_errors",
]

EXIT_REJECT = 1
EXIT_USAGE = 2
EXIT_DATA = 3
EXIT_BROKEN_PIPE = 128 + 13  # killed by SIGPIPE, as the shell reports it for `yes | head -1`


class FiniteFloat(click.FloatRange):
    """A ``FloatRange`` that also refuses NaN and ±inf (which a plain range lets through)."""

    name = "finite float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        out = super().convert(value, param, ctx)
        if not math.isfinite(out):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return out


def one_line(text: Any) -> str:
    """``text`` with every run of whitespace (newlines included) collapsed into one space."""
    return " ".join(str(text).split())


def _resource_error() -> type[BaseException] | None:
    """``modelcompare._foundation.errors.ResourceLimitError`` where this version has it."""
    from modelcompare._foundation import errors

    return getattr(errors, "ResourceLimitError", None)


def quiet_broken_pipe() -> None:
    """Exit 141 without a message after stdout's reader went away (``... | head -1``).

    stdout is pointed at /dev/null first, so that the interpreter's final flush does not print
    a second BrokenPipeError.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (e.g. a test runner)
        pass
    sys.exit(EXIT_BROKEN_PIPE)


def jsonable(value: Any) -> Any:
    """``value`` with NaN and inf mapped to ``None`` (JSON ``null``), through dicts and lists."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def decide(result: Any, alpha: float | None) -> tuple[bool | None, float | None]:
    """The decision of ``result`` through the result protocol, and the level it was taken at.

    A test with a p-value decides at ``--alpha`` when it is given: ``result.decision(alpha)``.
    A threshold test (``ThresholdResult``) decides at the level it ran at: ``result.decision()``
    (a threshold test that also gives a p-value follows ``--alpha`` when it is given). Otherwise
    there is no decision: ``(None, None)``.
    """
    threshold_only = isinstance(result, ThresholdResult) and not isinstance(result, TestResult)
    if threshold_only or (alpha is None and isinstance(result, ThresholdResult)):
        return result.decision(), float(result.alpha)  # type: ignore[attr-defined]
    if alpha is None:
        return None, None
    decision = getattr(result, "decision", None)
    if not callable(decision):
        msg = f"{type(result).__name__} has no decision(alpha); --alpha does not apply."
        raise click.UsageError(msg)
    return bool(decision(alpha)), alpha


def common_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--seed``, ``--json``, ``--alpha``, ``--fail-on-reject`` and ``--quiet``."""
    options = [
        click.option("--seed", type=click.IntRange(min=0), default=None, help="Random seed."),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout."),
        click.option(
            "--alpha",
            type=FiniteFloat(0, 1, min_open=True, max_open=True),
            default=None,
            help="Also report the decision: reject H0 iff p <= alpha.",
        ),
        click.option(
            "--fail-on-reject",
            is_flag=True,
            help="Exit with code 1 when H0 is rejected at --alpha.",
        ),
        click.option("--quiet", "-q", is_flag=True, help="Silence progress and hints on stderr."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def handle_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn data and library errors into one line on stderr and an exit code.

    A ``ResourceLimitError`` (a request too large for the machine) exits 2 like a bad option;
    other data and library errors exit 3; a closed stdout (``| head``) exits 141 silently.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        debug = os.environ.get("MODELCOMPARE_DEBUG") == "1"
        quiet = kwargs.get("quiet", False)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = func(*args, **kwargs)
            if not quiet:
                for w in caught:
                    click.echo(f"Warning: {one_line(w.message)}", err=True)
            return out
        except BrokenPipeError:
            quiet_broken_pipe()
        except (DataError, ValueError, TypeError, MissingDependencyError, OSError) as exc:
            if debug:
                raise
            limit = _resource_error()
            code = EXIT_USAGE if limit is not None and isinstance(exc, limit) else EXIT_DATA
            click.echo(f"Error: {one_line(exc)}", err=True)
            sys.exit(code)
        return None

    return wrapper


def emit(
    *,
    test: str,
    result: Any,
    params: dict[str, Any],
    seed: int | None,
    as_json: bool,
    alpha: float | None = None,
    fail_on_reject: bool = False,
    quiet: bool = False,
    rows: list[tuple[str, Any]] | None = None,
    started: float | None = None,
    table: str | None = None,
) -> None:
    """Print a result as a table (default) or as one JSON object, then exit with the right code.

    Parameters
    ----------
    test : str
        Name of the test (``"c2st"``).
    result : Result
        The library's result object; its ``to_dict()`` feeds the JSON output and its
        ``decision`` the reported decision (see :func:`decide`).
    params : dict
        The options the test ran with.
    seed : int or None
        The seed actually used (printed to stderr, stored in JSON).
    alpha : float or None
        ``--alpha``: the level of the decision of a test with a p-value.
    fail_on_reject : bool
        Exit with code 1 when the decision rejects H0.
    rows : list of (label, value), optional
        Rows of the human-readable table; defaults to the scalar fields of the result.
    table : str, optional
        A pre-formatted table printed after the rows (e.g. a pairwise comparison table).
    decision : bool, optional
        The library's decision at ``alpha`` (``result.decision(alpha)``); when given, it is
        reported instead of comparing the p-value with ``alpha`` here.
    """
    from modelcompare import __version__

    runtime = None if started is None else time.perf_counter() - started
    reject, level = decide(result, alpha)
    if not quiet and seed is not None:
        click.echo(f"seed used: {seed}", err=True)
    if as_json:
        payload = dict(to_builtin(result.to_dict()) if hasattr(result, "to_dict") else result)
        payload.update(
            {"test": test, "params": to_builtin(params), "seed": seed, "version": __version__}
        )
        if runtime is not None:
            payload["runtime_s"] = runtime
        if level is not None:
            payload["alpha"] = level
            payload["reject"] = reject
        click.echo(json.dumps(jsonable(payload), sort_keys=True, allow_nan=False))
    else:
        if rows is None:
            data = result.to_dict(include_arrays=False)
            rows = [(k, v) for k, v in data.items() if not isinstance(v, list | dict)]
        rows = [("test", test), *rows, ("seed", seed)]
        if runtime is not None:
            rows.append(("runtime (s)", f"{runtime:.3f}"))
        if level is not None:
            rows.append(("decision", f"{'reject' if reject else 'do not reject'} H0 at {level}"))
        width = max(len(str(k)) for k, _ in rows)
        for key, value in rows:
            if isinstance(value, float):
                value = f"{value:.6g}"
            click.echo(f"{key!s:<{width}}  {value}")
        if table:
            click.echo()
            click.echo(table)
    if fail_on_reject and reject:
        sys.exit(EXIT_REJECT)
