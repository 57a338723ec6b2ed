"""Time of the default posterior report at m = d = 2, 5 and 10, each in a fresh process (cold).

The timed configuration: ``validate_posterior`` with its default checks, N = 1,000 calibration
pairs of ``ConditionalGaussianModel(noise_cov=I_m)`` (x in R^m, so d = m), the exact flow,
the default evaluation points, alpha = 0.05, ``seed=0``. Each setting runs in a new Python
process, so that nothing (L-C2ST-NF's null in particular) is recalled from an earlier call.
``--src`` times another source tree (a baseline) with the same script.

Run: python benchmarks/report_scaling.py (writes benchmarks/results/report_scaling.json)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import _harness

CHILD = """
import json, time, warnings
import numpy as np
warnings.simplefilter("ignore")
from modelcompare import ConditionalGaussianModel, validate_posterior
m = {m}
model = ConditionalGaussianModel(noise_cov=np.eye(m))
theta, x = model.simulate(1000, seed=0)
t = time.perf_counter()
r = validate_posterior(model.exact_flow(scale_factor={scale}), theta, x, seed=0)
print(json.dumps({{"seconds": time.perf_counter() - t, "failures": r.failures(0.05),
    "n_resamples": r.settings["n_resamples"],
    "runtimes": {{o.name: round(o.runtime_s, 2) for o in r.outcomes if o.result is not None}}}}))
"""


def run(m: int, scale: float, src: str) -> dict:
    env = dict(os.environ, PYTHONPATH=src, OMP_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(m=m, scale=scale)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = _harness.parser(__doc__)
    parser.add_argument("--dims", default="2,5,10")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--src", default=str(Path(__file__).resolve().parents[1] / "src"))
    args = parser.parse_args()
    dims = [2] if args.quick else list(map(int, args.dims.split(",")))
    flow = "exact" if args.scale == 1 else f"{args.scale:g}x too wide"
    rows = []
    for m in dims:
        out = run(m, args.scale, args.src)
        print(m, out, flush=True)
        plan = ", ".join(f"{name} {b}" for name, b in out["n_resamples"].items())
        # this tree's report runs the two-stage plan; the single-stage column is for --src runs
        # of an older tree, not measured here
        rows.append([flow, m, None, round(out["seconds"], 2), plan])
    _harness.rerun(args, "report_scaling", rows, script=__file__)


if __name__ == "__main__":
    main()
