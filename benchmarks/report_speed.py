"""Time of the default posterior report, a first call and a second flow on the same calibration set.

The timed configuration: ``validate_posterior`` with its default checks and no ``x_obs``,
N = 1,000 calibration pairs, m = 2 parameters, the three default evaluation points, α = 0.05,
``seed=0``. L-C2ST-NF's null classifiers do not depend on the flow (Linhart et al. 2023), so a
second call with another flow and the same calibration set, evaluation points and seed recalls
them and trains only the observed classifier. Printed: each check's runtime on the first call
(the exact flow), on a second call (a flow with the posterior 1.5× too wide) and the decisions,
which must not change with the recall.

Run: OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/report_speed.py
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import time
import warnings

import numpy as np

from modelcompare import ConditionalGaussianModel, validate_posterior


def _timed(flow, theta, x):
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = validate_posterior(flow, theta, x, seed=0, alpha=0.05)
    return report, time.perf_counter() - t


def main() -> None:
    model = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
    theta, x = model.simulate(1_000, seed=1)
    flows = {"exact": model.exact_flow(), "too wide": model.exact_flow(scale_factor=1.5)}
    runs = {}
    for label, flow in [("first call, exact", flows["exact"]), ("second flow", flows["too wide"])]:
        runs[label] = _timed(flow, theta, x)
    # the second flow again in a fresh cache, for its decisions without the recall
    from modelcompare.posterior import _lc2st

    _lc2st._NULL_CACHE.clear()
    runs["second flow, nothing recalled"] = _timed(flows["too wide"], theta, x)
    names = [o.name for o in runs["first call, exact"][0].outcomes]
    print("N=1000, m=2, default checks, 3 default evaluation points, alpha=0.05")
    print(f"{'check':<22}" + "".join(f"{label:>32}" for label in runs))
    for i, name in enumerate(names):
        cells = "".join(f"{r.outcomes[i].runtime_s:>31.2f}s" for r, _ in runs.values())
        print(f"{name:<22}{cells}")
    print(f"{'whole report':<22}" + "".join(f"{t:>31.2f}s" for _, t in runs.values()))
    for label, (report, _) in runs.items():
        print(f"{label}: failures(0.05) = {report.failures(0.05)}")


if __name__ == "__main__":
    main()
