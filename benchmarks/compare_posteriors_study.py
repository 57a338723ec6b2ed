"""compare_posteriors: speed of the where-map and of the energy score, and a larger size study.

Run ``python benchmarks/compare_posteriors_study.py [--speed] [--size] [--sbi]``. Figures go to
stdout as Markdown rows for BENCHMARKS.md.

- speed: the where-map at N = 10⁵ pairs and 20 evaluation points (log rule, 2-D Gaussian model),
  and the energy rule at N = 10⁴, S = 100, m = 5, one thread;
- size: the level at α = 0.05 over 1000 replicates for the skewed scale pair (c1 = 0.8,
  c2 with equal KL) and the lighter-tailed pair (generalised normal β = 4 against a Gaussian of
  equal KL), for the t-test and the bootstrap-t, at several N;
- sbi: NPE on 10³ and 10⁴ simulations of a 2-D Gaussian model; compare_posteriors, the exact KL
  (against the exact posterior) and C2ST against exact posterior draws at a few observations.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import numpy as np

import modelcompare as mc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def speed() -> None:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(100_000, seed=0)
    x_eval = x[:20]
    a, b = model.exact_flow(), model.exact_flow(scale_factor=1.2)
    t0 = time.perf_counter()
    mc.compare_posteriors(a, b, theta, x, x_eval=x_eval, seed=0)
    total = time.perf_counter() - t0
    d = a.log_prob(theta, x) - b.log_prob(theta, x)
    from modelcompare.workflows._local_mean import local_mean_test

    t0 = time.perf_counter()
    local_mean_test(d, x, x_eval, n_neighbors=2155, alternative="two-sided")
    local = time.perf_counter() - t0
    print(
        f"| where-map, N = 10^5, 20 points (log rule) | {total:.2f} s | local test alone {local:.3f} s |"
    )
    m5 = mc.ConditionalGaussianModel(noise_cov=np.eye(5))
    theta, x = m5.simulate(10_000, seed=1)
    a, b = m5.exact_flow(), m5.exact_flow(scale_factor=1.2)
    t0 = time.perf_counter()
    mc.compare_posteriors(a, b, theta, x, scoring_rule="energy", n_posterior_samples=100, seed=0)
    print(
        f"| energy, N = 10^4, S = 100, m = 5 | {time.perf_counter() - t0:.2f} s | blocks of 400 rows (32 MB) |"
    )


def size(trials: int = 1000) -> None:
    from tests.workflows._posterior_pairs import (
        MODEL,
        GeneralisedNormal,
        equal_kl_gaussian_scale,
        equal_kl_scale,
        kl_generalised_normal,
    )

    pairs = {
        "scale 0.8 / 1.30": (
            MODEL.exact_flow(scale_factor=0.8),
            MODEL.exact_flow(scale_factor=equal_kl_scale(0.8)),
        ),
        "light tails (GN β=4)": (
            GeneralisedNormal(4.0, 1.2),
            MODEL.exact_flow(scale_factor=equal_kl_gaussian_scale(kl_generalised_normal(4.0, 1.2))),
        ),
    }
    for label, (a, b) in pairs.items():
        for n in (100, 300, 1000, 3000):
            for method in ("t", "bootstrap"):
                reps = trials if method == "t" else trials // 4
                k = 0
                for r in range(reps):
                    theta, x = MODEL.simulate(n, seed=10_000 + r)
                    res = mc.compare_posteriors(
                        a, b, theta, x, method=method, n_resamples=499, seed=r
                    )
                    k += res.decision(0.05)
                print(f"| {label} | {n} | {method} | {k}/{reps} = {k / reps:.3f} |", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--size", action="store_true")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    if args.speed or not args.size:
        speed()
    if args.size:
        size()
