"""Time of the default posterior report: the quadratic screen against the MLP, in one run.

The timed configuration: ``validate_posterior`` with its default checks and no ``x_obs``,
N = 1,000 calibration pairs, m = 2 parameters, the default evaluation points, α = 0.05,
``seed=0`` (``ConditionalGaussianModel``; the exact flow, then the flow with its posterior 1.5×
too wide, then one whose mean is off by 0.5 in θ₁ only where x₁ > 1). Three settings, side by
side on the same data:

- ``classifier="logistic"`` (the default): L-C2ST-NF's B + 1 quadratic logistic classifiers,
  fitted by Newton's method;
- ``classifier="mlp"``: L-C2ST-NF's MLPs on the compiled kernel (the default before);
- the default with ``x_obs`` (two observations) and the opt-in ``expected_coverage`` check.

L-C2ST-NF's null does not depend on the flow (Linhart et al. 2023) and is recalled within a
process, so every call here starts from an empty recall cache: each time is a first call.
Printed: each check's runtime, the whole report and ``failures(0.05)``.

Run: OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/report_speed.py

``--cold`` times instead the default report at m = d = 2, 5 and 10 (``--dims``), each call in a
fresh Python process so that nothing is recalled (cold), with one BLAS thread and with the
default threads, ``--repeats`` times each (the median counts): ``ConditionalGaussianModel(
noise_cov=I_m)``, N = 1,000 pairs, the exact flow, the default evaluation points, ``seed=0``.
The time is the ``validate_posterior`` call (not the imports). With ``--baseline-src DIR``
(the ``src`` of another tree, e.g. ``git archive <commit> src | tar -x -C /tmp/base``) each
setting is also timed on that tree, alternating with this one, and the two reports' decisions
and L-C2ST-NF p-values are compared. The table goes to the results file through the harness.

Run: python benchmarks/report_speed.py --cold --baseline-src /tmp/base/src
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import _harness

SLUG = "report-04-the-default-report-cold-at-m-d"
SRC = Path(__file__).resolve().parents[1] / "src"

#: One cold report in a fresh process: its time, decisions and B.
CHILD = """
import json, time, warnings
import numpy as np
warnings.simplefilter("ignore")
from modelcompare import ConditionalGaussianModel, validate_posterior
m = {m}
model = ConditionalGaussianModel(noise_cov=np.eye(m))
theta, x = model.simulate(1000, seed=0)
t = time.perf_counter()
r = validate_posterior(model.exact_flow(), theta, x, seed=0)
seconds = time.perf_counter() - t
runtimes = {{o.name: o.runtime_s for o in r.outcomes if o.result is not None}}
lc2st = [o.result for o in r.outcomes if o.name == "lc2st_nf"][0]
print(json.dumps({{"seconds": seconds, "failures": r.failures(0.05),
    "n_resamples": r.settings["n_resamples"], "lc2st_s": runtimes["lc2st_nf"],
    "runtimes": runtimes, "lc2st_pvalues": lc2st.pvalues.tolist()}}))
"""


def _regional_bias(x):
    """θ₁'s mean off by 0.5 where x₁ > 1."""
    import numpy as np

    x = np.atleast_2d(x)
    return np.c_[0.5 * (x[:, :1] > 1), np.zeros((len(x), 1))]


def _timed(flow, theta, x, **options):
    from modelcompare import validate_posterior
    from modelcompare.posterior._local import _lc2st

    _lc2st._NULL_CACHE.clear()  # a first call: nothing recalled
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = validate_posterior(flow, theta, x, seed=0, alpha=0.05, **options)
    return report, time.perf_counter() - t


def in_process(args: argparse.Namespace) -> None:
    """The default against the MLP and against x_obs, m = 2, one thread, in this process."""
    import numpy as np

    from modelcompare import ConditionalGaussianModel

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


def cold(m: int, src: Path, threads: int | None) -> dict:
    """One default report in a fresh process on the tree ``src``; ``threads`` None: the default."""
    env = {k: v for k, v in os.environ.items() if k not in _harness.THREAD_VARIABLES}
    env["PYTHONPATH"] = str(src)
    if threads is not None:
        env.update(dict.fromkeys(_harness.THREAD_VARIABLES, str(threads)))
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(m=m)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _agree(before: dict, after: dict) -> str:
    """Whether the two trees' reports decide alike, and how far their L-C2ST-NF p-values differ."""
    same = before["failures"] == after["failures"]
    gap = max(abs(a - b) for a, b in zip(before["lc2st_pvalues"], after["lc2st_pvalues"]))
    return f"{'same' if same else 'DIFFERENT'} failures; L-C2ST-NF p differ by ≤ {gap:.4f}"


def cold_table(args) -> None:
    dims = [2] if args.quick else [int(v) for v in args.dims.split(",")]
    repeats = 1 if args.quick else args.repeats
    trees = {"after": SRC} | ({"before": args.baseline_src} if args.baseline_src else {})
    rows, loads, last = [], [], {}
    for m in dims:
        for threads in (1, None):
            runs = {name: [] for name in trees}
            for _ in range(repeats):  # the trees alternate, so load drifts hit both alike
                for name, src in trees.items():
                    loads.append(os.getloadavg()[0])
                    runs[name].append(cold(m, src, threads))
                    print(m, threads, name, round(runs[name][-1]["seconds"], 2), flush=True)
            rows.append(_row(m, threads, runs))
            if threads == 1:
                last = {"m": m, "runs": runs["after"]}
    meaning, notes = _texts()
    print(f"load average before each report: {min(loads):.1f} to {max(loads):.1f}")
    print(f"after, m = d = {last['m']}, one thread, seconds per check (median):")
    for check in last["runs"][0]["runtimes"]:
        times = [r["runtimes"][check] for r in last["runs"]]
        print(f"  {check:<20} {statistics.median(times):6.2f}")
    _harness.save(
        args,
        _harness.record(
            SLUG,
            title="The default report, cold, at m = d = 2, 5 and 10",
            part="report",
            script=__file__,
            columns=[
                "m = d",
                "BLAS threads",
                "before (s)",
                "after (s)",
                "L-C2ST-NF before (s)",
                "L-C2ST-NF after (s)",
                "B run (after)",
                "agreement",
            ],
            rows=rows,
            meaning=meaning,
            notes=notes,
        ),
    )


def _row(m: int, threads: int | None, runs: dict) -> list:
    def median(name: str, key: str) -> str | None:
        """The median of the repeats with the best in brackets."""
        if name not in runs:
            return None
        times = [r[key] for r in runs[name]]
        return f"{statistics.median(times):.2f} ({min(times):.2f})"

    after = runs["after"][0]
    planned = ", ".join(f"{k} {v}" for k, v in after["n_resamples"].items())
    agreement = _agree(runs["before"][0], after) if "before" in runs else ""
    return [
        m,
        "1" if threads == 1 else "default (2)",
        median("before", "seconds"),
        median("after", "seconds"),
        median("before", "lc2st_s"),
        median("after", "lc2st_s"),
        planned,
        agreement,
    ]


def _texts() -> tuple[str, str]:
    """The table's meaning and notes: kept from the stored record when it has them."""
    stored = _harness.previous(SLUG) or {}
    meaning = stored.get("meaning") or (
        "Seconds of one `validate_posterior` call with its default checks on N = 1,000 pairs of "
        "`ConditionalGaussianModel(noise_cov=I_m)` (d = m), the exact flow, seed 0, each in a "
        "fresh process (cold: L-C2ST-NF's null is not recalled; imports not counted): the median "
        "of the repeats, the best in brackets. *before* and *after* are two source trees timed "
        "alternately in the same run; *agreement* compares their `failures(0.05)` and "
        "L-C2ST-NF p-values. *B run* is the number of resamples each resampling check ran with."
    )
    return meaning, stored.get("notes", "")


def main() -> None:
    p = _harness.parser(__doc__)
    p.add_argument("--cold", action="store_true", help="the cold table at m = d = --dims")
    p.add_argument("--dims", default="2,5,10", help="m = d values (default %(default)s)")
    p.add_argument("--baseline-src", type=Path, default=None, help="src/ of the tree to compare")
    args = p.parse_args()
    if not args.cold:
        for name in _harness.THREAD_VARIABLES:
            os.environ.setdefault(name, "1")
        in_process(args)
        return
    cold_table(args)


if __name__ == "__main__":
    main()
