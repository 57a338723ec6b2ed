"""compare_posteriors: speed of the where-map and of the energy score, and a larger size study.

Run ``python benchmarks/compare_posteriors_study.py [--speed] [--size] [--sbi]``; each part writes
its table to ``benchmarks/results/`` (see ``benchmarks/_harness.py``).

- speed: the where-map at N = 10⁵ pairs and 20 evaluation points (log rule, 2-D Gaussian model),
  and the energy rule at N = 10⁴, S = 100, m = 5, one thread;
- size: the level at α = 0.05 over 1000 replicates for the skewed scale pair (c1 = 0.8,
  c2 with equal KL) and the lighter-tailed pair (generalised normal β = 4 against a Gaussian of
  equal KL), for the t-test and the bootstrap-t, at several N;
- sbi: NPE on 10³ and 10⁴ simulations of a 2-D Gaussian model; compare_posteriors, the exact KL
  (against the exact posterior) and C2ST against exact posterior draws at a few observations.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import _harness

_harness.one_thread()

import numpy as np

import modelcompare as mc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


SPEED = "posterior-11-compare-posteriors-speed"
SIZE = "posterior-12-compare-posteriors-size-at-0-05"
SBI = "posterior-13-compare-posteriors-on-real-sbi-fits"
PAIRS = {
    "scale 0.8 / 1.30": "scales 0.8 / 1.30 (skewed d)",
    "light tails (GN β=4)": "generalised normal β = 4 against a Gaussian (heavy-tailed d)",
}


def speed(n: int = 100_000, n_energy: int = 10_000) -> list[list[str]]:
    """The seconds of the where-map and of the energy rule: the rows of the speed table."""
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(n, seed=0)
    x_eval = x[:20]
    a, b = model.exact_flow(), model.exact_flow(scale_factor=1.2)
    t0 = time.perf_counter()
    mc.compare_posteriors(a, b, theta, x, x_eval=x_eval, seed=0)
    total = time.perf_counter() - t0
    d = a.log_prob(theta, x) - b.log_prob(theta, x)
    from modelcompare.posterior.comparison._local_mean import local_mean_test

    t0 = time.perf_counter()
    local_mean_test(d, x, x_eval, n_neighbors=2155, alternative="two-sided")
    local = time.perf_counter() - t0
    print(
        f"| where-map, N = 10^5, 20 points (log rule) | {total:.2f} s | local test alone {local:.3f} s |"
    )
    m5 = mc.ConditionalGaussianModel(noise_cov=np.eye(5))
    theta, x = m5.simulate(n_energy, seed=1)
    a, b = m5.exact_flow(), m5.exact_flow(scale_factor=1.2)
    t0 = time.perf_counter()
    mc.compare_posteriors(a, b, theta, x, scoring_rule="energy", n_posterior_samples=100, seed=0)
    energy = time.perf_counter() - t0
    print(f"| energy, N = 10^4, S = 100, m = 5 | {energy:.2f} s | blocks of 400 rows (32 MB) |")
    return [
        [
            f"where-map, N = {n:,} pairs, 20 points (log rule, m = 2)",
            f"{total:.2f} s",
            f"the kNN local test alone {local:.3f} s",
        ],
        [
            f"energy rule, N = {n_energy:,}, S = 100, m = 5",
            f"{energy:.1f} s",
            "blocks of 400 rows (32 MB of distances)",
        ],
    ]


def size(trials: int = 1000, sizes: tuple[int, ...] = (100, 300, 1000, 3000)) -> list[list]:
    """Rejection rates at 0.05 of two estimators of equal expected KL: the size table's rows."""
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
    rows = []
    for label, (a, b) in pairs.items():
        for i, n in enumerate(sizes):
            rates = []
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
                rates.append(f"{k / reps:.3f}")
            rows.append([PAIRS[label] if i == 0 else "", n, *rates])
    return rows


def _npe(n: int, seed: int, epochs: int = 10) -> object:
    """An sbi NPE on ``n`` simulations of the 2-D model, ``epochs`` epochs; its density estimator.

    A one-component mixture density network: its family holds the true posterior, so the budget
    alone decides the fit (same epochs: ten times the gradient steps for ten times the
    simulations). Small MAFs (16 hidden units, 2 transforms) often stop in a local optimum that
    ignores one coordinate of x (KL ≈ 0.53 nats) whatever the budget, which would make the
    comparison one of seeds, not budgets.

    With a Gaussian prior no mass leaks outside the support, so the density estimator's log_prob
    is the normalised posterior density (sbi's DirectPosterior would estimate the leakage by
    10 000 rejection draws per x).
    """
    import contextlib
    import tempfile
    import warnings

    import torch
    from sbi.inference import NPE
    from sbi.neural_nets import posterior_nn

    theta, x = SBI_MODEL.simulate(n, seed=1000 + seed)
    prior = torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))
    with (
        tempfile.TemporaryDirectory() as logs,
        contextlib.chdir(logs),
        warnings.catch_warnings(),
        torch.random.fork_rng(devices=[]),
    ):
        warnings.filterwarnings("ignore", message="Maximum number of epochs", category=UserWarning)
        torch.manual_seed(seed)
        builder = posterior_nn(model="mdn", hidden_features=16, num_components=1)
        inference = NPE(prior=prior, density_estimator=builder, show_progress_bars=False)
        inference.append_simulations(
            torch.as_tensor(theta, dtype=torch.float32), torch.as_tensor(x, dtype=torch.float32)
        )
        return inference.train(max_num_epochs=epochs, stop_after_epochs=epochs, learning_rate=1e-3)


def npe_c2st(estimator: object, x_o: np.ndarray, n: int, seed: int) -> float:
    """C2ST accuracy of the estimator's draws at each row of ``x_o`` against exact draws; mean."""
    import torch

    exact = SBI_MODEL.exact_flow()
    accs = []
    for i, xo in enumerate(x_o):
        reference = exact.sample(xo[None], n, seed=seed + i)[0]
        with torch.random.fork_rng(devices=[]), torch.no_grad():
            torch.manual_seed(seed + i)
            cond = torch.as_tensor(xo[None], dtype=torch.float32)
            draws = estimator.sample((n,), condition=cond)[:, 0].double().numpy()
        accs.append(mc.c2st(reference, draws, seed=seed + i).statistic)
    return float(np.mean(accs))


def sbi_budgets(n_seeds: int = 3) -> list[list]:
    """NPE on 10³ against 10⁴ simulations: compare_posteriors, the exact KL, and C2ST."""
    import torch

    torch.set_num_threads(1)
    theta, x = SBI_MODEL.simulate(5000, seed=7)
    x_o = SBI_MODEL.simulate(5, seed=8)[1]
    exact = SBI_MODEL.exact_flow()
    rows = []
    for seed in range(n_seeds):
        t0 = time.perf_counter()
        small, large = _npe(1000, seed), _npe(10_000, seed)
        fit = time.perf_counter() - t0
        result = mc.compare_posteriors(large, small, theta, x, seed=0)
        ranking = mc.rank_posteriors({"exact": exact, "1e3": small, "1e4": large}, theta, x)
        kl = {
            name: ranking.mean_scores[0] - m for name, m in zip(ranking.names, ranking.mean_scores)
        }
        acc = {
            name: npe_c2st(e, x_o, 1000, seed=100 * seed)
            for name, e in (("1e3", small), ("1e4", large))
        }
        lo, hi = result.confidence_interval()
        print(
            f"| {seed} | {result.statistic:.3f} [{lo:.3f}, {hi:.3f}] | {result.pvalue:.2g} | "
            f"{kl['1e3']:.3f} | {kl['1e4']:.3f} | {acc['1e3']:.3f} | {acc['1e4']:.3f} | "
            f"{fit:.0f} s |",
            flush=True,
        )
        rows.append(
            [
                seed,
                f"{result.statistic:.3f} [{lo:.3f}, {hi:.3f}]",
                float(f"{result.pvalue:.2g}"),
                f"{kl['1e3']:.3f}",
                f"{kl['1e4']:.3f}",
                f"{acc['1e3']:.3f}",
                f"{acc['1e4']:.3f}",
                f"{fit:.0f} s",
            ]
        )
    return rows


SBI_MODEL = mc.ConditionalGaussianModel(noise_cov=0.5 * np.eye(2))


def main() -> None:
    parser = _harness.parser(__doc__)
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--size", action="store_true")
    parser.add_argument("--sbi", action="store_true")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    if args.speed or not (args.size or args.sbi):
        rows = speed(5_000, 1_000) if args.quick else speed()
        _harness.rerun(args, SPEED, rows, script=__file__)
    if args.size:
        rows = size(8, (100,)) if args.quick else size()
        _harness.rerun(args, SIZE, rows, script=__file__)
    if args.sbi:
        rows = sbi_budgets(1 if args.quick else 3)
        print(f"load average: {os.getloadavg()}")
        _harness.rerun(args, SBI, rows, script=__file__)


if __name__ == "__main__":
    main()
