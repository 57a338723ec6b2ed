"""Every subcommand on bad files and bad options: one line ``Error: ...``, exit 2 or 3, fast.

Also the shared plumbing: one-line usage errors, a quiet exit on a closed pipe, the exit code of a
resource limit, and finite-number options.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from modelcompare._foundation import errors
from modelcompare.cli import app
from modelcompare.cli._exit import EXIT_BROKEN_PIPE
from modelcompare.datasets import data_path

EXAMPLE_CSV = str(data_path("cv_scores.csv"))

BAD_FILES = {
    "missing": None,
    "empty": ("empty.csv", ""),
    "ragged": ("ragged.csv", "1,2\n3,4,5\n6,7\n"),
    "nan": ("nan.csv", "1,2\nnan,4\n5,6\n"),
    "strings": ("strings.csv", "a,b\nx,y\nz,w\n"),
    "garbage": ("garbage.npy", b"not an array"),
    "3d": ("cube.npy", np.zeros((3, 3, 3))),
    "text": ("words.npy", np.array([["a", "b"], ["c", "d"]])),
    "bad yaml": ("bad.yaml", "data: {x: a.npy\ntests: [\n"),
    "bad json": ("bad.json", '{"data": \n'),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    paths = {}
    for label, spec in BAD_FILES.items():
        if spec is None:
            paths[label] = str(folder / "missing.npy")
            continue
        name, content = spec
        path = folder / name
        if isinstance(content, np.ndarray):
            np.save(path, content)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        paths[label] = str(path)
    good = folder / "good.npy"
    np.save(good, np.random.default_rng(0).normal(size=(20, 2)))
    paths["good"] = str(good)
    return paths


def commands(bad: str, good: str) -> dict[str, list[str]]:
    return {
        "c2st": ["c2st", bad, good, "--classifier", "logistic"],
        "relative": ["relative", bad, good, good],
        "coverage": ["coverage", bad, good],
        "granularity": ["granularity", bad, "--reference", "stairs:c=3,L=3,stairs=2"],
        "cv": ["cv", bad, "--n-train", "9", "--n-test", "1"],
        "sweep": ["sweep", bad],
    }


BAD_OPTIONS = {
    "c2st": [["--alpha", "nan"], ["--n-folds", "inf"], ["--n-folds", "1"], ["--classifier", "x"]],
    "relative": [["--alpha", "nan"], ["--n-locations", "nan"], ["--seed", "-1"], ["--test", "x"]],
    "coverage": [["--n-null", "0"], ["--alpha", "2"], ["--n-alphas", "inf"]],
    "granularity": [["--alpha", "nan"], ["--n-bins-max", "nan"], ["--reference", "stairs:c=inf"]],
    "cv": [["--rope", "nan"], ["--alpha", "nan"], ["--n-train", "inf"], ["--n-test", "nan"]],
    "sweep": [["--n-jobs", "0"], ["--n-jobs", "inf"], ["--seed", "nan"]],
}


def assert_one_line_error(result, codes=(2, 3)):
    lines = result.output.strip().splitlines()
    assert result.exit_code in codes, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: "), result.output
    assert "Traceback" not in result.output


def test_bad_files_give_one_line_errors(files):
    runner = CliRunner()
    for label in BAD_FILES:
        for name, args in commands(files[label], files["good"]).items():
            result = runner.invoke(app, args)
            try:
                assert_one_line_error(result)
            except AssertionError as exc:
                raise AssertionError(f"{name} on a {label} file: {exc}") from None


def test_bad_options_give_one_line_usage_errors(files):
    runner = CliRunner()
    good = files["good"]
    for name, option_sets in BAD_OPTIONS.items():
        base = commands(good, good)[name]
        for options in option_sets:
            result = runner.invoke(app, [*base, *options])
            try:
                assert_one_line_error(result, codes=(2,))
            except AssertionError as exc:
                raise AssertionError(f"{name} {' '.join(options)}: {exc}") from None
        unknown = runner.invoke(app, [*base, "--bogus-flag"])
        assert_one_line_error(unknown, codes=(2,))
        assert "--bogus-flag" in unknown.output


def test_unknown_command_and_bare_group():
    runner = CliRunner()
    result = runner.invoke(app, ["nosuch"])
    assert_one_line_error(result, codes=(2,))
    assert "No such command 'nosuch'" in result.output
    bare = runner.invoke(app, [])
    assert "Commands:" in bare.output  # the help, as before
    assert runner.invoke(app, ["--version"]).exit_code == 0


def test_nan_options_are_refused_by_the_option_parser():
    runner = CliRunner()
    for options in (["--rope", "nan"], ["--alpha", "nan"], ["--n-train", "inf"]):
        args = ["cv", EXAMPLE_CSV, "--n-train", "90", "--n-test", "10", *options]
        result = runner.invoke(app, args)
        assert_one_line_error(result, codes=(2,))
        assert "is not a finite number" in result.output or "range" in result.output
        assert options[0] in result.output


def test_resource_limit_error_exits_2(monkeypatch):
    class ResourceLimitError(ValueError):
        pass

    monkeypatch.setattr(errors, "ResourceLimitError", ResourceLimitError, raising=False)

    def too_big(*_args, **_kwargs):
        msg = "the pairwise table would need 10 TiB;\nlower the number of models."
        raise ResourceLimitError(msg)

    import modelcompare.cv

    monkeypatch.setattr(modelcompare.cv, "compare_models", too_big)
    result = CliRunner().invoke(app, ["cv", EXAMPLE_CSV, "--n-train", "90", "--n-test", "10"])
    assert_one_line_error(result, codes=(2,))
    assert "10 TiB; lower the number" in result.output


def test_library_value_errors_still_exit_3(monkeypatch):
    import modelcompare.cv

    def broken(*_args, **_kwargs):
        msg = "two\nlines"
        raise ValueError(msg)

    monkeypatch.setattr(modelcompare.cv, "compare_models", broken)
    result = CliRunner().invoke(app, ["cv", EXAMPLE_CSV, "--n-train", "90", "--n-test", "10"])
    assert_one_line_error(result, codes=(3,))
    assert "Error: two lines" in result.output


def test_closed_stdout_exits_quietly():
    """``modelcompare cv ... | head -1``: no message, exit 141 as unix tools report SIGPIPE."""
    code = "from modelcompare.cli import app; app()"
    args = ["cv", EXAMPLE_CSV, "--n-train", "90", "--n-test", "10"]
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.close()  # the reader goes away before anything is written
    stderr = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == EXIT_BROKEN_PIPE
    assert stderr == ""
