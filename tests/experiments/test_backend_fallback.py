"""Backends that cannot stream results (like Ray's) get rounds of list calls; nothing changes."""

from __future__ import annotations

import joblib
import pandas as pd
import pytest
from joblib._parallel_backends import ThreadingBackend

from modelcompare import run_many, run_sweep
from modelcompare._foundation.parallel import results_as_they_finish
from modelcompare.experiments import _sweep

from .test_sweep import CALLS, STABLE, draw_task


class ListOnlyBackend(ThreadingBackend):
    """Threads that, like Ray's and multiprocessing's backends, return only whole lists."""

    supports_return_generator = False


joblib.register_parallel_backend("list_only", ListOnlyBackend)

CONFIGS7 = [{"v": v} for v in range(7)]


def test_list_only_backend_refuses_generators():
    with joblib.parallel_config(backend="list_only"), pytest.raises(ValueError, match="return_as"):
        joblib.Parallel(n_jobs=2, return_as="generator")


@pytest.mark.parametrize("backend", ["list_only", "threading", "sequential"])
def test_results_as_they_finish_on_any_backend(backend):
    with joblib.parallel_config(backend=backend):
        got = list(results_as_they_finish(pow, [(v, 2) for v in range(7)], n_jobs=2))
    assert sorted(got) == [v * v for v in range(7)]


def test_run_many_on_list_only_backend_equals_serial():
    serial = run_many(draw_task, CONFIGS7, seed=5)
    with joblib.parallel_config(backend="list_only"):
        other = run_many(draw_task, CONFIGS7, seed=5, n_jobs=2)
    pd.testing.assert_frame_equal(serial[STABLE], other[STABLE])


def test_sweep_on_list_only_backend_saves_each_round_and_resumes(tmp_path, monkeypatch):
    out = tmp_path / "r.csv"
    writes = []
    real_write = _sweep._atomic_write_text

    def interrupt_on_fourth_task(path, text):
        if path.name != "_sweep.json":
            writes.append(path.name)
            if len(writes) == 4:  # Ctrl-C in the driver while saving the second round
                raise KeyboardInterrupt
        real_write(path, text)

    monkeypatch.setattr(_sweep, "_atomic_write_text", interrupt_on_fourth_task)
    with joblib.parallel_config(backend="list_only"), pytest.raises(KeyboardInterrupt):
        run_sweep(draw_task, CONFIGS7, out=out, seed=3, n_jobs=2)
    monkeypatch.setattr(_sweep, "_atomic_write_text", real_write)
    saved = pd.read_csv(out)
    assert len(saved) == 3  # the first round and one record of the second: saved as they came
    CALLS.clear()
    with joblib.parallel_config(backend="list_only"):
        resumed = run_sweep(draw_task, CONFIGS7, out=out, seed=None, n_jobs=2)
    assert sorted(CALLS) == sorted(set(range(7)) - set(saved["v"]))  # only what was missing
    assert resumed.attrs["n_skipped"] == 3
    fresh = run_many(draw_task, CONFIGS7, seed=3)
    pd.testing.assert_frame_equal(resumed[STABLE], fresh[STABLE])
