"""A real local Ray instance: every entry point with ``n_jobs`` through joblib's ray backend."""

from __future__ import annotations

import functools
import json
import os
import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import modelcompare as mc
from modelcompare import c2st, c2st_many, power_study, run_many, run_sweep
from modelcompare.experiments import _sweep

ray = pytest.importorskip("ray")

# a Ray instance takes tens of seconds to start and each round ships its tasks to the object store
pytestmark = pytest.mark.slow

STABLE = ["v", "draw", "key", "seed", "base_seed", "error"]
MODEL = mc.ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
X0 = np.array([[0.0, 0.0], [1.0, -1.0]])
FEW_NULLS = pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")


def gaussians(shift, seed):
    return seed.normal(size=(40, 2)), seed.normal(shift, 1.0, size=(40, 2))


def draw(v, seed):
    return {"draw": float(np.random.default_rng(seed).random()), "pid": os.getpid()}


@pytest.fixture(scope="module")
def on_ray():
    from ray.util.joblib import register_ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    register_ray()
    try:
        yield lambda: joblib.parallel_config(backend="ray")
    finally:
        ray.shutdown()


def test_run_many_on_ray_equals_serial(on_ray):
    configs = [{"v": v} for v in range(5)]
    serial = run_many(draw, configs, seed=1)
    with on_ray():
        remote = run_many(draw, configs, seed=1, n_jobs=2)
    pd.testing.assert_frame_equal(serial[STABLE], remote[STABLE])
    assert os.getpid() not in set(remote["pid"])  # ran in Ray's worker processes


def test_power_study_on_ray_equals_serial(on_ray):
    test = functools.partial(c2st, classifier="logistic", n_folds=3)
    kw = {"n_trials": 4, "settings": {"shift": [0.0, 1.0]}, "seed": 7}
    serial = power_study(test, gaussians, **kw)
    with on_ray():
        remote = power_study(test, gaussians, n_jobs=2, **kw)
    cols = ["shift", "trial", "pvalue", "statistic", "seed", "key", "error"]
    pd.testing.assert_frame_equal(serial.pvalues[cols], remote.pvalues[cols])
    pd.testing.assert_frame_equal(serial.table, remote.table)


def test_c2st_many_on_ray_equals_serial(on_ray):
    rng = np.random.default_rng(0)
    pairs = [(rng.normal(size=(50, d)), rng.normal(0.5, 1.0, size=(50, d))) for d in (2, 2, 3)]
    serial = c2st_many(pairs, classifier="logistic", seed=3)
    with on_ray():
        remote = c2st_many(pairs, classifier="logistic", seed=3, n_jobs=2)
    assert serial.seeds == remote.seeds
    pd.testing.assert_frame_equal(serial.table, remote.table)


def test_sweep_interrupted_on_ray_resumes_without_loss(on_ray, tmp_path, monkeypatch):
    configs = [{"v": v} for v in range(7)]
    out = tmp_path / "r.csv"
    saved: list[str] = []
    real_write = _sweep._atomic_write_text

    def interrupt_on_fourth_task(path, text):
        if path.name != "_sweep.json":
            saved.append(path.name)
            if len(saved) == 4:  # Ctrl-C in the driver while results come back
                raise KeyboardInterrupt
        real_write(path, text)

    monkeypatch.setattr(_sweep, "_atomic_write_text", interrupt_on_fourth_task)
    with on_ray(), pytest.raises(KeyboardInterrupt):
        run_sweep(draw, configs, out=out, seed=2, n_jobs=2)
    monkeypatch.setattr(_sweep, "_atomic_write_text", real_write)
    first = pd.read_csv(out)
    assert len(first) == 3
    with on_ray():
        resumed = run_sweep(draw, configs, out=out, seed=None, n_jobs=2)
    assert resumed.attrs["n_skipped"] == 3
    assert resumed.attrs["n_run"] == 4
    kept = resumed.set_index("v").loc[first["v"], "draw"].tolist()
    assert kept == first["draw"].tolist()  # no finished row lost or rerun
    fresh = run_many(draw, configs, seed=2)
    pd.testing.assert_frame_equal(resumed[STABLE], fresh[STABLE])


def test_cli_sweep_on_ray_equals_serial(on_ray, tmp_path):
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
    rows = {}
    for name, jobs in (("serial", []), ("ray", ["--n-jobs", "2"])):
        args = ["sweep", str(tmp_path / "s.json"), "--json", "-q", "--out"]
        args += [str(tmp_path / f"{name}.csv"), *jobs]
        if name == "ray":
            with on_ray():
                res = CliRunner().invoke(app, args)
        else:
            res = CliRunner().invoke(app, args)
        assert res.exit_code == 0, res.output
        rows[name] = json.loads(res.stdout)["rows"]
    assert [r["pvalue"] for r in rows["ray"]] == [r["pvalue"] for r in rows["serial"]]
    assert [r["seed"] for r in rows["ray"]] == [r["seed"] for r in rows["serial"]]


@FEW_NULLS
def test_local_tests_on_ray_equal_serial(on_ray):
    theta, x = MODEL.simulate(300, seed=12)
    p = mc.pit(MODEL.exact_flow(), theta, x)
    for test in (mc.local_coverage_test, mc.local_independence_test):
        kw = {"regressor": "knn", "n_resamples": 20, "seed": 4}
        serial = test(p, x, X0, **kw)
        with on_ray():
            remote = test(p, x, X0, n_jobs=2, **kw)
        np.testing.assert_array_equal(serial.null_statistics, remote.null_statistics)
        np.testing.assert_array_equal(serial.pvalues, remote.pvalues)


@FEW_NULLS
def test_validate_posterior_on_ray_equals_serial(on_ray):
    theta, x = MODEL.simulate(200, seed=0)
    kw = {"x_eval": X0, "regressor": "knn", "n_resamples": 20, "n_posterior_samples": 30}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        serial = mc.validate_posterior(MODEL.exact_flow(), theta, x, seed=3, **kw)
        with on_ray():
            remote = mc.validate_posterior(MODEL.exact_flow(), theta, x, seed=3, n_jobs=2, **kw)
    cols = [c for c in serial.checks.columns if c != "runtime_s"]
    pd.testing.assert_frame_equal(serial.checks[cols], remote.checks[cols])


@FEW_NULLS
@pytest.mark.torch
def test_lc2st_nf_on_ray_equals_serial(on_ray):
    pytest.importorskip("torch")
    theta, x = MODEL.simulate(100, seed=5)
    flow = MODEL.exact_flow()
    kw = {"n_resamples": 5, "n_eval": 100, "seed": 2}
    serial = mc.lc2st_nf(flow, theta, x, X0, **kw)
    with on_ray():
        remote = mc.lc2st_nf(flow, theta, x, X0, n_jobs=2, **kw)
    np.testing.assert_array_equal(serial.null_statistics, remote.null_statistics)
    np.testing.assert_array_equal(serial.statistics, remote.statistics)
