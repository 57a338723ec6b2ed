"""thread_limits: who gets how many threads, and the caller's settings come back on exit."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import joblib
import numpy as np
import pytest
import sklearn.ensemble  # noqa: F401 - loads scikit-learn's OpenMP runtime
from sklearn.utils._openmp_helpers import _openmp_effective_n_threads
from threadpoolctl import threadpool_info, threadpool_limits

from modelcompare._foundation import threads
from modelcompare._foundation.threads import (
    NUM_THREADS_ENV,
    default_threads,
    inner_threads,
    limit_threads,
    thread_limits,
)


def pools() -> dict[str, int]:
    return {lib["filepath"]: lib["num_threads"] for lib in threadpool_info()}


def torch_threads() -> int | None:
    torch = sys.modules.get("torch")
    return None if torch is None else torch.get_num_threads()


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch):
    monkeypatch.delenv(NUM_THREADS_ENV, raising=False)


def test_pools_are_visible():
    apis = {lib["user_api"] for lib in threadpool_info()}
    assert {"blas", "openmp"} <= apis


def test_one_thread_everywhere_and_restored():
    before, torch_before = pools(), torch_threads()
    with thread_limits(1) as n:
        assert n == 1
        assert set(pools().values()) == {1}
        assert _openmp_effective_n_threads() == 1  # what scikit-learn's OpenMP code will use
        _ = np.ones((64, 64)) @ np.ones((64, 64))
    assert pools() == before
    assert torch_threads() == torch_before


def test_torch_is_limited_and_restored():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    with thread_limits(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    torch.set_num_threads(1)
    try:
        with thread_limits(2):
            assert torch.get_num_threads() == 2
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_restored_after_an_exception():
    before, torch_before = pools(), torch_threads()
    with pytest.raises(RuntimeError, match="boom"), thread_limits(1):
        raise RuntimeError("boom")
    assert pools() == before
    assert torch_threads() == torch_before


def test_callers_own_limits_come_back():
    with threadpool_limits(limits=1, user_api="blas"):
        caller = pools()
        with thread_limits(2):
            assert set(pools().values()) == {2}
        assert pools() == caller
        with thread_limits(1):
            assert set(pools().values()) == {1}
        assert pools() == caller


def test_nested_limits_unwind_in_order():
    outer = pools()
    with thread_limits(2):
        middle = pools()
        with thread_limits(1):
            assert set(pools().values()) == {1}
        assert pools() == middle
    assert pools() == outer


def test_limit_threads_is_the_one_thread_call():
    before = pools()
    with limit_threads():
        assert set(pools().values()) == {1}
    assert pools() == before


def test_serial_default_caps_but_never_enlarges(monkeypatch):
    monkeypatch.setattr(threads, "DEFAULT_SERIAL_THREADS", 4)
    monkeypatch.setattr(threads, "_usable_cores", lambda: 8)
    assert default_threads() == 4
    before = pools()
    with thread_limits() as n:
        assert n == 4
        assert pools() == {path: min(4, k) for path, k in before.items()}
    # an enclosing limit (or OMP_NUM_THREADS) wins
    with threadpool_limits(limits=1), thread_limits():
        assert set(pools().values()) == {1}
    assert pools() == before


def test_default_is_capped_by_the_cores(monkeypatch):
    monkeypatch.setattr(threads, "DEFAULT_SERIAL_THREADS", 16)
    monkeypatch.setattr(threads, "_usable_cores", lambda: 3)
    assert default_threads() == 3


def test_environment_variable_sets_the_serial_count_exactly(monkeypatch):
    monkeypatch.setenv(NUM_THREADS_ENV, "1")
    assert default_threads() == 1
    assert inner_threads(None) == 1
    with thread_limits() as n:
        assert n == 1
        assert set(pools().values()) == {1}
    monkeypatch.setenv(NUM_THREADS_ENV, "2")
    assert default_threads() == 2
    with threadpool_limits(limits=1), thread_limits() as n:  # exact: raises a smaller pool
        assert n == 2
        assert set(pools().values()) == {2}
    assert inner_threads(2) == 1  # parallel workers still get one thread


@pytest.mark.parametrize("text", ["0", "-2", "two", "1.5"])
def test_bad_environment_variable_is_a_clear_error(monkeypatch, text):
    monkeypatch.setenv(NUM_THREADS_ENV, text)
    with pytest.raises(ValueError, match=f"{NUM_THREADS_ENV} must be a positive int"):
        default_threads()


def test_explicit_n_threads_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv(NUM_THREADS_ENV, "2")
    with thread_limits(1) as n:
        assert n == 1
        assert set(pools().values()) == {1}


def test_inner_threads():
    assert inner_threads(2) == 1
    assert inner_threads(-1) == (1 if joblib.effective_n_jobs(-1) > 1 else default_threads())
    assert inner_threads(1) == default_threads()
    assert inner_threads() == default_threads()
    with joblib.parallel_config(n_jobs=2):
        assert inner_threads(None) == 1  # None follows joblib's parallel_config
        assert inner_threads(1) == default_threads()
    with pytest.raises(ValueError, match="`n_jobs`"):
        inner_threads(0)
    with pytest.raises(TypeError, match="`n_jobs`"):
        inner_threads(True)


def test_parallel_n_jobs_gives_one_thread():
    before = pools()
    with thread_limits(n_jobs=2) as n:
        assert n == 1
        assert set(pools().values()) == {1}
    with joblib.parallel_config(n_jobs=2), thread_limits() as n:
        assert n == 1
    assert pools() == before


@pytest.mark.parametrize(("value", "exc"), [(0, ValueError), (-1, ValueError), ("2", TypeError)])
def test_bad_n_threads(value, exc):
    with pytest.raises(exc, match="`n_threads`"), thread_limits(value):
        pass


def test_torch_is_never_imported_for_limiting():
    code = textwrap.dedent(
        """
        import sys
        from modelcompare._foundation.threads import thread_limits
        with thread_limits(1):
            pass
        assert "torch" not in sys.modules
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
