"""Throughput of ``c2st_many`` (one batched network per width) against a loop over ``c2st``.

Both sides get the same pairs and the same per-pair seeds, so they compute the same numbers; the
script checks that and prints reference time, our time and the ratio, measured in the same run.

    OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
        python benchmarks/scaleout_c2st_many.py --n-pairs 100 --n 1000 --dims 2 5

Each pair is x ~ N(0, I) against y ~ N(delta 1, I), with delta alternating 0 and 0.3.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings

import numpy as np

from modelcompare import ConvergenceWarning, c2st, c2st_many


def make_pairs(n_pairs: int, n: int, d: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [
        (rng.normal(size=(n, d)), rng.normal(0.3 * (i % 2), 1.0, size=(n, d)))
        for i in range(n_pairs)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-pairs", type=int, default=100)
    parser.add_argument("--n", type=int, default=1000, help="draws per set")
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 5])
    parser.add_argument("--classifier", default="mlp", choices=["mlp", "logistic"])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--max-epochs", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    print(
        f"python {platform.python_version()}, torch {torch.__version__} "
        f"({torch.get_num_threads()} threads), device {args.device}, load {os.getloadavg()}"
    )
    opts = {"classifier": args.classifier, "device": args.device, "max_epochs": args.max_epochs}
    # warm-up (imports, first allocations) outside the timings
    warm = make_pairs(2, 50, 2, 99)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        c2st_many(warm, seed=0, **{**opts, "max_epochs": 20})
        c2st(*warm[0], seed=0, **{**opts, "max_epochs": 20})

    for d in args.dims:
        pairs = make_pairs(args.n_pairs, args.n, d, args.seed + d)
        t0 = time.perf_counter()
        many = c2st_many(pairs, seed=args.seed, **opts)
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        loop = [c2st(x, y, seed=s, **opts) for (x, y), s in zip(pairs, many.seeds, strict=True)]
        t_ref = time.perf_counter() - t0
        n_same = sum(
            a.accuracy == b.accuracy and np.array_equal(a.epochs, b.epochs)
            for a, b in zip(loop, many, strict=True)
        )
        max_diff = max(abs(a.accuracy - b.accuracy) for a, b in zip(loop, many, strict=True))
        epochs = np.array([r.epochs for r in many])
        print(
            f"d={d} pairs={args.n_pairs} n={args.n}+{args.n} {args.classifier}: "
            f"loop over c2st {t_ref:.1f} s, c2st_many {t_ours:.1f} s, "
            f"speed-up x{t_ref / t_ours:.2f}; {t_ref / args.n_pairs:.2f} s vs "
            f"{t_ours / args.n_pairs:.2f} s per comparison; epochs/fold median "
            f"{int(np.median(epochs))} (max {int(epochs.max())}); identical pairs {n_same}/{args.n_pairs} "
            f"(max |accuracy difference| {max_diff:.2g}); "
            f"load {os.getloadavg()[0]:.1f}"
        )


if __name__ == "__main__":
    main()
