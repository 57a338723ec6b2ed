"""Agreement of the posterior-draw diagnostics with BayesFlow 2.1's ``diagnostics.metrics``.

On seeded draws of shape (N, S, m) and true parameters (N, m), computes both sides and prints,
per case, the largest absolute difference of each diagnostic and the time of each side:

- RMSE: ``parameter_recovery(...).draw_rmse`` against ``root_mean_squared_error`` (median),
  normalised by the range, the standard deviation, or not at all;
- contraction: ``numpy.clip(posterior_contraction(...).contraction, 0, 1)`` against
  ``posterior_contraction(aggregation=None)`` (BayesFlow clips, we do not);
- z-scores: ``posterior_contraction(...).z_scores`` against ``posterior_z_score(aggregation=None)``;
- calibration error: ``calibration_error(levels=numpy.linspace(0.005, 0.995, 20)).errors``
  against ``calibration_error`` (median over 20 levels);
- log γ: ``sbc_log_gamma(...).log_gammas`` against log ``gamma_discrepancy`` of the same ranks
  (where BayesFlow's γ is above 1e-6, so that its 1 − cdf is exact to the digits compared), and
  ``relative_log_gamma`` given BayesFlow's own null draws against ``calibration_log_gamma``.
  Then the two nulls in law (two-sample KS p-value) and the share of BayesFlow's null draws that
  differ from the exact γ of the same uniforms' ranks.

Run, in a virtual environment with bayesflow (see BENCHMARKS.md):
KERAS_BACKEND=torch OMP_NUM_THREADS=1 python benchmarks/bayesflow_agreement.py
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import time

import _harness

_harness.one_thread()
os.environ.setdefault("KERAS_BACKEND", "torch")

import numpy as np
from scipy import stats

from modelcompare import sbc_log_gamma
from modelcompare.posterior import (
    calibration_error,
    parameter_recovery,
    posterior_contraction,
)

AGREEMENT = "audit-01-bayesflow-2-1-s-diagnostics-agreement"
NULLS = "audit-02-bayesflow-2-1-s-diagnostics-the"
POST_SD = np.sqrt(1.0 / 3.0)
LEVELS = np.linspace(0.005, 0.995, 20)


def gaussian(n, s, m, seed, scale=1.0, shift=0.0):
    """θ ~ N(0, I), x = θ + N(0, I/2); draws from N(2x/3 + shift, scale² / 3)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n, m))
    x = theta + np.sqrt(0.5) * rng.normal(size=(n, m))
    draws = (2.0 / 3.0) * x[:, None, :] + shift + scale * POST_SD * rng.normal(size=(n, s, m))
    return draws, theta


def rounded(n, s, m, seed):
    draws, theta = gaussian(n, s, m, seed, scale=1.3)
    return np.round(4 * draws) / 4, np.round(4 * theta) / 4


CASES = [
    ("calibrated", lambda: gaussian(1000, 200, 3, 0)),
    ("too narrow, 0.5x", lambda: gaussian(500, 100, 3, 1, scale=0.5)),
    ("too wide, 3x", lambda: gaussian(300, 50, 2, 2, scale=3.0)),
    ("biased by 0.3", lambda: gaussian(400, 100, 2, 3, shift=0.3)),
    ("rounded (ties)", lambda: rounded(200, 40, 2, 5)),
]


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def maxdiff(a, b):
    return float(np.max(np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))))


def with_global_seed(seed, fn):
    saved = np.random.get_state()  # noqa: NPY002
    np.random.seed(seed)  # noqa: NPY002
    try:
        return fn()
    finally:
        np.random.set_state(saved)  # noqa: NPY002


def compare(bf, draws, theta):
    """Rows (diagnostic, max |ours − BayesFlow|, our seconds, BayesFlow's seconds)."""
    n, s, m = draws.shape
    rows = []
    for norm in ("range", "std", None):
        ours, t1 = timed(parameter_recovery, draws, theta, normalize=norm or "none")
        theirs, t2 = timed(bf.root_mean_squared_error, draws, theta, normalize=norm)
        rows.append((f"RMSE, normalize={norm}", maxdiff(ours.draw_rmse, theirs["values"]), t1, t2))
    pc, t1 = timed(lambda: posterior_contraction(draws, theta))
    theirs, t2 = timed(lambda: bf.posterior_contraction(draws, theta, aggregation=None))
    rows.append(
        ("contraction (clipped)", maxdiff(np.clip(pc.contraction, 0, 1), theirs["values"]), t1, t2)
    )
    theirs, t3 = timed(lambda: bf.posterior_z_score(draws, theta, aggregation=None))
    rows.append(("z-scores", maxdiff(pc.z_scores, theirs["values"]), t1, t3))
    ours, t1 = timed(lambda: calibration_error(draws, theta, levels=LEVELS))
    theirs, t2 = timed(lambda: bf.calibration_error(draws, theta))
    rows.append(("calibration error", maxdiff(ours.errors, theirs["values"]), t1, t2))
    ranks = np.sum(draws < theta[:, None, :], axis=1)
    b = 1000
    stat, t1 = timed(sbc_log_gamma, ranks, s, n_resamples=1, seed=0)  # the statistic alone
    gam, t2 = timed(lambda: np.array([bf.gamma_discrepancy(ranks[:, j], s) for j in range(m)]))
    ok = gam > 1e-6
    diff = maxdiff(stat.log_gammas[ok], np.log(gam[ok])) if ok.any() else float("nan")
    rows.append((f"log γ, where γ > 1e-6 ({ok.sum()} of {m})", diff, t1, t2))
    rows.append(("γ, all (absolute)", maxdiff(np.exp(stat.log_gammas), gam), t1, t2))
    ours, t1 = timed(sbc_log_gamma, ranks, s, n_resamples=b, seed=0)
    with np.errstate(divide="ignore"):
        theirs, t2 = timed(
            lambda: with_global_seed(
                7, lambda: bf.calibration_log_gamma(draws, theta, num_null_draws=b)
            )
        )
    null = with_global_seed(7, lambda: bf.gamma_null_distribution(n, s, b))
    rel = dataclasses.replace(ours, null_distribution=np.log(null)).relative_log_gamma(0.05)
    rows.append(
        (
            f"relative log γ (B = {b}) given BayesFlow's null, where γ > 1e-6",
            maxdiff(rel[ok], theirs["values"][ok]) if ok.any() else float("nan"),
            t1,
            t2,
        )
    )
    return rows


def nulls(bf, n, s, b=2000):
    """KS p-value of our null against BayesFlow's, and BayesFlow's share of inexact draws."""
    ours, t1 = timed(lambda: sbc_log_gamma(np.zeros((n, 1), dtype=int), s, n_resamples=b, seed=1))
    theirs, t2 = timed(lambda: with_global_seed(2, lambda: bf.gamma_null_distribution(n, s, b)))
    uniforms = np.random.RandomState(2)  # the same uniforms as BayesFlow's, n per draw
    exact = np.array(
        [bf.gamma_discrepancy(np.floor(uniforms.uniform(size=n) * (s + 1)), s) for _ in range(b)]
    )
    k = np.arange(n + 1)
    rounded_counts = int(np.sum(np.floor(n * (k / n)) != k))
    return {
        "ks_ours_vs_bf": stats.ks_2samp(ours.null_distribution, np.log(theirs)).pvalue,
        "ks_ours_vs_exact": stats.ks_2samp(ours.null_distribution, np.log(exact)).pvalue,
        "bf_inexact_share": float(np.mean(~np.isclose(theirs, exact, rtol=1e-12, atol=0))),
        "rounded_counts": rounded_counts,
        "q05": (
            np.quantile(np.exp(ours.null_distribution), 0.05),
            np.quantile(theirs, 0.05),
            np.quantile(exact, 0.05),
        ),
        "t": (t1, t2),
    }


def main():
    args = _harness.parser(__doc__).parse_args()
    bayesflow, keras, torch = (importlib.import_module(m) for m in ("bayesflow", "keras", "torch"))
    bf = importlib.import_module("bayesflow.diagnostics.metrics")
    print(
        f"bayesflow {bayesflow.__version__}, keras {keras.__version__} "
        f"(backend {keras.backend.backend()}), torch {torch.__version__}, numpy {np.__version__}"
    )
    rows = []
    for name, make in CASES[:1] if args.quick else CASES:
        draws, theta = make()
        label = f"{name} {draws.shape}"
        for what, diff, t1, t2 in compare(bf, draws, theta):
            rows.append([label, what, f"{diff:.2e}", f"{t1:.4f}", f"{t2:.4f}"])
    _harness.rerun(args, AGREEMENT, rows, script=__file__)
    rows = []
    for n, s in [(80, 30)] if args.quick else [(80, 30), (49, 20), (150, 50), (200, 100)]:
        r = nulls(bf, n, s)
        rows.append(
            [
                f"{n}, {s}",
                r["rounded_counts"],
                f"{r['ks_ours_vs_bf']:.3g}",
                f"{r['ks_ours_vs_exact']:.3g}",
                f"{r['bf_inexact_share']:.1%}",
                " / ".join(f"{v:.4g}" for v in r["q05"]),
                f"{r['t'][0]:.3f}",
                f"{r['t'][1]:.3f}",
            ]
        )
    _harness.rerun(args, NULLS, rows, script=__file__)


if __name__ == "__main__":
    main()
