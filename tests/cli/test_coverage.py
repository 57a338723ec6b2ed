"""``modelcompare coverage``: the coverage checks of the posterior report, keyed by test name."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from modelcompare import (
    ConditionalGaussianModel,
    global_coverage_test,
    pit,
    pit_independence_test,
)
from modelcompare.cli import app
from modelcompare.workflows._validate import default_x_eval, report_from_arrays


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


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")  # small B on purpose
def test_coverage_json_is_the_reports_coverage_checks(files):
    d, p, x = files
    args = [
        "coverage",
        str(d / "pit.npy"),
        str(d / "x.npy"),
        "--x-eval",
        str(d / "xe.npy"),
        "--regressor",
        "knn",
        "--n-resamples",
        "40",
        "--n-levels",
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
    assert out["params"]["n_resamples"] == 40
    assert "decisions" not in out
    # one implementation: the same checks, seeds and options as the posterior report
    report = report_from_arrays(
        pit_values=p,
        x=x,
        x_eval=[[0.0, 0.0], [2.0, 2.0]],
        checks=["global_coverage", "pit_independence", "local_coverage", "local_independence"],
        regressor="knn",
        n_resamples=40,
        levels=19,
        seed=3,
    )
    local = report.results["local_coverage"]
    np.testing.assert_allclose(out["local_coverage"]["pvalues"], local.pvalues)
    np.testing.assert_allclose(out["local_coverage"]["statistics"], local.statistics)
    assert out["local_coverage"]["pvalue"] == local.pvalue
    assert out["local_coverage"]["n_resamples"] == 40
    assert len(out["local_coverage"]["levels"]) == 19
    np.testing.assert_allclose(
        out["global_coverage"]["simultaneous_band"],
        report.results["global_coverage"].simultaneous_band,
    )
    assert out["global_coverage"]["pvalue"] == global_coverage_test(p, levels=19).pvalue  # KS
    assert 0 < out["global_coverage"]["pvalue"] <= 1
    assert out["independence"] == pit_independence_test(p).to_dict()
    assert out["pvalues_adjusted"] == {
        "global_coverage": report.pvalues_adjusted["global_coverage"],
        "independence": report.pvalues_adjusted["pit_independence"],
        "local_coverage": report.pvalues_adjusted["local_coverage"],
        "local_independence": report.pvalues_adjusted["local_independence"],
    }
    # the seed of the check's own stream: the library call with it gives the same p-value
    assert out["local_coverage"]["seed_used"] == report.settings["check_seeds"]["local_coverage"]


def test_coverage_table_at_the_default_points(files):
    d, _, x = files
    res = CliRunner().invoke(
        app, ["coverage", str(d / "pit.npy"), str(d / "x.npy"), "--alpha", "0.05", "--seed", "0"]
    )
    assert res.exit_code == 0, res.output
    assert "global_coverage pvalue" in res.stdout
    assert "global_coverage decision" in res.stdout
    assert "local_coverage pvalue (Holm across checks)" in res.stdout
    assert "adjusted (holm)" in res.stdout
    assert "principal directions" in res.stderr  # where the default points come from
    first = default_x_eval(x)[0]
    assert f"({first[0]:.3g}, {first[1]:.3g})" in res.stdout
    assert "Warning" not in res.stderr  # the automatic B can reach 0.05
    res = CliRunner().invoke(
        app,
        [
            "coverage",
            str(d / "pit.npy"),
            str(d / "x.npy"),
            "--x-eval",
            str(d / "xe.npy"),
            "--n-resamples",
            "20",
            "--eval-correction",
            "bonferroni",
            "--seed",
            "0",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "adjusted (bonferroni)" in res.stdout
    assert "Warning:" in res.stderr  # B = 20 cannot reach 0.05
    warning = " ".join(res.stderr.split())
    assert "needs --n-resamples >= 319" in warning  # in the CLI's words, not the library's
    assert "Omit `--n-resamples` to choose B per check" in warning


def test_coverage_decisions_and_fail_on_reject(files):
    d, p, _ = files
    np.save(d / "shifted.npy", p**2)  # PIT values pushed towards 0: global uniformity fails
    base = ["coverage", str(d / "shifted.npy"), str(d / "x.npy"), "--seed", "1", "--json"]
    res = CliRunner().invoke(app, [*base, "--alpha", "0.05"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    glob = global_coverage_test(p**2, seed=1)
    assert out["decisions"]["global_coverage"] is glob.decision(0.05) is True
    # decisions are the report's: Holm across the checks that ran
    for name, rejected in out["decisions"].items():
        assert rejected is (out["pvalues_adjusted"][name] <= 0.05)
    assert out["pvalues_adjusted"]["global_coverage"] >= out["global_coverage"]["pvalue"]
    assert out["alpha"] == 0.05
    res = CliRunner().invoke(app, [*base, "--alpha", "0.05", "--fail-on-reject"])
    assert res.exit_code == 1
    res = CliRunner().invoke(app, [*base, "--fail-on-reject"])
    assert res.exit_code == 0


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


def test_coverage_huge_level_grid_is_refused_before_allocating(files, monkeypatch):
    d, _, _ = files
    monkeypatch.setenv("MODELCOMPARE_MAX_MEMORY", "64M")
    res = CliRunner().invoke(
        app, ["coverage", str(d / "pit.npy"), str(d / "x.npy"), "--n-levels", "1000000"]
    )
    assert res.exit_code == 2
    assert "--n-levels" in res.stderr
    assert "MODELCOMPARE_MAX_MEMORY" in res.stderr


def test_coverage_resample_limit_names_the_cli_option(files):
    d, _, _ = files
    res = CliRunner().invoke(
        app,
        [
            "coverage",
            str(d / "pit.npy"),
            str(d / "x.npy"),
            "--x-eval",
            str(d / "xe.npy"),
            "--n-resamples",
            "1000000000000",
        ],
    )
    assert res.exit_code == 2
    assert "`--n-resamples`" in res.stderr
    assert "`n_resamples`" not in res.stderr
