"""Thread limits for work that may spawn threads (BLAS, OpenMP, torch), in one place.

Many estimators here (scikit-learn's histogram gradient boosting, BLAS products, torch) start one
thread per core. Nested under joblib workers, or beside other busy processes, those threads fight
for the cores and a fit can run many times slower than with one thread. Every part therefore
runs such work inside :func:`thread_limits`:

- inside a parallel worker (``n_jobs`` resolving to more than one worker): one thread;
- serially: :data:`DEFAULT_SERIAL_THREADS` threads, at most the number of usable cores, and never
  more than a pool already has (so ``OMP_NUM_THREADS``, an enclosing
  ``threadpoolctl.threadpool_limits`` or a joblib worker's own limit still win);
- the environment variable ``MODELCOMPARE_NUM_THREADS`` replaces the serial default, and an
  explicit ``n_threads`` replaces everything; both set the pools to exactly that size.

``n_jobs=None`` follows an enclosing ``joblib.parallel_config`` context, as joblib does.
"""

from __future__ import annotations

import contextvars
import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from modelcompare._foundation.validation import check_int, check_n_jobs

__all__ = [
    "DEFAULT_SERIAL_THREADS",
    "NUM_THREADS_ENV",
    "default_threads",
    "inner_threads",
    "limit_threads",
    "thread_limits",
]

#: Threads per BLAS/OpenMP/torch pool for serial work, before the core count caps it. Measured with
#: the default regressor of ``local_coverage_test`` (benchmarks/thread_trap.py, N = 2000, 20 null
#: trials, 2 cores): quiet, one thread took 2.7 s and two OpenMP threads 3.1 s; beside two busy
#: processes 3.9 s against 36 s. Idle OpenMP threads spin at every barrier, so any competition for
#: the cores makes more threads much slower, while small fits gain nothing from a second thread.
DEFAULT_SERIAL_THREADS = 1

NUM_THREADS_ENV = "MODELCOMPARE_NUM_THREADS"


def _usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def _env_threads() -> int | None:
    text = os.environ.get(NUM_THREADS_ENV)
    if text is None or not text.strip():
        return None
    try:
        value = int(text.strip())
    except ValueError:
        value = 0
    if value < 1:
        msg = f"the environment variable {NUM_THREADS_ENV} must be a positive int; got {text!r}."
        raise ValueError(msg)
    return value


def default_threads() -> int:
    """Threads for serial work: ``MODELCOMPARE_NUM_THREADS`` if set, else the default.

    The default is ``min(DEFAULT_SERIAL_THREADS, usable cores)``.

    >>> default_threads() >= 1
    True
    """
    env = _env_threads()
    if env is not None:
        return env
    return min(DEFAULT_SERIAL_THREADS, _usable_cores())


def inner_threads(n_jobs: int | None = None) -> int:
    """Threads each task may use when ``n_jobs`` workers run the tasks.

    One when ``n_jobs`` resolves to more than one worker (``None`` is resolved through
    ``joblib.parallel_config``), else :func:`default_threads`.

    >>> inner_threads(2)
    1
    >>> inner_threads(1) == default_threads()
    True
    """
    import joblib

    n_jobs = check_n_jobs(n_jobs)
    if joblib.effective_n_jobs(n_jobs) != 1:
        return 1
    return default_threads()


def _limit_pools(stack: ExitStack, n_threads: int, exact: bool) -> None:
    from threadpoolctl import ThreadpoolController

    controller = ThreadpoolController()
    targets: dict[int, list[str]] = {}
    for lib in controller.info():
        current = int(lib["num_threads"])
        target = n_threads if exact else min(n_threads, current)
        if target != current:
            targets.setdefault(target, []).append(lib["filepath"])
    for target, paths in targets.items():
        # threadpoolctl's limiter restores each library's own previous size on exit
        stack.enter_context(controller.select(filepath=paths).limit(limits=target))


def _limit_torch(stack: ExitStack, n_threads: int, exact: bool) -> None:
    torch = sys.modules.get("torch")
    if torch is None:  # never import torch just to limit it
        return
    previous = torch.get_num_threads()
    target = n_threads if exact else min(n_threads, previous)
    if target != previous:
        torch.set_num_threads(target)
        stack.callback(torch.set_num_threads, previous)


_ACTIVE: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "modelcompare_thread_limit", default=None
)


@contextmanager
def thread_limits(n_threads: int | None = None, *, n_jobs: int | None = None) -> Iterator[int]:
    """Limit BLAS, OpenMP and torch threads inside the block; restore the caller's on exit.

    Parameters
    ----------
    n_threads : int, optional
        Exact size of every pool. By default :func:`inner_threads` of ``n_jobs``: one inside a
        parallel run, else the serial default (which only lowers pools, never enlarges them).
    n_jobs : int or None
        The caller's worker count, used when ``n_threads`` is not given.

    Yields
    ------
    int
        The thread count asked for.

    Examples
    --------
    >>> import numpy as np
    >>> with thread_limits(1) as n:
    ...     _ = np.ones((50, 50)) @ np.ones((50, 50))
    >>> n
    1
    """
    if n_threads is not None:
        n = check_int(n_threads, "n_threads", low=1)
        exact = True
    else:
        n = inner_threads(n_jobs)
        # The built-in default only caps; MODELCOMPARE_NUM_THREADS and parallel runs set exactly.
        exact = _env_threads() is not None or n == 1
    if exact and _ACTIVE.get() == n:
        # Already inside the same limit (a whole test around its per-fit calls): threadpoolctl's
        # library scan costs milliseconds per call, so nested blocks reuse the outer limit.
        yield n
        return
    token = _ACTIVE.set(n if exact else None)
    try:
        with ExitStack() as stack:
            _limit_pools(stack, n, exact)
            _limit_torch(stack, n, exact)
            yield n
    finally:
        _ACTIVE.reset(token)


def limit_threads() -> Any:
    """Context limiting BLAS/OpenMP pools (and torch, when imported) to one thread.

    The same as ``thread_limits(1)``, for work that runs inside a parallel worker.
    """
    return thread_limits(1)
