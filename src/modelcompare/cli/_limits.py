"""Exit code 2 for a run refused by the memory guard (a usage problem: a size option is too large)."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any

import click

from modelcompare._foundation.errors import ResourceLimitError

__all__ = ["EXIT_USAGE", "exit_on_resource_limit"]

EXIT_USAGE = 2


def exit_on_resource_limit(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a :class:`ResourceLimitError` into one ``Error: ...`` line on stderr and exit code 2.

    Apply it below ``handle_errors`` so that it sees the error first (``ResourceLimitError`` is a
    ``ValueError``, which ``handle_errors`` reports with exit code 3).
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ResourceLimitError as exc:
            if os.environ.get("MODELCOMPARE_DEBUG") == "1":
                raise
            click.echo(f"Error: {exc}", err=True)
            sys.exit(EXIT_USAGE)

    return wrapper
