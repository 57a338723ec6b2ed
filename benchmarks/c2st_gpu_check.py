"""The device check of ``c2st(device="cuda")`` against the CPU engine, on the same data.

Run on a machine with a CUDA GPU, from the repository root (one prepared run; a few minutes)::

    python -m pytest -m gpu tests/ -q && PYTHONPATH=src python benchmarks/c2st_gpu_check.py

For d = 2, 5 and 10 (``--dims``), n vs n Gaussians (null), one int seed: the CPU engine and cuda
train sbibm's MLP on the same folds, initial weights and minibatch order. The script prints both
wall times, the ratio, accuracies and epochs per fold (they agree up to float32 rounding drift),
and a batched ``c2st_many`` throughput figure on cuda (``--pairs`` comparisons of 1,000 vs 1,000).
"""

from __future__ import annotations

import argparse
import os
import time

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np


def main() -> None:
    import torch

    from modelcompare import c2st, c2st_many

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 5, 10])
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("no CUDA device: this check needs a GPU")
    print(f"GPU: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    print("| d | cpu s | cuda s | cpu/cuda | cpu acc | cuda acc | cpu epochs | cuda epochs |")
    print("|---|---|---|---|---|---|---|---|")
    for d in args.dims:
        rng = np.random.default_rng(args.seed)
        x, y = rng.standard_normal((args.n, d)), rng.standard_normal((args.n, d))
        c2st(x[:200], y[:200], seed=0, device="cuda")  # warm-up: context, kernels
        c2st(x[:200], y[:200], seed=0, device="cpu")  # warm-up: kernel build
        times, results = {}, {}
        for dev in ("cpu", "cuda"):
            t0 = time.perf_counter()
            results[dev] = c2st(x, y, seed=args.seed, device=dev)
            times[dev] = time.perf_counter() - t0
        cpu, cuda = results["cpu"], results["cuda"]
        print(
            f"| {d} | {times['cpu']:.2f} | {times['cuda']:.2f} | "
            f"{times['cpu'] / times['cuda']:.2f}x | {cpu.accuracy:.4f} | {cuda.accuracy:.4f} | "
            f"{cpu.epochs.tolist()} | {cuda.epochs.tolist()} |",
            flush=True,
        )
    rng = np.random.default_rng(args.seed)
    pairs = [
        (rng.standard_normal((1000, 2)), rng.standard_normal((1000, 2)) + 0.3 * (i % 2))
        for i in range(args.pairs)
    ]
    for dev in ("cpu", "cuda"):
        t0 = time.perf_counter()
        c2st_many(pairs, seed=0, device=dev)
        print(
            f"c2st_many, {args.pairs} pairs of 1000 vs 1000, d = 2, {dev}: "
            f"{time.perf_counter() - t0:.1f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
