"""The device check of ``c2st(device="cuda")`` against the CPU engine, on the same data.

Run on a machine with a CUDA GPU, from the repository root (one prepared run; a few minutes)::

    python -m pytest -m gpu tests/ -q && PYTHONPATH=src python benchmarks/c2st_gpu_check.py

For d = 2, 5 and 10 (``--dims``), n vs n Gaussians (null), one int seed: the CPU engine and cuda
train sbibm's MLP on the same folds, initial weights and minibatch order. The script prints both
wall times, the ratio, accuracies and epochs per fold (they agree up to float32 rounding drift),
and a batched ``c2st_many`` throughput figure on cuda (``--pairs`` comparisons of 1,000 vs 1,000).
"""

from __future__ import annotations

import time

import _harness

_harness.one_thread()

import numpy as np

SLUG = "c2st-07-gpu"
MEANING = """\
`device="cuda"` runs the torch engine (stopped folds compacted on the device; one host
synchronisation per epoch for the loss vector, plus the epoch's index upload right after it).
Each row trains sbibm's MLP on the same folds, initial weights and minibatch order on the CPU
engine and on the GPU, n vs n draws of N(0, I) (the null), one seed: the wall times, their ratio,
and both accuracies and epochs per fold, which agree up to float32 rounding drift. The last row
times `c2st_many` over the given number of 1,000 vs 1,000 comparisons at d = 2.
`tests/foundation/test_mlp_engine.py::test_cuda_matches_cpu_statistics` (marked `gpu`) compares
CUDA and CPU statistics on a small case."""


def main() -> None:
    import torch

    from modelcompare import c2st, c2st_many

    parser = _harness.parser(__doc__, seed=1)
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 5, 10])
    parser.add_argument("--pairs", type=int, default=100)
    args = parser.parse_args()
    if args.quick:
        args.n, args.dims, args.pairs = 1000, [2], 10
    if not torch.cuda.is_available():
        raise SystemExit("no CUDA device: this check needs a GPU")
    gpu = torch.cuda.get_device_name(0)
    print(f"GPU: {gpu}, torch {torch.__version__}")
    rows = []
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
        rows.append(
            [
                f"`c2st`, d = {d}, n = {args.n}",
                f"{times['cpu']:.2f}",
                f"{times['cuda']:.2f}",
                f"{times['cpu'] / times['cuda']:.2f}×",
                f"{cpu.accuracy:.4f}",
                f"{cuda.accuracy:.4f}",
                ", ".join(map(str, cpu.epochs.tolist())),
                ", ".join(map(str, cuda.epochs.tolist())),
            ]
        )
    rng = np.random.default_rng(args.seed)
    pairs = [
        (rng.standard_normal((1000, 2)), rng.standard_normal((1000, 2)) + 0.3 * (i % 2))
        for i in range(args.pairs)
    ]
    many = {}
    for dev in ("cpu", "cuda"):
        t0 = time.perf_counter()
        c2st_many(pairs, seed=0, device=dev)
        many[dev] = time.perf_counter() - t0
        print(
            f"c2st_many, {args.pairs} pairs of 1000 vs 1000, d = 2, {dev}: {many[dev]:.1f} s",
            flush=True,
        )
    rows.append(
        [
            f"`c2st_many`, {args.pairs} comparisons, d = 2",
            f"{many['cpu']:.1f}",
            f"{many['cuda']:.1f}",
            f"{many['cpu'] / many['cuda']:.2f}×",
            None,
            None,
            None,
            None,
        ]
    )
    result = _harness.record(
        SLUG,
        title=f"GPU: {gpu}",
        part="c2st",
        script=__file__,
        columns=[
            "run",
            "cpu s",
            "cuda s",
            "cpu / cuda",
            "cpu acc",
            "cuda acc",
            "cpu epochs",
            "cuda epochs",
        ],
        rows=rows,
        meaning=MEANING,
    )
    _harness.save(args, result)


if __name__ == "__main__":
    main()
