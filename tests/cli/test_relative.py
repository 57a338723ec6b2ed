"""``modelcompare relative``: the four tests, output modes and exit codes."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import modelcompare.relative
from modelcompare.cli import app
from modelcompare.relative import rel_fid, rel_kid, rel_mmd


@pytest.fixture
def files(tmp_path, rng):
    n = 120
    z = rng.normal(size=(n, 2))
    x = rng.normal(size=(n, 2)) + np.array([1.5, 0.0])  # P is far from R
    y = rng.normal(size=(n, 2)) + np.array([0.1, 0.0])  # Q is close to R
    paths = {}
    for name, arr in {"p": x, "q": y, "r": z}.items():
        paths[name] = tmp_path / f"{name}.npy"
        np.save(paths[name], arr)
    return paths, (x, y, z)


def _run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_mmd_json_matches_python_api(files):
    paths, (x, y, z) = files
    out = _run(
        "relative",
        paths["p"],
        paths["q"],
        paths["r"],
        "--test",
        "mmd",
        "--seed",
        "3",
        "--json",
        "--quiet",
    )
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    want = rel_mmd(x, y, z, seed=3)
    assert payload["test"] == "relative-mmd"
    assert payload["seed"] == 3
    assert payload["statistic"] == pytest.approx(want.statistic, rel=1e-12)
    assert payload["pvalue"] == pytest.approx(want.pvalue, rel=1e-12)
    assert payload["bandwidth"] == pytest.approx(want.bandwidth, rel=1e-12)
    assert payload["params"] == {"bandwidth": None, "subsample": False}


def test_mmd_given_bandwidth_and_table(files):
    paths, _ = files
    out = _run(
        "relative",
        paths["p"],
        paths["q"],
        paths["r"],
        "--test",
        "mmd",
        "--bandwidth",
        "0.7",
        "--alpha",
        "0.05",
    )
    assert out.exit_code == 0, out.output
    assert "pvalue" in out.stdout
    assert "0.7" in out.stdout
    assert "decision" in out.stdout
    assert "reject H0 at 0.05" in out.stdout
    assert "seed used" in out.stderr


def test_kid_json(files):
    paths, (x, y, z) = files
    out = _run("relative", paths["p"], paths["q"], paths["r"], "--test", "kid", "--json")
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    want = rel_kid(x, y, z)
    assert payload["statistic"] == pytest.approx(want.statistic, rel=1e-12)
    assert payload["variance"] == pytest.approx(want.variance, rel=1e-12)
    assert payload["variance_method"] == "ustat"


def test_fid_json_and_fail_on_reject(files):
    paths, (x, y, z) = files
    args = [
        "relative",
        paths["p"],
        paths["q"],
        paths["r"],
        "--test",
        "fid",
        "--n-blocks",
        "5",
        "--seed",
        "1",
        "--json",
    ]
    out = _run(*args)
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    want = rel_fid(x, y, z, n_blocks=5, seed=1)
    assert payload["statistic"] == pytest.approx(want.statistic, rel=1e-12)
    assert payload["pvalue"] == pytest.approx(want.pvalue)
    assert payload["params"] == {"n_blocks": 5, "scheme": "jackknife"}
    assert payload["hypothesis"] == want.hypothesis
    assert "reject" not in payload  # no level given, no decision
    decided = json.loads(_run(*args, "--alpha", "0.05").stdout)
    assert decided["reject"] is want.decision(0.05) is True
    rejected = _run(*args, "--alpha", "0.05", "--fail-on-reject")
    assert rejected.exit_code == 1
    # Swapping P and Q: no rejection, exit 0 even with --fail-on-reject.
    swapped = _run(
        "relative",
        paths["q"],
        paths["p"],
        paths["r"],
        "--test",
        "fid",
        "--n-blocks",
        "5",
        "--seed",
        "1",
        "--alpha",
        "0.05",
        "--fail-on-reject",
    )
    assert swapped.exit_code == 0, swapped.output


def test_csv_input(tmp_path, files):
    paths, (x, y, z) = files
    csv = tmp_path / "p.csv"
    np.savetxt(csv, x, delimiter=",", header="a,b", comments="")
    out = _run("relative", csv, paths["q"], paths["r"], "--test", "mmd", "--seed", "3", "--json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["statistic"] == pytest.approx(rel_mmd(x, y, z, seed=3).statistic)


def test_unreadable_file_exit_3(files, tmp_path):
    paths, _ = files
    out = _run("relative", tmp_path / "missing.npy", paths["q"], paths["r"], "--test", "mmd")
    assert out.exit_code == 3
    assert out.stderr.startswith("Error:")
    junk = tmp_path / "junk.npy"
    junk.write_text("not an array")
    out = _run("relative", junk, paths["q"], paths["r"], "--test", "kid")
    assert out.exit_code == 3
    assert "Error:" in out.stderr


def test_mismatched_widths_exit_3(files, tmp_path, rng):
    paths, _ = files
    wide = tmp_path / "wide.npy"
    np.save(wide, rng.normal(size=(120, 3)))
    for test in ("mmd", "kid", "fid"):
        out = _run("relative", paths["p"], wide, paths["r"], "--test", test)
        assert out.exit_code == 3, test
        assert "columns" in out.stderr


def test_unequal_sizes_need_subsample(files, tmp_path, rng):
    paths, _ = files
    short = tmp_path / "short.npy"
    np.save(short, rng.normal(size=(90, 2)))
    out = _run("relative", paths["p"], short, paths["r"], "--test", "mmd")
    assert out.exit_code == 3
    assert "subsample" in out.stderr
    out = _run(
        "relative",
        paths["p"],
        short,
        paths["r"],
        "--test",
        "mmd",
        "--subsample",
        "--seed",
        "0",
        "--json",
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["n"] == 90


def test_nan_exit_3(files, tmp_path, rng):
    paths, _ = files
    bad = rng.normal(size=(120, 2))
    bad[5, 0] = np.nan
    np.save(tmp_path / "bad.npy", bad)
    out = _run("relative", paths["p"], paths["q"], tmp_path / "bad.npy", "--test", "kid")
    assert out.exit_code == 3
    assert "finite" in out.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--test", "kid", "--bandwidth", "1.0"],
        ["--test", "fid", "--n-locations", "3"],
        ["--test", "mmd", "--n-blocks", "5"],
        ["--test", "mmd", "--n-resamples", "50"],
        ["--test", "fid", "--n-blocks", "1"],
        ["--test", "ks"],
        ["--test", "mmd", "--bandwidth", "-1"],
    ],
)
def test_usage_errors_exit_2(files, args):
    paths, _ = files
    out = _run("relative", paths["p"], paths["q"], paths["r"], *args)
    assert out.exit_code == 2, out.output


def test_help_lists_tests():
    out = _run("relative", "--help")
    assert out.exit_code == 0
    for name in ("ume", "mmd", "kid", "fid", "--n-locations", "--bandwidth"):
        assert name in out.stdout


def test_ume_path(files):
    paths, (x, y, z) = files
    out = _run(
        "relative",
        paths["p"],
        paths["q"],
        paths["r"],
        "--test",
        "ume",
        "--n-locations",
        "3",
        "--seed",
        "2",
        "--json",
        "--quiet",
    )
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    want = modelcompare.relative.rel_ume(x, y, z, n_locations=3, bandwidth=None, seed=2)
    assert payload["test"] == "relative-ume"
    assert payload["statistic"] == pytest.approx(want.statistic, rel=1e-10)
    assert payload["pvalue"] == pytest.approx(want.pvalue, rel=1e-10)


def test_overflowing_fid_is_an_error_not_a_decision(tmp_path, rng):
    paths = []
    for name in "pqr":
        paths.append(tmp_path / f"{name}.npy")
        np.save(paths[-1], rng.normal(size=(50, 2)) * 1e300)
    out = _run("relative", *paths, "--test", "fid", "--alpha", "0.05", "--seed", "0")
    assert out.exit_code == 3, out.output
    assert out.stderr.startswith("Error: ")
    assert "not finite" in out.stderr
    assert "reject" not in out.stdout


def test_resource_limit_exits_2(files, monkeypatch):
    paths, _ = files
    monkeypatch.setenv("MODELCOMPARE_MAX_MEMORY", "1K")
    out = _run("relative", paths["p"], paths["q"], paths["r"], "--test", "mmd", "--seed", "0")
    assert out.exit_code == 2, out.output
    assert out.stderr.startswith("Error: ")
    assert "MODELCOMPARE_MAX_MEMORY" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_fid_scheme_blocks(files):
    paths, (x, y, z) = files
    args = ["relative", paths["p"], paths["q"], paths["r"], "--test", "fid"]
    out = _run(*args, "--scheme", "blocks", "--seed", "2", "--json")
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    want = rel_fid(x, y, z, scheme="blocks", seed=2)
    assert payload["statistic"] == pytest.approx(want.statistic, rel=1e-12)
    assert payload["scheme"] == "blocks"
    wrong = _run("relative", paths["p"], paths["q"], paths["r"], "--scheme", "blocks")
    assert wrong.exit_code == 2
    assert "--scheme applies to --test fid only" in wrong.output


def test_fid_command_on_samples_and_on_statistics(files, tmp_path):
    from modelcompare import FIDStats, fid

    paths, (x, _, z) = files
    out = _run("fid", paths["p"], paths["r"], "--json")
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    assert payload["value"] == pytest.approx(fid(x, z).value, rel=1e-12)
    assert payload["test"] == "fid"
    stats_path = tmp_path / "ref_stats.npz"
    np.savez(stats_path, mu=z.mean(axis=0), sigma=np.cov(z, rowvar=False))
    out = _run("fid", paths["p"], str(stats_path), "--json", "--method", "sqrtm")
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    want = fid(x, FIDStats(z.mean(axis=0), np.cov(z, rowvar=False)), method="sqrtm")
    assert payload["value"] == pytest.approx(want.value, rel=1e-9)
    assert payload["n_z"] is None
    bad = tmp_path / "wide.npy"
    np.save(bad, np.zeros((10, x.shape[1] + 1)))
    out = _run("fid", paths["p"], str(bad))
    assert out.exit_code == 3
    assert "`SAMPLES`" in out.output
