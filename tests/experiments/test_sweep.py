"""Resumable sweeps and the `modelcompare sweep` CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from modelcompare import c2st, run_many, run_sweep
from modelcompare.cli import app
from modelcompare.experiments import task_seed
from modelcompare.experiments._config import SWEEP_TESTS, ConfigError, run_config, sweep_tasks

CALLS: list[int] = []
STABLE = ["v", "draw", "key", "seed", "base_seed", "error"]


def draw_task(v, seed):
    CALLS.append(v)
    if v == 13:
        msg = "unlucky"
        raise ValueError(msg)
    return {"draw": float(np.random.default_rng(seed).random())}


def interrupting_task(v, seed):
    if v == 3:
        raise KeyboardInterrupt
    return draw_task(v, seed)


CONFIGS = [{"v": v} for v in range(6)]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_sweep_resumes_and_matches_fresh_run(tmp_path, suffix):
    out = tmp_path / f"res{suffix}"
    CALLS.clear()
    first = run_sweep(draw_task, CONFIGS[:3], out=out, seed=4, progress=False)
    assert sorted(CALLS) == [0, 1, 2]
    assert first.attrs["n_run"] == 3
    CALLS.clear()
    second = run_sweep(draw_task, CONFIGS, out=out, seed=4, progress=False)
    assert sorted(CALLS) == [3, 4, 5]  # only what was not done
    assert second.attrs["n_skipped"] == 3
    assert second.attrs["n_run"] == 3
    fresh = run_many(draw_task, CONFIGS, seed=4, progress=False)
    pd.testing.assert_frame_equal(second[STABLE], fresh[STABLE])
    on_disk = pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)
    assert on_disk["draw"].tolist() == fresh["draw"].tolist()
    assert len(list((tmp_path / f"res{suffix}.parts").glob("*.json"))) == 6 + 1  # + _sweep.json


def test_interrupted_sweep_loses_nothing(tmp_path):
    out = tmp_path / "res.csv"
    with pytest.raises(KeyboardInterrupt):
        run_sweep(interrupting_task, CONFIGS, out=out, seed=9, progress=False)
    written = pd.read_csv(out)
    assert written["v"].tolist() == [0, 1, 2]  # finished before the interrupt, kept
    CALLS.clear()
    resumed = run_sweep(draw_task, CONFIGS, out=out, seed=None, progress=False)  # seed from disk
    assert sorted(CALLS) == [3, 4, 5]
    fresh = run_many(draw_task, CONFIGS, seed=9, progress=False)
    pd.testing.assert_frame_equal(resumed[STABLE], fresh[STABLE])


def test_sweep_failures_recorded_then_retried_or_kept(tmp_path):
    out = tmp_path / "res.csv"
    configs = [{"v": 12}, {"v": 13}]
    table = run_sweep(draw_task, configs, out=out, seed=0, progress=False)
    assert table["error"].tolist()[1] == "ValueError: unlucky"
    assert pd.isna(table["error"].tolist()[0])
    CALLS.clear()
    run_sweep(draw_task, configs, out=out, seed=0, progress=False, retry_failed=False)
    assert CALLS == []
    run_sweep(draw_task, configs, out=out, seed=0, progress=False)
    assert CALLS == [13]


def test_sweep_parquet_with_mixed_type_column(tmp_path):
    configs = [{"v": 1, "label": 3}, {"v": 2, "label": "three"}, {"v": 3, "label": None}]
    table = run_sweep(
        lambda v, label, seed: draw_task(v, seed),
        configs,
        out=tmp_path / "m.parquet",
        seed=0,
        progress=False,
    )
    assert table["error"].isna().all()
    on_disk = pd.read_parquet(tmp_path / "m.parquet")
    assert on_disk["label"].tolist()[:2] == ["3", "three"]
    assert on_disk["draw"].tolist() == table["draw"].tolist()


def test_sweep_refuses_other_seed_and_bad_out(tmp_path):
    out = tmp_path / "res.csv"
    run_sweep(draw_task, CONFIGS[:1], out=out, seed=1, progress=False)
    with pytest.raises(ValueError, match="seed=1"):
        run_sweep(draw_task, CONFIGS[:1], out=out, seed=2, progress=False)
    with pytest.raises(ValueError, match=r"\.parquet or \.csv"):
        run_sweep(draw_task, CONFIGS, out=tmp_path / "res.txt", seed=1, progress=False)


def test_sweep_without_seed_writes_parquet(tmp_path):
    pytest.importorskip("pyarrow")
    out = tmp_path / "fresh.parquet"
    table = run_sweep(draw_task, CONFIGS[:2], out=out)
    on_disk = pd.read_parquet(out)
    assert on_disk["base_seed"].tolist() == [table.attrs["seed_used"]] * 2
    assert 0 <= table.attrs["seed_used"] < 2**63


def test_sweep_parquet_with_ints_beyond_int64(tmp_path):
    pytest.importorskip("pyarrow")
    out = tmp_path / "huge.parquet"
    table = run_sweep(draw_task, CONFIGS[:1], out=out, seed=2**100)
    assert table.attrs["seed_used"] == 2**100
    assert pd.read_parquet(out)["base_seed"].tolist() == [str(2**100)]


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"retry_failed": "x"}, TypeError, "`retry_failed`"),
        ({"retry_failed": None}, TypeError, "`retry_failed`"),
        ({"progress": "no"}, TypeError, "`progress`"),
        ({"n_jobs": 0}, ValueError, "`n_jobs`"),
        ({"n_jobs": False}, TypeError, "`n_jobs`"),
    ],
)
def test_sweep_bad_options_name_the_argument(tmp_path, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        run_sweep(draw_task, CONFIGS[:1], out=tmp_path / "r.csv", seed=0, **kwargs)
    assert not (tmp_path / "r.csv").exists()


# ---------------------------------------------------------------------------------------- configs


@pytest.fixture
def data_dir(tmp_path):
    rng = np.random.default_rng(0)
    np.save(tmp_path / "ref.npy", rng.normal(size=(80, 2)))
    np.save(tmp_path / "same.npy", rng.normal(size=(80, 2)))
    np.save(tmp_path / "shifted.npy", rng.normal(1.0, 1.0, size=(80, 2)))
    np.save(tmp_path / "wide.npy", rng.normal(size=(80, 3)))
    pd.DataFrame(rng.normal(size=(80, 2)), columns=["a", "b"]).to_csv(
        tmp_path / "table.csv", index=False
    )
    return tmp_path


def base_config():
    return {
        "seed": 0,
        "data": {
            "ref": "ref.npy",
            "same": "same.npy",
            "shifted": "shifted.npy",
            "wide": "wide.npy",
            "tab": {"path": "table.csv", "columns": ["a", "b"]},
        },
        "tests": [
            {
                "test": "c2st",
                "x": "ref",
                "y": ["same", "shifted", "wide", "tab"],
                "options": {"classifier": "logistic"},
                "grid": {"n_folds": [2, 4]},
            }
        ],
    }


def test_config_expands_grid_and_each_task_equals_c2st(data_dir):
    table = run_config(base_config(), out=data_dir / "r.csv", base_dir=data_dir, progress=False)
    assert len(table) == 8
    assert table[["y", "n_folds"]].to_numpy().tolist()[:2] == [["same", 2], ["same", 4]]
    wide = table[table["y"] == "wide"]
    assert wide["error"].str.contains("same number of columns").all()
    row = table[(table["y"] == "shifted") & (table["n_folds"] == 4)].iloc[0]
    ref = np.load(data_dir / "ref.npy")
    shifted = np.load(data_dir / "shifted.npy")
    direct = c2st(ref, shifted, classifier="logistic", n_folds=4, seed=int(row["seed"]))
    assert direct.statistic == row["statistic"]
    assert direct.pvalue == row["pvalue"]
    assert row["seed"] == task_seed(0, row["key"])
    assert row["statistic"] > 0.7


@pytest.mark.parametrize(
    ("mutate", "match"),
    [
        (lambda c: c.pop("data"), "data: must be a non-empty mapping"),
        (lambda c: c.update(tests=[]), "tests: must be a non-empty list"),
        (lambda c: c.update(extra=1), "unknown top-level key"),
        (lambda c: c["tests"][0].update(test="nope"), r"tests\[0\]\.test: unknown test 'nope'"),
        (lambda c: c["tests"][0].update(y="missing"), r"tests\[0\]\.y: unknown data name"),
        (lambda c: c["tests"][0].pop("x"), "needs data argument `x`"),
        (
            lambda c: c["tests"][0]["options"].update(n_fold=3),
            r"options\.n_fold: unknown option for c2st",
        ),
        (lambda c: c["tests"][0]["options"].update(seed=3), r"options\.seed: is set by the sweep"),
        (lambda c: c["tests"][0].update(grid={"n_folds": 5}), "non-empty list of values"),
        (lambda c: c["tests"][0].update(replicates=0), "positive int"),
        (lambda c: c["data"].update(ref="nofile.npy"), r"data\.ref: no such file"),
        (lambda c: c["tests"][0].update(options={"n_folds": 3}), "both `options` and `grid`"),
        (lambda c: c.update({1: "x", "zz": 2}), r"unknown top-level key\(s\) \[1, 'zz'\]"),
        (lambda c: c["tests"][0].update({2: "x", "zz": 1}), r"unknown key\(s\) \[2, 'zz'\]"),
    ],
)
def test_invalid_configs_have_clear_messages(data_dir, mutate, match):
    config = base_config()
    mutate(config)
    with pytest.raises(ConfigError, match=match):
        sweep_tasks(config, data_dir)


@pytest.mark.parametrize("n_jobs", [0, 1.5, True, float("inf"), "all"])
def test_config_n_jobs_is_checked(data_dir, n_jobs):
    config = base_config()
    config["n_jobs"] = n_jobs
    with pytest.raises(ConfigError, match="n_jobs: must be null or a non-zero int"):
        run_config(config, out=data_dir / "r.csv", base_dir=data_dir)
    assert not (data_dir / "r.csv").exists()


def test_registry_is_one_line_per_test():
    assert SWEEP_TESTS["c2st"] == "modelcompare:c2st"
    assert all(":" in target for target in SWEEP_TESTS.values())


def test_replicates_get_distinct_seeds(data_dir):
    config = base_config()
    config["tests"][0].update(y="shifted", grid={}, replicates=3)
    tasks, _ = sweep_tasks(config, data_dir)
    assert [t["replicate"] for t in tasks] == [0, 1, 2]
    table = run_config(config, out=data_dir / "r.csv", base_dir=data_dir, progress=False)
    assert table["seed"].nunique() == 3


# -------------------------------------------------------------------------------------------- CLI


def invoke(*args):
    return CliRunner().invoke(app, list(args))


def test_cli_sweep_yaml_and_resume(data_dir):
    yaml = pytest.importorskip("yaml")
    path = data_dir / "sweep.yaml"
    path.write_text(yaml.safe_dump(base_config()))
    out = data_dir / "res.csv"
    result = invoke("sweep", str(path), "--out", str(out), "--quiet")
    assert result.exit_code == 0, result.output
    assert "shifted" in result.stdout
    assert "pvalue" in result.stdout
    first = pd.read_csv(out)
    assert len(first) == 8
    again = invoke("sweep", str(path), "--out", str(out), "--json", "--keep-failed")
    assert again.exit_code == 0
    payload = json.loads(again.stdout)
    assert payload["n_skipped"] == 8
    assert payload["n_run"] == 0
    assert payload["n_failed"] == 2
    assert payload["seed"] == 0
    assert payload["test"] == "sweep"
    assert [r["statistic"] for r in payload["rows"]][:2] == first["statistic"].tolist()[:2]
    assert "8 tasks: 0 run, 8 already done, 2 failed" in again.stderr


def test_cli_sweep_json_config_default_out(data_dir):
    path = data_dir / "sweep.json"
    config = base_config()
    config["tests"][0]["y"] = "shifted"
    path.write_text(json.dumps(config))
    result = invoke("sweep", str(path), "-q")
    assert result.exit_code == 0, result.output
    assert (data_dir / "sweep.results.parquet").exists()


@pytest.mark.parametrize(
    ("content", "name", "match"),
    [
        ("{not json", "bad.json", "not valid JSON"),
        ('{"data": {"a": "ref.npy"}, "tests": [{"test": "zzz"}]}', "c.json", "unknown test 'zzz'"),
        ("[1, 2]", "list.json", "must be a mapping"),
        ("seed: 0", "c.toml", r"must end in \.yaml, \.yml or \.json"),
    ],
)
def test_cli_invalid_config_exit_3(data_dir, content, name, match):
    path = data_dir / name
    path.write_text(content)
    result = invoke("sweep", str(path), "--out", str(data_dir / "o.csv"))
    assert result.exit_code == 3
    assert result.stderr.startswith("Error: ")
    assert pytest.importorskip("re").search(match, result.stderr)


def test_cli_missing_config_and_bad_out(data_dir):
    assert invoke("sweep", str(data_dir / "none.json")).exit_code == 3
    path = data_dir / "c.json"
    path.write_text(json.dumps(base_config()))
    result = invoke("sweep", str(path), "--out", str(data_dir / "o.txt"))
    assert result.exit_code == 3
    assert ".parquet or .csv" in result.stderr
    assert invoke("sweep").exit_code == 2  # usage error


def test_out_that_is_an_existing_folder_is_refused(tmp_path):
    folder = tmp_path / "results.csv"
    folder.mkdir()
    with pytest.raises(ValueError, match="`out` must be a file path, not an existing folder"):
        run_sweep(_square_fn, [{"v": 1}], out=folder, seed=0)


def _square_fn(v, seed):
    return {"square": v * v}


def test_run_sweep_is_typed_and_returns_the_documented_table(tmp_path):
    import inspect

    assert inspect.signature(run_sweep).return_annotation == "pd.DataFrame"
    out = tmp_path / "t.csv"
    table = run_sweep(draw_task, [{"v": 1}], out=out, seed=0)
    assert isinstance(table, pd.DataFrame)
    assert table.attrs == {
        "seed_used": 0,
        "n_skipped": 0,
        "n_run": 1,
        "out": str(out),
        "config_columns": ["v"],
    }
