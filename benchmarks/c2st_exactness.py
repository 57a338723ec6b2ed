"""Does ``modelcompare.c2st`` reproduce sbibm's C2ST? Same inputs, several data seeds, paired.

Run from the repository root::

    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/c2st_exactness.py [--n 10000] [--seeds 8]
        [--cases d2-null d2-shift d5-scale] [--n-d5 5000]

For every case and seed, one data set is drawn and z-scored by x (float32), and both sbibm's recipe
(scikit-learn ``MLPClassifier`` inside ``cross_validate`` with ``KFold(5, shuffle=True,
random_state=seed)``) and ``modelcompare.c2st(..., seed=seed, z_score=False)`` score it. The table
gives mean ± standard error over seeds of the accuracy (and of the paired difference), and over
seeds × folds of the epochs per fold, plus the share of folds that ran exactly the same number of
epochs. Acceptance: accuracy means within 3 SE of the paired difference; epoch means
within 15 % or 3 SE, whichever is larger.
"""

from __future__ import annotations

import time

import _harness

_harness.one_thread()

import numpy as np
from c2st_speed import ours_c2st, sbibm_c2st

#: The table per engine of the MLP (``MODELCOMPARE_NATIVE=0`` picks the torch engine).
SLUGS = {
    True: "c2st-01-exactness-compiled-cpu-kernel",
    False: "c2st-03-exactness-batched-torch-engine",
}


def make_case(case: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """x ~ N(0, I); y per case. z-scored by x, float32, as sbibm feeds its classifier."""
    rng = np.random.default_rng(10_000 + seed)
    d = 5 if case.startswith("d5") else 2
    x = rng.standard_normal((n, d))
    y = rng.standard_normal((n, d))
    if case == "d2-shift":
        y += 0.3
    elif case == "d5-scale":
        y *= 1.25  # same mean: invisible to a linear classifier
    mean, std = x.mean(0), x.std(0, ddof=1)
    return ((x - mean) / std).astype(np.float32), ((y - mean) / std).astype(np.float32)


def mean_se(a: np.ndarray) -> tuple[float, float]:
    a = np.asarray(a, dtype=float)
    return float(a.mean()), float(a.std(ddof=1) / np.sqrt(a.size)) if a.size > 1 else 0.0


def main() -> None:
    parser = _harness.parser(__doc__)
    parser.add_argument("--n", type=int, default=10000, help="draws per set (d=2 cases)")
    parser.add_argument("--n-d5", type=int, default=None, help="draws per set for d5-scale")
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--cases", nargs="+", default=["d2-null", "d2-shift", "d5-scale"])
    args = parser.parse_args()
    if args.quick:
        args.n, args.n_d5, args.seeds = 1000, 1000, 2

    import torch

    torch.set_num_threads(1)
    rows = []
    for case in args.cases:
        n = args.n_d5 if (case.startswith("d5") and args.n_d5) else args.n
        acc_ref, acc_ours, ep_ref, ep_ours = [], [], [], []
        t_ref = t_ours = 0.0
        for seed in range(1, args.seeds + 1):
            x, y = make_case(case, n, seed)
            t0 = time.perf_counter()
            a_ref, e_ref = sbibm_c2st(x, y, seed)
            t1 = time.perf_counter()
            a_ours, e_ours = ours_c2st(x, y, seed)
            t2 = time.perf_counter()
            t_ref += t1 - t0
            t_ours += t2 - t1
            acc_ref.append(a_ref)
            acc_ours.append(a_ours)
            ep_ref.extend(e_ref)
            ep_ours.extend(e_ours)
            print(
                f"{case} n={n} seed={seed}: sklearn {a_ref:.4f} {e_ref}  ours {a_ours:.4f} "
                f"{e_ours}",
                flush=True,
            )
        acc_ref, acc_ours = np.array(acc_ref), np.array(acc_ours)
        ep_ref, ep_ours = np.array(ep_ref), np.array(ep_ours)
        m_r, s_r = mean_se(acc_ref)
        m_o, s_o = mean_se(acc_ours)
        m_d, s_d = mean_se(acc_ours - acc_ref)
        e_r, se_r = mean_se(ep_ref)
        e_o, se_o = mean_se(ep_ours)
        _e_d, se_d = mean_se(ep_ours - ep_ref)
        acc_ok = abs(m_d) <= 3 * s_d or m_d == 0.0
        ep_ok = abs(e_o - e_r) <= max(0.15 * e_r, 3 * se_d)
        same = float(np.mean(ep_ref == ep_ours))
        rows.append(
            [
                case,
                n,
                args.seeds,
                f"{m_r:.4f} ± {s_r:.4f}",
                f"{m_o:.4f} ± {s_o:.4f}",
                f"{m_d:+.4f} ± {s_d:.4f}",
                f"{e_r:.1f} ± {se_r:.1f}",
                f"{e_o:.1f} ± {se_o:.1f}",
                f"{same:.0%}",
                "pass" if acc_ok and ep_ok else "FAIL",
                f"{t_ref / t_ours:.1f}x",
            ]
        )
    _harness.rerun(args, SLUGS[_harness.native_engine()], rows, script=__file__)


if __name__ == "__main__":
    main()
