"""``modelcompare granularity`` command."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from modelcompare import granularity, perturb, stair_distribution
from modelcompare.cli import app
from modelcompare.cli._granularity import parse_reference_spec

SPEC = "stairs:c=6,L=6,stairs=3,ratio=2"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cat")
    p = stair_distribution(6, 6, 3, 2.0)
    x = perturb(p, l1=0.2, seed=3).sample(4000, seed=1)
    np.save(d / "x.npy", x)
    np.savetxt(d / "x.csv", x, fmt="%d", delimiter=",")
    np.save(d / "p.npy", p.table)
    np.save(d / "ref.npy", p.sample(4000, seed=2))
    np.save(d / "bad.npy", np.full((10, 6), 7))
    np.save(d / "badtable.npy", np.ones(100))
    return d, p, x


def _run(args):
    return CliRunner().invoke(app, args, catch_exceptions=False)


def test_json_matches_python_api(files):
    d, p, x = files
    out = _run(["granularity", str(d / "x.npy"), "--reference", SPEC, "--seed", "0", "--json"])
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    res = granularity(p, x, seed=0)
    assert payload["value"] == res.value
    assert payload["first_rejected_k"] == res.first_rejected_k
    assert payload["decisions"] == res.decisions.tolist()
    np.testing.assert_allclose(payload["statistics"], res.statistics)
    assert payload["test"] == "granularity"
    assert payload["seed"] == 0
    assert payload["alpha"] == 0.05
    assert payload["params"]["alpha"] == 0.05
    assert payload["tests"][0]["epsilon"] == 0.1
    assert payload["tests"][0]["alpha"] == 0.05
    assert "reject" not in payload
    assert "delta" not in payload


def test_alpha_is_the_level_of_each_test(files):
    d, p, x = files
    args = ["granularity", str(d / "x.npy"), "--reference", SPEC, "--seed", "0", "--json"]
    out = _run([*args, "--alpha", "0.01", "--mode", "asymptotic", "--split"])
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    res = granularity(p, x, alpha=0.01, mode="asymptotic", split=True, seed=0)
    assert payload["alpha"] == 0.01
    assert payload["value"] == res.value
    assert payload["decisions"] == res.decisions.tolist()
    np.testing.assert_allclose(payload["thresholds"], res.thresholds)
    assert _run([*args, "--delta", "0.05"]).exit_code == 2


def test_table_and_csv_inputs(files):
    d, _p, _x = files
    a = json.loads(
        _run(
            [
                "granularity",
                str(d / "x.csv"),
                "--reference-table",
                str(d / "p.npy"),
                "--seed",
                "0",
                "--json",
            ]
        ).stdout
    )
    b = json.loads(
        _run(["granularity", str(d / "x.npy"), "--reference", SPEC, "--seed", "0", "--json"]).stdout
    )
    np.testing.assert_allclose(a["statistics"], b["statistics"])


def test_reference_samples_and_options(files):
    d, _, _ = files
    out = _run(
        [
            "granularity",
            str(d / "x.npy"),
            "--reference-samples",
            str(d / "ref.npy"),
            "--reference",
            SPEC,
            "--split",
            "--mode",
            "permutation",
            "--n-resamples",
            "99",
            "--seed",
            "1",
            "--json",
        ]
    )
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    assert payload["two_sample"]
    assert payload["split"]
    assert payload["mode"] == "permutation"
    human = _run(
        [
            "granularity",
            str(d / "x.npy"),
            "--reference",
            SPEC,
            "--epsilon",
            "0.18",
            "--n-bins-max",
            "6",
            "--seed",
            "0",
        ]
    )
    assert human.exit_code == 0
    assert "granularity (value)" in human.stdout
    assert "first rejected k" in human.stdout
    assert "binned TV" in human.stdout


def test_fail_on_reject_exit_code(files):
    d, _, _ = files
    out = _run(
        [
            "granularity",
            str(d / "x.npy"),
            "--reference",
            SPEC,
            "--seed",
            "0",
            "--fail-on-reject",
            "-q",
        ]
    )
    assert out.exit_code == 1
    ok = _run(
        [
            "granularity",
            str(d / "x.npy"),
            "--reference",
            SPEC,
            "--epsilon",
            "5",
            "--fail-on-reject",
            "-q",
        ]
    )
    assert ok.exit_code == 0


def _one_line_usage_error(out, *words):
    assert out.exit_code == 2, out.output
    assert out.stdout == ""
    assert out.stderr.startswith("Error: ")
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    for word in words:
        assert word in out.stderr


@pytest.mark.parametrize(
    ("spec", "word"),
    [
        ("stairs:c=6,L=6", "missing stairs"),
        ("uniform:c=6", "expected 'stairs:"),
        ("stairs:c=six,L=6,stairs=2", "not a valid int"),
        ("stairs:c=6,L=6,stairs=2,foo=1", "'foo=1'"),
        ("stairs:c=6,L=6,stairs=2,", "malformed entry ''"),
        ("stairs:c=0,L=6,stairs=2", "n_categories"),
        ("stairs:c=6,L=6,stairs=0", "n_stairs"),
        ("stairs:c=6,L=6,stairs=3,ratio=nan", "ratio"),
        ("stairs:c=6,L=6,stairs=3,ratio=0.5", "ratio"),
        ("stairs:c=6,L=6,stairs=3,layout=foo", "layout"),
        ("stairs:c=6,L=6,stairs=3,layout=sort", "n_stairs = 2"),
        ("stairs:c=6,L=6,stairs=3,positive_fraction=2", "positive_fraction"),
    ],
)
def test_bad_reference_spec_is_usage_error(files, spec, word):
    d, _, _ = files
    out = _run(["granularity", str(d / "x.npy"), "--reference", spec])
    _one_line_usage_error(out, "--reference", word)


def test_bad_reference_spec_is_found_before_the_data_is_read(files):
    d, _, _ = files
    out = _run(["granularity", str(d / "nope.npy"), "--reference", "stairs:c=0,L=6,stairs=2"])
    _one_line_usage_error(out, "--reference")


def test_n_bins_max_is_bounded_up_front(files):
    d, p, _ = files
    args = ["granularity", str(d / "x.npy"), "--reference", SPEC, "--n-bins-max"]
    out = _run([*args, "1000000"])  # ran for minutes before the bound
    _one_line_usage_error(out, "`--n-bins-max`=1000000", "<= 721", "|Ω⁺| + 1")
    _one_line_usage_error(_run([*args, "3"]), "`--n-bins-max`=3", "s=4")
    two = _run(
        [
            "granularity",
            str(d / "x.npy"),
            "--reference-samples",
            str(d / "ref.npy"),
            "--n-bins-max",
            "8001",
        ]
    )
    _one_line_usage_error(two, "`--n-bins-max`=8001", "<= 8000", "pooled")
    finest = _run([*args, str(p.support_size + 1), "--seed", "0", "--json", "-q"])
    assert finest.exit_code == 0, finest.output
    assert json.loads(finest.stdout)["k_values"][-1] == 721


def test_usage_errors(files):
    d, _, _ = files
    assert _run(["granularity", str(d / "x.npy")]).exit_code == 2
    both = _run(
        [
            "granularity",
            str(d / "x.npy"),
            "--reference",
            SPEC,
            "--reference-table",
            str(d / "p.npy"),
        ]
    )
    assert both.exit_code == 2
    assert (
        _run(["granularity", str(d / "x.npy"), "--reference", SPEC, "--alpha", "1.5"]).exit_code
        == 2
    )
    _one_line_usage_error(
        _run(["granularity", str(d / "x.npy"), "--reference", SPEC, "--n-bins-max", "2"]),
        "--n-bins-max",
    )


def test_data_errors_exit_3(files):
    d, _, _ = files
    missing = _run(["granularity", str(d / "nope.npy"), "--reference", SPEC])
    assert missing.exit_code == 3
    assert "no such file" in missing.output
    out_of_range = _run(["granularity", str(d / "bad.npy"), "--reference", SPEC])
    assert out_of_range.exit_code == 3
    assert "outside 0..5" in out_of_range.output
    table = _run(["granularity", str(d / "x.npy"), "--reference-table", str(d / "badtable.npy")])
    assert table.exit_code == 3
    assert "c**L" in table.output
    mode = _run(
        [
            "granularity",
            str(d / "x.npy"),
            "--reference-samples",
            str(d / "ref.npy"),
            "--mode",
            "paper",
        ]
    )
    assert mode.exit_code == 3
    assert "mode" in mode.output


def test_parse_reference_spec():
    assert parse_reference_spec("stairs:c=20,L=20,stairs=2,ratio=3,layout=sort") == {
        "c": 20,
        "L": 20,
        "stairs": 2,
        "ratio": 3.0,
        "layout": "sort",
    }
