"""``modelcompare coverage`` CLI (issue 4, item 11)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from modelcompare import ConditionalGaussianModel, local_coverage_test, pit
from modelcompare.cli import app


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("coverage")
    model = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
    theta, x = model.simulate(400, seed=0)
    p = pit(model.exact_flow(), theta, x)
    np.save(d / "pit.npy", p)
    np.save(d / "x.npy", x)
    np.save(d / "xe.npy", np.array([[0.0, 0.0], [2.0, 2.0]]))
    np.save(d / "bad.npy", np.full((400, 2), 2.0))
    np.save(d / "short.npy", x[:10])
    return d, p, x


def test_coverage_json_matches_library(files):
    d, p, x = files
    args = [
        "coverage",
        str(d / "pit.npy"),
        str(d / "x.npy"),
        "--x-eval",
        str(d / "xe.npy"),
        "--regressor",
        "knn",
        "--n-null",
        "40",
        "--n-alphas",
        "19",
        "--seed",
        "3",
        "--json",
    ]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["test"] == "coverage"
    assert out["seed"] == 3
    lib = local_coverage_test(
        p, x, [[0.0, 0.0], [2.0, 2.0]], regressor="knn", n_null=40, alphas=19, seed=3
    )
    np.testing.assert_allclose(out["local"]["pvalue"], lib.pvalue)
    np.testing.assert_allclose(out["local"]["statistic"], lib.statistic)
    assert 0 < out["pvalue"] <= 1
    assert out["independence"]["method"] == "spearman"


def test_coverage_table_and_global_only(files):
    d, _, _ = files
    res = CliRunner().invoke(
        app, ["coverage", str(d / "pit.npy"), str(d / "x.npy"), "--alpha", "0.05"]
    )
    assert res.exit_code == 0, res.output
    assert "global pvalue (Bonferroni)" in res.stdout
    assert "decision" in res.stdout
    res = CliRunner().invoke(
        app,
        [
            "coverage",
            str(d / "pit.npy"),
            str(d / "x.npy"),
            "--x-eval",
            str(d / "xe.npy"),
            "--regressor",
            "knn",
            "--n-null",
            "20",
            "--eval-correction",
            "holm",
            "--seed",
            "0",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "adjusted" in res.stdout


@pytest.mark.parametrize(
    ("pit_file", "x_file", "match"),
    [
        ("bad.npy", "x.npy", "[0, 1]"),
        ("pit.npy", "short.npy", "same number of rows"),
        ("missing.npy", "x.npy", ""),
    ],
)
def test_coverage_bad_input_exit_3(files, pit_file, x_file, match):
    d, _, _ = files
    res = CliRunner().invoke(app, ["coverage", str(d / pit_file), str(d / x_file)])
    assert res.exit_code == 3
    assert "Error:" in res.stderr
    assert match in res.stderr


def test_coverage_usage_error_exit_2(files):
    d, _, _ = files
    res = CliRunner().invoke(
        app, ["coverage", str(d / "pit.npy"), str(d / "x.npy"), "--regressor", "forest"]
    )
    assert res.exit_code == 2
