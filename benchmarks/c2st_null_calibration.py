"""Size of the C2ST p-value under H0, against the naive pooled-binomial test.

Usage: python benchmarks/c2st_null_calibration.py [--trials 200] [--m 200] [--classifiers logistic,mlp]

Both sets are drawn from N(0, I); a valid test rejects at most α of the time, within binomial noise.
The naive test treats the pooled cross-validated predictions as Binomial(2m, 1/2).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from modelcompare import c2st


def _rate_line(name: str, pvalues: np.ndarray, alpha: float) -> str:
    k = int(np.sum(pvalues <= alpha))
    n = pvalues.size
    ci = stats.binomtest(k, n).proportion_ci(0.95)
    ok = stats.binomtest(k, n, alpha, alternative="greater").pvalue > 0.01
    return f"{name:>8}  α={alpha:<5} rate={k / n:.3f}  95% CI [{ci.low:.3f}, {ci.high:.3f}]  " + (
        "ok" if ok else "TOO HIGH"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--m", type=int, default=200, help="draws per set")
    parser.add_argument("--dims", default="2,5")
    parser.add_argument("--classifiers", default="logistic,mlp")
    args = parser.parse_args()
    for classifier in args.classifiers.split(","):
        for d in (int(v) for v in args.dims.split(",")):
            started = time.perf_counter()
            ours, naive = [], []
            for t in range(args.trials):
                rng = np.random.default_rng([t, d])
                x, y = rng.normal(size=(args.m, d)), rng.normal(size=(args.m, d))
                res = c2st(x, y, classifier=classifier, seed=t)
                ours.append(res.pvalue)
                correct = round(res.accuracy * 2 * args.m)
                naive.append(
                    stats.binomtest(correct, 2 * args.m, 0.5, alternative="greater").pvalue
                )
            ours_a, naive_a = np.array(ours), np.array(naive)
            elapsed = time.perf_counter() - started
            print(f"{classifier}, d={d}, m={args.m}, {args.trials} trials ({elapsed:.0f} s)")
            for alpha in (0.05, 0.1):
                print(_rate_line("ours", ours_a, alpha))
                print(_rate_line("naive", naive_a, alpha))


if __name__ == "__main__":
    main()
