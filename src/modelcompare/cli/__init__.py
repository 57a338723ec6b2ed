"""The ``modelcompare`` command-line interface: one subcommand per test family.

Each subcommand lives in its own module and is registered below.
"""

from __future__ import annotations

import click

from .. import __version__

__all__ = ["app"]

_CITATION = """@inproceedings{lopezpaz2017revisiting,
  title={Revisiting Classifier Two-Sample Tests},
  author={Lopez-Paz, David and Oquab, Maxime},
  booktitle={ICLR}, year={2017}}"""


def _cite(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(_CITATION)
        ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="modelcompare")
@click.option(
    "--cite", is_flag=True, expose_value=False, is_eager=True, callback=_cite,
    help="Print BibTeX for the methods and exit.",
)
def app() -> None:
    """Calibrated statistics for comparing models."""


def _register() -> None:
    from ._c2st import c2st_command

    app.add_command(c2st_command)

    # relative fit (issue 3)
    from ._relative import relative_command

    app.add_command(relative_command)

    # posterior diagnostics (issue 4)
    from ._coverage import coverage_command

    app.add_command(coverage_command)

    # categorical granularity (issue 5)
    from ._granularity import granularity_command

    app.add_command(granularity_command)

    # cross-validated comparison (issue 6)
    from ._cv import cv_command

    app.add_command(cv_command)

    # sweeps (issue 7)
    from ._sweep import sweep_command

    app.add_command(sweep_command)


_register()
