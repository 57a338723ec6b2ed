"""Time of the default posterior report at m = d = 2, 5 and 10, each in a fresh process (cold).

The timed configuration: ``validate_posterior`` with its default checks, N = 1,000 calibration
pairs of ``ConditionalGaussianModel(noise_cov=I_m)`` (x in R^m, so d = m), the exact flow,
the default evaluation points, alpha = 0.05, ``seed=0``. Each setting runs in a new Python
process, so that nothing (L-C2ST-NF's null in particular) is recalled from an earlier call.
``--src`` times another source tree (a baseline) with the same script.

Run: OMP_NUM_THREADS=1 python benchmarks/report_scaling.py --out benchmarks/results/report_scaling.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

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
    parser = argparse.ArgumentParser()
    parser.add_argument("--dims", default="2,5,10")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--src", default=str(Path(__file__).resolve().parents[1] / "src"))
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    rows = []
    for m in map(int, args.dims.split(",")):
        out = run(m, args.scale, args.src)
        print(m, out, flush=True)
        rows.append([m, m, round(out["seconds"], 2), json.dumps(out["n_resamples"])])
    if args.out:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        Path(args.out).write_text(
            json.dumps(
                {
                    "slug": "report_scaling",
                    "title": "Default posterior report, cold, at m = d = 2, 5 and 10",
                    "part": "report",
                    "script": "benchmarks/report_scaling.py",
                    "command": "OMP_NUM_THREADS=1 python benchmarks/report_scaling.py",
                    "machine": platform.processor() or platform.machine(),
                    "date": datetime.date.today().isoformat(),
                    "load": load,
                    "transcribed": False,
                    "meaning": "",
                    "columns": ["m", "d", "seconds (cold)", "B each resampling check ran with"],
                    "rows": rows,
                    "notes": "",
                },
                indent=1,
                ensure_ascii=False,
            )
            + "\n"
        )


if __name__ == "__main__":
    main()
