"""The thread trap: OpenMP threads of the default LCT regressor on a quiet and on a busy machine.

``local_coverage_test`` fits scikit-learn's ``HistGradientBoostingClassifier`` (OpenMP) once per
covariate and null trial. With one OpenMP thread per core, a fit that competes with other busy
processes spends its time waiting at OpenMP barriers. This script times one README-sized call
(N = 2000 uniform PIT values, m = 2, x in R^2, 3 evaluation points, 20 null trials):

(a) quiet: with ``MODELCOMPARE_NUM_THREADS=n`` for n = 1, 2 and all cores, and with the
    library's serial default (the variable unset);
(b) beside two busy processes (``while True: pass``), the same thread counts.

The thread count is set through the environment variable, as a user opts in, because the
library's own ``thread_limits`` inside the call replaces any limit set around it.

It prints a table and the ratios the serial default must meet: under load within 1.5x of one
thread under the same load; quiet at most 10 % slower than the best thread count.

Run: python benchmarks/thread_trap.py [--n 2000] [--count 20] [--repeats 3]
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import time
import warnings
from typing import Any

import _harness
import numpy as np

import modelcompare as mc
from modelcompare._foundation.threads import NUM_THREADS_ENV, default_threads

SLUG = "package-02-thread-limits-the-openmp-trap"
MEANING = """\
`local_coverage_test` with its default regressor (scikit-learn's histogram gradient boosting, which
uses every OpenMP thread) slows by an order of magnitude when its threads compete with other work
for the cores. Every library call that may spawn threads runs inside one foundation context,
`thread_limits`: one inner thread per worker when `n_jobs > 1`, and one thread when serial (the
default); `MODELCOMPARE_NUM_THREADS` opts in to more. The caller's settings are restored on exit.

The local coverage test at n = 2,000, x in R², three evaluation points, 20 null fits, with the
thread count set as a user sets it (`MODELCOMPARE_NUM_THREADS`) and with the library's default
(the variable unset), first alone and then beside busy Python processes competing for the cores;
the median of the repeats. The load average is the one before the run. Targets: under load the
default within 1.5× of one thread; without load at most 10 % slower than the best setting."""
NOTES = """\
The default is one thread, so "default" and "1 thread" run the same code; their difference under
load is the noise of sharing the cores with spinning processes. More OpenMP threads gain nothing
when the machine is quiet (the fits are small) and are many times slower under load, because idle
OpenMP threads spin at every barrier while the busy processes hold the cores. Users on a machine
of their own can opt in to more threads with `MODELCOMPARE_NUM_THREADS`."""


def run_lct(p: np.ndarray, x: np.ndarray, x_eval: np.ndarray, count: int, seed: int) -> Any:
    """``local_coverage_test`` with ``count`` null trials, whatever the count is called."""
    params = inspect.signature(mc.local_coverage_test).parameters
    name = "n_resamples" if "n_resamples" in params else "n_null"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 20 trials cannot resolve p < 0.05; timing only
        return mc.local_coverage_test(p, x, x_eval, seed=seed, **{name: count})


def timed(data: tuple, count: int, n_threads: int | None, repeats: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``repeats`` calls with ``n_threads`` (None: the default)."""
    walls, cpus = [], []
    if n_threads is None:
        os.environ.pop(NUM_THREADS_ENV, None)
    else:
        os.environ[NUM_THREADS_ENV] = str(n_threads)
    try:
        for _ in range(repeats):
            w0, c0 = time.perf_counter(), time.process_time()
            run_lct(*data, count, seed=0)
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
    finally:
        os.environ.pop(NUM_THREADS_ENV, None)
    return float(np.median(walls)), float(np.median(cpus))


def main() -> None:
    parser = _harness.parser(__doc__.splitlines()[0], repeats=3)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--count", type=int, default=20, help="null trials")
    parser.add_argument("--busy", type=int, default=2, help="busy processes in phase (b)")
    args = parser.parse_args()
    if args.quick:
        args.n, args.count, args.repeats = 500, 4, 1
    load_before = _harness.load_average()  # the busy processes raise it during the run

    rng = np.random.default_rng(args.seed)
    x = rng.normal(size=(args.n, 2))
    p = rng.uniform(size=(args.n, 2))
    x_eval = np.array([[-1.0, -1.0], [0.0, 0.0], [1.0, 1.0]])
    data = (p, x, x_eval)
    run_lct(p[:200], x[:200], x_eval, 2, seed=0)  # imports and first-call costs

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    settings: list[tuple[str, int | None]] = [(str(n), n) for n in sorted({1, 2, cores or 1})]
    settings.append(("default", None))
    print(f"cores {cores}, serial default {default_threads()}, load average {os.getloadavg()}")

    rows: dict[tuple[str, str], tuple[float, float]] = {}
    for label, n in settings:
        rows["quiet", label] = timed(data, args.count, n, args.repeats)
        print(f"  quiet, {label} thread(s): {rows['quiet', label][0]:.1f} s", flush=True)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        time.sleep(1.0)
        for label, n in settings:
            rows["load", label] = timed(data, args.count, n, args.repeats)
            print(
                f"  {args.busy} busy, {label} thread(s): {rows['load', label][0]:.1f} s", flush=True
            )
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()
    print(f"load average after: {os.getloadavg()}")

    print(f"\n{'condition':<12}{'threads':>8}{'wall s':>9}{'cpu s':>8}{'vs 1 thread':>13}")
    for (cond, label), (wall, cpu) in rows.items():
        print(f"{cond:<12}{label:>8}{wall:>9.1f}{cpu:>8.1f}{wall / rows[cond, '1'][0]:>13.2f}")
    best_quiet = min(rows["quiet", label][0] for label, _ in settings)
    quiet_ratio = rows["quiet", "default"][0] / best_quiet
    load_ratio = rows["load", "default"][0] / rows["load", "1"][0]
    print(f"\nquiet: default / best = {quiet_ratio:.2f} (target <= 1.10)")
    print(f"load:  default / one thread = {load_ratio:.2f} (target <= 1.50)")

    labels = [label for label, _ in settings if label != "default"]
    table = []
    for cond, name in (("quiet", "no extra load"), ("load", f"beside {args.busy} busy processes")):
        ratio = rows[cond, "default"][0] / rows[cond, "1"][0]
        table.append(
            [
                name,
                *(f"{rows[cond, label][0]:.1f} s" for label in labels),
                f"{rows[cond, 'default'][0]:.1f} s",
                f"{ratio:.2f}" + (" (target ≤ 1.5)" if cond == "load" else ""),
                f"{quiet_ratio:.2f} (target ≤ 1.10)" if cond == "quiet" else "",
            ]
        )
    result = _harness.record(
        SLUG,
        title="Thread limits: the OpenMP trap",
        part="package",
        script=__file__,
        columns=[
            "setting",
            *(f"{label} thread{'s' * (label != '1')}" for label in labels),
            "default",
            "default / 1 thread",
            "default / best",
        ],
        rows=table,
        meaning=MEANING,
        notes=NOTES,
        load=load_before,
    )
    _harness.save(args, result)


if __name__ == "__main__":
    main()
