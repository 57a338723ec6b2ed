"""Rel-UME speed and memory: the authors' numpy formulation against ours, in one run.

Two measurements:

1. Fixed locations: n rows of P, Q, R, d = 50, J = 10. Reference = a faithful re-implementation of
   the kmod/kgof formulation: full n × J feature matrices from kgof's ``dist2_matrix``
   (``np.sum(X**2, 1)`` makes an n × d temporary) and freqopttest's U-statistic/variance formulas.
   Ours = ``modelcompare.rel_ume(..., optimizer=None)`` (chunked single pass).
2. Location/width optimisation: J = 5, d = 50, n rows. Reference = kmod's objective on full feature
   matrices, differentiated by reverse-mode autodiff (torch here, standing in for the retired
   ``autograd`` package kmod used), with kmod's L-BFGS-B options. Ours = ``optimize_ume`` with the
   analytic gradient. Same data, same start, same bounds; both criteria are reported.

Run single-threaded:  ``python benchmarks/relative_ume_speed.py [--n 1000000] [--n-opt 100000]``.
Peak memory is measured with tracemalloc (numpy reports its buffers to it) in separate runs from the
timings, and is reported as the peak above the data already in memory.
"""

from __future__ import annotations

import argparse
import math
import os
import time
import tracemalloc

import _harness

_harness.one_thread()

import numpy as np

from modelcompare import OptimizerOptions, optimize_ume, rel_ume
from modelcompare.relative._optimize import (
    default_sigma2_bounds,
    location_bounds,
    pooled_meddistance,
)
from modelcompare.relative._presets import resolve_options


# --------------------------------------------------------------------------------------------
# Reference formulation (kgof/kmod/freqopttest style, full matrices)
# --------------------------------------------------------------------------------------------
def ref_dist2_matrix(x, y):
    sx = np.sum(x**2, 1)
    sy = np.sum(y**2, 1)
    return sx[:, np.newaxis] - 2.0 * x.dot(y.T) + sy[np.newaxis, :]


def ref_kgauss(x, y, sigma2):
    return np.exp(-ref_dist2_matrix(x, y) / (2.0 * sigma2))


def ref_ustat(fea):
    n = fea.shape[0]
    t1 = np.sum(np.mean(fea, 0) ** 2) * (n / float(n - 1))
    t2 = np.mean(np.sum(fea**2, 1)) / float(n - 1)
    return t1 - t2


def ref_rel_ume(x, y, z, v, sigma2):
    j = v.shape[0]
    fea_x = ref_kgauss(x, v, sigma2)
    fea_y = ref_kgauss(y, v, sigma2)
    fea_z = ref_kgauss(z, v, sigma2)
    fea_pr = (fea_x - fea_z) / np.sqrt(j)
    fea_qr = (fea_y - fea_z) / np.sqrt(j)
    n = x.shape[0]
    stat = np.sqrt(n) * (ref_ustat(fea_pr) - ref_ustat(fea_qr))
    mean_pr = np.mean(fea_pr, 0)
    mean_qr = np.mean(fea_qr, 0)
    a = fea_pr.dot(mean_pr)
    b = fea_qr.dot(mean_qr)
    zeta_p = 4.0 * (np.mean(a**2) - np.sum(mean_pr**2) ** 2)
    zeta_q = 4.0 * (np.mean(b**2) - np.sum(mean_qr**2) ** 2)
    zeta_pq = 4.0 * (np.mean(a * b) - np.sum(mean_pr**2) * np.sum(mean_qr**2))
    return stat, zeta_p - 2.0 * zeta_pq + zeta_q


def ref_optimize(x, y, z, v0, sigma0, s2_bounds, coord_bounds, opts):
    """kmod's optimize_3sample_criterion: autodiff through the full-matrix objective."""
    import torch
    from scipy.optimize import minimize

    torch.set_num_threads(1)
    xt, yt, zt = (torch.as_tensor(a) for a in (x, y, z))
    j, d = v0.shape

    def dist2(a, b):
        return (a**2).sum(1)[:, None] - 2.0 * a @ b.T + (b**2).sum(1)[None, :]

    def crit(theta):
        sig, v = theta[0], theta[1:].reshape(j, d)
        s2 = sig**2
        kx, ky, kz = (torch.exp(-dist2(a, v) / (2.0 * s2)) for a in (xt, yt, zt))
        fp, fq = (kx - kz) / math.sqrt(j), (ky - kz) / math.sqrt(j)
        n = fp.shape[0]

        def ustat(f):
            return (f.mean(0) ** 2).sum() * (n / (n - 1.0)) - (f**2).sum(1).mean() / (n - 1.0)

        mp, mq = fp.mean(0), fq.mean(0)
        a, b = fp @ mp, fq @ mq
        zp = 4.0 * ((a**2).mean() - (mp**2).sum() ** 2)
        zq = 4.0 * ((b**2).mean() - (mq**2).sum() ** 2)
        zpq = 4.0 * ((a * b).mean() - (mp**2).sum() * (mq**2).sum())
        return (ustat(fp) - ustat(fq)) / torch.sqrt(zp - 2.0 * zpq + zq + opts.reg)

    def obj(theta_np):
        theta = torch.tensor(theta_np, requires_grad=True)
        val = -crit(theta)
        val.backward()
        return float(val), theta.grad.numpy().copy()

    lo, hi = coord_bounds
    bounds = [(math.sqrt(s2_bounds[0]), math.sqrt(s2_bounds[1]))]
    bounds += list(zip(np.tile(lo, j), np.tile(hi, j)))
    x0 = np.concatenate([[sigma0], v0.ravel()])
    res = minimize(
        obj,
        x0,
        method="L-BFGS-B",
        jac=True,
        bounds=bounds,
        tol=opts.tol_fun,
        options={"maxiter": opts.max_iter, "ftol": opts.tol_fun, "gtol": 1e-8},
    )
    return float(-res.fun), int(res.nit)


# --------------------------------------------------------------------------------------------
def timed(fn, repeat):
    best = math.inf
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def peak_extra(fn):
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - base


def fixed_locations(n, d, j, repeat):
    rng = np.random.default_rng(0)
    z = rng.standard_normal((n, d))
    x = rng.standard_normal((n, d))
    x[:, 0] += 0.5
    y = rng.standard_normal((n, d))
    y[:, 0] += 0.25
    v = rng.standard_normal((j, d))
    bw = math.sqrt(d)
    data_bytes = x.nbytes + y.nbytes + z.nbytes
    ours = lambda: rel_ume(x, y, z, locations=v, bandwidth=bw, optimizer=None, seed=0)
    ref = lambda: ref_rel_ume(x, y, z, v, bw * bw)
    t_ref, (stat_ref, var_ref) = timed(ref, repeat)
    t_ours, res = timed(ours, repeat)
    m_ref = peak_extra(ref)
    m_ours = peak_extra(ours)
    print(f"\n[fixed locations] n={n:,} d={d} J={j}; data = {data_bytes / 2**30:.3f} GiB")
    print(
        f"  statistic ref {stat_ref:.12g} ours {res.statistic:.12g} "
        f"rel.diff {abs(res.statistic - stat_ref) / abs(stat_ref):.1e}"
    )
    print(
        f"  variance  ref {var_ref:.12g} ours {res.variance:.12g} "
        f"rel.diff {abs(res.variance - var_ref) / abs(var_ref):.1e}"
    )
    print(
        f"  time      ref {t_ref:.3f} s  ours {t_ours:.3f} s  ratio ref/ours {t_ref / t_ours:.2f}"
    )
    print(
        f"  peak above data  ref {m_ref / 2**20:.1f} MiB ({100 * m_ref / data_bytes:.1f} % of "
        f"data)  ours {m_ours / 2**20:.1f} MiB ({100 * m_ours / data_bytes:.2f} % of data)"
    )
    stat_diff = abs(res.statistic - stat_ref) / abs(stat_ref)
    var_diff = abs(res.variance - var_ref) / abs(var_ref)
    share = 100 / data_bytes
    return {
        "columns": [
            f"fixed locations, n = {n:,}, d = {d}, J = {j} (data {data_bytes / 2**30:.2f} GiB)",
            "reference",
            "ours",
            "ratio ref/ours",
        ],
        "rows": [
            ["time", f"{t_ref:.2f} s", f"{t_ours:.2f} s", f"{t_ref / t_ours:.1f}"],
            [
                "peak above data",
                f"{m_ref / 2**20:.0f} MiB ({m_ref * share:.0f} % of data)",
                f"{m_ours / 2**20:.1f} MiB ({m_ours * share:.2f} % of data)",
                None,
            ],
            [
                "agreement of statistic / variance",
                None,
                None,
                f"{stat_diff:.0e} / {var_diff:.0e} relative",
            ],
        ],
    }


def optimisation(n, d, j, train_fraction, repeat):
    rng = np.random.default_rng(1)
    z = rng.standard_normal((n, d))
    x = rng.standard_normal((n, d))
    x[:, 0] += 1.0
    y = rng.standard_normal((n, d)) * 1.05
    n_tr = int(train_fraction * n)
    xt, yt, zt = x[:n_tr], y[:n_tr], z[:n_tr]
    opts = resolve_options("ume", None)
    # the same start and bounds for both (kmod's recipe)
    g = np.random.default_rng(2)
    v0 = np.vstack([xt, yt, zt])[g.choice(3 * n_tr, size=j, replace=False)]
    sigma0 = 0.5 * (pooled_meddistance((xt, zt), g) + pooled_meddistance((yt, zt), g))
    s2b = default_sigma2_bounds(pooled_meddistance((xt, yt, zt), g), 1e-2)
    coord = location_bounds((xt, yt, zt), opts.locs_bounds_frac)
    import torch  # noqa: F401  (import time is not charged to the reference)

    t_ref, (crit_ref, it_ref) = timed(
        lambda: ref_optimize(xt, yt, zt, v0, sigma0, s2b, coord, opts), repeat
    )
    lo, hi = math.sqrt(s2b[0]), math.sqrt(s2b[1])

    def ours():
        return optimize_ume(
            xt,
            yt,
            zt,
            locations=v0,
            bandwidth=sigma0,
            seed=0,
            optimizer=OptimizerOptions(bandwidth_bounds=(lo, hi)),
        )

    # optimize_ume keeps array locations fixed, so time the free fit through the same driver
    from modelcompare.relative._optimize import maximise_criterion
    from modelcompare.relative._ume import ume_criterion_and_grad

    def ours_free():
        return maximise_criterion(
            ume_criterion_and_grad(xt, yt, zt, opts.reg), sigma0, v0, s2b, coord, opts
        )

    t_ours, out = timed(ours_free, repeat)
    crit_ours, it_ours = out[2], out[3]
    t_full, res = timed(lambda: rel_ume(x, y, z, n_locations=j, seed=0), 1)
    print(f"\n[optimisation] J={j} d={d}; optimiser on {n_tr:,} training rows of n={n:,}")
    print(
        f"  criterion ref {crit_ref:.6g} ({it_ref} it)  ours {crit_ours:.6g} ({it_ours} it)  "
        f"ours/ref {crit_ours / crit_ref:.3f}"
    )
    print(
        f"  time      ref {t_ref:.3f} s  ours {t_ours:.3f} s  ratio ref/ours {t_ref / t_ours:.2f}"
    )
    print(
        f"  full rel_ume (optimised) on n={n:,} (fit + test on the rest): {t_full:.3f} s, "
        f"train criterion {res.train_criterion:.4g}"
    )
    del ours
    crit = f"{crit_ref:.6g}", f"{crit_ours:.6g}"
    return {
        "columns": [
            f"optimisation, J = {j}, d = {d}, L-BFGS-B with kmod's options, same start and bounds",
            "reference (autodiff)",
            "ours (analytic gradient)",
            "ratio",
        ],
        "rows": [
            [
                f"on {train_fraction:.0%} of n = {n:,} ({n_tr:,} rows)",
                f"{t_ref:.2f} s",
                f"{t_ours:.2f} s",
                f"{t_ref / t_ours:.1f}× faster",
            ],
            ["criterion reached", *crit, f"ours/ref = {crit_ours / crit_ref:.3f}"],
            [
                (
                    f"whole `rel_ume(x, y, z, n_locations={j})` on n = {n:,} (fit on "
                    f"{train_fraction:.0%}, test on the rest)"
                ),
                None,
                f"{t_full:.2f} s",
                None,
            ],
        ],
    }


def _save(args: argparse.Namespace, slug: str, table: dict) -> None:
    _harness.rerun(args, slug, table["rows"], script=__file__, columns=table["columns"])


def main():
    ap = _harness.parser(__doc__)
    ap.add_argument("--n", type=int, default=1_000_000, help="rows for the fixed-location run")
    ap.add_argument("--n-opt", type=int, default=100_000, help="rows for the optimisation run")
    ap.add_argument(
        "--opt-train-fraction",
        type=float,
        default=0.2,
        help="share of --n-opt rows the optimiser sees (1.0 = all)",
    )
    ap.add_argument("--skip-fixed", action="store_true")
    ap.add_argument("--skip-opt", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.n, args.n_opt, args.repeats = 20_000, 5_000, 1
    print(
        f"threads: OMP={os.environ['OMP_NUM_THREADS']} "
        f"OPENBLAS={os.environ['OPENBLAS_NUM_THREADS']}; load avg {os.getloadavg()}"
    )
    if not args.skip_fixed:
        table = fixed_locations(args.n, 50, 10, args.repeats)
        _save(args, "relative-01-rel-ume-speed-and-memory-fixed", table)
    if not args.skip_opt:
        table = optimisation(args.n_opt, 50, 5, args.opt_train_fraction, args.repeats)
        _save(args, "relative-02-rel-ume-speed-and-memory-optimising", table)


if __name__ == "__main__":
    main()
