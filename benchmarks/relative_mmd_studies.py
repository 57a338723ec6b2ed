"""Size and power studies for Rel-MMD, relative KID and relative FID (α = 0.05).

Problems
--------
- ``boundary``: R = N(0, I₂), P = N(+δe₁, I), Q = N(−δe₁, I) with δ = 1: P ≠ Q, equally close to R
  (H0 holds at its boundary; the rejection rate should be ≈ α).
- ``meanshift``: the paper's mean-shift toy, d = 50, P = N(0.5e₁, I), Q = N(e₁, I), R = N(0, I)
  (H0 true, far from the boundary: rejection ≈ 0).
- ``blobs``: the paper's blobs toy (H1 true), Rel-MMD with the Bounliphone width.
- relative FID at two boundaries: ``fid-shift`` (P = N(+δe₁, I), Q = N(−δe₁, I)) and ``fid-kind``
  (P = N(δe₁, I) against Q = N(0, diag((1+δ)², 1, …)), a mean shift against a covariance change of
  equal population FID δ²; ``fid-kind-swapped`` the same with P and Q swapped), and ``fid-same`` (P = Q = R); relative FID is the block t-test (``n_blocks=10``).

Each row prints rejections / trials, the rate, the binomial check
``binomtest(k, R, α, alternative="greater").pvalue`` (> 0.01 passes) for the H0 rows, and the number
of trials whose result was flagged degenerate (p = 1 by the variance guard).

Run:  OMP_NUM_THREADS=1 python benchmarks/relative_mmd_studies.py [--trials 300]
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable

import _harness

_harness.one_thread()

import numpy as np
from scipy import stats

from modelcompare import DegenerateDataWarning
from modelcompare.relative import rel_fid, rel_kid, rel_mmd

ALPHA = 0.05
SLUG = "relative-09-rel-mmd-relative-kid-and-relative"
Sampler = Callable[[int, np.random.Generator], tuple[np.ndarray, np.ndarray, np.ndarray]]


def blobs(n: int, angle: float, rng: np.random.Generator) -> np.ndarray:
    """The paper's Blobs sample: 4 equal-weight components, covariance diag(5, 0.5) rotated."""
    means = 5.0 * np.array([[-1, 1], [1, 1], [-1, -1], [1, -1]], dtype=float)
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    chol = np.linalg.cholesky(rot @ np.diag([5.0, 0.5]) @ rot.T)
    comp = rng.integers(0, 4, size=n)
    return means[comp] + rng.normal(size=(n, 2)) @ chol.T


def boundary(d: int, delta: float) -> Sampler:
    def sample(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        shift = np.zeros(d)
        shift[0] = delta
        return (
            rng.normal(size=(n, d)) + shift,
            rng.normal(size=(n, d)) - shift,
            rng.normal(size=(n, d)),
        )

    return sample


def mean_shift(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = 50
    x, y, z = rng.normal(size=(n, d)), rng.normal(size=(n, d)), rng.normal(size=(n, d))
    x[:, 0] += 0.5
    y[:, 0] += 1.0
    return x, y, z


def blobs_problem(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return blobs(n, np.pi / 2, rng), blobs(n, np.pi / 5, rng), blobs(n, 0.0, rng)


def fid_kind(d: int, delta: float) -> Sampler:
    def sample(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        x = rng.normal(size=(n, d))
        x[:, 0] += delta
        y = rng.normal(size=(n, d))
        y[:, 0] *= 1.0 + delta
        return x, y, rng.normal(size=(n, d))

    return sample


def fid_kind_swapped(d: int, delta: float) -> Sampler:
    """``fid_kind`` with the models swapped: P the covariance change, Q the mean shift."""
    inner = fid_kind(d, delta)

    def sample(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        x, y, z = inner(n, rng)
        return y, x, z

    return sample


def fid_same(d: int) -> Sampler:
    def sample(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return rng.normal(size=(n, d)), rng.normal(size=(n, d)), rng.normal(size=(n, d))

    return sample


def study(
    name: str,
    test: str,
    sampler: Sampler,
    n: int,
    trials: int,
    seed: int,
    h0: bool,
    n_blocks: int = 10,
) -> list[str | int]:
    """One row of the table: the rejections of ``test`` on ``sampler`` over ``trials``."""
    rng = np.random.default_rng(seed)
    rejections = degenerate = 0
    start = time.perf_counter()
    for _ in range(trials):
        x, y, z = sampler(n, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)  # counted below instead
            if test == "rel-mmd":
                res = rel_mmd(x, y, z, seed=rng)
            elif test == "rel-kid":
                res = rel_kid(x, y, z)
            else:
                res = rel_fid(x, y, z, n_blocks=n_blocks, seed=rng)
        rejections += res.decision(ALPHA)
        degenerate += res.degenerate
    secs = time.perf_counter() - start
    check = ""
    if h0:
        bt = stats.binomtest(int(rejections), trials, ALPHA, alternative="greater").pvalue
        check = f"binom p = {bt:.3f} ({'pass' if bt > 0.01 else 'FAIL'})"
    print(
        f"| {name} | {test} | {n} | {rejections}/{trials} | {rejections / trials:.3f} | "
        f"{'H0' if h0 else 'H1'} | {check} | {degenerate} | {secs:.0f} s |",
        flush=True,
    )
    return [
        name,
        test,
        n,
        f"{rejections}/{trials}",
        f"{rejections / trials:.3f}",
        "H0" if h0 else "H1",
        check,
        int(degenerate),
        f"{secs:.0f} s",
    ]


def main() -> None:
    parser = _harness.parser(__doc__)
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--only", default=None, help="run only problems containing this string")
    args = parser.parse_args()
    t = 5 if args.quick else args.trials
    # (problem, test, sampler, n, H0 true, trials); the H1 (power) rows use a third of the trials.
    rows = [
        ("boundary δ=1, d=2", "rel-mmd", boundary(2, 1.0), 200, True),
        ("boundary δ=1, d=2", "rel-mmd", boundary(2, 1.0), 500, True),
        ("boundary δ=1, d=2", "rel-kid", boundary(2, 1.0), 200, True),
        ("boundary δ=1, d=2", "rel-kid", boundary(2, 1.0), 500, True),
        ("meanshift d=50", "rel-mmd", mean_shift, 400, True),
        ("meanshift d=50", "rel-mmd", mean_shift, 800, True),
        ("blobs", "rel-mmd", blobs_problem, 317, False),
        ("blobs", "rel-mmd", blobs_problem, 1149, False),
        ("blobs", "rel-mmd", blobs_problem, 2188, False),
        ("fid-shift δ=0.5, d=5", "rel-fid", boundary(5, 0.5), 200, True),
        ("fid-shift δ=0.5, d=5", "rel-fid", boundary(5, 0.5), 1000, True),
        ("fid-kind δ=0.5, d=5", "rel-fid", fid_kind(5, 0.5), 200, True),
        ("fid-kind δ=0.5, d=5", "rel-fid", fid_kind(5, 0.5), 1000, True),
        ("fid-same P=Q=R, d=5", "rel-fid", fid_same(5), 200, True),
        ("fid-shift δ=0.5, d=20", "rel-fid", boundary(20, 0.5), 200, True),
        ("fid-kind δ=0.5, d=20", "rel-fid", fid_kind(20, 0.5), 200, True),
        ("fid-kind δ=0.5, d=20", "rel-fid", fid_kind(20, 0.5), 1000, True),
        ("fid-kind-swapped δ=0.5, d=5", "rel-fid", fid_kind_swapped(5, 0.5), 200, True),
        ("fid-kind-swapped δ=0.5, d=5", "rel-fid", fid_kind_swapped(5, 0.5), 1000, True),
        ("fid-kind-swapped δ=0.5, d=20", "rel-fid", fid_kind_swapped(20, 0.5), 200, True),
        ("fid-kind-swapped δ=0.5, d=20", "rel-fid", fid_kind_swapped(20, 0.5), 1000, True),
    ]
    print(f"α = {ALPHA}, trials = {t}")
    print("| problem | test | n | rejections | rate | truth | binomial check | degenerate | time |")
    print("|---|---|---|---|---|---|---|---|---|")
    found = {}
    for i, (name, test, sampler, n, h0) in enumerate(rows):
        if args.only and args.only not in name:
            continue
        trials = t if h0 or args.quick else max(100, t // 3)
        found[name, test, n] = study(name, test, sampler, n, trials, seed=1000 + i, h0=h0)
    # with --only, the stored rows of the other problems stay
    stored = _harness.previous(SLUG)
    kept = {tuple(r[:3]): r for r in (stored["rows"] if stored and args.only else [])}
    order = [(name, test, n) for name, test, _, n, _ in rows]
    table = [found.get(key) or kept[key] for key in order if key in found or key in kept]
    _harness.rerun(args, SLUG, table, script=__file__)


if __name__ == "__main__":
    main()
