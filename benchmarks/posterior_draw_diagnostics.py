"""Size and power of the draw-based posterior checks on the conditional Gaussian cases.

For each flow (exact, bias, over/under-dispersed, no correlation) and R seeded trials: the SBC
KS test, the SBC-ECDF log-gamma test, the HPD-coverage test (rejection rates at 0.05), and the
mean of the calibration-error score and of the z-scores' RMS; then the size and power of the
misspecification test for one observation.

Run: OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/posterior_draw_diagnostics.py [--trials 100]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from modelcompare import (
    AffineGaussianFlow,
    ConditionalGaussianModel,
    calibration_error,
    hpd_coverage_test,
    misspecification_test,
    posterior_contraction,
    sbc_log_gamma,
    sbc_test,
)

MODEL = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
FLOWS = {
    "exact": MODEL.exact_flow(),
    "bias b=.3": MODEL.exact_flow(offset=[0.3, 0.0]),
    "over c=1.3": MODEL.exact_flow(scale_factor=1.3),
    "under c=0.7": MODEL.exact_flow(scale_factor=0.7),
    "nocorr": AffineGaussianFlow(
        MODEL.posterior_mean_matrix, np.diag(np.sqrt(np.diag(MODEL.posterior_cov)))
    ),
}
N, S, B = 300, 50, 199


def _rate(k: int, r: int) -> str:
    flag = "" if stats.binomtest(k, r, 0.05, alternative="greater").pvalue > 0.01 else " (!)"
    return f"{k / r:.2f}{flag}"


def draw_study(trials: int) -> None:
    print(f"N = {N}, S = {S}, B = {B}, {trials} trials per case; rejection rates at 0.05")
    print(
        "| case | SBC KS + Holm | SBC log-gamma + Holm | HPD coverage | calibration error | z_rms |"
    )
    print("|---|---|---|---|---|---|")
    for name, flow in FLOWS.items():
        ks = lg = hpd = 0
        ce, zr = [], []
        for t in range(trials):
            theta, x = MODEL.simulate(N, seed=20_000 + t)
            draws = flow.sample(x, S, seed=t)
            ranks = (draws < theta[:, None, :]).sum(axis=1)
            ks += sbc_test(ranks, S, seed=t).decision(0.05)
            lg += sbc_log_gamma(ranks, S, n_resamples=B, seed=t).decision(0.05)
            log_q = flow.log_prob(draws.reshape(-1, 2), np.repeat(x, S, axis=0)).reshape(N, S)
            hpd += hpd_coverage_test(log_q, flow.log_prob(theta, x), seed=t).decision(0.05)
            ce.append(calibration_error(draws, theta).value)
            zr.append(posterior_contraction(draws, theta).z_rms.max())
        cells = [_rate(ks, trials), _rate(lg, trials), _rate(hpd, trials)]
        print(f"| {name} | {' | '.join(cells)} | {np.mean(ce):.3f} | {np.mean(zr):.2f} |")


def misspecification_study(trials: int) -> None:
    print(f"\nmisspecification_test, one observation, 1000 simulations, {trials} trials")
    for method in ("knn", "mmd"):
        size = power = 0
        for t in range(trials):
            _, x = MODEL.simulate(1001, seed=30_000 + t)
            size += misspecification_test(x[:1], x[1:], statistic=method, seed=t).decision(0.05)
            far = x[:1] + np.array([[3.0, -3.0]])
            power += misspecification_test(far, x[1:], statistic=method, seed=t).decision(0.05)
        print(f"  {method}: size {_rate(size, trials)}, power (shift (3, -3)) {power / trials:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    args = parser.parse_args()
    start = time.perf_counter()
    draw_study(args.trials)
    misspecification_study(args.trials)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
