"""``modelcompare report`` builds the posterior validation report from arrays on disk."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from click.testing import CliRunner

import modelcompare as mc
from modelcompare.cli import app
from modelcompare.datasets import data_path

DATA = data_path("reference.npy").parent  # the example files shipped in the package


def test_report_from_pit_values_and_x(tmp_path: Path) -> None:
    html = tmp_path / "report.html"
    args = ["report", "--pit", str(DATA / "pit.npy"), "--x", str(DATA / "x.npy")]
    args += ["--regressor", "knn", "--n-resamples", "20", "--seed", "0", "--html", str(html)]
    done = CliRunner().invoke(app, [*args, "--json", "--quiet"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.output)
    names = [c["name"] for c in data["checks"]]
    assert names[:5] == ["misspecification", "sbc", "sbc_log_gamma", "tarp", "global_coverage"]
    skipped = {c["name"]: c["skipped"] for c in data["checks"]}
    assert skipped["lc2st_nf"] is not None
    assert skipped["global_coverage"] is None
    assert "global_coverage" in data["failures"]  # the shipped PIT values are over-dispersed
    assert html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_report_from_draws_feeds_tarp_and_sbc(tmp_path: Path) -> None:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(150, seed=0)
    draws = model.exact_flow().sample(x, 40, seed=1)
    np.save(tmp_path / "draws.npy", draws)
    np.save(tmp_path / "theta.npy", theta)
    args = [
        "report",
        "--posterior-samples",
        str(tmp_path / "draws.npy"),
        "--theta",
        str(tmp_path / "theta.npy"),
    ]
    done = CliRunner().invoke(app, [*args, "--checks", "sbc,tarp", "--seed", "0", "--json", "-q"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.output)
    assert [c["name"] for c in data["checks"]] == ["sbc", "tarp"]
    assert all(c["skipped"] is None for c in data["checks"])
    assert data["failures"] == []


def test_help_says_which_file_feeds_which_check_and_what_unpickling_means() -> None:
    text = CliRunner().invoke(app, ["report", "--help"]).output
    for phrase in ("--pit", "--ranks", "--posterior-samples", "--reference", "TARP", "SBC", "C2ST"):
        assert phrase in text
    assert "arbitrary code" in text


def test_a_bad_check_name_is_one_line() -> None:
    done = CliRunner().invoke(app, ["report", "--pit", str(DATA / "pit.npy"), "--checks", "nope"])
    assert done.exit_code == 2  # a usage error, like any bad option value
    assert "--checks" in done.output
    assert "nope: not a check" in done.output


def test_report_chooses_b_per_check_by_default() -> None:
    args = ["report", "--pit", str(DATA / "pit.npy"), "--x", str(DATA / "x.npy")]
    args += ["--checks", "global_coverage,local_coverage", "--seed", "0", "--json"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    # m = 2, five default evaluation points, Holm across two checks: B + 1 >= 20 · 2 · 5 · 2
    assert data["settings"]["n_resamples"] == {"local_coverage": 399}
    assert data["settings"]["regressor"] == "knn"
    local = next(c for c in data["checks"] if c["name"] == "local_coverage")
    assert local["result"]["n_resamples"] == 399
    assert "Warning" not in done.stderr
    done = CliRunner().invoke(app, [*args, "--n-resamples", "100"])
    assert done.exit_code == 0, done.output
    assert "needs --n-resamples >= 399" in " ".join(done.stderr.split())


def test_the_gate_fails_when_no_check_could_run() -> None:
    # L-C2ST-NF needs the estimator itself: from PIT values alone nothing is checked
    args = ["report", "--pit", str(DATA / "pit.npy"), "--checks", "lc2st_nf", "--quiet"]
    done = CliRunner().invoke(app, [*args, "--fail-on-reject"])
    assert done.exit_code == 2, done.output  # usage: the inputs feed no check asked for
    assert "No check could run." in done.output
    assert "no check could run" in done.output
    assert CliRunner().invoke(app, args).exit_code == 0  # without the gate, only a verdict


def test_unreadable_and_mismatched_inputs_are_one_line_errors(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    (tmp_path / "zero.npy").write_bytes(b"")
    (tmp_path / "garbage.pkl").write_bytes(b"not a pickle")
    for name, arr in {
        "theta": rng.normal(size=(60, 2)),
        "x": rng.normal(size=(60, 2)),
        "draws": rng.normal(size=(60, 20, 1)),
        "ref": rng.normal(size=(3, 50, 2)),
    }.items():
        np.save(tmp_path / f"{name}.npy", arr)
    flow = tmp_path / "flow.pkl"
    flow.write_bytes(
        __import__("pickle").dumps(mc.ConditionalGaussianModel(np.eye(2)).exact_flow())
    )
    f = {k: str(tmp_path / v) for k, v in {"theta": "theta.npy", "x": "x.npy"}.items()}
    cases = [
        (["--pit", str(tmp_path / "zero.npy")], 3, "zero.npy: not a numeric .npy file"),
        (
            ["--flow-pickle", str(tmp_path / "garbage.pkl"), "--theta", f["theta"], "--x", f["x"]],
            3,
            "not a readable pickle",
        ),
        (
            ["--posterior-samples", str(tmp_path / "draws.npy"), "--theta", f["theta"]],
            3,
            "must match `--theta`",
        ),
        (
            [
                *("--reference", str(tmp_path / "ref.npy"), "--flow-pickle", str(flow)),
                *("--theta", f["theta"], "--x", f["x"], "--checks", "c2st"),
            ],
            2,
            "needs --x-eval",
        ),
    ]
    for args, code, text in cases:
        done = CliRunner().invoke(app, ["report", *args, "--quiet"])
        assert done.exit_code == code, (args, done.output)
        assert text in done.output
        assert "Traceback" not in done.output
        assert "Aborted" not in done.output


def test_observed_data_run_the_misspecification_check(tmp_path: Path) -> None:
    x = np.load(DATA / "x.npy")
    np.save(tmp_path / "typical.npy", x[:2])
    np.save(tmp_path / "far.npy", x[:1] + 50.0)
    base = ["report", "--pit", str(DATA / "pit.npy"), "--x", str(DATA / "x.npy")]
    base += ["--checks", "misspecification", "--seed", "0", "--quiet", "--json"]
    typical = CliRunner().invoke(app, [*base, "--x-obs", str(tmp_path / "typical.npy")])
    far = CliRunner().invoke(app, [*base, "--x-obs", str(tmp_path / "far.npy")])
    rows = {}
    for label, done in (("typical", typical), ("far", far)):
        assert done.exit_code == 0, done.output
        (row,) = json.loads(done.stdout)["checks"]
        rows[label] = row
    assert rows["typical"]["pvalue"] > 0.05
    assert rows["far"]["pvalue"] <= 0.01
    assert "misspecification" in json.loads(far.stdout)["failures"]
    assert "misspecification" not in json.loads(typical.stdout)["failures"]


def test_observed_data_need_their_width_and_x(tmp_path: Path) -> None:
    np.save(tmp_path / "wide.npy", np.zeros((1, 7)))
    args = ["report", "--pit", str(DATA / "pit.npy"), "--x", str(DATA / "x.npy")]
    done = CliRunner().invoke(app, [*args, "--x-obs", str(tmp_path / "wide.npy"), "--quiet"])
    assert done.exit_code == 3, done.output
    assert "--x-obs" in done.output
    assert "columns" in done.output
    alone = ["report", "--pit", str(DATA / "pit.npy"), "--x-obs", str(tmp_path / "wide.npy")]
    done = CliRunner().invoke(app, [*alone, "--quiet"])
    assert done.exit_code == 3, done.output
    assert "--x-obs" in done.output
    assert "--x" in done.output
