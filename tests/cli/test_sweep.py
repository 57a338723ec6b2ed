"""``modelcompare sweep`` on careless configs: one-line errors, checked n_jobs, no seed given."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from modelcompare.cli import app


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(0)
    np.save(tmp_path / "a.npy", 0.8 + 0.02 * rng.standard_normal(10))
    np.save(tmp_path / "b.npy", 0.79 + 0.02 * rng.standard_normal(10))
    return tmp_path


def config(**top):
    return {
        **top,
        "data": {"a": "a.npy", "b": "b.npy"},
        "tests": [
            {
                "test": "corrected_ttest",
                "scores_a": "a",
                "scores_b": "b",
                "options": {"n_train": 9, "n_test": 1},
            }
        ],
    }


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def one_line_error(result, code):
    assert result.exit_code == code, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: ")
    return lines[0]


def test_bad_yaml_is_one_line_naming_file_and_line(folder):
    pytest.importorskip("yaml")
    path = folder / "bad.yaml"
    path.write_text("seed: 0\ndata: {x: a.npy\ntests: [\n")
    line = one_line_error(invoke("sweep", path), 3)
    assert "bad.yaml: not valid YAML (line 3, column " in line


def test_bad_json_is_one_line_naming_the_line(folder):
    path = folder / "bad.json"
    path.write_text('{"seed": 0,\n "data": }\n')
    line = one_line_error(invoke("sweep", path), 3)
    assert "bad.json: not valid JSON (line 2, column" in line


@pytest.mark.parametrize("value", ["0", "zero", "1.5"])
def test_bad_n_jobs_option_is_a_usage_error(folder, value):
    path = folder / "c.json"
    path.write_text(json.dumps(config(seed=0)))
    line = one_line_error(invoke("sweep", path, "--n-jobs", value), 2)
    assert "--n-jobs" in line


@pytest.mark.parametrize("value", [0, 1.5, True, "Infinity"])
def test_bad_n_jobs_in_the_config_is_named(folder, value):
    path = folder / "c.json"
    text = json.dumps(config(seed=0, n_jobs=value)).replace('"Infinity"', "Infinity")
    path.write_text(text)
    line = one_line_error(invoke("sweep", path, "--out", folder / "r.csv"), 3)
    assert "n_jobs: must be null or a non-zero int" in line


def test_mixed_type_keys_are_reported_not_crashed(folder):
    pytest.importorskip("yaml")
    path = folder / "c.yaml"
    path.write_text(
        "seed: 0\n1: x\nextra: 2\ndata: {a: a.npy, b: b.npy}\n"
        "tests: [{test: corrected_ttest, scores_a: a, scores_b: b}]\n"
    )
    line = one_line_error(invoke("sweep", path, "--out", folder / "r.csv"), 3)
    assert "unknown top-level key(s) [1, 'extra']" in line


def test_sweep_without_a_seed_writes_the_default_parquet(folder):
    pytest.importorskip("pyarrow")
    path = folder / "c.json"
    path.write_text(json.dumps(config()))
    result = invoke("sweep", path, "--json", "-q")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    table = pd.read_parquet(folder / "c.results.parquet")
    assert table["base_seed"].tolist() == [payload["seed"]]
    assert payload["n_failed"] == 0
