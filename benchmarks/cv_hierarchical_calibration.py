"""Calibration of the hierarchical correlated t-test's Gibbs sampler, by simulation from the model.

Each replicate draws the hyper-parameters from the prior with **fixed** bounds (δ₀ ~ U(−1, 1),
s₀ ~ U(0, 1), σ_i ~ U(0, 2), ν − 1 ~ Gamma(α, β), α ~ U(1, 2), β ~ U(0.01, 0.1)), then 8 data
sets' δ_i ~ t_ν(δ₀, s₀) and 10 correlated CV differences each (ρ = 0.1), and runs the sampler
with the same priors. If the sampler draws from the posterior, then (Talts et al. 2018; Cook,
Gelman & Rubin 2006)

- the central credible intervals of δ₀ cover the true δ₀ at their nominal rate, and
- the predictive probability that a new data set's δ exceeds r = 0.2 is calibrated: among
  replicates given probability ≈ p, a new δ drawn from the true hyper-parameters exceeds r about
  a fraction p of the time.

(The public function sets the prior bounds from the data, as baycomp does; the check fixes them,
so that the simulated and the assumed prior are the same.)

Run: ``OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/cv_hierarchical_calibration.py
[--replicates 200]``; writes ``benchmarks/results/cv_hierarchical_calibration.json``.
"""

from __future__ import annotations

import itertools
import time

import _harness

_harness.one_thread()

import numpy as np
from scipy import stats

from modelcompare.cv._gibbs import HierarchicalPriors, sample_hierarchical

PRIORS = HierarchicalPriors(delta_bound=1.0, std0_max=1.0, sigma_max=2.0)
Q, N, RHO, R = 8, 10, 0.1, 0.2
LEVELS = (0.5, 0.8, 0.95)


def one_replicate(rng: np.random.Generator) -> tuple[list[bool], float, bool]:
    d0 = rng.uniform(-1, 1)
    s0 = rng.uniform(0, 1)
    nu = 1 + rng.gamma(rng.uniform(1, 2), 1 / rng.uniform(0.01, 0.1))
    delta = d0 + s0 * rng.standard_t(nu, Q)
    sigma = rng.uniform(0, 2, Q)
    chol = np.linalg.cholesky((1 - RHO) * np.eye(N) + RHO)
    x = delta[:, None] + sigma[:, None] * (rng.standard_normal((Q, N)) @ chol.T)
    draws = sample_hierarchical(x, RHO, PRIORS, n_draws=600, n_warmup=300, n_chains=2, rng=rng)
    d = draws.delta0.ravel()
    covered = [
        bool(np.quantile(d, (1 - lv) / 2) <= d0 <= np.quantile(d, (1 + lv) / 2)) for lv in LEVELS
    ]
    p = float(np.mean(stats.t.sf(R, draws.nu.ravel(), d, draws.std0.ravel())))
    happened = bool(d0 + s0 * rng.standard_t(nu) > R)
    return covered, p, happened


def main() -> None:
    parser = _harness.parser(__doc__, seed=20261205)
    parser.add_argument("--replicates", type=int, default=200)
    args = parser.parse_args()
    if args.quick:
        args.replicates = 10
    started = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    results = [one_replicate(child) for child in rng.spawn(args.replicates)]
    cover = np.array([r[0] for r in results])
    probs = np.array([r[1] for r in results])
    events = np.array([r[2] for r in results])
    rows = []
    for j, lv in enumerate(LEVELS):
        k = int(cover[:, j].sum())
        lo, hi = stats.binomtest(k, args.replicates).proportion_ci(0.95)
        rows.append([f"δ₀ central {lv:.0%} interval", lv, round(k / args.replicates, 3)])
        rows[-1] += [round(lo, 3), round(hi, 3), args.replicates]
    edges = np.array([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    for lo_e, hi_e in itertools.pairwise(edges):
        inside = (probs >= lo_e) & (probs < hi_e if hi_e < 1 else probs <= hi_e)
        m = int(inside.sum())
        if m == 0:
            continue
        k = int(events[inside].sum())
        lo, hi = stats.binomtest(k, m).proportion_ci(0.95)
        rows.append(
            [
                f"P(new δ > {R}) in [{lo_e:.1f}, {hi_e:.1f}]",
                round(float(probs[inside].mean()), 3),
                round(k / m, 3),
                round(lo, 3),
                round(hi, 3),
                m,
            ]
        )
    brier = float(np.mean((probs - events) ** 2))
    elapsed = time.perf_counter() - started
    for row in rows:
        print(*row)
    print("Brier", brier)
    result = _harness.record(
        "cv_hierarchical_calibration",
        title="Calibration of the hierarchical t-test's sampler, simulated from its model",
        part="cv",
        script=__file__,
        columns=["check", "expected", "observed", "95 % low", "95 % high", "replicates"],
        rows=rows,
        meaning=(
            "Each replicate draws the hyper-parameters from the model's prior (bounds fixed), "
            "data from the model (8 data sets × 10 correlated differences, ρ = 0.1), and runs "
            "the Gibbs sampler (2 chains × 600 draws after 300 of warm-up). **Interval rows**: how often the central "
            "credible interval of δ₀ covers the true δ₀ (the `expected` column is the nominal "
            "level). **P rows**: replicates grouped by the predictive probability that a new "
            "data set's δ exceeds 0.2; `expected` is the mean predicted probability in the "
            "group, `observed` how often a new δ from the true hyper-parameters did. A calibrated "
            "sampler has observed ≈ expected within the 95 % interval."
        ),
        notes=f"Brier score of the predictive probability {brier:.3f}. Run time {elapsed:.0f} s.",
    )
    _harness.save(args, result)


if __name__ == "__main__":
    main()
