"""Time of the default posterior report: the quadratic screen against the MLP, in one run.

The timed configuration: ``validate_posterior`` with its default checks and no ``x_obs``,
N = 1,000 calibration pairs, m = 2 parameters, the default evaluation points, α = 0.05,
``seed=0`` (``ConditionalGaussianModel``; the exact flow, then the flow with its posterior 1.5×
too wide, then one whose mean is off by 0.5 in θ₁ only where x₁ > 1). Three settings, side by
side on the same data:

- ``classifier="logistic"`` (the default): L-C2ST-NF's B + 1 quadratic logistic classifiers in
  one batched Newton solve;
- ``classifier="mlp"``: L-C2ST-NF's MLPs on the compiled kernel (the default before);
- the default with ``x_obs`` (two observations) and the opt-in ``expected_coverage`` check.

L-C2ST-NF's null does not depend on the flow (Linhart et al. 2023) and is recalled within a
process, so every call here starts from an empty recall cache: each time is a first call.
Printed: each check's runtime, the whole report and ``failures(0.05)``.

Run: OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/report_speed.py
"""

from __future__ import annotations

import argparse
import time
import warnings

import _harness

_harness.one_thread()

import numpy as np

from modelcompare import ConditionalGaussianModel, validate_posterior
from modelcompare.posterior._local import _lc2st


def _regional_bias(x: np.ndarray) -> np.ndarray:
    """θ₁'s mean off by 0.5 where x₁ > 1."""
    x = np.atleast_2d(x)
    return np.c_[0.5 * (x[:, :1] > 1), np.zeros((len(x), 1))]


def _timed(flow, theta, x, **options):
    _lc2st._NULL_CACHE.clear()  # a first call: nothing recalled
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = validate_posterior(flow, theta, x, seed=0, alpha=0.05, **options)
    return report, time.perf_counter() - t


def main() -> None:
    args = _harness.parser(__doc__).parse_args()
    n = 200 if args.quick else 1_000
    model = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
    theta, x = model.simulate(n, seed=1)
    exact = model.exact_flow()
    flows = {
        "exact": exact,
        "too wide": model.exact_flow(scale_factor=1.5),
        "regional bias": model.exact_flow(offset=_regional_bias),
    }
    x_obs = np.array([[0.5, 0.3], [1.8, 1.2]])
    settings = {
        "default (quadratic)": {},
        "classifier='mlp'": {"classifier": "mlp"},
        "default + x_obs + expected_coverage": {
            "x_obs": x_obs,
            "checks": [
                "misspecification",
                "sbc",
                "sbc_log_gamma",
                "tarp",
                "global_coverage",
                "pit_independence",
                "local_coverage",
                "local_independence",
                "lc2st_nf",
                "expected_coverage",
                "scores",
            ],
        },
    }
    print(f"N={n}, m=2, default evaluation points, alpha=0.05, one thread, first calls")
    runs: dict[str, dict[str, tuple[object, float]]] = {}
    for label, options in settings.items():
        report, seconds = _timed(exact, theta, x, **options)
        print(f"\n[{label}] exact flow: whole report {seconds:.2f} s")
        for outcome in report.outcomes:
            print(f"  {outcome.name:<22}{outcome.runtime_s:8.2f} s")
        print(f"  n_resamples: {report.settings['n_resamples']}")
        runs[label] = {}
        for name, flow in flows.items():
            if options and name != "exact" and "x_obs" in options:
                continue
            report, seconds = _timed(flow, theta, x, **options)
            runs[label][name] = (report, seconds)
            print(f"  {name:<14} {seconds:6.2f} s  failures(0.05) = {report.failures(0.05)}")
    _save(args, runs["default (quadratic)"], runs["classifier='mlp'"])


def _save(args: argparse.Namespace, default: dict, mlp: dict) -> None:
    """The time table and the decisions table: the default report beside the MLP's."""

    def runtime(runs: dict, check: str | None) -> float:
        outcomes = runs["exact"][0].outcomes
        if check is None:  # every check but the two named in the table
            chosen = [o for o in outcomes if o.name not in ("lc2st_nf", "local_coverage")]
        else:
            chosen = [o for o in outcomes if o.name == check]
        return sum(o.runtime_s for o in chosen)

    b = default["exact"][0].settings["n_resamples"].get("local_coverage")
    rows = [
        ["`lc2st_nf`, exact flow", *(f"{runtime(r, 'lc2st_nf'):.2f} s" for r in (default, mlp))],
        [
            f"`local_coverage` (kNN, B = {b:,})",
            *(f"{runtime(r, 'local_coverage'):.2f} s" for r in (default, mlp)),
        ],
        ["every other check together", *(f"{runtime(r, None):.2f} s" for r in (default, mlp))],
    ]
    labels = {
        "exact": "**whole report**: exact flow",
        "too wide": "whole report: posterior 1.5× too wide",
        "regional bias": "whole report: θ₁'s mean off by 0.5 where x₁ > 1",
    }
    rows += [
        [label, *(f"{r[name][1]:.2f} s" for r in (default, mlp))] for name, label in labels.items()
    ]
    _harness.rerun(args, "report-02-the-default-report-quadratic-l-c2st", rows, script=__file__)
    names = {"exact": "exact", "too wide": "1.5× too wide", "regional bias": "regional bias"}
    decisions = [
        [shown, *(", ".join(r[name][0].failures(0.05)) or "none" for r in (default, mlp))]
        for name, shown in names.items()
    ]
    _harness.rerun(
        args, "report-03-the-default-report-quadratic-l-c2st", decisions, script=__file__
    )


if __name__ == "__main__":
    main()
