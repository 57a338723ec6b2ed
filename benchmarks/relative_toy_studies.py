"""The toy studies of Jitkrittum et al. (2018), at α = 0.05.

Studies (choose with ``--study``):

- ``meanshift``: p = N(0.5 e₁, I), q = N(e₁, I), r = N(0, I), d = 50. H0 true: every test must reject
  at most α (within binomial tolerance).
- ``blobs``: 4-component GMMs in 2-D; r with covariance diag(5, 0.5), q rotated by π/5, p by π/2.
  H1 true: power against n.
- ``rbm``: Gauss–Bernoulli RBM, d = 20, dh = 5, n = 2000; q has B₁₁ + 0.3 and p has B₁₁ + ε.
  H0 true for ε < 0.3, H1 for ε > 0.3.

Methods: Rel-UME J = 1, 5 and Rel-FSSD J = 1, 5 (20 % of the rows optimise the width and locations,
the paper's option sets as presets ``paper-ex1``/``paper-ex2``), and Rel-MMD (Bounliphone width, kmod
convention, full sample). As in kmod, trial r draws R with seed r + 30, P with r + 10, Q with r + 20;
the tests use seed r.

Usage: ``python benchmarks/relative_toy_studies.py --study all --trials 100`` (single-threaded).
Prints the tables (rejection rates, a binomial check for H0 rows, the wall time) and writes each
study's table to ``benchmarks/results/``.
"""

from __future__ import annotations

import json
import math
import os
import time
import warnings

import _harness

_harness.one_thread()

import numpy as np
from scipy.stats import binomtest

from modelcompare import DegenerateDataWarning, rel_fssd, rel_mmd, rel_ume
from modelcompare.densities import GaussBernRBM, GaussianMixture, IsotropicNormal

ALPHA = 0.05
SLUGS = {
    "meanshift": "relative-03-the-paper-s-toy-studies-mean",
    "blobs": "relative-04-the-paper-s-toy-studies-blobs",
    "rbm": "relative-05-the-paper-s-toy-studies-rbm",
}


def methods(preset, with_fssd=True):
    out = {
        "Rel-UME J=1": lambda s: (
            rel_ume(s["x"], s["y"], s["z"], n_locations=1, optimizer=preset, seed=s["seed"]).pvalue
        ),
        "Rel-UME J=5": lambda s: (
            rel_ume(s["x"], s["y"], s["z"], n_locations=5, optimizer=preset, seed=s["seed"]).pvalue
        ),
    }
    if with_fssd:
        out["Rel-FSSD J=1"] = lambda s: (
            rel_fssd(s["p"], s["q"], s["z"], n_locations=1, optimizer=preset, seed=s["seed"]).pvalue
        )
        out["Rel-FSSD J=5"] = lambda s: (
            rel_fssd(s["p"], s["q"], s["z"], n_locations=5, optimizer=preset, seed=s["seed"]).pvalue
        )
    out["Rel-MMD"] = lambda s: rel_mmd(s["x"], s["y"], s["z"], seed=s["seed"]).pvalue
    return out


def run_cell(make_sample, trials, meths):
    """Rejection counts and seconds per method over ``trials`` trials."""
    counts = dict.fromkeys(meths, 0)
    secs = dict.fromkeys(meths, 0.0)
    for r in range(trials):
        s = make_sample(r)
        for name, fn in meths.items():
            t0 = time.perf_counter()
            counts[name] += fn(s) <= ALPHA
            secs[name] += time.perf_counter() - t0
    return counts, secs


def table(title, col_name, cols, results, trials, h0_cols=()):
    """Print the study's table and return its rows (method, then one rate per column)."""
    names = list(next(iter(results.values()))[0])
    rows = []
    print(f"\n### {title}\n")
    print("| method | " + " | ".join(f"{col_name}={c}" for c in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for name in names:
        cells = []
        for c in cols:
            k = int(results[c][0][name])
            cell = f"{k / trials:.2f}"
            if c in h0_cols:
                ok = binomtest(k, trials, ALPHA, alternative="greater").pvalue > 0.01
                cell += " ✓" if ok else " ✗"
            cells.append(cell)
        print(f"| {name} | " + " | ".join(cells) + " |")
        rows.append([name, *cells])
    tot = {name: sum(results[c][1][name] for c in cols) / (trials * len(cols)) for name in names}
    print("\nmean seconds per test: " + ", ".join(f"{k} {v:.3f}" for k, v in tot.items()))
    if h0_cols:
        print(f"(✓: H0 column, binomtest(k, {trials}, {ALPHA}, 'greater').pvalue > 0.01)")
    return [f"{col_name}={c}" for c in cols], rows


def study_meanshift(trials, ns):
    d = 50
    p = IsotropicNormal(np.r_[0.5, np.zeros(d - 1)])
    q = IsotropicNormal(np.r_[1.0, np.zeros(d - 1)])
    r = IsotropicNormal(np.zeros(d))
    meths = methods("paper-ex1")
    results = {}
    for n in ns:

        def make(t, n=n):
            return {
                "x": p.sample(n, seed=t + 10),
                "y": q.sample(n, seed=t + 20),
                "z": r.sample(n, seed=t + 30),
                "p": p,
                "q": q,
                "seed": t,
            }

        results[n] = run_cell(make, trials, meths)
    return results, table(
        "Mean shift, d = 50 (H0 true): rejection rate", "n", ns, results, trials, h0_cols=ns
    )


def blob_gmm(angle):
    base = np.diag([5.0, 0.5])
    c, s = math.cos(angle), math.sin(angle)
    rot = np.array([[c, -s], [s, c]])
    means = 5.0 * np.array([[-1.0, 1.0], [1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
    return GaussianMixture(means, rot @ base @ rot.T)


def study_blobs(trials, ns):
    p, q, r = blob_gmm(math.pi / 2), blob_gmm(math.pi / 5), blob_gmm(0.0)
    meths = methods("paper-ex1")
    results = {}
    for n in ns:

        def make(t, n=n):
            return {
                "x": p.sample(n, seed=t + 10),
                "y": q.sample(n, seed=t + 20),
                "z": r.sample(n, seed=t + 30),
                "p": p,
                "q": q,
                "seed": t,
            }

        results[n] = run_cell(make, trials, meths)
    return results, table("Blobs (H1 true): power", "n", ns, results, trials)


def rbm_params(d=20, dh=5):
    g = np.random.default_rng(11)
    b_mat = g.choice([-1.0, 1.0], size=(d, dh))
    return b_mat, g.normal(size=d), g.normal(size=dh)


def study_rbm(trials, eps_list, n=2000):
    b_mat, b, c = rbm_params()

    def rbm(delta):
        bb = b_mat.copy()
        bb[0, 0] += delta
        return GaussBernRBM(bb, b, c, burn_in=2000)

    r, q = rbm(0.0), rbm(0.3)
    ps = {e: rbm(e) for e in eps_list}
    meths = methods("paper-ex2")
    cache = {}

    def base(t):
        if t not in cache:
            cache.clear()
            cache[t] = (q.sample(n, seed=t + 20), r.sample(n, seed=t + 30))
        return cache[t]

    results = {e: (dict.fromkeys(meths, 0), dict.fromkeys(meths, 0.0)) for e in eps_list}
    for t in range(trials):  # trial-major so that R and Q are drawn once per trial
        y, z = base(t)
        for e in eps_list:
            s = {"x": ps[e].sample(n, seed=t + 10), "y": y, "z": z, "p": ps[e], "q": q, "seed": t}
            for name, fn in meths.items():
                t0 = time.perf_counter()
                results[e][0][name] += fn(s) <= ALPHA
                results[e][1][name] += time.perf_counter() - t0
    h0 = [e for e in eps_list if e < 0.3]
    return results, table(
        f"RBM, d = 20, dh = 5, n = {n}: rejection rate", "ε", eps_list, results, trials, h0_cols=h0
    )


def main():
    ap = _harness.parser(__doc__)
    ap.add_argument("--study", choices=["meanshift", "blobs", "rbm", "all"], default="all")
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--meanshift-n", type=int, nargs="+", default=[400, 1200, 2000])
    ap.add_argument("--blobs-n", type=int, nargs="+", default=[317, 603, 1149, 2188, 4169])
    ap.add_argument("--rbm-eps", type=float, nargs="+", default=[0.2, 0.25, 0.35, 0.5])
    ap.add_argument("--json", help="also write the raw counts here")
    args = ap.parse_args()
    if args.quick:
        args.trials, args.meanshift_n, args.blobs_n, args.rbm_eps = 2, [400], [317], [0.5]
    warnings.simplefilter("ignore", DegenerateDataWarning)  # degenerate trials count as p = 1
    print(f"trials = {args.trials}, α = {ALPHA}, load avg {os.getloadavg()}")
    t0 = time.perf_counter()
    studies = {
        "meanshift": lambda: study_meanshift(args.trials, args.meanshift_n),
        "blobs": lambda: study_blobs(args.trials, args.blobs_n),
        "rbm": lambda: study_rbm(args.trials, args.rbm_eps),
    }
    out = {}
    for name, study in studies.items():
        if args.study in (name, "all"):
            out[name], (columns, rows) = study()
            _harness.rerun(args, SLUGS[name], rows, script=__file__, columns=["method", *columns])
    print(f"\ntotal wall time {time.perf_counter() - t0:.0f} s")
    if args.json:
        with open(args.json, "w") as fh:  # noqa: PTH123
            json.dump(
                {k: {str(c): v[0] for c, v in res.items()} for k, res in out.items()},
                fh,
                default=int,
                indent=1,
            )


if __name__ == "__main__":
    main()
