"""The analysis of the sbibm study: ground truth, each check's verdicts, rejection rates.

The study (``benchmarks/sbibm_study.py``) trains sbi's NPE on tasks of sbibm (Lueckmann et al.
2021) that ship reference posterior samples, and asks which of the posterior report's checks
reject which estimators. The ground truth of an estimator's quality is C2ST (Lopez-Paz & Oquab
2017) of its draws against the task's reference draws: at each observation x_o (the local
ground truth), and averaged over x (the global one). This module holds the part of the study
that needs neither sbi nor sbibm, so that it runs on the small committed fixture:

- :func:`ground_truth_c2st`: the C2ST accuracy of an estimator's draws against reference draws;
- :func:`report_verdicts`: from a :class:`~modelcompare.PosteriorValidationResult`, each check's verdict
  at ``alpha`` (after the report's Holm correction across checks), and, for the local checks,
  the verdict at each observation;
- :func:`verdict_records`: one row per (estimator, check[, observation]) with its ground truth;
- :func:`rejection_table`: for each check, how often it rejects the estimators whose C2ST is
  clearly above chance (> 0.6) and those near chance (< 0.55), with Wilson intervals;
- :func:`binned_rates`: the rejection rate of chosen checks in bins of C2ST;
- :func:`markdown_table`: the rejection table as Markdown rows.

This file belongs to the case study, not to the ``modelcompare`` package.

References
----------
Lueckmann, J.-M., Boelts, J., Greenberg, D. S., Gonçalves, P. J. & Macke, J. H. (2021).
Benchmarking simulation-based inference. AISTATS. arXiv:2101.04653.

Lopez-Paz, D. & Oquab, M. (2017). Revisiting classifier two-sample tests. ICLR.
arXiv:1610.06545.

Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference.
J. Am. Stat. Assoc. 22, 209–212.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from scipy import stats

__all__ = [
    "BAD",
    "GLOBAL_CHECKS",
    "GOOD",
    "LOCAL_CHECKS",
    "binned_rates",
    "ground_truth_c2st",
    "markdown_table",
    "point_pvalues",
    "rejection_table",
    "report_verdicts",
    "verdict_records",
    "wilson_interval",
]

#: Checks with a verdict at each evaluation point: compared with C2ST at the same x_o.
LOCAL_CHECKS = ("local_coverage", "local_independence", "lc2st_nf")
#: Checks of the posterior averaged over x: compared with C2ST averaged over x.
GLOBAL_CHECKS = (
    "sbc",
    "sbc_log_gamma",
    "tarp",
    "global_coverage",
    "pit_independence",
    "expected_coverage",
)
#: Whether the observations are typical of the simulator: a family of its own (all the
#: observations here come from the simulator, so a rejection is a false alarm).
SIMULATOR_CHECKS = ("misspecification",)
#: C2ST above BAD: clearly distinguishable from the reference; below GOOD: near chance.
BAD, GOOD = 0.6, 0.55


def ground_truth_c2st(
    reference: Any,
    draws: Any,
    *,
    n: int | None = 2000,
    classifier: str = "mlp",
    seed: int = 0,
) -> float:
    """C2ST accuracy of ``draws`` against ``reference`` (sbibm's recipe with ``"mlp"``).

    Both sets are subsampled (seeded, without replacement) to ``n`` rows when larger; the
    reference sets the z-scoring. 0.5 means indistinguishable, 1 fully separated.
    """
    import modelcompare as mc

    rng = np.random.default_rng(seed)
    reference, draws = np.asarray(reference, dtype=float), np.asarray(draws, dtype=float)
    if n is not None:
        if reference.shape[0] > n:
            reference = reference[rng.choice(reference.shape[0], n, replace=False)]
        if draws.shape[0] > n:
            draws = draws[rng.choice(draws.shape[0], n, replace=False)]
    return float(mc.c2st(reference, draws, classifier=classifier, seed=seed).statistic)


def point_pvalues(report: Any, name: str) -> np.ndarray:
    """The per-point p-values of the local check ``name``, on the scale of ``failures()``.

    The check's p-values adjusted across its points, times the factor by which Holm's step
    across the report's checks raised the check's own p-value, floored at the check's adjusted
    p-value: a point rejects at ``alpha`` only if the check is among ``failures(alpha)``.
    """
    outcome = next(o for o in report.outcomes if o.name == name)
    within = np.asarray(outcome.result.pvalues_adjusted, dtype=float)
    adjusted = report.pvalues_adjusted.get(name, 1.0)
    factor = adjusted / outcome.pvalue if outcome.pvalue > 0 else 1.0
    return np.clip(np.maximum(within * factor, adjusted), 0.0, 1.0)


def report_verdicts(report: Any, n_obs: int, alpha: float = 0.05) -> dict[str, Any]:
    """Each check's verdict at ``alpha``, and the local checks' verdicts at the observations.

    ``n_obs`` is the number of rows of ``x_obs`` the report ran with: the local checks evaluate
    at ``x_eval`` then ``x_obs``, so the observations are the last ``n_obs`` points. JSON-safe.
    """
    failures = set(report.failures(alpha))
    adjusted = report.pvalues_adjusted
    checks, local = {}, {}
    for o in report.outcomes:
        ran = o.result is not None
        checks[o.name] = {
            "pvalue": None if not ran else _finite(o.pvalue),
            "pvalue_adjusted": _finite(adjusted[o.name]) if o.name in adjusted else None,
            "rejects": bool(o.name in failures),
            "skipped": o.skipped,
            "runtime_s": float(o.runtime_s),
            "score": bool(o.score),
        }
        if ran and o.name in LOCAL_CHECKS:
            p = point_pvalues(report, o.name)[-n_obs:]
            local[o.name] = {
                "pvalues": [float(v) for v in p],
                "rejects": [bool(v <= alpha) for v in p],
            }
    posterior = [n for n in failures if n not in SIMULATOR_CHECKS]
    return {
        "alpha": alpha,
        "checks": checks,
        "local": local,
        "failures": sorted(failures),
        "any_posterior_failure": bool(posterior),
        "runtime_s": float(sum(o.runtime_s for o in report.outcomes)),
    }


def _finite(v: float) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


def verdict_records(estimators: Iterable[Mapping[str, Any]]) -> Any:
    """One row per (estimator, check, scope[, observation]): the verdict and its ground truth.

    Each estimator is a mapping with ``name``, ``task``, ``budget``, ``seed``, ``c2st_obs``
    (C2ST at each observation), ``c2st_global`` (C2ST averaged over x) and ``verdicts`` (from
    :func:`report_verdicts`). Local checks give rows of scope ``"local"``, one per observation,
    against the C2ST there; global checks, and the report's whole verdict (``"report"``: any
    posterior check rejects), give rows of scope ``"global"`` against ``c2st_global``; each local
    check's overall verdict gives a ``"global"`` row too. A skipped check, or a score (not a
    test), gives no row.
    """
    import pandas as pd

    rows = []
    for e in estimators:
        base = {k: e[k] for k in ("name", "task", "budget", "seed")}
        v = e["verdicts"]
        for name, c in v["checks"].items():
            if c["skipped"] is not None or c.get("score"):
                continue
            rows.append(
                base
                | {
                    "check": name,
                    "scope": "global",
                    "obs": -1,
                    "c2st": e["c2st_global"],
                    "rejects": c["rejects"],
                }
            )
        rows.append(
            base
            | {
                "check": "report",
                "scope": "global",
                "obs": -1,
                "c2st": e["c2st_global"],
                "rejects": v["any_posterior_failure"],
            }
        )
        for name, loc in v["local"].items():
            for j, (acc, rej) in enumerate(zip(e["c2st_obs"], loc["rejects"])):
                rows.append(
                    base | {"check": name, "scope": "local", "obs": j, "c2st": acc, "rejects": rej}
                )
        if v["local"]:  # any local check at this observation
            per_obs = np.array([loc["rejects"] for loc in v["local"].values()]).any(axis=0)
            for j, (acc, rej) in enumerate(zip(e["c2st_obs"], per_obs)):
                rows.append(
                    base
                    | {
                        "check": "any local",
                        "scope": "local",
                        "obs": j,
                        "c2st": acc,
                        "rejects": bool(rej),
                    }
                )
    return pd.DataFrame(rows)


def wilson_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for a binomial proportion k/n; (nan, nan) when n = 0."""
    if n == 0:
        return math.nan, math.nan
    z = float(stats.norm.ppf(0.5 + level / 2))
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rejection_table(
    records: Any,
    *,
    bad: float = BAD,
    good: float = GOOD,
    order: Sequence[str] | None = None,
) -> Any:
    """For each (scope, check): rejection rates among units with C2ST > ``bad`` and < ``good``.

    A unit is an (estimator, observation) pair for the local scope and an estimator for the
    global one; units with ``good`` ≤ C2ST ≤ ``bad``, or no ground truth, count in neither.
    Columns: scope, check, k_bad, n_bad, rate_bad, bad_lo, bad_hi, and the same for good
    (Wilson 95 % intervals).
    """
    import pandas as pd

    rows = []
    df = records[records["c2st"].notna()]
    keys = list(dict.fromkeys(zip(df["scope"], df["check"])))
    if order is not None:
        rank = {c: i for i, c in enumerate(order)}
        keys.sort(key=lambda sc: (sc[0] != "local", rank.get(sc[1], len(rank))))
    for scope, check in keys:
        sub = df[(df["scope"] == scope) & (df["check"] == check)]
        row: dict[str, Any] = {"scope": scope, "check": check}
        for label, mask in (("bad", sub["c2st"] > bad), ("good", sub["c2st"] < good)):
            n = int(mask.sum())
            k = int(sub.loc[mask, "rejects"].sum())
            lo, hi = wilson_interval(k, n)
            row |= {
                f"k_{label}": k,
                f"n_{label}": n,
                f"rate_{label}": k / n if n else math.nan,
                f"{label}_lo": lo,
                f"{label}_hi": hi,
            }
        rows.append(row)
    return pd.DataFrame(rows)


def binned_rates(records: Any, checks: Sequence[str], edges: Sequence[float]) -> Any:
    """Rejection rate of each (scope, check) in C2ST bins [edges[i], edges[i+1]); Wilson 95 %.

    Columns: scope, check, bin (a label ``"lo–hi"``), k, n, rate, lo, hi. Bins with no unit are
    kept (n = 0) so that every check has the same rows.
    """
    import pandas as pd

    df = records[records["c2st"].notna()]
    rows = []
    for scope, check in dict.fromkeys(zip(df["scope"], df["check"])):
        if check not in checks:
            continue
        sub = df[(df["scope"] == scope) & (df["check"] == check)]
        for a, b in itertools.pairwise(edges):
            mask = (sub["c2st"] >= a) & (sub["c2st"] < b)
            n, k = int(mask.sum()), int(sub.loc[mask, "rejects"].sum())
            lo, hi = wilson_interval(k, n)
            rate = k / n if n else math.nan
            rows.append(
                {"scope": scope, "check": check, "bin": f"{a:g}–{b:g}", "k": k, "n": n}
                | {"rate": rate, "lo": lo, "hi": hi}
            )
    return pd.DataFrame(rows)


def markdown_table(table: Any, *, bad: float = BAD, good: float = GOOD) -> str:
    """The rejection table as Markdown: rate [95 % Wilson interval] (k/n) per group."""

    def cell(k: int, n: int, lo: float, hi: float) -> str:
        if n == 0:
            return "— (0 units)"
        return f"{k / n:.2f} [{lo:.2f}, {hi:.2f}] ({k}/{n})"

    lines = [
        f"| scope | check | rejects, C2ST > {bad} | rejects, C2ST < {good} |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {r.scope} | {r.check} | {cell(r.k_bad, r.n_bad, r.bad_lo, r.bad_hi)} | "
        f"{cell(r.k_good, r.n_good, r.good_lo, r.good_hi)} |"
        for r in table.itertuples()
    ]
    return "\n".join(lines)
