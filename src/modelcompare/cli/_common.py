"""Shared CLI plumbing: output (table or JSON), decisions and errors.

Errors are one line ``Error: ...`` on stderr, in the CLI's words (:func:`~modelcompare.cli.
_options.cli_message`), with the exit codes of :mod:`modelcompare.cli._exit`; a traceback only
with ``MODELCOMPARE_DEBUG=1``.
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

from modelcompare._foundation import errors
from modelcompare._foundation.errors import MissingDependencyError
from modelcompare._foundation.io import DataError
from modelcompare._foundation.results import TestResult, ThresholdResult, to_builtin
from modelcompare.cli._exit import EXIT_BROKEN_PIPE, EXIT_DATA, EXIT_REJECT, EXIT_USAGE
from modelcompare.cli._options import CommonOptions, cli_message

__all__ = [
    "decide",
    "echo_json",
    "emit",
    "emit_report",
    "handle_errors",
    "jsonable",
    "one_line",
    "quiet_broken_pipe",
    "say",
]


def one_line(text: Any) -> str:
    """``text`` with every run of whitespace (newlines included) collapsed into one space."""
    return " ".join(str(text).split())


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
    """``value`` with NaN and ±inf replaced by ``None`` (JSON's ``null``), in nested dicts and lists."""
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


def _current_command() -> click.Command | None:
    ctx = click.get_current_context(silent=True)
    return None if ctx is None else ctx.command


def say(text: Any, *, kind: str = "Error") -> None:
    """``Error: ...`` (or ``Warning: ...``) on stderr: one line, in the CLI's words."""
    click.echo(f"{kind}: {cli_message(one_line(text), _current_command())}", err=True)


def handle_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn data and library errors into one line on stderr and an exit code.

    A ``ResourceLimitError`` (a request too large for the machine) exits 2 like a bad option;
    other data and library errors exit 3; a closed stdout (``| head``) exits 141 silently. The
    library's messages and warnings name its Python arguments; they are printed with the names
    of the options and positionals the user typed (:func:`~modelcompare.cli._options.cli_message`),
    unless ``opts.quiet`` (``--quiet``) silences the warnings.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        debug = os.environ.get("MODELCOMPARE_DEBUG") == "1"
        opts = kwargs.get("opts")
        quiet = opts is not None and opts.quiet
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = func(*args, **kwargs)
            if not quiet:
                for w in caught:
                    say(w.message, kind="Warning")
            return out
        except BrokenPipeError:
            quiet_broken_pipe()
        except (DataError, ValueError, TypeError, MissingDependencyError, OSError) as exc:
            if debug:
                raise
            # looked up when raised, so that a test can stand in its own class
            limit = getattr(errors, "ResourceLimitError", None)
            code = EXIT_USAGE if limit is not None and isinstance(exc, limit) else EXIT_DATA
            say(exc)
            sys.exit(code)
        return None

    return wrapper


def echo_json(data: dict[str, Any], *, ensure_ascii: bool = True) -> None:
    """Print ``data`` as one JSON object, its keys sorted, NaN and ±inf as ``null``."""
    click.echo(
        json.dumps(jsonable(data), sort_keys=True, allow_nan=False, ensure_ascii=ensure_ascii)
    )


def emit(
    opts: CommonOptions,
    *,
    test: str,
    result: Any,
    params: dict[str, Any],
    seed: int | None,
    started: float,
    rows: list[tuple[str, Any]] | None = None,
    table: str | None = None,
    text: Callable[[], str] | None = None,
    reject: bool | None = None,
) -> None:
    """Print a result as a table (default) or as one JSON object, then exit with the right code.

    Parameters
    ----------
    opts : CommonOptions
        The shared options: ``--json``, ``--alpha`` (the level of the decision of a test with a
        p-value), ``--fail-on-reject`` (exit with code 1 when the decision rejects H0) and
        ``--quiet``.
    test : str
        Name of the test (``"c2st"``).
    result : Result or dict
        The library's result object; its ``to_dict()`` feeds the JSON output and its
        ``decision`` the reported decision (see :func:`decide`).
    params : dict
        The options the test ran with.
    seed : int or None
        The seed actually used (printed to stderr, stored in JSON).
    started : float
        ``time.perf_counter()`` when the test started, for the runtime reported.
    rows : list of (label, value), optional
        Rows of the human-readable table; defaults to the scalar fields of the result.
    table : str, optional
        A pre-formatted table printed after the rows (e.g. a pairwise comparison table).
    text : callable, optional
        Makes the human-readable output in place of the rows (e.g. a report's text); called
        only when it is printed.
    reject : bool, optional
        The command's own decision, where it applied ``--alpha`` itself (to several checks, or
        through a report): the result is then decided without ``--alpha`` here, and
        ``--fail-on-reject`` exits on ``reject``.
    """
    from modelcompare import __version__

    runtime = time.perf_counter() - started
    decision, level = decide(result, opts.alpha if reject is None else None)
    if not opts.quiet and seed is not None:
        click.echo(f"seed used: {seed}", err=True)
    if opts.as_json:
        payload = dict(to_builtin(result.to_dict()) if hasattr(result, "to_dict") else result)
        payload.update(
            {"test": test, "params": to_builtin(params), "seed": seed, "version": __version__}
        )
        payload["runtime_s"] = runtime
        if level is not None:
            payload["alpha"] = level
            payload["reject"] = decision
        echo_json(payload)
    elif text is not None:
        click.echo(text())
    else:
        if rows is None:
            data = result.to_dict(include_arrays=False)
            rows = [(k, v) for k, v in data.items() if not isinstance(v, list | dict)]
        rows = [("test", test), *rows, ("seed", seed), ("runtime (s)", f"{runtime:.3f}")]
        if level is not None:
            rows.append(("decision", f"{'reject' if decision else 'do not reject'} H0 at {level}"))
        width = max(len(str(k)) for k, _ in rows)
        for key, value in rows:
            if isinstance(value, float):
                value = f"{value:.6g}"
            click.echo(f"{key!s:<{width}}  {value}")
        if table:
            click.echo()
            click.echo(table)
    if opts.fail_on_reject and (decision if reject is None else reject):
        sys.exit(EXIT_REJECT)


def emit_report(
    opts: CommonOptions,
    report: Any,
    *,
    test: str,
    started: float,
    noun: str,
    html_file: str | None,
    fields: Callable[[], dict[str, Any]],
    show: Callable[[], None],
    reject: Callable[[], bool],
    ensure_ascii: bool = True,
) -> None:
    """Print a report (its HTML page, then its text or JSON), then exit with the right code.

    Parameters
    ----------
    opts : CommonOptions
        The shared options; ``opts.level`` is the report's level.
    report : object
        A result with ``to_html(path, alpha=)``, ``to_dict(include_arrays=False)`` and
        ``seed_used``.
    test : str
        Name of the command (``"report"``), in the JSON output.
    started : float
        ``time.perf_counter()`` when the command started, for the runtime reported.
    noun : str
        What the HTML file is called on stderr (``"page written to ..."``).
    html_file : str or None
        ``--html``: where to write the page.
    fields : callable
        The JSON fields the report's ``to_dict`` lacks; called only for ``--json``.
    show : callable
        Prints the human-readable output; called only without ``--json``.
    reject : callable
        The report's decision at ``opts.level``; called only with ``--fail-on-reject``.
    ensure_ascii : bool
        Escape non-ASCII characters in the JSON output.
    """
    if html_file is not None:
        report.to_html(html_file, alpha=opts.level)
        if not opts.quiet:
            click.echo(f"{noun} written to {html_file}", err=True)
    if not opts.quiet:
        click.echo(f"seed used: {report.seed_used}", err=True)
    if opts.as_json:
        data = report.to_dict(include_arrays=False)
        data.update(test=test, **fields(), runtime_s=time.perf_counter() - started)
        echo_json(data, ensure_ascii=ensure_ascii)
    else:
        show()
    if opts.fail_on_reject and reject():
        sys.exit(EXIT_REJECT)
