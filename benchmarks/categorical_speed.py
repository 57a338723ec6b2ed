"""Speed of one granularity evaluation, side by side with a straightforward reference formulation.

The reference follows the authors' approach: a ``Counter`` of samples, bins as Python lists/sets of
elements built per k, and the batch test done by expanding the counts into a label list, shuffling
it and counting collisions per batch. Both run the same method (B*_k for k = s..2s, paper mode) on
the same samples, in the same process; the ratio is what we report.

1. |Ω| = 6^6 (index layout, S = 3), m = 10^6.
2. |Ω| = 20^20 ('sort' layout, S = 2), m = 10^6: rows only (no integer index exists), the reference
   keys its dicts by row tuples. Peak memory of ours is measured with tracemalloc.

Usage::

    OMP_NUM_THREADS=1 python benchmarks/categorical_speed.py [--m 1000000] [--repeats 3]
"""

from __future__ import annotations

import math
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from typing import Any

import _harness

_harness.one_thread()

import numpy as np

from modelcompare import granularity, stair_distribution

SLUG = "categorical-01-speed"


# ---------------------------------------------------------------------- reference formulation
def _ref_test(
    p_bins: list[float], counts: list[int], eps: float, alpha: float, rng: np.random.Generator
) -> bool:
    n_batches = math.floor(math.log2(1 / alpha))
    labels = [j for j, c in enumerate(counts) for _ in range(c)]
    rng.shuffle(labels)
    size = len(labels) // n_batches
    rejects = 0
    p2 = sum(v * v for v in p_bins)
    for b in range(n_batches):
        cnt = Counter(labels[b * size : (b + 1) * size])
        coll = sum(c * (c - 1) for c in cnt.values()) / (size * (size - 1))
        cross = sum(p_bins[j] * c for j, c in cnt.items()) / size
        rejects += coll - 2 * cross + p2 > 0.75 * eps**2
    return rejects > n_batches / 2


def reference_granularity(
    stair_elems: list[set[Any]] | None,
    stair_of: Callable[[Any], int],
    heights: list[float],
    masses: list[float],
    samples: list[Any],
    eps: float = 0.1,
    alpha: float = 0.05,
    seed: int = 0,
) -> list[bool]:
    """Dict/Counter formulation of B*_k + the paper's batch test (k = s..2s)."""
    rng = np.random.default_rng(seed)
    m = len(samples)
    cnt = Counter(samples)
    n_st = len(heights)
    # N_j: sampled elements with q̂ >= p (finite); P_j: the rest of the stair (implicit)
    neg: list[set[Any]] = [set() for _ in range(n_st)]
    c_stair = [0] * n_st
    for x, c in cnt.items():
        j = stair_of(x)
        if j < 0:
            continue
        c_stair[j] += c
        if c / m - heights[j] >= 0:
            neg[j].add(x)
    gains = []
    for j in range(n_st):
        p_n = len(neg[j]) * heights[j]
        c_n = sum(cnt[x] for x in neg[j])
        big_p = (masses[j] - p_n) - (c_stair[j] - c_n) / m
        big_n = c_n / m - p_n
        gains.append(2 * min(big_p, big_n))
    order = sorted(range(n_st), key=lambda j: -gains[j])
    s = n_st + 1
    decisions = []
    for k in range(s, 2 * s + 1):
        split = set(order[: min(k - s, n_st)])
        p_bins: list[float] = []
        counts: list[int] = []
        for j in range(n_st):
            c_n = sum(cnt[x] for x in neg[j])
            p_n = len(neg[j]) * heights[j]
            if j in split:
                p_bins += [masses[j] - p_n, p_n]
                counts += [c_stair[j] - c_n, c_n]
            else:
                p_bins.append(masses[j])
                counts.append(c_stair[j])
        if k == 2 * s:  # one extra cut: split the first stair's N half in two (by element order)
            j = order[0]
            half = sorted(neg[j])[: len(neg[j]) // 2]
            c_half = sum(cnt[x] for x in half)
            i = 2 * sorted(split).index(j) + 1 if j in split else 0
            p_bins[i] -= len(half) * heights[j]
            counts[i] -= c_half
            p_bins.append(len(half) * heights[j])
            counts.append(c_half)
        p_bins.append(0.0)
        counts.append(m - sum(counts))
        decisions.append(_ref_test(p_bins, counts, eps, alpha, rng))
    return decisions


# ---------------------------------------------------------------------- timing helpers
def _best(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    best, out = math.inf, None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _sort_stair_py(c: int) -> Callable[[tuple[int, ...]], int]:
    full = set(range(c))

    def stair(x: tuple[int, ...]) -> int:
        if set(x) != full:
            return -1
        return 0 if x[0] < x[-1] else 1

    return stair


def main() -> None:
    ap = _harness.parser(__doc__)
    ap.add_argument("--m", type=int, default=1_000_000)
    args = ap.parse_args()
    m = 50_000 if args.quick else args.m
    shown = f"10^{math.log10(m):g}" if math.log10(m).is_integer() else f"{m:,}"

    # 1. 6^6, index layout
    p = stair_distribution(6, 6, 3, 2.0)
    x = p.sample(m, seed=0)
    idx = p.index_of(x).tolist()
    labels = p.stair_labels
    t_ref, dec_ref = _best(
        lambda: reference_granularity(
            None, lambda i: int(labels[i]), list(p.stair_probs), list(p.stair_masses), idx
        ),
        1,
    )
    t_ours, res = _best(lambda: granularity(p, x, seed=0), args.repeats)
    t_samp, _ = _best(lambda: p.sample(m, seed=1), 1)
    print(
        f"6^6, m={m}: reference {t_ref:.3f} s, ours {t_ours:.3f} s, ratio {t_ref / t_ours:.1f}x"
        f" (sampling m rows: {t_samp:.3f} s)"
    )
    print(f"  decisions reference {dec_ref}, ours {res.decisions.tolist()}")

    # 2. 20^20, sort layout
    big = stair_distribution(20, 20, 2, 3.0, layout="sort")
    t_samp, y = _best(lambda: big.sample(m, seed=0), 1)
    tuples = list(map(tuple, y.tolist()))
    t_ref2, dec_ref2 = _best(
        lambda: reference_granularity(
            None, _sort_stair_py(20), list(big.stair_probs), list(big.stair_masses), tuples
        ),
        1,
    )
    t_ours2, res2 = _best(lambda: granularity(big, y, seed=0), args.repeats)
    t_split, _ = _best(
        lambda: granularity(big, y, seed=0, split=True, mode="cantelli"), args.repeats
    )
    tracemalloc.start()
    granularity(big, y, seed=0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"20^20, m={m}: reference {t_ref2:.3f} s, ours {t_ours2:.3f} s, ratio "
        f"{t_ref2 / t_ours2:.1f}x; ours split=True {t_split:.3f} s; sampling {t_samp:.3f} s"
    )
    print(
        f"  peak traced memory of ours {peak / 2**20:.0f} MiB for an input of "
        f"{y.nbytes / 2**20:.0f} MiB ({peak / m:.0f} bytes per sample)"
    )
    print(f"  decisions reference {dec_ref2}, ours {res2.decisions.tolist()}")
    rows = [
        [
            f"|Ω| = 6^6 (index layout, S = 3), m = {shown}",
            f"{t_ref:.2f} s",
            f"{t_ours:.3f} s",
            f"{t_ref / t_ours:.0f}×",
        ],
        [
            f"|Ω| = 20^20 ('sort' layout, S = 2), m = {shown}",
            f"{t_ref2:.1f} s",
            f"{t_ours2:.2f} s",
            f"{t_ref2 / t_ours2:.1f}×",
        ],
        ['same, `split=True, mode="cantelli"`', None, f"{t_split:.2f} s", None],
    ]
    _harness.rerun(args, SLUG, rows, script=__file__)


if __name__ == "__main__":
    main()
