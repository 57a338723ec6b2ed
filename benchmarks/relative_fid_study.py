"""Size and power of ``rel_fid`` (the block t-test), and its time at d = 2048 (α = 0.05).

Cases (R = N(0, I_d) throughout; x, y, z independent with n rows each):

- ``same-spread``: P = Q = N(0, 1.2² I) — equal fit, P ≠ R: the size;
- ``same-exact``: P = Q = R: the size where every FID difference is pure noise;
- ``shift``: P = N(δ e₁, I), Q = R: power against a mean shift (δ set per d, see ``--delta``);
- ``spread``: P = N(0, s² I), Q = R: power against a covariance change.

Each replicate draws fresh data and calls ``rel_fid(x, y, z, seed=rng)`` with the default
``n_blocks=10``; the rejection rate at α = 0.05 is reported with its binomial standard error.
``--time`` instead times ``rel_fid`` and ``rel_kid`` once each on n = 10,000 rows per
sample at d = 2048 (one thread).

Run:  ``python benchmarks/relative_fid_study.py --d 10 --n 1000 --reps 500``
      ``python benchmarks/relative_fid_study.py --d 2048 --n 2000 --reps 20``
      ``python benchmarks/relative_fid_study.py --time``
"""

from __future__ import annotations

import math
import os
import time

import _harness

_harness.one_thread()

import numpy as np

from modelcompare import rel_fid, rel_kid

ALPHA = 0.05


def _draw(case: str, rng: np.random.Generator, n: int, d: int, delta: float, spread: float):
    z = rng.normal(size=(n, d))
    y = rng.normal(size=(n, d))
    if case == "same-exact":
        x = rng.normal(size=(n, d))
    elif case == "same-spread":
        x, y = rng.normal(size=(n, d)) * 1.2, y * 1.2
    elif case == "shift":
        x = rng.normal(size=(n, d))
        x[:, 0] += delta
    elif case == "spread":
        x = rng.normal(size=(n, d)) * spread
    else:
        raise ValueError(case)
    return x, y, z


CASES = ("same-spread", "same-exact", "shift", "spread")


SIZE_POWER = "relative-08-relative-fid-size-and-power-of"
TIMING = "relative-07-relative-fid-and-relative-kid-at"
TIMING_LABELS = {
    "rel_fid (defaults)": '`relative_fid(x, y, z)` (`n_blocks=10`, `method="eigh"`: two '
    "full-sample FIDs, 20 block FIDs of 1000 rows in the Gram form)",
    "rel_kid (defaults)": "`relative_kid(x, y, z)` (six 10,000 × 10,000 cubic-kernel Gram "
    "products, chunked)",
}


def study(
    d: int, n: int, reps: int, delta: float, spread: float, seed: int, cases: list[str]
) -> list[str | int]:
    """The table's row for this d and n: one rejection rate per case ("not run" if left out)."""
    cells = dict.fromkeys(CASES, "not run")
    print(f"d = {d}, n = {n} per sample, n_blocks = 10, {reps} replicates, α = {ALPHA}")
    for case in cases:
        rng = np.random.default_rng(seed)
        start = time.perf_counter()
        hits = 0
        for _ in range(reps):
            x, y, z = _draw(case, rng, n, d, delta, spread)
            hits += rel_fid(x, y, z, seed=rng).decision(ALPHA)
        rate = hits / reps
        se = math.sqrt(rate * (1 - rate) / reps)
        extra = {"shift": f" (δ = {delta})", "spread": f" (s = {spread})"}.get(case, "")
        print(
            f"  {case + extra:<22s} rejection rate {rate:.3f} ± {se:.3f}"
            f"   ({(time.perf_counter() - start) / reps:.2f} s per replicate)"
        )
        cells[case] = f"{rate:.3f} ± {se:.3f}{extra}"
    return [d, n, reps, *(cells[case] for case in CASES)]


def _merged(row: list[str | int]) -> list[list[str | int]]:
    """The stored rows at other (d, n) with this one, by d."""
    stored = _harness.previous(SIZE_POWER)
    rows = [r for r in (stored["rows"] if stored else []) if r[:2] != row[:2]]
    return sorted([*rows, row], key=lambda r: (r[0], r[1]))


def timing(seed: int, n: int = 10_000, d: int = 2048) -> list[list[str]]:
    """The seconds of one call of each, on Inception-like features."""
    rows = []
    rng = np.random.default_rng(seed)
    mix = rng.normal(size=(d, d)) * (np.arange(1, d + 1) ** -0.5)[:, None]
    x = np.abs(rng.normal(size=(n, d)) @ mix)
    y = np.abs(rng.normal(size=(n, d)) @ mix * 1.02)
    z = np.abs(rng.normal(size=(n, d)) @ mix)
    for name, fn in (
        ("rel_fid (defaults)", lambda: rel_fid(x, y, z, seed=0)),
        ("rel_kid (defaults)", lambda: rel_kid(x, y, z)),
    ):
        start = time.perf_counter()
        res = fn()
        print(
            f"  {name:<24s} {time.perf_counter() - start:8.1f} s   p = {res.pvalue:.3g}"
            f"   load {os.getloadavg()[0]:.1f}"
        )
        rows.append([TIMING_LABELS[name], f"{time.perf_counter() - start:.1f}"])
    return rows


def main() -> None:
    parser = _harness.parser(__doc__)
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--delta", type=float, default=0.3)
    parser.add_argument("--spread", type=float, default=1.1)
    parser.add_argument("--time", action="store_true")
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=CASES)
    args = parser.parse_args()
    if args.quick:
        args.n, args.reps = 200, 5
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        if args.time:
            size = {"n": 1000, "d": 256} if args.quick else {}
            _harness.rerun(args, TIMING, timing(args.seed, **size), script=__file__)
        else:
            row = study(args.d, args.n, args.reps, args.delta, args.spread, args.seed, args.cases)
            _harness.rerun(args, SIZE_POWER, _merged(row), script=__file__)


if __name__ == "__main__":
    main()
