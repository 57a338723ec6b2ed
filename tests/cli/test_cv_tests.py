"""``modelcompare cv --test``: Dietterich's tests, the hierarchical test and the report."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import modelcompare as mc
from modelcompare.cli import app
from modelcompare.datasets import data_path

DATA = data_path("reference.npy").parent  # the example files shipped in the package


@pytest.fixture
def runner():
    return CliRunner()


def _json(out) -> dict:
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_5x2cv_t_and_f_equal_the_api(runner):
    frame = pd.read_csv(DATA / "cv_5x2.csv", index_col=0)
    a, b = frame.iloc[0].to_numpy(), frame.iloc[1].to_numpy()
    got = _json(runner.invoke(app, ["cv", str(DATA / "cv_5x2.csv"), "--test", "5x2cv", "--json"]))
    ref = mc.paired_ttest_5x2cv(a, b)
    assert got["statistic"] == ref.statistic
    assert got["pvalue"] == ref.pvalue
    got = _json(runner.invoke(app, ["cv", str(DATA / "cv_5x2.csv"), "--test", "5x2cv-f", "--json"]))
    assert got["pvalue"] == mc.combined_ftest_5x2cv(a, b).pvalue
    loss = _json(
        runner.invoke(app, ["cv", str(DATA / "cv_5x2.csv"), "--test", "5x2cv", "--loss", "--json"])
    )
    assert loss["statistic"] == pytest.approx(-ref.statistic)


def test_5x2cv_needs_two_models(runner, tmp_path):
    path = tmp_path / "three.csv"
    pd.DataFrame(np.ones((3, 10)), index=["a", "b", "c"]).to_csv(path, index_label="model")
    out = runner.invoke(app, ["cv", str(path), "--test", "5x2cv"])
    assert out.exit_code == 3
    assert "exactly 2 models" in out.output


def test_mcnemar_from_predictions_and_from_a_table(runner, tmp_path):
    pred = pd.read_csv(DATA / "mcnemar_predictions.csv")
    ref = mc.mcnemar_test(
        y_true=pred["y_true"], y_pred_a=pred["y_pred_a"], y_pred_b=pred["y_pred_b"], exact=True
    )
    args = ["cv", str(DATA / "mcnemar_predictions.csv"), "--test", "mcnemar", "--exact", "--json"]
    got = _json(runner.invoke(app, args))
    assert got["pvalue"] == ref.pvalue
    table = tmp_path / "table.csv"
    pd.DataFrame([[9959, 11], [1, 29]], columns=["b_right", "b_wrong"]).to_csv(table, index=False)
    got = _json(runner.invoke(app, ["cv", str(table), "--test", "mcnemar", "--json"]))
    assert got["statistic"] == pytest.approx(6.75)
    bad = tmp_path / "bad.csv"
    pd.DataFrame(np.ones((3, 3))).to_csv(bad, index=False)
    out = runner.invoke(app, ["cv", str(bad), "--test", "mcnemar"])
    assert out.exit_code == 3


def test_hierarchical_on_two_models(runner, tmp_path):
    long = pd.read_csv(DATA / "cv_splits_long.csv")
    two = long[long["model"].isin(["forest", "knn"])]
    path = tmp_path / "two.csv"
    two.to_csv(path, index=False)
    args = ["cv", str(path), "--test", "hierarchical", "--n-folds", "10", "--seed", "0", "--json"]
    got = _json(runner.invoke(app, args))
    assert got["n_datasets"] == 8
    assert got["prob_a_better"] + got["prob_rope"] + got["prob_a_worse"] == pytest.approx(1.0)
    assert "delta0" not in got  # the draws stay out of the JSON
    out = runner.invoke(app, ["cv", str(path), "--test", "hierarchical", "--alpha", "0.05"])
    assert out.exit_code == 2
    out = runner.invoke(app, ["cv", str(DATA / "cv_splits_long.csv"), "--test", "hierarchical"])
    assert out.exit_code == 3
    assert "2 models" in out.output


def test_report_text_json_and_fail_on_reject(runner):
    path = str(DATA / "cv_datasets.csv")
    out = runner.invoke(app, ["cv", path, "--test", "report", "--seed", "0"])
    assert out.exit_code == 0
    frame = pd.read_csv(path, index_col=0)
    ref = mc.compare_models_report(frame, seed=0)
    assert ref.summary in out.stdout
    got = _json(runner.invoke(app, ["cv", path, "--test", "report", "--seed", "0", "--json"]))
    assert got["pvalue"] == ref.pvalue
    assert got["models"] == ref.models
    args = ["cv", path, "--test", "report", "--alpha", "0.9", "--fail-on-reject"]
    assert runner.invoke(app, args).exit_code == 1
    long = str(DATA / "cv_splits_long.csv")
    got = _json(runner.invoke(app, ["cv", long, "--test", "report", "--seed", "0", "--json"]))
    assert got["n_splits"] == 10
    assert got["pvalue"] == ref.pvalue  # the same means


def test_pairwise_still_needs_the_split_sizes(runner):
    out = runner.invoke(app, ["cv", str(DATA / "cv_scores.csv")])
    assert out.exit_code == 2
    assert "--n-train" in out.output
