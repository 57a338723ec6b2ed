"""Rel-MMD runtime against n: ours (O(n²), tiled) and the authors' formulation (O(n³)).

The reference formulation transcribes kmod's ``SC_MMD`` with freqopttest's ``QuadMMDTest``
variance: full n×n Gram matrices, and the cross-covariance through four n×n matrix products
(``np.sum(np.dot(Kzznd, Kzznd))`` etc.) that are only summed. Both run in the same invocation, one
single-threaded subprocess per (method, n), so that the peak resident memory of each is measured;
the script prints times, their ratio and the agreement of the two results.

Data: the Blobs problem of the paper's runtime figure (2-D, 4-component mixtures; R, Q and P with
the base covariance rotated by 0, π/5 and π/2), Gaussian kernel with the Bounliphone width.

Run:  OMP_NUM_THREADS=1 python benchmarks/relative_mmd_scaling.py [--ref-max 4000] [--ours-max 20000]
Reference times above ``--ref-max`` are extrapolated as t(n) = t(n₀)·(n/n₀)³ from the largest
measured n₀, and marked as such.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import _harness

_harness.one_thread()

import numpy as np

SLUG = "relative-06-rel-mmd-runtime-against-n"


def blobs(n: int, angle: float, rng: np.random.Generator) -> np.ndarray:
    """The paper's Blobs sample: 4 equal-weight components, covariance diag(5, 0.5) rotated."""
    means = 5.0 * np.array([[-1, 1], [1, 1], [-1, -1], [1, -1]], dtype=float)
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    chol = np.linalg.cholesky(rot @ np.diag([5.0, 0.5]) @ rot.T)
    comp = rng.integers(0, 4, size=n)
    return means[comp] + rng.normal(size=(n, 2)) @ chol.T


def data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return blobs(n, np.pi / 2, rng), blobs(n, np.pi / 5, rng), blobs(n, 0.0, rng)


def reference(x: np.ndarray, y: np.ndarray, z: np.ndarray, sigma2: float) -> tuple[float, float]:
    """The authors' formulation (full matrices, matrix products in the covariance)."""

    def gram(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        d2 = (a**2).sum(1)[:, None] - 2 * a @ b.T + (b**2).sum(1)[None, :]
        return np.exp(-d2 / (2.0 * sigma2))

    def h1_mean_var(kx: np.ndarray, ky: np.ndarray, kxy: np.ndarray) -> tuple[float, float]:
        nx, ny = kx.shape[0], ky.shape[0]
        xx = (kx.sum() - np.trace(kx)) / (nx * (nx - 1))
        yy = (ky.sum() - np.trace(ky)) / (ny * (ny - 1))
        xy = (kxy.sum() - np.trace(kxy)) / (nx * (ny - 1))
        mmd2 = xx - 2 * xy + yy
        kxd = kx - np.diag(np.diag(kx))
        kyd = ky - np.diag(np.diag(ky))
        m, n = nx, ny
        kxd_sum, kyd_sum, kxy_sum = kxd.sum(), kyd.sum(), kxy.sum()
        kxy2_sum = (kxy**2).sum()
        kxd0, kyd0 = kxd.sum(1), kyd.sum(1)
        kxy1, kyx1 = kxy.sum(1), kxy.sum(0)
        v = np.zeros(11)
        v[0] = 1.0 / m / (m - 1) / (m - 2) * (kxd0 @ kxd0 - (kxd**2).sum())
        v[1] = -((1.0 / m / (m - 1) * kxd_sum) ** 2)
        v[2] = -2.0 / m / (m - 1) / n * (kxd0 @ kxy1)
        v[3] = 2.0 / (m**2) / (m - 1) / n * kxd_sum * kxy_sum
        v[4] = 1.0 / n / (n - 1) / (n - 2) * (kyd0 @ kyd0 - (kyd**2).sum())
        v[5] = -((1.0 / n / (n - 1) * kyd_sum) ** 2)
        v[6] = -2.0 / n / (n - 1) / m * (kyd0 @ kyx1)
        v[7] = 2.0 / (n**2) / (n - 1) / m * kyd_sum * kxy_sum
        v[8] = 1.0 / n / (n - 1) / m * (kxy1 @ kxy1 - kxy2_sum)
        v[9] = -2.0 * (1.0 / n / m * kxy_sum) ** 2
        v[10] = 1.0 / m / (m - 1) / n * (kyx1 @ kyx1 - kxy2_sum)
        var1 = 4.0 * (m - 2) / m / (m - 1) * v.sum()
        kxyd = kxy - np.diag(np.diag(kxy))
        var2 = 2.0 / m / (m - 1) / n / (n - 1) * ((kxd + kyd - kxyd - kxyd.T) ** 2).sum()
        var = var1 + var2
        return mmd2, (var2 if var < 0 else var)

    def cross_cov() -> float:
        kzz, kzx, kzy = gram(z, z), gram(z, x), gram(z, y)
        kzznd = kzz - np.diag(np.diag(kzz))
        nz, nx, ny = kzz.shape[0], kzx.shape[1], kzy.shape[1]
        u_zz = np.sum(kzznd) / (nz * (nz - 1))
        u_zx = np.sum(kzx) / (nz * nx)
        u_zy = np.sum(kzy) / (nz * ny)
        ct1 = np.sum(np.dot(kzznd, kzznd)) / (nz * (nz - 1) ** 2) - u_zz**2
        ct3 = np.sum(np.dot(kzznd, kzy)) / (nz * (nz - 1) * ny) - u_zz * u_zy
        ct5 = np.sum(np.dot(kzznd, kzx)) / (nz * (nz - 1) * nx) - u_zz * u_zx
        ct7 = np.sum(np.dot(kzx.T, kzy)) / (nx * nz * ny) - u_zx * u_zy
        return 4.0 * (nz - 2) / (nz * (nz - 1)) * (ct1 - ct3 - ct5 + ct7)

    n = z.shape[0]
    mp, vp = h1_mean_var(gram(x, x), gram(z, z), gram(x, z))
    mq, vq = h1_mean_var(gram(y, y), gram(z, z), gram(y, z))
    cov = cross_cov()
    return float(np.sqrt(n) * (mp - mq)), float(n * (vp - 2 * cov + vq))


def one(method: str, n: int) -> dict[str, float]:
    from modelcompare.relative import rel_mmd
    from modelcompare.relative._mmd import _bounliphone_bandwidth

    x, y, z = data(n)
    bw = _bounliphone_bandwidth(x, y, z, seed=0)
    base_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    start = time.perf_counter()
    if method == "ours":
        res = rel_mmd(x, y, z, bandwidth=bw)
        stat, var = res.statistic, res.variance
    else:
        stat, var = reference(x, y, z, bw**2)
    secs = time.perf_counter() - start
    # Extra resident memory of the computation over the process with its data loaded.
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0 - base_mib
    return {
        "n": n,
        "method": method,
        "seconds": secs,
        "peak_mib": peak_mib,
        "statistic": stat,
        "variance": var,
    }


def run(method: str, n: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--one", method, str(n)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = _harness.parser(__doc__)
    parser.add_argument("--one", nargs=2, metavar=("METHOD", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--ref-max", type=int, default=4000)
    parser.add_argument("--ours-max", type=int, default=20000)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]))))
        return

    sizes = [500, 1000, 2000, 4000, 8000, 20000]
    if args.quick:
        sizes, args.ref_max = [500, 1000, 2000], 1000
    rows = []
    ref: dict[int, dict[str, float]] = {}
    print(
        f"{'n':>6} {'ours (s)':>9} {'ours +MiB':>9} {'ref (s)':>12} {'ref +MiB':>8} "
        f"{'ref/ours':>9} {'|Δstat|/|stat|':>15} {'|Δvar|/var':>11}"
    )
    largest = None
    for n in sizes:
        if n > args.ours_max:
            continue
        ours = run("ours", n)
        if n <= args.ref_max:
            r = run("ref", n)
            ref[n] = r
            largest = n
            t_ref, mib, mark = r["seconds"], f"{r['peak_mib']:8.0f}", " "
            dstat = abs(ours["statistic"] - r["statistic"]) / abs(r["statistic"])
            dvar = abs(ours["variance"] - r["variance"]) / abs(r["variance"])
            agree = f"{dstat:15.1e} {dvar:11.1e}"
            cells = [f"{t_ref:.1f}", round(r["peak_mib"])]
            diffs = [f"{dstat:.1e}", f"{dvar:.1e}"]
        else:
            t_ref = ref[largest]["seconds"] * (n / largest) ** 3
            mib, mark = f"{8 * 10 * n * n / 2**20:8.0f}", "*"
            agree = f"{'-':>15} {'-':>11}"
            cells = [f"{t_ref:.1f}*", round(8 * 10 * n * n / 2**20)]
            diffs = ["-", "-"]
        print(
            f"{n:>6} {ours['seconds']:9.2f} {ours['peak_mib']:9.0f} {t_ref:11.1f}{mark} "
            f"{mib} {t_ref / ours['seconds']:9.1f} {agree}",
            flush=True,
        )
        rows.append(
            [
                n,
                f"{ours['seconds']:.2f}",
                round(ours["peak_mib"]),
                *cells,
                f"{t_ref / ours['seconds']:.1f}",
                *diffs,
            ]
        )
    print(
        "* extrapolated: time as t(n0)·(n/n0)³ from the largest measured n0; memory as ten n×n "
        "float64 matrices (the reference holds about that many at once)."
    )
    _harness.rerun(args, SLUG, rows, script=__file__)


if __name__ == "__main__":
    main()
