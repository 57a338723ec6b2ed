"""The ``modelcompare`` command-line interface: one subcommand per test family."""

from __future__ import annotations

import difflib
import importlib
import sys
from typing import Any

import click

from modelcompare import __version__
from modelcompare.cli._exit import EXIT_CODES_HELP, EXIT_INTERRUPTED, EXIT_USAGE

__all__ = ["app"]


def _cite(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        from modelcompare._foundation.citation import bibtex

        click.echo(bibtex())
        ctx.exit()


# Each subcommand lives in its own module, imported only when it is run or its help is shown.
_COMMANDS = {
    "c2st": ("modelcompare.cli._c2st", "c2st_command"),
    "relative": ("modelcompare.cli._relative", "relative_command"),
    "fid": ("modelcompare.cli._fid", "fid_command"),
    "coverage": ("modelcompare.cli._coverage", "coverage_command"),
    "granularity": ("modelcompare.cli._granularity", "granularity_command"),
    "cv": ("modelcompare.cli._cv", "cv_command"),
    "sweep": ("modelcompare.cli._sweep", "sweep_command"),
    "report": ("modelcompare.cli._report", "report_command"),
    "compare-posteriors": ("modelcompare.cli._compare_posteriors", "compare_posteriors_command"),
    "features": ("modelcompare.cli._features", "features_command"),
    "metrics": ("modelcompare.cli._metrics", "metrics_command"),
    "compare-generators": ("modelcompare.cli._compare_generators", "compare_generators_command"),
    "example-data": ("modelcompare.cli._example_data", "example_data_command"),
}


def _one_line_error(exc: click.ClickException) -> None:
    """Report a click error as one line ``Error: ...`` on stderr (a usage error adds the hint)."""
    from modelcompare.cli._common import one_line

    message = one_line(exc.format_message())
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        message += f" (see '{ctx.command_path} --help')"
    click.echo(f"Error: {message}", err=True)


class _LazyGroup(click.Group):
    """A group whose subcommands are imported on first use.

    Its ``main`` reports click's own errors (a bad option value, an unknown option or command) as
    one line ``Error: ...`` with exit code 2, like the subcommands' data errors, instead of click's
    usage block; a mistyped command gets the closest names (``Did you mean 'c2st'?``); Ctrl-C
    exits 130; and a closed stdout (``modelcompare ... | head -1``) exits 141 silently.
    """

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        from modelcompare.cli._common import quiet_broken_pipe

        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click.exceptions.NoArgsIsHelpError as exc:  # bare `modelcompare`: the help
            exc.show()
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            _one_line_error(exc)
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:  # click's name for a KeyboardInterrupt (Ctrl-C)
            click.echo("Interrupted.", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            quiet_broken_pipe()
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: click.Context) -> Any:
        if not {"--help", "-h"} & set(ctx.args):  # the help of a subcommand needs no limit
            _check_memory_limit()
        return super().invoke(ctx)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=3, cutoff=0.6)
            if close:
                hint = " or ".join(f"'{c}'" for c in close)
                ctx.fail(f"No such command '{name}'. Did you mean {hint}?")
        return super().resolve_command(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*_COMMANDS, *super().list_commands(ctx)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in _COMMANDS:
            return super().get_command(ctx, cmd_name)
        module_name, attr = _COMMANDS[cmd_name]
        return getattr(importlib.import_module(module_name), attr)


@click.group(
    cls=_LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=EXIT_CODES_HELP,
)
@click.version_option(__version__, prog_name="modelcompare")
@click.option(
    "--cite",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_cite,
    help="Print BibTeX for modelcompare and the methods it implements, and exit.",
)
def app() -> None:
    """Calibrated statistics for comparing models."""


def _check_memory_limit() -> None:
    """Refuse an invalid ``MODELCOMPARE_MAX_MEMORY`` at start-up, for every subcommand (exit 2)."""
    from modelcompare._foundation.resources import memory_limit

    try:
        memory_limit()
    except ValueError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
