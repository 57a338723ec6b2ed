"""Time sbibm's C2ST recipe (scikit-learn) against ``modelcompare.c2st`` on the same data.

Run from the repository root::

    OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
        PYTHONPATH=src python benchmarks/c2st_speed.py [--n 10000] [--dims 2 5 10] [--seed 1]
        [--engines native torch]

Both run on one CPU core, one after the other, on identical z-scored float32 arrays with the same
integer seed (so the same KFold split, initial weights and minibatch order). The script prints the
two wall times, their ratio, and the accuracy and epochs per fold of each. ``--engines`` picks
our CPU engines to time against the same scikit-learn run: ``native`` (the compiled kernel, the
default) and/or ``torch`` (the batched torch engine, via ``MODELCOMPARE_NATIVE=0``).
``--n-jobs K`` also times ours with ``c2st(..., n_jobs=K)`` (the folds in K threads of the
compiled kernel) and prints its wall time against ``n_jobs=1`` and against scikit-learn's; the
fold results are checked to be identical.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import _harness

_harness.one_thread()

import numpy as np

#: The tables this script writes: one per engine (the torch engine's by the machine's load),
#: and the fold-parallel run.
SLUGS = {
    "native": "c2st-02-speed-compiled-cpu-kernel",
    "torch quiet": "c2st-04-speed-batched-torch-engine-quiet-machine",
    "torch": "c2st-05-speed-batched-torch-engine-loaded-machine",
    "n_jobs": "c2st-08-c2st-across-two-cores-c2st-n",
}
QUIET_LOAD = 1.5  # below this 1-minute load average, a 2-core machine counts as quiet


def sbibm_c2st(x: np.ndarray, y: np.ndarray, seed: int) -> tuple[float, list[int]]:
    """sbibm 1.1.0's ``c2st`` (z-scoring already done), returning accuracy and epochs per fold."""
    from sklearn.model_selection import KFold, cross_validate
    from sklearn.neural_network import MLPClassifier

    data = np.concatenate([x, y]).astype(np.float32)
    target = np.concatenate([np.zeros(len(x)), np.ones(len(y))])
    d = data.shape[1]
    clf = MLPClassifier(
        activation="relu",
        hidden_layer_sizes=(10 * d, 10 * d),
        max_iter=10000,
        solver="adam",
        random_state=seed,
    )
    shuffle = KFold(n_splits=5, shuffle=True, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = cross_validate(
            clf, data, target, cv=shuffle, scoring="accuracy", return_estimator=True
        )
    return float(np.mean(out["test_score"])), [int(e.n_iter_) for e in out["estimator"]]


def ours_c2st(
    x: np.ndarray, y: np.ndarray, seed: int, engine: str = "native", n_jobs: int = 1
) -> tuple[float, list[int]]:
    from modelcompare import c2st

    os.environ["MODELCOMPARE_NATIVE"] = "1" if engine == "native" else "0"
    res = c2st(x, y, seed=seed, z_score=False, n_jobs=n_jobs)
    return float(res.accuracy), [int(e) for e in res.epochs]


def zscored_gaussians(n: int, d: int, seed: int, shift: float = 0.0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d))
    y = rng.standard_normal((n, d)) + shift
    mean, std = x.mean(0), x.std(0, ddof=1)
    return ((x - mean) / std).astype(np.float32), ((y - mean) / std).astype(np.float32)


def _epochs(epochs: list[int]) -> str:
    return ", ".join(map(str, epochs))


def main() -> None:
    parser = _harness.parser(__doc__, seed=1)
    parser.add_argument("--n", type=int, default=10000, help="draws per set")
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 5, 10])
    parser.add_argument("--shift", type=float, default=0.0)
    parser.add_argument("--engines", nargs="+", default=["native"], choices=["native", "torch"])
    parser.add_argument("--n-jobs", type=int, default=None, help="also time c2st(n_jobs=K)")
    args = parser.parse_args()
    if args.quick:
        args.n, args.dims = 1000, [2]
    load = _harness.load_average()
    rows: dict[str, list[list[object]]] = {"native": [], "torch": [], "n_jobs": []}

    import torch

    torch.set_num_threads(1)
    print(f"n = {args.n} vs {args.n}, seed {args.seed}, shift {args.shift}, one thread")
    print(
        "| d | engine | sklearn s | ours s | ratio | ratio per epoch | sklearn acc | ours acc "
        "| sklearn epochs | ours epochs |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for d in args.dims:
        x, y = zscored_gaussians(args.n, d, args.seed, args.shift)
        for engine in args.engines:  # warm-up (imports, first-call dispatch, kernel build)
            ours_c2st(x[:50], y[:50], args.seed, engine)
        t0 = time.perf_counter()
        acc_ref, ep_ref = sbibm_c2st(x, y, args.seed)
        t_ref = time.perf_counter() - t0
        for engine in args.engines:
            t0 = time.perf_counter()
            acc, ep = ours_c2st(x, y, args.seed, engine)
            t_ours = time.perf_counter() - t0
            # epochs differ between the two runs after rounding drifts apart (d >= 5), so also
            # report the ratio of the time per fold-epoch
            per_epoch = (t_ref / sum(ep_ref)) / (t_ours / sum(ep))
            print(
                f"| {d} | {engine} | {t_ref:.2f} | {t_ours:.2f} | {t_ref / t_ours:.1f}x | "
                f"{per_epoch:.1f}x | {acc_ref:.4f} | {acc:.4f} | {ep_ref} | {ep} |",
                flush=True,
            )
            times = [f"{t_ref:.2f}", f"{t_ours:.2f}", f"{t_ref / t_ours:.1f}×", f"{per_epoch:.1f}×"]
            if engine == "native":
                rows[engine].append([1, d, engine, *times, _epochs(ep_ref), _epochs(ep)])
            else:
                rows[engine].append([1, d, *times, _epochs(ep_ref), _epochs(ep)])
            if args.n_jobs is not None and engine == "native":
                t0 = time.perf_counter()
                acc_k, ep_k = ours_c2st(x, y, args.seed, engine, n_jobs=args.n_jobs)
                t_k = time.perf_counter() - t0
                same = (acc_k, ep_k) == (acc, ep)
                print(
                    f"|   | n_jobs={args.n_jobs} | {t_ref:.2f} | {t_k:.2f} | {t_ref / t_k:.1f}x | "
                    f"n_jobs={args.n_jobs} / n_jobs=1: {t_k / t_ours:.2f}x | | {acc_k:.4f} | "
                    f"identical: {same} | {ep_k} | (load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
                rows["n_jobs"].append(
                    [
                        d,
                        f"{t_ref:.2f}",
                        f"{t_ours:.2f}",
                        f"{t_k:.2f}",
                        f"{t_k / t_ours:.2f}×" + ("" if same else " (results differ)"),
                        f"{t_ref / t_k:.1f}×",
                    ]
                )
    _save(args, rows, load)


def _save(
    args: argparse.Namespace, rows: dict[str, list[list[object]]], load: float | None
) -> None:
    """One results file per engine timed, and one for the fold-parallel run if it ran."""
    times = [
        "sklearn s",
        "ours s",
        "ratio",
        "ratio per fold-epoch",
        "sklearn epochs",
        "ours epochs",
    ]
    if rows["native"]:
        _harness.rerun(args, SLUGS["native"], rows["native"], script=__file__, load=load)
    if rows["torch"]:
        quiet = load is not None and load < QUIET_LOAD
        slug = SLUGS["torch quiet" if quiet else "torch"]
        columns = ["run", "d", *times]
        _harness.rerun(args, slug, rows["torch"], script=__file__, columns=columns, load=load)
    if rows["n_jobs"]:
        k = args.n_jobs
        columns = [
            "d",
            "sklearn s",
            "ours n_jobs=1 s",
            f"ours n_jobs={k} s",
            f"n_jobs={k} / n_jobs=1",
            f"sklearn / ours n_jobs={k}",
        ]
        _harness.rerun(args, SLUGS["n_jobs"], rows["n_jobs"], script=__file__, columns=columns)


if __name__ == "__main__":
    main()
