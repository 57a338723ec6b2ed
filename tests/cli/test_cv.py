"""``modelcompare cv`` through click's CliRunner: table, JSON, options and bad input (exit 3)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from modelcompare import compare_models
from modelcompare.cli import app
from modelcompare.datasets import data_path

EXAMPLE_CSV = str(data_path("cv_scores.csv"))


@pytest.fixture
def runner():
    return CliRunner()


def test_table_output(runner):
    out = runner.invoke(
        app, ["cv", EXAMPLE_CSV, "--n-train", "90", "--n-test", "10", "--alternative", "greater"]
    )
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    header = next(i for i, ln in enumerate(lines) if ln.split()[:2] == ["model_a", "model_b"])
    first = lines[header + 1].split()
    assert first[:2] == ["rbf", "linear"]
    assert first[3] == "0.7503"
    assert first[6] == "1"
    assert "rbf 0.94, linear 0.93" in out.stdout


def test_json_matches_python_api(runner):
    out = runner.invoke(
        app,
        [
            "cv",
            EXAMPLE_CSV,
            "--n-train",
            "90",
            "--n-test",
            "10",
            "--json",
            "--correction",
            "holm",
            "--rope",
            "0.02",
        ],
    )
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    ref = compare_models(
        pd.read_csv(EXAMPLE_CSV, index_col=0), n_train=90, n_test=10, correction="holm", rope=0.02
    )
    assert payload["test"] == "cv"
    assert payload["alternative"] == "two-sided"
    assert payload["rope"] == [-0.02, 0.02]
    assert payload["correction"] == "holm"
    assert len(payload["table"]) == len(ref.table) == 6
    for pair, row in zip(payload["table"], ref.table.itertuples(), strict=True):
        assert pair["t"] == row.t
        assert pair["p_adjusted"] == row.p_adjusted
        assert pair["prob_rope"] == row.prob_rope
    assert payload["pvalue"] == ref.pvalue == ref.table["p_adjusted"].min()
    expected = ref.to_dict()
    keys = ("statistic", "model_a", "model_b", "n_splits", "test_train_ratio", "ratio_source")
    assert {k: payload[k] for k in keys} == {k: expected[k] for k in keys}
    assert "reject" not in payload


def test_layout_loss_and_no_names(runner, tmp_path, rng):
    scores = rng.normal(size=(12, 3)) * 0.1 + np.array([1.0, 1.2, 1.5])  # splits × models, losses
    path = tmp_path / "losses.csv"
    pd.DataFrame(scores, columns=["m1", "m2", "m3"]).to_csv(path, index=False)
    out = runner.invoke(
        app,
        [
            "cv",
            str(path),
            "--n-train",
            "40",
            "--n-test",
            "10",
            "--layout",
            "splits-by-models",
            "--loss",
            "--json",
        ],
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["models"] == ["m1", "m2", "m3"]
    bare = tmp_path / "bare.csv"
    np.savetxt(bare, scores.T, delimiter=",")
    out = runner.invoke(app, ["cv", str(bare), "--n-train", "40", "--n-test", "10", "--json"])
    assert out.exit_code == 0, out.output
    assert sorted(json.loads(out.stdout)["models"]) == ["model_0", "model_1", "model_2"]


def test_fail_on_reject(runner):
    args = ["cv", EXAMPLE_CSV, "--n-train", "90", "--n-test", "10", "--alpha", "0.05"]
    out = runner.invoke(app, args)
    assert out.exit_code == 0
    assert "reject H0 at 0.05" in out.stdout
    assert runner.invoke(app, [*args, "--fail-on-reject"]).exit_code == 1
    payload = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    ref = compare_models(pd.read_csv(EXAMPLE_CSV, index_col=0), n_train=90, n_test=10)
    assert payload["reject"] is ref.decision(0.05) is True
    assert payload["alpha"] == 0.05
    # a level at which nothing is rejected: exit 0 even with --fail-on-reject
    strict = ["cv", EXAMPLE_CSV, "--n-train", "90", "--n-test", "10", "--alpha", "1e-12"]
    assert runner.invoke(app, [*strict, "--fail-on-reject"]).exit_code == 0


def test_bad_input_exit_codes(runner, tmp_path):
    nan_csv = tmp_path / "nan.csv"
    nan_csv.write_text("model,s0,s1,s2\na,0.8,0.9,\nb,0.7,0.8,0.75\n")
    out = runner.invoke(app, ["cv", str(nan_csv), "--n-train", "9", "--n-test", "1"])
    assert out.exit_code == 3
    assert "Error:" in out.stderr
    assert "'a' split 2" in out.stderr
    ok = runner.invoke(
        app, ["cv", str(nan_csv), "--n-train", "9", "--n-test", "1", "--nan-policy", "omit"]
    )
    assert ok.exit_code == 0, ok.output
    one = tmp_path / "one.csv"
    one.write_text("model,s0,s1\na,0.8,0.9\n")
    out = runner.invoke(app, ["cv", str(one), "--n-train", "9", "--n-test", "1"])
    assert out.exit_code == 3
    assert "at least 2 models" in out.stderr
    text = tmp_path / "text.csv"
    text.write_text("model,s0,s1\na,0.8,x\nb,0.7,0.6\n")
    out = runner.invoke(app, ["cv", str(text), "--n-train", "9", "--n-test", "1"])
    assert out.exit_code == 3
    assert "not numeric" in out.stderr
    out = runner.invoke(
        app, ["cv", str(tmp_path / "missing.csv"), "--n-train", "9", "--n-test", "1"]
    )
    assert out.exit_code == 3
    assert "no such file" in out.stderr
    out = runner.invoke(app, ["cv", EXAMPLE_CSV, "--n-test", "10"])
    assert out.exit_code == 2  # usage error: --n-train missing
    out = runner.invoke(app, ["cv", EXAMPLE_CSV, "--n-train", "9", "--n-test", "10"])
    assert out.exit_code == 0
    assert "swapped" in out.stderr


@pytest.mark.parametrize(
    ("option", "value"),
    [("--rope", "nan"), ("--rope", "inf"), ("--alpha", "nan"), ("--n-train", "inf")],
)
def test_non_finite_options_are_usage_errors(runner, option, value):
    args = ["cv", EXAMPLE_CSV, "--n-train", "90", "--n-test", "10", option, value]
    out = runner.invoke(app, args)
    assert out.exit_code == 2
    lines = out.output.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"Error: Invalid value for '{option}'")


def test_npy_score_matrix(runner, tmp_path):
    frame = pd.read_csv(EXAMPLE_CSV, index_col=0)
    np.save(tmp_path / "scores.npy", frame.to_numpy())
    out = runner.invoke(
        app, ["cv", str(tmp_path / "scores.npy"), "--n-train", "90", "--n-test", "10", "--json"]
    )
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    ref = json.loads(
        runner.invoke(
            app, ["cv", EXAMPLE_CSV, "--n-train", "90", "--n-test", "10", "--json"]
        ).stdout
    )
    assert [p["t"] for p in payload["table"]] == [p["t"] for p in ref["table"]]
    assert payload["models"][0].startswith("model_")
    np.save(tmp_path / "cube.npy", np.zeros((2, 2, 2)))
    out = runner.invoke(app, ["cv", str(tmp_path / "cube.npy"), "--n-train", "9", "--n-test", "1"])
    assert out.exit_code == 3
    assert "2-D" in out.stderr
