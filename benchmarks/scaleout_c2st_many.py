"""Throughput of ``c2st_many`` (one batched network per width) against a loop over ``c2st``.

Both sides get the same pairs and the same per-pair seeds, so they compute the same numbers; the
script checks that and prints reference time, our time and the ratio, measured in the same run.

    python benchmarks/scaleout_c2st_many.py --n-pairs 100 20 --dims 2 5
    MODELCOMPARE_NATIVE=0 python benchmarks/scaleout_c2st_many.py --n-pairs 100 20 --dims 2 5

Each pair is x ~ N(0, I) against y ~ N(delta 1, I), with delta alternating 0 and 0.3.
``--n-pairs`` gives one count per dimension (or one for all). The compiled CPU kernel and the
batched torch engine (``MODELCOMPARE_NATIVE=0``) write separate tables.
"""

from __future__ import annotations

import os
import platform
import time
import warnings

import _harness

_harness.one_thread()

import numpy as np

from modelcompare import ConvergenceWarning, c2st, c2st_many


def make_pairs(n_pairs: int, n: int, d: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [
        (rng.normal(size=(n, d)), rng.normal(0.3 * (i % 2), 1.0, size=(n, d)))
        for i in range(n_pairs)
    ]


MEANING = """\
Both sides get the same pairs and the same per-pair seeds, and both run in the same process, one
after the other. Each pair is x ~ N(0, I) against y ~ N(δ·1, I), with δ alternating 0 and 0.3;
{n:,} vs {n:,} draws; sbibm's MLP (hidden widths (10d, 10d), at most {max_epochs:,} epochs); 5 folds;
one thread; {engine}. "pairs identical to `c2st`" counts the pairs whose accuracy and epochs per
fold equal those of `c2st` run alone with the pair's seed; the speed-up is the loop's time over
`c2st_many`'s."""
NOTES = {
    "native": """\
Each network costs one kernel call per epoch, so there is no per-step overhead left for batching
to share: on the CPU `c2st_many` is as fast as the loop, and throughput comes from workers
(`n_jobs`, Dask).""",
    "torch": """\
* **d = 2.** One batched network for all folds of all pairs pays the torch engine's per-step
  overhead once instead of once per pair, hence the speed-up.
* **d = 5.** The networks are 5→50→50→1 and train for hundreds of epochs. Each step is then
  dominated by FLOPs, not overhead, so batching 100 networks instead of 5 gains nothing on one CPU
  thread. On the CPU the way to scale d ≥ 5 is more workers, not bigger groups.
* **Identical pairs.** Every pair equals `c2st` with its seed: the torch engine keeps each
  network's arithmetic independent of the rest of its group (64-byte-padded parameter blocks,
  padded elementwise buffers, fused Adam on ragged steps, pairs grouped by minibatch layout).
* **GPU.** `device="cuda"` is passed through to the torch engine unchanged, and the script takes
  `--device cuda`; batching matters most there.""",
}


def main() -> None:
    parser = _harness.parser(__doc__.splitlines()[0])
    parser.add_argument("--n-pairs", type=int, nargs="+", default=[100, 20])
    parser.add_argument("--n", type=int, default=1000, help="draws per set")
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 5])
    parser.add_argument("--classifier", default="mlp", choices=["mlp", "logistic"])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--max-epochs", type=int, default=10000)
    args = parser.parse_args()
    if args.quick:
        args.n_pairs, args.n = [4], 200
    counts = args.n_pairs * len(args.dims) if len(args.n_pairs) == 1 else args.n_pairs
    if len(counts) != len(args.dims):
        parser.error("--n-pairs takes one count, or one per dimension of --dims")
    engine = "torch" if os.environ.get("MODELCOMPARE_NATIVE") == "0" else "native"
    if args.device != "cpu":
        engine = "torch"
    load_before = _harness.load_average()
    rows = []

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

    for d, n_pairs in zip(args.dims, counts, strict=True):
        pairs = make_pairs(n_pairs, args.n, d, args.seed + d)
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
            f"d={d} pairs={n_pairs} n={args.n}+{args.n} {args.classifier}: "
            f"loop over c2st {t_ref:.1f} s, c2st_many {t_ours:.1f} s, "
            f"speed-up x{t_ref / t_ours:.2f}; {t_ref / n_pairs:.2f} s vs "
            f"{t_ours / n_pairs:.2f} s per comparison; epochs/fold median "
            f"{int(np.median(epochs))} (max {int(epochs.max())}); identical pairs {n_same}/{n_pairs} "
            f"(max |accuracy difference| {max_diff:.2g}); "
            f"load {os.getloadavg()[0]:.1f}"
        )
        rows.append(
            [
                d,
                n_pairs,
                f"{t_ref:.1f} s",
                f"{t_ours:.1f} s",
                f"×{t_ref / t_ours:.2f}",
                f"**{n_same}/{n_pairs}**",
                f"{max_diff:.2g}",
            ]
        )
    name = {"native": "compiled CPU kernel", "torch": "batched torch engine"}[engine]
    if args.device != "cpu":
        name += f" on {args.device}"
    slug = {"native": "scaleout-01-c2st-many-against-a-loop-over"}.get(
        engine, "scaleout-02-c2st-many-against-a-loop-over"
    )
    if args.device != "cpu":
        slug = f"scaleout-03-c2st-many-{args.device}"
    result = _harness.record(
        slug,
        title=f"`c2st_many` against a loop over `c2st`: {name}",
        part="scaleout",
        script=__file__,
        columns=[
            "d",
            "comparisons",
            "loop over `c2st`",
            "`c2st_many`",
            "speed-up",
            "pairs identical to `c2st`",
            "max |Δ accuracy|",
        ],
        rows=rows,
        meaning=MEANING.format(n=args.n, max_epochs=args.max_epochs, engine=name),
        notes=NOTES[engine],
        load=load_before,
    )
    _harness.save(args, result)


if __name__ == "__main__":
    main()
