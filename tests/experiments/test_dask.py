"""A real Dask cluster: power study, c2st_many and a sweep through joblib's dask backend."""

from __future__ import annotations

import functools
import json
import os

import joblib
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from modelcompare import c2st, c2st_many, power_study, run_sweep

distributed = pytest.importorskip("distributed")


def gaussians(shift, seed):
    return seed.normal(size=(40, 2)), seed.normal(shift, 1.0, size=(40, 2))


def draw(v, seed):
    return {"draw": float(np.random.default_rng(seed).random()), "pid": os.getpid()}


@pytest.fixture(scope="module")
def cluster():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cl,
        distributed.Client(cl) as client,
    ):
        yield cl, client


def test_power_study_on_dask_equals_serial(cluster):
    test = functools.partial(c2st, classifier="logistic", n_folds=3)
    kw = {"n_trials": 6, "settings": {"shift": [0.0, 1.0]}, "seed": 7, "progress": False}
    serial = power_study(test, gaussians, **kw)
    with joblib.parallel_config(backend="dask"):
        remote = power_study(test, gaussians, **kw)
    cols = ["shift", "trial", "pvalue", "statistic", "seed", "key", "error"]
    pd.testing.assert_frame_equal(serial.pvalues[cols], remote.pvalues[cols])
    pd.testing.assert_frame_equal(serial.table, remote.table)
    assert len(cluster[1].scheduler_info()["workers"]) == 2


def test_c2st_many_on_dask_equals_serial(cluster):
    rng = np.random.default_rng(0)
    pairs = [(rng.normal(size=(50, d)), rng.normal(0.5, 1.0, size=(50, d))) for d in (2, 2, 3)]
    serial = c2st_many(pairs, classifier="logistic", seed=3)
    with joblib.parallel_config(backend="dask"):
        remote = c2st_many(pairs, classifier="logistic", seed=3)
    assert serial.seeds == remote.seeds
    for a, b in zip(serial, remote, strict=True):
        assert a.accuracy == b.accuracy
        assert a.pvalue == b.pvalue
        np.testing.assert_array_equal(a.fold_auc, b.fold_auc)
    pd.testing.assert_frame_equal(serial.table, remote.table)


def test_sweep_on_dask_resumes_serial_run(cluster, tmp_path):
    configs = [{"v": v} for v in range(6)]
    out = tmp_path / "r.parquet"
    run_sweep(draw, configs[:3], out=out, seed=2, progress=False)
    with joblib.parallel_config(backend="dask"):
        mixed = run_sweep(draw, configs, out=out, seed=2, progress=False)
    fresh = run_sweep(draw, configs, out=tmp_path / "f.parquet", seed=2, progress=False)
    assert mixed.attrs["n_skipped"] == 3
    # the last three tasks ran in the cluster's worker processes, the first three here
    assert set(mixed["pid"][:3]) == {os.getpid()}
    assert os.getpid() not in set(mixed["pid"][3:])
    assert mixed["draw"].tolist() == fresh["draw"].tolist()


def test_cli_sweep_with_scheduler_address(cluster, tmp_path):
    from modelcompare.cli import app

    rng = np.random.default_rng(1)
    np.save(tmp_path / "a.npy", rng.normal(size=(40, 2)))
    np.save(tmp_path / "b.npy", rng.normal(1.0, 1.0, size=(40, 2)))
    config = {
        "seed": 0,
        "data": {"a": "a.npy", "b": "b.npy"},
        "tests": [
            {"test": "c2st", "x": "a", "y": ["a", "b"], "options": {"classifier": "logistic"}}
        ],
    }
    (tmp_path / "s.json").write_text(json.dumps(config))
    address = cluster[0].scheduler_address
    remote = CliRunner().invoke(
        app,
        [
            "sweep",
            str(tmp_path / "s.json"),
            "--scheduler",
            address,
            "--json",
            "-q",
            "--out",
            str(tmp_path / "remote.csv"),
        ],
    )
    assert remote.exit_code == 0, remote.output
    local = CliRunner().invoke(
        app, ["sweep", str(tmp_path / "s.json"), "--json", "-q", "--out", str(tmp_path / "l.csv")]
    )
    rows_r = json.loads(remote.stdout)["rows"]
    rows_l = json.loads(local.stdout)["rows"]
    assert [r["pvalue"] for r in rows_r] == [r["pvalue"] for r in rows_l]


@pytest.mark.torch
def test_c2st_many_mlp_on_dask_equals_serial(cluster):
    # one batched network per width group, trained on the workers: bit-identical to serial
    from modelcompare import ConvergenceWarning

    rng = np.random.default_rng(4)
    pairs = [(rng.normal(size=(30, d)), rng.normal(0.5, 1.0, size=(30, d))) for d in (2, 2, 3)]
    kw = {"seed": 1, "n_folds": 3, "hidden": (4,), "max_epochs": 12}
    with pytest.warns(ConvergenceWarning):
        serial = c2st_many(pairs, **kw)
    with joblib.parallel_config(backend="dask"), pytest.warns(ConvergenceWarning):
        remote = c2st_many(pairs, **kw)
    for a, b in zip(serial, remote, strict=True):
        assert a.accuracy == b.accuracy
        np.testing.assert_array_equal(a.epochs, b.epochs)
        np.testing.assert_array_equal(a.fold_auc, b.fold_auc)
