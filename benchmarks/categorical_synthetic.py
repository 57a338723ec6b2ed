"""The synthetic study of Regol, Kroon & Coates (2023), re-run with modelcompare.

Stair p on |Ω| = 6^6 (S = 3 positive stairs, ratio 2), perturbed models q1..q4 at ℓ1 distances
0, 0.1, 0.15, 0.2 (TV 0, 0.05, 0.075, 0.1; the paper calls the ℓ1 distances "TV"). For k = 4..8:

* Kendall τ between the true order q1 < q2 < q3 < q4 and the order of the binned empirical TV under
  B*_k and under a fresh random binning per model (mean over trials, 90 % bootstrap CI);
* binned TV under B*_k per model;
* rejection rate per k and model, and the mean granularity (``value``).

Config A: m = 10 000, ε = 0.1 (the paper's ε); config B: m = 1000, ε = 0.18 (the authors' driver
default); config C: config A with ``split=True, mode="mc"`` (bins chosen on half the samples, a
calibrated test on the other half). Rows marked "(authors' code)" are the values of a re-run of the
authors' implementation on the same set-up. Usage::

    OMP_NUM_THREADS=1 python benchmarks/categorical_synthetic.py [--trials-a 10] [--trials-b 50]
"""

from __future__ import annotations

import time
from typing import Any

import _harness

_harness.one_thread()

import numpy as np
from scipy import stats

from modelcompare import granularity, perturb, random_binning, stair_distribution
from modelcompare.categorical import distances

KS = [4, 5, 6, 7, 8]
L1S = [0.0, 0.1, 0.15, 0.2]

AUTHORS_A = {
    "tau B*": [1.0, 1.0, 1.0, 1.0, 1.0],
    "tau random": [0.33, 0.50, 0.40, 0.23, 0.43],
    "tv q1": [0.0067, 0.046, 0.079, 0.106, 0.106],
    "tv q4": [0.032, 0.086, 0.133, 0.177, 0.177],
    "reject q1": [0, 0, 0, 0.2, 0],
    "reject q2": [0, 0, 0.5, 1, 1],
    "reject q3": [0, 0, 1, 1, 1],
    "reject q4": [0, 0.2, 1, 1, 1],
}
AUTHORS_B = {
    "tau B*": [0.61, 0.72, 0.75, 0.83, 0.83],
    "tau random": [0.00, 0.02, -0.11, 0.10, 0.07],
    "tv q1": [0.017, 0.140, 0.249, 0.331, 0.331],
}


def _tau(scores: np.ndarray) -> float:
    return float(stats.kendalltau(np.argsort(scores), np.arange(len(scores))).statistic)


def _ci(values: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
    if np.ptp(values) == 0:
        return float(values[0]), float(values[0])
    res = stats.bootstrap((values,), np.mean, confidence_level=0.9, rng=rng, n_resamples=2000)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def run(
    m: int, trials: int, epsilon: float, *, split: bool = False, mode: str = "paper", seed: int = 0
) -> dict[str, np.ndarray]:
    p = stair_distribution(6, 6, 3, 2.0)
    models = [perturb(p, l1=e, seed=3) for e in L1S]
    rng = np.random.default_rng(seed)
    tv_star = np.zeros((trials, 4, len(KS)))
    tv_rand = np.zeros((trials, 4, len(KS)))
    reject = np.zeros((trials, 4, len(KS)), dtype=bool)
    score = np.zeros((trials, 4))
    for t in range(trials):
        for i, q in enumerate(models):
            child = rng.spawn(1)[0]
            x = q.sample(m, seed=child)
            res = granularity(
                p, x, epsilon=epsilon, split=split, mode=mode, seed=child, n_resamples=199
            )
            tv_star[t, i] = res.tv
            reject[t, i] = res.decisions
            score[t, i] = res.value
            for j, k in enumerate(KS):  # a fresh random binning per model and trial
                b = random_binning(p, n_bins=k, seed=child)
                tv_rand[t, i, j] = 0.5 * np.abs(b.p_binned - b.counts(x) / m).sum()
    tau_star = np.array([[_tau(tv_star[t, :, j]) for j in range(len(KS))] for t in range(trials)])
    tau_rand = np.array([[_tau(tv_rand[t, :, j]) for j in range(len(KS))] for t in range(trials)])
    return {
        "tau_star": tau_star,
        "tau_rand": tau_rand,
        "tv_star": tv_star,
        "tv_rand": tv_rand,
        "reject": reject,
        "score": score,
        "models": models,
        "p": p,
    }


def _cells(vals: Any, fmt: str = "{:.3f}") -> list[str]:
    return [fmt.format(v) for v in vals]


def tables(
    out: dict[str, np.ndarray],
    authors: dict[str, list[float]] | None,
    rng: np.random.Generator,
) -> dict[str, tuple[list[list[Any]], str]]:
    """The rows of the three tables of one configuration, each with its run's note."""
    tau = []
    for key, name in (("tau_star", "B*_k"), ("tau_rand", "random")):
        vals = out[key]
        cis = [_ci(vals[:, j], rng) for j in range(len(KS))]
        tau.append(
            [name]
            + [f"{vals[:, j].mean():.2f} [{lo:.2f}, {hi:.2f}]" for j, (lo, hi) in enumerate(cis)]
        )
    if authors:
        tau.append(["B*_k (authors' code)", *_cells(authors["tau B*"], "{:.2f}")])
        tau.append(["random (authors' code)", *_cells(authors["tau random"], "{:.2f}")])
    binned = [[f"q{i + 1}", *_cells(out["tv_star"][:, i].mean(axis=0))] for i in range(4)]
    if authors:
        binned.append(["q1 (authors' code)", *_cells(authors["tv q1"])])
        if "tv q4" in authors:
            binned.append(["q4 (authors' code)", *_cells(authors["tv q4"])])
    rt = out["tv_rand"].mean(axis=0)
    reject = []
    for i in range(4):
        reject.append([f"q{i + 1}", *_cells(out["reject"][:, i].mean(axis=0), "{:.2f}")])
        if authors and f"reject q{i + 1}" in authors:
            reject.append(
                [f"q{i + 1} (authors' code)", *_cells(authors[f"reject q{i + 1}"], "{:.2f}")]
            )
    mean = "Mean granularity (value): " + ", ".join(
        f"q{i + 1} {out['score'][:, i].mean():.2f}" for i in range(4)
    )
    return {
        "kendall": (tau, ""),
        "binned": (
            binned,
            f"Random-binning TV ranges over [{rt.min():.4f}, {rt.max():.4f}] (mean per model and k).",
        ),
        "rejection": (reject, mean + "."),
    }


def _slug(config: str, table: str) -> str:
    """The stored results file of one table of one configuration."""
    (path,) = _harness.RESULTS.glob(f"categorical-*-config-{config}-{table}*.json")
    return path.stem


def save(args: Any, config: str, found: dict[str, tuple[list[list[Any]], str]]) -> None:
    """Write the three tables of one configuration; the study's reading stays after the last."""
    for table, (rows, note) in found.items():
        slug = _slug(config, table)
        stored = _harness.previous(slug)["notes"]
        reading = stored.split("\n\n", 1)[1] if "\n\n" in stored else ""
        notes = "\n\n".join(part for part in (note, reading) if part)
        _harness.rerun(args, slug, rows, script=__file__, notes=notes)


def main() -> None:
    ap = _harness.parser(__doc__)
    ap.add_argument("--trials-a", type=int, default=10)
    ap.add_argument("--trials-b", type=int, default=50)
    ap.add_argument("--trials-c", type=int, default=20)
    args = ap.parse_args()
    if args.quick:
        args.trials_a = args.trials_b = args.trials_c = 2
    rng = np.random.default_rng(args.seed + 1)
    p = stair_distribution(6, 6, 3, 2.0)
    for e in L1S:
        d = distances(p, perturb(p, l1=e, seed=3))
        print(f"l1={e}: TV={d['tv']:.3f} (the paper's 'TV {e}'), l2={d['l2']:.4f}")
    started = time.perf_counter()
    a = run(10_000, args.trials_a, 0.1, seed=args.seed)
    save(args, "a", tables(a, AUTHORS_A, rng))
    b = run(1000, args.trials_b, 0.18, seed=args.seed)
    save(args, "b", tables(b, AUTHORS_B, rng))
    c = run(10_000, args.trials_c, 0.1, split=True, mode="mc", seed=args.seed)
    save(args, "c", tables(c, None, rng))
    print(f"total time {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
