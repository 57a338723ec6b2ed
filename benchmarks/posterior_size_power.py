"""Size and power of the posterior diagnostics on conditional Gaussian cases with an exact posterior.

Larger versions of the CI checks (R seeded trials per case), with the cheap kNN regressor for the
local tests (K = 150, 19 levels in [.05, .95], B = 200, +1 p-values, Bonferroni over m = 2), plus the
global KS + Holm test and the independence tests.

Run: OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/posterior_size_power.py [--trials 200]
"""

from __future__ import annotations

import time

import _harness

_harness.one_thread()

import numpy as np
from scipy import stats

from modelcompare import (
    AffineGaussianFlow,
    ConditionalGaussianModel,
    global_coverage_test,
    local_coverage_test,
    local_independence_test,
    pit,
    pit_independence_test,
)

MODEL = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
FLOWS = {
    "exact": MODEL.exact_flow(),
    "bias b=.3": MODEL.exact_flow(offset=[0.3, 0.0]),
    "local_bias b=1": MODEL.exact_flow(
        offset=lambda c: np.column_stack([1.0 * (c[:, 0] > 1), 0 * c[:, 0]])
    ),
    "over c=1.3": MODEL.exact_flow(scale_factor=1.3),
    "under c=0.7": MODEL.exact_flow(scale_factor=0.7),
    "nocorr": AffineGaussianFlow(
        MODEL.posterior_mean_matrix, np.diag(np.sqrt(np.diag(MODEL.posterior_cov)))
    ),
}


def _fmt(k: int, r: int) -> str:
    ok = stats.binomtest(k, r, 0.05, alternative="greater").pvalue > 0.01
    return f"{k / r:.3f} ({k}/{r}{'' if ok else ', above size'})"


X0_LABELS = {
    ("exact", (0.5, 0.5)): "(.5, .5)",
    ("exact", (2.0, 2.0)): "(2, 2)",
    ("local_bias b=1", (2.0, 2.0)): "(2, 2) inside",
    ("local_bias b=1", (-1.0, -1.0)): "(−1, −1) outside",
}


def _rate(k: int, r: int) -> str:
    return f"{k / r:.2f}"


def global_study(trials: int) -> dict[str, list[str]]:
    """Per flow: the global KS + Holm and the Spearman independence rejection rates."""
    found = {}
    print(f"Global checks, {trials} trials per case (reject at 0.05)")
    for name, flow in FLOWS.items():
        n = 500 if name in ("exact", "nocorr") else 2000
        ks = ind = 0
        for s in range(trials):
            theta, x = MODEL.simulate(n, seed=10_000 + s)
            p = pit(flow, theta, x)
            ks += global_coverage_test(p, seed=s).pvalue <= 0.05
            ind += pit_independence_test(p).pvalue <= 0.05
        print(
            f"  {name:<15} N={n:<5} KS+Holm {ks / trials:.3f}   Spearman independence {ind / trials:.3f}"
        )
        found[name] = [f"{_rate(ks, trials)} (N={n})", _rate(ind, trials)]
    return found


def local_study(trials: int) -> dict[str, list[list[str]]]:
    """Per flow: one row of local rejection rates per evaluation point."""
    found: dict[str, list[list[str]]] = {}
    print(f"\nLocal tests (kNN K=150, B=200, N=1000), {trials} trials per case (reject at 0.05)")
    cases = [
        ("exact", (0.5, 0.5)),
        ("exact", (2.0, 2.0)),
        ("local_bias b=1", (2.0, 2.0)),
        ("local_bias b=1", (-1.0, -1.0)),
        ("over c=1.3", (0.0, 0.0)),
        ("nocorr", (0.0, 0.0)),
    ]
    levels = np.linspace(0.05, 0.95, 19)
    for name, x0 in cases:
        lct = lct_max = ind = strong = 0
        for s in range(trials):
            theta, x = MODEL.simulate(1000, seed=20_000 + s)
            p = pit(FLOWS[name], theta, x)
            res = local_coverage_test(
                p, x, [x0], levels=levels, regressor="knn", n_resamples=200, seed=s
            )
            lct += res.pvalue <= 0.05
            strong += res.covariate_pvalues[:, 0].min() < 0.01
            mx = local_coverage_test(
                p, x, [x0], levels=levels, regressor="knn", n_resamples=200, seed=s, statistic="max"
            )
            lct_max += mx.pvalue <= 0.05
            ind += (
                local_independence_test(p, x, [x0], regressor="knn", n_resamples=200, seed=s).pvalue
                <= 0.05
            )
        print(
            f"  {name:<15} x0={x0!s:<11} LCT(mse) {_fmt(lct, trials)}  LCT(max) {lct_max / trials:.3f}"
            f"  min_i p_i<0.01 {strong / trials:.3f}  local independence {ind / trials:.3f}"
        )
        label = X0_LABELS.get((name, x0), f"({x0[0]:g}, {x0[1]:g})")
        found.setdefault(name, []).append(
            [label, _rate(lct, trials), _rate(lct_max, trials), _rate(ind, trials)]
        )
    return found


def size_power_rows(
    found_global: dict[str, list[str]], found_local: dict[str, list[list[str]]]
) -> list[list[str]]:
    """One row per flow and evaluation point; the global figures on a flow's first row."""
    rows = []
    for name in FLOWS:
        local = found_local.get(name) or [["", "", "", ""]]
        for i, cells in enumerate(local):
            rows.append([name, *(found_global[name] if i == 0 else ["", ""]), *cells])
    return rows


def hgb_study(trials: int) -> list[list[str]]:
    """The default amortised regressor (B = 39, |G| = 19, N = 1000): size and localisation."""
    print(f"\nLocal tests with the default amortised HGB (B=39, |G|=19, N=1000), {trials} trials")
    x0 = np.array([[0.5, 0.5], [2.0, 2.0], [-1.0, -1.0]])
    rows = []
    for name in ("exact", "local_bias b=1"):
        rej = np.zeros(3, int)
        for s in range(trials):
            theta, x = MODEL.simulate(1000, seed=30_000 + s)
            p = pit(FLOWS[name], theta, x)
            res = local_coverage_test(p, x, x0, levels=19, n_resamples=39, seed=s)
            rej += res.pvalues <= 0.05
        cells = "  ".join(f"x0={x0[e].tolist()}: {_fmt(int(rej[e]), trials)}" for e in range(3))
        print(f"  {name:<15} {cells}")
        rows.append([name, *(_rate(int(k), trials) for k in rej)])
    return rows


def main() -> None:
    parser = _harness.parser(__doc__)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--hgb-trials", type=int, default=0, help="also study the HGB default")
    args = parser.parse_args()
    if args.quick:
        args.trials, args.hgb_trials = 3, min(args.hgb_trials, 2)
    t = time.perf_counter()
    if args.trials:
        rows = size_power_rows(global_study(args.trials), local_study(args.trials))
        _harness.rerun(args, "posterior-04-size-and-power-of-the-local", rows, script=__file__)
    if args.hgb_trials:
        rows = hgb_study(args.hgb_trials)
        _harness.rerun(args, "posterior-05-size-and-power-of-the-local", rows, script=__file__)
    print(f"\ntotal {time.perf_counter() - t:.0f} s")


if __name__ == "__main__":
    main()
