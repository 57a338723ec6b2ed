"""run_many and the config-keyed child seeds."""

from __future__ import annotations

import hashlib
import json
import warnings

import joblib
import numpy as np
import pandas as pd
import pytest

from modelcompare import c2st, run_many
from modelcompare.experiments import canonical_json, config_key, task_seed

OUTPUT_COLS = ["shift", "n", "statistic", "pvalue", "key", "seed", "base_seed", "error"]


def c2st_task(shift, n, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2))
    y = rng.normal(shift, 1.0, size=(n, 2))
    return c2st(x, y, classifier="logistic", seed=rng)


def draw_task(v, seed):
    return {"draw": float(np.random.default_rng(seed).random()), "v2": v * 2}


def flaky_task(v, seed):
    if v == 2:
        msg = "bad setting"
        raise RuntimeError(msg)
    if v == 3:
        warnings.warn("careful", UserWarning, stacklevel=2)
    return v + 0.5


CONFIGS = [{"shift": s, "n": n} for s in (0.0, 0.5) for n in (40, 60)]


def test_config_key_is_canonical():
    a = {"n": 100, "shift": 0.5, "opts": {"b": [1, 2], "a": None}}
    b = {"opts": {"a": None, "b": (1, 2)}, "shift": np.float64(0.5), "n": np.int64(100)}
    assert canonical_json(a) == canonical_json(b)
    assert config_key(a) == config_key(b)
    # integral floats are the same setting as ints; other values are not
    assert config_key({"n": 100.0}) == config_key({"n": 100})
    assert config_key({"n": 100.5}) != config_key({"n": 100})
    assert config_key({"n": "100"}) != config_key({"n": 100})
    # the key is the SHA-256 of the sorted-keys, no-space JSON
    text = '{"n":100,"opts":{"a":null,"b":[1,2]},"shift":0.5}'
    assert canonical_json(a) == text
    assert config_key(a) == hashlib.sha256(text.encode()).hexdigest()[:16]


def test_config_key_rejects_objects():
    with pytest.raises(TypeError, match=r"`f`.*JSON-like"):
        config_key({"f": object()})
    with pytest.raises(TypeError, match="mapping"):
        config_key([("a", 1)])


def test_task_seed_recomputed_from_seedsequence():
    digest = hashlib.sha256(b"abc").digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 32, 4)]
    expected = np.random.SeedSequence(7, spawn_key=tuple(words)).generate_state(1, np.uint64)[0]
    assert task_seed(7, "abc") == int(expected) >> 1
    seeds = {task_seed(b, k) for b in (0, 1) for k in ("a", "b", "c")}
    assert len(seeds) == 6
    assert all(0 <= s < 2**63 for s in seeds)


def test_run_many_table_shape_and_reproduction():
    table = run_many(c2st_task, CONFIGS, seed=3, progress=False)
    assert isinstance(table, pd.DataFrame)
    assert list(table.columns[:2]) == ["shift", "n"]
    assert table[["shift", "n"]].to_dict("records") == CONFIGS
    assert table["error"].isna().all()
    assert (table["base_seed"] == 3).all()
    assert table.attrs["seed_used"] == 3
    for config, row in zip(CONFIGS, table.itertuples(), strict=True):
        assert row.key == config_key(config)
        assert row.seed == task_seed(3, config_key(config))
        # the row is reproduced by calling the task with its child seed
        again = c2st_task(**config, seed=row.seed)
        assert again.statistic == row.statistic
        assert again.accuracy == row.statistic
        assert again.pvalue == row.pvalue


def test_run_many_independent_of_order_and_subset():
    full = run_many(c2st_task, CONFIGS, seed=11, progress=False).set_index("key")
    reordered = run_many(c2st_task, CONFIGS[::-1], seed=11, progress=False).set_index("key")
    subset = run_many(c2st_task, CONFIGS[2:3], seed=11, progress=False).set_index("key")
    cols = ["statistic", "pvalue", "seed"]
    pd.testing.assert_frame_equal(full.loc[reordered.index, cols], reordered[cols])
    pd.testing.assert_frame_equal(full.loc[subset.index, cols], subset[cols])
    other = run_many(c2st_task, CONFIGS, seed=12, progress=False)
    assert not np.array_equal(other["seed"], full["seed"])


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_run_many_same_for_any_n_jobs_and_backend(backend):
    configs = [{"v": i} for i in range(6)]
    serial = run_many(draw_task, configs, seed=5, progress=False)
    with joblib.parallel_config(backend=backend):
        parallel = run_many(draw_task, configs, seed=5, n_jobs=2, progress=False)
    cols = ["v", "draw", "v2", "key", "seed"]
    pd.testing.assert_frame_equal(serial[cols], parallel[cols])


def test_run_many_failing_task_is_recorded():
    table = run_many(flaky_task, [{"v": v} for v in range(4)], seed=0, progress=False)
    assert table.loc[2, "error"] == "RuntimeError: bad setting"
    assert np.isnan(table.loc[2, "value"])
    assert table["error"].isna().sum() == 3
    assert table.loc[3, "warnings"] == "UserWarning: careful"
    assert table.loc[1, "value"] == 1.5
    assert pd.isna(table.loc[0, "warnings"])


def test_run_many_seed_none_and_generator():
    configs = [{"v": i} for i in range(3)]
    fresh = run_many(draw_task, configs, progress=False)
    used = fresh.attrs["seed_used"]
    again = run_many(draw_task, configs, seed=used, progress=False)
    assert fresh["draw"].tolist() == again["draw"].tolist()
    g1 = run_many(draw_task, configs, seed=np.random.default_rng(1), progress=False)
    g2 = run_many(draw_task, configs, seed=np.random.default_rng(1), progress=False)
    assert g1["draw"].tolist() == g2["draw"].tolist()


def test_run_many_progress_bar_on_stderr(capsys):
    run_many(draw_task, [{"v": 1}, {"v": 2}], seed=0, progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "tasks" in captured.err


def test_library_is_silent_by_default(capsys, tmp_path):
    import inspect

    from modelcompare import power_study, run_sweep
    from modelcompare.experiments import run_config

    for fn in (run_many, run_sweep, power_study, run_config):
        assert inspect.signature(fn).parameters["progress"].default is False
        assert inspect.signature(fn).parameters["seed"].default is None
    run_many(draw_task, [{"v": 1}, {"v": 2}], seed=0)
    run_sweep(draw_task, [{"v": 1}], out=tmp_path / "r.csv", seed=0)
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "")


@pytest.mark.parametrize(
    ("configs", "exc", "match"),
    [
        ({"v": 1}, TypeError, "list of dicts"),
        ([{"v": 1}, 3], TypeError, r"configs\[1\]"),
        ([{"v": 1}, {"v": 1}], ValueError, "same task.*replicate"),
        ([{"v": 1, "seed": 3}], ValueError, "child seed"),
        ([{"v": 1, 2: 3}], TypeError, r"configs\[0\].*non-string key"),
    ],
)
def test_run_many_bad_configs(configs, exc, match):
    with pytest.raises(exc, match=match):
        run_many(draw_task, configs, seed=0, progress=False)


def test_run_many_bad_fn_and_output():
    with pytest.raises(TypeError, match="callable"):
        run_many("not a function", [{"v": 1}], seed=0, progress=False)
    table = run_many(lambda v, seed: "text", [{"v": 1}], seed=0, progress=False)
    assert "result object, a dict or a number" in table.loc[0, "error"]


def test_run_many_list_values_become_json_cells():
    table = run_many(lambda h, seed: {"out": [1, 2]}, [{"h": [10, 10]}], seed=0, progress=False)
    assert json.loads(table.loc[0, "h"]) == [10, 10]
    assert json.loads(table.loc[0, "out"]) == [1, 2]


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"n_jobs": 0}, ValueError, "`n_jobs`.*non-zero"),
        ({"n_jobs": True}, TypeError, "`n_jobs`"),
        ({"n_jobs": 1.5}, TypeError, "`n_jobs`"),
        ({"n_jobs": "2"}, TypeError, "`n_jobs`"),
        ({"progress": "x"}, TypeError, "`progress`"),
        ({"progress": 1}, TypeError, "`progress`"),
    ],
)
def test_run_many_bad_options_name_the_argument(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        run_many(draw_task, [{"v": 1}], seed=0, **kwargs)


def test_run_many_accepts_numpy_ints_and_negative_n_jobs():
    for n_jobs in (np.int64(1), -1):
        table = run_many(draw_task, [{"v": 1}], seed=0, n_jobs=n_jobs)
        assert table["error"].isna().all()


def test_fresh_base_seed_fits_in_int64():
    table = run_many(draw_task, [{"v": 1}])
    assert 0 <= table.attrs["seed_used"] < 2**63
    assert table["base_seed"].dtype == np.int64


def test_run_many_is_typed_and_returns_the_documented_table():
    """The annotation names the DataFrame that comes back, with the documented columns and attrs."""
    import inspect

    assert inspect.signature(run_many).return_annotation == "pd.DataFrame"
    table = run_many(flaky_task, [{"v": 1}, {"v": 2}], seed=0)
    assert isinstance(table, pd.DataFrame)
    meta = ["key", "seed", "base_seed", "error", "warnings", "runtime_s"]
    assert list(table.columns) == ["v", "value", *meta]
    assert table.attrs == {"seed_used": 0, "config_columns": ["v"]}
