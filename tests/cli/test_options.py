"""The command line's shared pieces: its exit codes, its options and the library's words in its own.

Each exit code is reached by a command; a library message that names Python arguments reaches the
user with the options and positionals they typed; a mistyped subcommand gets the closest names.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

import click
import numpy as np
import pytest
from click.testing import CliRunner

from modelcompare._foundation.pvalues import CORRECTIONS
from modelcompare.cli import _exit, app
from modelcompare.cli import _options as options
from modelcompare.cli._options import (
    CORRECTION_CHOICES,
    LIBRARY_NAMES,
    cli_message,
    cli_names,
    library_correction,
)
from modelcompare.datasets import data_path

ROOT = Path(__file__).resolve().parents[2]
DATA = data_path("reference.npy").parent  # the example files shipped in the package
CLI = ROOT / "src" / "modelcompare" / "cli"
CV = ["cv", str(DATA / "cv_scores.csv"), "--n-train", "90", "--n-test", "10"]


def one_line_error(result) -> str:
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: "), result.output
    return lines[0]


# ---------------------------------------------------------------------------------------------
# exit codes


def test_exit_code_0_when_the_test_ran() -> None:
    assert CliRunner().invoke(app, [*CV, "--alpha", "0.05"]).exit_code == _exit.EXIT_OK


def test_exit_code_1_only_with_fail_on_reject() -> None:
    runner = CliRunner()
    assert runner.invoke(app, [*CV, "--alpha", "0.05"]).exit_code == 0  # rejects, no gate
    gated = runner.invoke(app, [*CV, "--alpha", "0.05", "--fail-on-reject"])
    assert gated.exit_code == _exit.EXIT_REJECT == 1


@pytest.mark.parametrize(
    "args",
    [
        [*CV, "--correction", "bogus"],
        ["report", "--pit", str(DATA / "pit.npy"), "--checks", "bogus"],
        ["c2s"],
    ],
    ids=["bad choice", "unknown check", "unknown command"],
)
def test_exit_code_2_on_usage_errors(args) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == _exit.EXIT_USAGE == 2
    one_line_error(result)


def test_exit_code_3_on_unreadable_input(tmp_path) -> None:
    result = CliRunner().invoke(app, ["cv", str(tmp_path / "missing.csv"), "--n-train", "9"])
    assert result.exit_code == 2  # --n-test is missing: usage first
    result = CliRunner().invoke(
        app, ["cv", str(tmp_path / "missing.csv"), "--n-train", "9", "--n-test", "1"]
    )
    assert result.exit_code == _exit.EXIT_DATA == 3
    one_line_error(result)


def test_exit_code_130_when_interrupted(monkeypatch) -> None:
    import modelcompare.cv

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(modelcompare.cv, "compare_models", interrupted)
    result = CliRunner().invoke(app, CV)
    assert result.exit_code == _exit.EXIT_INTERRUPTED == 130
    assert "Interrupted." in result.output
    assert "Traceback" not in result.output


def test_the_exit_codes_are_documented_once_in_the_main_help() -> None:
    text = CliRunner().invoke(app, ["--help"]).output
    assert "Exit codes:" in text
    for code, meaning in _exit.EXIT_CODES.items():
        assert re.search(rf"^\s+{code}\s+{re.escape(meaning[:20])}", text, re.MULTILINE), code
    page = (ROOT / "docs" / "cli.rst").read_text(encoding="utf-8")
    assert "exit codes" in page.lower()
    assert not re.search(r"\b3 unreadable", page)  # not a second list that can drift


def test_each_exit_code_is_defined_in_one_module() -> None:
    for name in ("EXIT_USAGE", "EXIT_DATA", "EXIT_REJECT", "EXIT_INTERRUPTED"):
        defined = [
            path.name
            for path in CLI.glob("*.py")
            if re.search(rf"^{name}\s*=", path.read_text(encoding="utf-8"), re.MULTILINE)
        ]
        assert defined == ["_exit.py"], (name, defined)


# ---------------------------------------------------------------------------------------------
# the shared options, one object


def test_common_options_reach_the_command_as_one_object() -> None:
    seen = {}

    @click.command()
    @click.option("--n", type=int, default=1)
    @options.seed(help="Base seed.")  # declared apart, as `sweep` does, and still gathered
    @options.common_options(columns=True, seed=False, decision=False)
    def command(n: int, opts: options.CommonOptions) -> None:
        seen.update(n=n, opts=opts)

    result = CliRunner().invoke(command, ["--columns", "a,b", "--seed", "3", "-q", "--n", "2"])
    assert result.exit_code == 0, result.output
    assert [p.name for p in command.params] == ["n", "seed", "columns", "as_json", "quiet"]
    assert seen == {"n": 2, "opts": options.CommonOptions(columns="a,b", seed=3, quiet=True)}
    assert seen["opts"].column_names == ["a", "b"]
    assert seen["opts"].level == 0.05


def test_every_command_takes_the_shared_options_as_one_object() -> None:
    shared = {f.name for f in dataclasses.fields(options.CommonOptions)}
    ctx = click.Context(app)
    for name in app.list_commands(ctx):
        command = app.get_command(ctx, name)
        if not shared & {p.name for p in command.params}:
            continue  # example-data takes none of them
        parameters = set(inspect.signature(inspect.unwrap(command.callback)).parameters)
        assert "opts" in parameters, name
        assert not shared & parameters, (name, shared & parameters)


# ---------------------------------------------------------------------------------------------
# "did you mean"


def test_a_mistyped_command_gets_the_closest_names() -> None:
    result = CliRunner().invoke(app, ["covrage"])
    assert result.exit_code == 2
    line = one_line_error(result)
    assert "No such command 'covrage'. Did you mean 'coverage'?" in line
    far = CliRunner().invoke(app, ["zzzz"])
    assert far.exit_code == 2
    assert "Did you mean" not in far.output


# ---------------------------------------------------------------------------------------------
# the library's argument names in the CLI's words


def test_c2st_names_reference_and_samples_on_mismatched_widths(tmp_path) -> None:
    rng = np.random.default_rng(0)
    np.save(tmp_path / "a.npy", rng.normal(size=(40, 3)))
    np.save(tmp_path / "b.npy", rng.normal(size=(40, 2)))
    args = ["c2st", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "--classifier", "logistic"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 3
    line = one_line_error(result)
    assert "`REFERENCE`, `SAMPLES` must have the same number of columns" in line
    assert "`x`" not in line


@pytest.mark.parametrize("test", ["ume", "mmd"])
def test_relative_names_subsample_on_unequal_sizes(tmp_path, test) -> None:
    rng = np.random.default_rng(0)
    for name, n in (("p", 40), ("q", 30), ("r", 40)):
        np.save(tmp_path / f"{name}.npy", rng.normal(size=(n, 2)))
    files = [str(tmp_path / f"{name}.npy") for name in "pqr"]
    result = CliRunner().invoke(app, ["relative", *files, "--test", test])
    assert result.exit_code == 3
    line = one_line_error(result)
    assert "`P_SAMPLES`, `Q_SAMPLES` and `REF_SAMPLES`" in line
    assert "Pass `--subsample`" in line
    assert "subsample=True" not in line


def _command() -> click.Command:
    @click.command("demo")
    @click.argument("reference")
    @click.option("--n-resamples", type=int)
    @click.option("--optimizer", type=click.Choice(["default", "none"]))
    @click.option("--subsample", is_flag=True)
    @click.option("--mode", type=str)
    def demo(**_kwargs):
        pass

    return demo


@pytest.mark.parametrize(
    ("library", "typed"),
    [
        ("`reference` is empty.", "`REFERENCE` is empty."),
        ("Pass `subsample=True` to draw.", "Pass `--subsample` to draw."),
        ("Pass `n_resamples=None` to choose B.", "Omit `--n-resamples` to choose B."),
        ("or pass `optimizer=None`.", "or pass `--optimizer none`."),
        ("with `mode='paper'`", "with `--mode paper`"),
        ("`n_resamples`=20 is too few; needs n_resamples >= 359.", None),
        ("`x_n_resamples` and fit_n_resamples stay; `n_resamples + 1` too.", "same"),
    ],
)
def test_cli_message_replaces_whole_backticked_names(library, typed) -> None:
    out = cli_message(library, _command())
    if typed == "same":
        assert out == library
    elif typed is None:
        assert out == "`--n-resamples`=20 is too few; needs --n-resamples >= 359."
    else:
        assert out == typed


def test_every_mapped_name_is_an_option_or_positional_of_its_command() -> None:
    ctx = click.Context(app)
    for command, mapping in LIBRARY_NAMES.items():
        sub = app.get_command(ctx, command)
        names = cli_names(sub)
        assert all(names.get(library) is not None for library in mapping), command


def test_correction_accepts_the_library_corrections() -> None:
    assert [library_correction(c) for c in CORRECTION_CHOICES] == list(CORRECTIONS)
    for command in ("cv", "coverage"):
        sub = app.get_command(click.Context(app), command)
        option = next(p for p in sub.params if p.name in ("correction", "eval_correction"))
        assert tuple(option.type.choices) == CORRECTION_CHOICES, command


def test_the_cli_imports_public_names_of_the_other_parts() -> None:
    private = re.compile(r"from modelcompare\.(workflows|categorical|experiments)\._")
    found = [
        path.name for path in CLI.glob("*.py") if private.search(path.read_text(encoding="utf-8"))
    ]
    assert not found
