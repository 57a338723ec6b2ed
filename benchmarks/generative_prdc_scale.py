"""Precision/recall/density/coverage at scale: ``modelcompare.prdc`` beside the ``prdc`` package.

Each method runs in its own subprocess on the same float32 Gaussian features (n real, n generated,
d columns); the time is wall-clock and the peak memory the subprocess's maximum resident set
(``ru_maxrss``, the interpreter and the data included). ``prdc`` builds three dense n × n
distance matrices; ``modelcompare.prdc`` holds one block of rows × n at a time.

Run (one core; the full size takes hours on one core and minutes on a GPU):

    python benchmarks/generative_prdc_scale.py --n 2000 5000 --d 2048 --prdc-max-n 5000
    python benchmarks/generative_prdc_scale.py --n 50000 --d 2048 --prdc-max-n 15000 --device cuda

Writes ``benchmarks/results/generative_prdc_scale.json``.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

import _harness

_harness.one_thread()

import numpy as np

NOTES = (
    "Empty cells were not run. `prdc` was run up to n = 15,000 (its three matrices take 2.7 GB "
    "there and 30 GB at n = 50,000, more than this machine's 23 GB). n = 50,000 was not run: "
    "extrapolating the one-core times, `modelcompare.prdc` needs about 20 minutes there on this "
    "shared machine (three products of 2·n²·d ≈ 10¹³ operations each), with its memory growing "
    "as n·d (the float64 data, about 1.6 GB, plus one block). The GPU path "
    '(`device="cuda"`) is written and has a test comparing it with the CPU '
    "(`tests/relative/test_generative_scores.py::test_prdc_gpu_equals_cpu`, marked gpu), but "
    "no GPU was available to run it. Density differs from `prdc`'s in the fifth decimal at "
    "n ≥ 10,000: `prdc` compares float32 distances, `modelcompare` float64 ones, and a few "
    "points lie on a ball's edge to float32 precision. `prdc` is faster at some sizes because "
    "numpy computes its two symmetric products X·Xᵀ with half the operations (syrk); the "
    "block-wise products here cannot. The timings share two cores with other jobs (the load "
    "average is recorded)."
)


def _data(n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    real = rng.standard_normal((n, d), dtype=np.float32)
    fake = rng.standard_normal((n, d), dtype=np.float32)  # same law: the metrics are not trivial
    return real, fake


def worker(method: str, n: int, d: int, device: str) -> None:
    real, fake = _data(n, d)
    start = time.perf_counter()
    if method == "prdc":
        from prdc import compute_prdc

        out = compute_prdc(real_features=real, fake_features=fake, nearest_k=5)
    else:
        from modelcompare import prdc

        res = prdc(fake, real, nearest_k=5, n_subsets=0, device=device)
        out = {m: getattr(res, m) for m in ("precision", "recall", "density", "coverage")}
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB → MiB on Linux
    print(
        json.dumps({"seconds": seconds, "peak_mib": peak, **{k: float(v) for k, v in out.items()}})
    )


def main() -> None:
    parser = _harness.parser(__doc__)
    parser.add_argument("--n", type=int, nargs="+", default=[2000, 5000])
    parser.add_argument("--d", type=int, default=2048)
    parser.add_argument("--prdc-max-n", type=int, default=5000)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--worker", nargs=3, metavar=("METHOD", "N", "D"))
    args = parser.parse_args()
    if args.quick:
        args.n, args.d = [500], 64
    if args.worker:
        worker(args.worker[0], int(args.worker[1]), int(args.worker[2]), args.device)
        return
    rows = []
    for n in args.n:
        for method in ("modelcompare", "prdc"):
            if method == "prdc" and n > args.prdc_max_n:
                rows.append([n, args.d, method, None, None, None, None, None, None])
                continue
            cmd = [sys.executable, __file__, "--worker", method, str(n), str(args.d)]
            cmd += ["--device", args.device]
            done = subprocess.run(cmd, capture_output=True, text=True, check=True)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(n, method, r, flush=True)
            rows.append(
                [
                    n,
                    args.d,
                    method,
                    round(r["seconds"], 1),
                    round(r["peak_mib"]),
                    r["precision"],
                    r["recall"],
                    r["density"],
                    r["coverage"],
                ]
            )
    stored = _harness.previous("generative_prdc_scale")
    if stored and not args.quick:  # keep the rows of earlier runs at other sizes
        ran = {(r[0], r[1], r[2]) for r in rows if r[3] is not None}
        rows = [r for r in rows if r[3] is not None or (r[0], r[1], r[2]) not in ran]
        old = stored["rows"]
        rows = [r for r in old if (r[0], r[1], r[2]) not in ran] + rows
        measured = {(r[0], r[1], r[2]) for r in rows if r[3] is not None}
        rows = [r for r in rows if r[3] is not None or (r[0], r[1], r[2]) not in measured]
        rows = list({(r[0], r[1], r[2]): r for r in rows}.values())
        rows.sort(key=lambda r: (r[0], r[2]))
    result = _harness.record(
        "generative_prdc_scale",
        title="Precision, recall, density and coverage at scale, beside the prdc package",
        part="generative",
        script=__file__,
        columns=[
            "n",
            "d",
            "method",
            "seconds",
            "peak MiB",
            "precision",
            "recall",
            "density",
            "coverage",
        ],
        rows=rows,
        meaning=(
            "Wall-clock seconds and peak resident memory (MiB, interpreter and data included) of "
            "one call on n real and n generated float32 standard Gaussian features of width d (one law), k = 5, no "
            "standard errors. `prdc` holds three dense n × n float32 distance matrices "
            "(12 n² bytes: 30 GB at n = 50,000); `modelcompare.prdc` holds one block of rows × n "
            "float64 distances (about 32 MiB) beside the float64 data, so its memory grows as "
            "n·d, not n². The four values agree between the two (the last columns)."
        ),
        notes=NOTES,
    )
    _harness.save(args, result)


if __name__ == "__main__":
    main()
