"""The ``modelcompare`` CLI: c2st on the shipped examples, readers, output modes and exit codes."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from modelcompare import __version__, c2st
from modelcompare.cli import app
from modelcompare.datasets import data_path

EXAMPLES = data_path("reference.npy").parent  # the example files shipped in the package
REF = str(EXAMPLES / "reference.npy")
SAMPLES = str(EXAMPLES / "samples.npy")


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def test_version_help_and_cite(runner):
    assert __version__ in runner.invoke(app, ["--version"]).output
    assert "c2st" in runner.invoke(app, ["--help"]).output
    out = runner.invoke(app, ["c2st", "-h"]).output
    assert "Example" in out
    assert "--classifier" in out
    assert "Lopez-Paz" in runner.invoke(app, ["--cite"]).output


def test_c2st_json_matches_the_library(runner):
    res = runner.invoke(
        app, ["c2st", REF, SAMPLES, "--classifier", "logistic", "--seed", "3", "--json"]
    )
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    direct = c2st(np.load(REF), np.load(SAMPLES), classifier="logistic", seed=3)
    assert payload["statistic"] == direct.statistic
    assert payload["pvalue"] == direct.pvalue
    assert payload["test"] == "c2st"
    assert payload["seed"] == 3
    assert payload["version"] == __version__
    assert payload["params"]["classifier"] == "logistic"
    assert list(payload) == sorted(payload)


def _reading_line(stdout: str) -> str:
    (line,) = [ln for ln in stdout.splitlines() if ln.startswith("reading")]
    return line


def test_c2st_reading_follows_alpha(runner):
    # p = 0.0016 on the shipped data with the logistic classifier, seed 0
    base = ["c2st", REF, SAMPLES, "--classifier", "logistic", "--seed", "0"]
    direct = c2st(np.load(REF), np.load(SAMPLES), classifier="logistic", seed=0)
    assert 0.001 < direct.pvalue < 0.01
    plain = _reading_line(runner.invoke(app, base).stdout)
    assert "chance" not in plain  # no --alpha: no verdict
    assert "p = " in plain
    loose = _reading_line(runner.invoke(app, [*base, "--alpha", "0.05"]).stdout)
    assert "at alpha = 0.05, above chance" in loose
    strict = _reading_line(runner.invoke(app, [*base, "--alpha", "0.001"]).stdout)
    assert "at alpha = 0.001, consistent with chance" in strict
    assert direct.summary(alpha=0.001) in strict
    assert direct.summary(alpha=None) in plain


def test_c2st_table_and_csv_reader(runner):
    res = runner.invoke(
        app, ["c2st", REF, str(EXAMPLES / "samples.csv"), "--classifier", "logistic", "--seed", "3"]
    )
    assert res.exit_code == 0, res.output
    assert "statistic (accuracy)" in res.stdout
    assert "pvalue" in res.stdout
    assert "seed used: 3" in res.stderr
    # the CSV holds the same draws as the .npy
    npy = runner.invoke(app, ["c2st", REF, SAMPLES, "--classifier", "logistic", "--seed", "3"])
    line = [ln for ln in npy.stdout.splitlines() if ln.startswith("statistic")]
    assert line
    assert line == [ln for ln in res.stdout.splitlines() if ln.startswith("statistic")]


def test_npz_with_key_and_alpha_gating(runner, tmp_path):
    path = tmp_path / "draws.npz"
    rng = np.random.default_rng(0)
    np.savez(path, a=rng.normal(size=(300, 2)), b=rng.normal(1.0, 1.0, size=(300, 2)))
    args = ["c2st", f"{path}:a", f"{path}:b", "--classifier", "logistic", "--seed", "0"]
    res = runner.invoke(app, [*args, "--alpha", "0.05", "--fail-on-reject"])
    assert res.exit_code == 1
    assert "reject H0" in res.stdout
    assert runner.invoke(app, [*args, "--alpha", "0.05"]).exit_code == 0
    # an npz with several arrays needs a key
    res = runner.invoke(app, ["c2st", str(path), f"{path}:b", "--classifier", "logistic"])
    assert res.exit_code == 3
    assert "name one" in res.stderr


def test_parquet_reader(runner, tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    path = tmp_path / "s.parquet"
    pd.DataFrame(np.load(SAMPLES), columns=["a", "b"]).to_parquet(path)
    res = runner.invoke(app, ["c2st", REF, str(path), "--classifier", "logistic", "--seed", "1"])
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.write_text("not,numbers\nx,y\n"), "not numeric"),
        (lambda p: p.write_bytes(b"\x00\x01garbage"), "could not read"),
        (lambda p: np.save(p, np.full((20, 2), np.nan)), "finite"),
        (lambda p: np.save(p, np.zeros((20, 3))), "same number of columns"),
    ],
)
def test_bad_files_exit_3_with_one_line(runner, tmp_path, make, message):
    suffix = ".csv" if "numbers" in message or "numeric" in message else ".npy"
    path = tmp_path / f"bad{suffix}"
    make(path)
    res = runner.invoke(app, ["c2st", REF, str(path), "--classifier", "logistic"])
    assert res.exit_code == 3, res.output
    assert res.stderr.startswith("Error: ")
    assert message in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert "Traceback" not in res.stderr


def test_missing_file_and_unknown_suffix(runner, tmp_path):
    res = runner.invoke(app, ["c2st", REF, str(tmp_path / "nope.npy")])
    assert res.exit_code == 3
    assert "no such file" in res.stderr
    other = tmp_path / "x.xlsx"
    other.write_text("")
    res = runner.invoke(app, ["c2st", REF, str(other)])
    assert res.exit_code == 3
    assert "unsupported file type" in res.stderr


def test_usage_errors_exit_2(runner):
    assert runner.invoke(app, ["c2st", REF]).exit_code == 2
    assert runner.invoke(app, ["c2st", REF, SAMPLES, "--classifier", "svm"]).exit_code == 2
    assert runner.invoke(app, ["c2st", REF, SAMPLES, "--n-folds", "1"]).exit_code == 2
    assert runner.invoke(app, ["c2st", REF, SAMPLES, "--hidden", "a,b"]).exit_code == 2


@pytest.mark.torch
def test_mlp_with_progress_bar(runner):
    res = runner.invoke(
        app, ["c2st", REF, SAMPLES, "--seed", "0", "--hidden", "8", "--max-epochs", "30", "--json"]
    )
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    assert payload["classifier"] == "mlp"
    assert len(payload["epochs"]) == 5
    assert "epoch" in res.stderr  # tqdm on stderr


def test_oversized_network_exits_2_at_once(runner, monkeypatch):
    from modelcompare._foundation.mlp import trainer

    def never_train(*args, **kwargs):
        raise AssertionError("trained before the memory check")

    monkeypatch.setattr(trainer, "train_mlp", never_train)
    res = runner.invoke(app, ["c2st", REF, SAMPLES, "--hidden", "1000000000", "--seed", "0"])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith("Error: ")
    assert "lower `--hidden`" in res.stderr  # the option, not the Python argument
    assert len(res.stderr.strip().splitlines()) == 1
    assert "Traceback" not in res.stderr
    assert res.stdout == ""
