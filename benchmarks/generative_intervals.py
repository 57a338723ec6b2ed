"""Coverage of the 95 % intervals of fd, fd_infinity, cmmd and prdc, measured by simulation.

Each replicate draws fresh Gaussian samples, computes the score and its interval, and checks
whether the interval holds the target it claims:

- ``fd``, ``cmmd``, ``prdc``: E[score_n], the expectation at the replicate's sample sizes,
  estimated by the mean of the point estimates over all replicates;
- ``fd_infinity``: FD∞, the population Fréchet distance, known in closed form for Gaussians.

Run: ``python benchmarks/generative_intervals.py --replicates 200`` (a few minutes on one core).
Writes ``benchmarks/results/generative_intervals.json``.
"""

from __future__ import annotations

import _harness

_harness.one_thread()

import numpy as np
from scipy import stats

from modelcompare import cmmd, fd, fd_infinity, prdc

LEVEL = 0.95


def _gauss(rng: np.random.Generator, n: int, d: int, shift: float, scale: float) -> np.ndarray:
    return scale * rng.normal(size=(n, d)) + shift


def _row(metric: str, setting: str, target: str, values, lows, highs, ses, truth=None) -> list:
    values, lows, highs, ses = map(np.asarray, (values, lows, highs, ses))
    aim = float(values.mean()) if truth is None else float(truth)
    hits = int(np.sum((lows <= aim) & (aim <= highs)))
    r = values.size
    ci = stats.binomtest(hits, r).proportion_ci(0.95)
    ratio = float(ses.mean() / values.std(ddof=1))
    return [
        metric,
        setting,
        target,
        r,
        round(hits / r, 3),
        f"[{ci.low:.3f}, {ci.high:.3f}]",
        round(ratio, 2),
    ]


def main() -> None:
    parser = _harness.parser(__doc__)
    parser.add_argument("--replicates", type=int, default=200)
    args = parser.parse_args()
    reps = 10 if args.quick else args.replicates
    rng = np.random.default_rng(20240101)
    rows = []

    # FD: E[FD_n], d = 5, n = 300, a mean shift and a spread change
    d, n = 5, 300
    out = [[], [], [], []]
    for _ in range(reps):
        res = fd(_gauss(rng, n, d, 0.3, 1.2), _gauss(rng, n, d, 0.0, 1.0), seed=rng)
        lo, hi = res.confidence_interval(LEVEL)
        for lst, v in zip(out, (res.value, lo, hi, res.std_error)):
            lst.append(v)
    rows.append(_row("fd", "d = 5, n = 300, shift 0.3, scale 1.2", "E[FD_n]", *out))
    print(rows[-1], flush=True)

    # FD∞: the population FD, d = 5, n = 1000, both samples subsampled
    d, n, shift, scale = 5, 1000, 0.3, 1.2
    truth = d * shift**2 + d * (scale - 1.0) ** 2  # ‖μ‖² + tr(Σ₁ + Σ₂ − 2(Σ₁Σ₂)^½), diagonal
    out = [[], [], [], []]
    for _ in range(reps):
        res = fd_infinity(
            _gauss(rng, n, d, shift, scale),
            _gauss(rng, n, d, 0.0, 1.0),
            sizes=np.linspace(200, n, 8).astype(int),
            subsample_reference=True,
            n_resamples=50,
            seed=rng,
        )
        lo, hi = res.confidence_interval(LEVEL)
        for lst, v in zip(out, (res.value, lo, hi, res.std_error)):
            lst.append(v)
    rows.append(_row("fd_infinity", "d = 5, n = 1000, 8 sizes from 200", "FD∞", *out, truth))
    print(rows[-1], flush=True)

    # CMMD: E[CMMD_n], d = 16, n = 300; P ≠ Q, and P = Q (where the first-order term vanishes)
    d, n = 16, 300
    for setting, shift in (("P ≠ Q (shift 0.5)", 0.5), ("P = Q", 0.0)):
        out = [[], [], [], []]
        for _ in range(reps):
            res = cmmd(_gauss(rng, n, d, shift, 1.0) + 1.0, _gauss(rng, n, d, 0.0, 1.0) + 1.0)
            lo, hi = res.confidence_interval(LEVEL)
            for lst, v in zip(out, (res.value, lo, hi, res.std_error)):
                lst.append(v)
        rows.append(_row("cmmd", f"d = 16, n = 300, {setting}", "E[CMMD_n]", *out))
        print(rows[-1], flush=True)

    # PRDC: E[metric_n], d = 5, n = 300, a spread change, 20 half-size subsets
    d, n = 5, 300
    names = ("precision", "recall", "density", "coverage")
    per = {m: [[], [], [], []] for m in names}
    for _ in range(reps):
        res = prdc(_gauss(rng, n, d, 0.0, 1.3), _gauss(rng, n, d, 0.0, 1.0), seed=rng)
        for m in names:
            lo, hi = res.confidence_interval(m, LEVEL)
            for lst, v in zip(per[m], (getattr(res, m), lo, hi, res.std_errors[m])):
                lst.append(v)
    for m in names:
        rows.append(_row(m, "d = 5, n = 300, scale 1.3, 20 subsets", f"E[{m}_n]", *per[m]))
        print(rows[-1], flush=True)

    result = _harness.record(
        "generative_intervals",
        title="Coverage of the 95 % intervals of the generative-model scores",
        part="generative",
        script=__file__,
        columns=[
            "metric",
            "setting",
            "target",
            "replicates",
            "coverage",
            "95 % CI of coverage",
            "mean SE / SD",
        ],
        rows=rows,
        meaning=(
            "The share of replicates whose 95 % interval holds its target (nominal 0.95), with "
            "a 95 % Clopper–Pearson interval for that share, and the mean standard error over "
            "the spread of the point estimates across replicates (1 when the standard error is "
            "right). The targets: E[score_n], the expectation at these sample sizes (estimated "
            "by the mean over replicates), for `fd`, `cmmd` and `prdc`; the population FD for "
            "`fd_infinity`. `fd` and `fd_infinity` use the bootstrap (50 resamples), `cmmd` the "
            "delta method, `prdc` 20 half-size subsets without replacement."
        ),
        notes=(
            "200 replicates each. Where the standard error is above the spread the interval is "
            "conservative: CMMD at P = Q, where the first-order term of the delta method "
            "vanishes, and recall."
        ),
    )
    _harness.save(args, result)


if __name__ == "__main__":
    main()
