"""``modelcompare example-data``: write the example files shipped with the package."""

from __future__ import annotations

from pathlib import Path

import click

from modelcompare.cli._exit import EXIT_DATA
from modelcompare.datasets import DEFAULT_DIRECTORY, write_example_data


@click.command("example-data")
@click.argument(
    "directory",
    required=False,
    default=str(DEFAULT_DIRECTORY),
    type=click.Path(file_okay=False, path_type=Path),
)
def example_data_command(directory: Path) -> None:
    """Write the example data the other commands' examples use into DIRECTORY.

    DIRECTORY defaults to examples/data, the paths the examples of every subcommand's --help
    read; it is created if missing, and files of the same name are replaced. From Python the same
    data are ``modelcompare.datasets.load_*()``.

    \b
    Example (then every other command's examples run as written):
      $ modelcompare example-data
      wrote 25 files to examples/data
    """
    try:
        written = write_example_data(directory)
    except (OSError, ValueError) as exc:
        click.echo(f"Error: {directory}: {exc}", err=True)
        raise SystemExit(EXIT_DATA) from exc
    click.echo(f"wrote {len(written)} files to {directory.as_posix()}")
