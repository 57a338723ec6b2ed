"""Relative model comparison on real 8×8 digits: the designs of Jitkrittum et al. (2018).

Table 1 of Jitkrittum et al. (2018, *Informative Features for Model Comparison*, NeurIPS,
arXiv:1810.11630) compares a GAN of smiling faces (S) and one of non-smiling faces (N) against
real smiling (RS), non-smiling (RN) and mixed (RM) faces. Here scikit-learn's 1,797 handwritten
digits play the faces: group A (digits 0–4) is "smiling", group B (digits 5–9) "non-smiling".
``benchmarks/digits_study.py`` trains the two generators and the feature extractor and stores
the feature pools; this module holds the analysis that turns those pools into rejection rates,
so that the study, its fixture test and the gallery run the same code.

Figure 3 of the paper (P = airplanes + cats, Q = R = automobiles + cats on CIFAR-10) becomes
P = group A′ + shared group C, Q = R = group B′ + C, with the Rel-UME power criterion evaluated
at held-out real digits.

This file belongs to the case study, not to the ``modelcompare`` package.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import modelcompare

__all__ = [
    "ALPHA",
    "J_VALUES",
    "POOLS",
    "PROBLEMS",
    "SEED_FINDINGS",
    "TESTS",
    "draw_problem",
    "figure3_summary",
    "random_locations",
    "rejection_table",
    "run_study",
]

#: The level of every test, as in the paper's Table 1.
ALPHA = 0.01
#: Numbers of fixed random Rel-UME locations (half from each group), as in the paper.
J_VALUES = (10, 20, 40)
#: The feature pools: generated S and N, held-out real RS and RN (RM mixes the real two).
POOLS = ("S", "N", "RS", "RN")
#: Table 1's five problems: (P, Q, R, which hypothesis holds).
PROBLEMS = (
    ("S", "S", "RS", "H0: P = Q"),
    ("RS", "RS", "RS", "H0: P = Q = R"),
    ("S", "N", "RS", "H0: P better"),
    ("S", "N", "RN", "H1: Q better"),
    ("S", "N", "RM", "H0: each fits one mode"),
)
#: The paper's findings on CelebA, as its text states them (its table's numbers are not quoted).
SEED_FINDINGS = {
    1: "every test near α; FID rejects about half the time",
    2: "every test near α; FID rejects about half the time",
    3: "(not discussed)",
    4: "Q is detected; Rel-UME's power grows with J",
    5: "no test rejects",
}


def _rel_ume(j: int) -> Callable[..., bool]:
    def test(x, y, z, locations, rng):
        # fixed random locations (the paper's protocol), no optimisation: all the data test
        res = modelcompare.rel_ume(x, y, z, locations=locations[j], optimizer=None, seed=rng)
        return res.pvalue <= ALPHA

    return test


def _rel_mmd(x, y, z, locations, rng) -> bool:
    return modelcompare.rel_mmd(x, y, z, seed=rng).pvalue <= ALPHA


def _rel_kid(x, y, z, locations, rng) -> bool:
    return modelcompare.rel_kid(x, y, z, seed=rng).pvalue <= ALPHA


def _rel_fid(x, y, z, locations, rng) -> bool:
    # four jackknife groups: each leave-a-group-out sample keeps 3n/4 rows, enough for a
    # full-rank covariance of the 8 features down to the smallest n of the study
    return modelcompare.rel_fid(x, y, z, n_blocks=4, seed=rng).pvalue <= ALPHA


def _naive_fid(x, y, z, locations, rng) -> bool:
    """The uncalibrated rule the paper warns about: "reject" when FID(P, R) > FID(Q, R)."""
    return modelcompare.fid(x, z).value > modelcompare.fid(y, z).value


#: Every compared rule, by the name the tables show: the one place that names the tests.
TESTS: dict[str, Callable[..., bool]] = {
    **{f"Rel-UME J={j}": _rel_ume(j) for j in J_VALUES},
    "Rel-MMD": _rel_mmd,
    "Rel-KID": _rel_kid,
    "Rel-FID": _rel_fid,
    "FID(P,R) > FID(Q,R)": _naive_fid,
}


def draw_problem(
    problem: tuple[str, str, str, str],
    pools: dict[str, np.ndarray],
    n: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw P, Q and R for one trial; draws from one pool are disjoint (without replacement).

    ``pools`` maps "S", "N" (generated features), "RS" and "RN" (held-out real features) to
    arrays; "RM" takes n/2 rows of each real pool.
    """
    wanted: dict[str, int] = {}
    for source in problem[:3]:
        for pool, k in (("RS", n // 2), ("RN", n - n // 2)) if source == "RM" else ((source, n),):
            wanted[pool] = wanted.get(pool, 0) + k
    taken = {}
    for pool, k in wanted.items():
        if k > len(pools[pool]):
            msg = f"pool {pool!r} holds {len(pools[pool])} rows; this trial needs {k}"
            raise ValueError(msg)
        taken[pool] = list(rng.permutation(len(pools[pool]))[:k])
    out = []
    for source in problem[:3]:
        parts = (("RS", n // 2), ("RN", n - n // 2)) if source == "RM" else ((source, n),)
        rows = []
        for pool, k in parts:
            idx, taken[pool] = taken[pool][:k], taken[pool][k:]
            rows.append(pools[pool][idx])
        out.append(np.vstack(rows))
    return out[0], out[1], out[2]


def random_locations(
    location_pools: tuple[np.ndarray, np.ndarray], rng: np.random.Generator
) -> dict[int, np.ndarray]:
    """J/2 held-out real points of each group for each J, nested so that J=10 ⊂ J=20 ⊂ J=40."""
    a, b = location_pools
    ia = rng.permutation(len(a))[: max(J_VALUES) // 2]
    ib = rng.permutation(len(b))[: max(J_VALUES) // 2]
    return {j: np.vstack([a[ia[: j // 2]], b[ib[: j // 2]]]) for j in J_VALUES}


def run_study(
    pools: dict[str, np.ndarray],
    location_pools: tuple[np.ndarray, np.ndarray],
    *,
    n: int,
    n_trials: int,
    seed: int = 0,
    tests: tuple[str, ...] | None = None,
    fid_trials: int | None = None,
    problems: tuple[int, ...] | None = None,
) -> dict[str, np.ndarray]:
    """Rejections of every test in every problem: ``{test: bool array (problems, trials)}``.

    Each trial redraws the samples from the pools and the Rel-UME locations from the location
    pools. The naive FID rule runs on the first ``fid_trials`` trials only (all by default);
    the other entries of its rows are NaN, as are the rows of problems (numbered from 1) left
    out of ``problems``.
    """
    names = tuple(TESTS) if tests is None else tests
    fid_trials = n_trials if fid_trials is None else fid_trials
    out = {name: np.full((len(PROBLEMS), n_trials), np.nan) for name in names}
    root = np.random.default_rng(seed)
    for p, problem in enumerate(PROBLEMS):
        rngs = root.spawn(n_trials)  # drawn for every problem: a subset gives the same trials
        if problems is not None and p + 1 not in problems:
            continue
        for t, rng in enumerate(rngs):
            x, y, z = draw_problem(problem, pools, n, rng)
            locations = random_locations(location_pools, rng)
            for name in names:
                if name.startswith("FID(") and t >= fid_trials:
                    continue
                with warnings.catch_warnings():
                    # a non-positive variance estimate gives p = 1 (no rejection): counted so
                    warnings.simplefilter("ignore", modelcompare.DegenerateDataWarning)
                    out[name][p, t] = TESTS[name](x, y, z, locations, rng)
    return out


def rejection_table(rejections: dict[str, np.ndarray]) -> tuple[list[str], list[list[Any]]]:
    """Columns and rows (one per problem) of rejection rates, with the trials each used."""
    columns = ["problem", "P", "Q", "R", "truth", *rejections]
    rows = []
    for p, (pp, q, r, truth) in enumerate(PROBLEMS):
        if all(np.isnan(rej[p]).all() for rej in rejections.values()):
            continue
        row: list[Any] = [p + 1, pp, q, r, truth]
        for rej in rejections.values():
            done = rej[p][~np.isnan(rej[p])]
            row.append(round(float(done.mean()), 3) if done.size else None)
        rows.append(row)
    return columns, rows


def figure3_summary(criterion: np.ndarray, groups: np.ndarray, *, top: int = 15) -> dict[str, Any]:
    """What the Figure 3 design shows: the top locations' groups and each group's criterion.

    ``groups`` labels each candidate "A" (P only), "B" (Q and R) or "C" (shared).
    """
    order = np.argsort(criterion)[::-1][:top]
    summary: dict[str, Any] = {
        "top_groups": [str(g) for g in groups[order]],
        "share_negative": float(np.mean(criterion < 0)),
    }
    for g in ("A", "B", "C"):
        values = criterion[groups == g]
        summary[f"median_{g}"] = float(np.median(values))
        summary[f"top_share_{g}"] = float(np.mean(groups[order] == g))
    return summary
