"""Time ``modelcompare.lc2st_nf`` against sbi's ``LC2ST_NF`` at equal settings; a size study.

Run from the repository root::

    PYTHONPATH=src python benchmarks/lc2st_speed.py [--ns 2000 10000] [--widths 4 13]
        [--n-resamples 100] [--n-eval 10000] [--seed 0] [--repeats 3]
    PYTHONPATH=src python benchmarks/lc2st_speed.py --size-study 200 [--study-n 500]
        [--study-width 4] [--power-n 1000] [--power-reps 10] [--with-sbi]

Speed: for each N and input width (4: θ and x in R²; 13: θ in R⁵, x in R⁸) one linear-Gaussian
model with an exact posterior supplies N calibration pairs and the exact affine flow. Both
implementations get:

- the same latent z = T⁻¹(θ; x) (sbi through ``flow_inverse_transform``, which calls the flow's
  ``to_latent``);
- the same inputs: ``lc2st_nf`` standardises x, so sbi runs with ``z_score=True``;
- the same number B of null classifiers and ``n_eval`` base draws at one x₀;
- the same classifier: ``MLPClassifier(hidden_layer_sizes=(64, 64), max_iter=500,
  early_stopping=True, n_iter_no_change=20)`` (sbi's ``classifier_kwargs``; ``lc2st_nf``'s
  ``classifier="mlp"`` runs that recipe on the batched MLP engine);
- one thread each: BLAS through the environment and torch through ``torch.set_num_threads(1)``;
  ``lc2st_nf`` with its default ``n_jobs=None`` (one kernel thread).

An untimed warm-up call of each side first absorbs one-off costs (imports, the kernel's build or
load). Then the two sides run one after the other, ``--repeats`` times, interleaved; the fastest
run of each side counts, which damps the noise of a shared machine. The sbi time covers building
``LC2ST_NF`` (the inverse transform), ``train_on_observed_data``, ``train_under_null_hypothesis``
and ``p_value``; the ``lc2st_nf`` time covers the whole call. The script prints both wall times,
the ratio, the mean epochs of each side's classifiers (so that equal work is visible) and the load
average.

Size study (``--size-study R``): R replicates of ``lc2st_nf`` on an exact flow (N = ``--study-n``,
19 null classifiers, so p ≤ 0.05 iff the observed statistic beats all of them; n_eval = 500): with
``--study-width 4`` that of ``ConditionalGaussianModel`` (θ and x in R², x₀ = (0, 0)), with 13 that
of the speed runs' linear-Gaussian model (x₀ = 0). It prints the rejection rate at α = 0.05, its
exact (Clopper-Pearson) two-sided 95 % interval and the one-sided binomial p-value of
"size > 0.05". Then (width 4 only) on three biased flows (dispersion, shift, local shift) at two x₀, the
verdicts of ``classifier="mlp"`` (float32), of ``classifier="sklearn"`` (scikit-learn's
``MLPClassifier`` on the float64 features) and of that classifier on float32 features (the
arithmetic sbi's ``LC2ST_NF`` runs), all three at the same data and seeds; with ``--with-sbi``
also those of sbi's ``LC2ST_NF`` (19 null classifiers, its own random draws, so it can disagree
where the evidence is borderline).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import _harness

for _var in _harness.THREAD_VARIABLES:  # one thread, whatever the caller set
    os.environ[_var] = "1"

import numpy as np
from sklearn.neural_network import MLPClassifier

CLASSIFIER_KWARGS = {
    "hidden_layer_sizes": (64, 64),
    "max_iter": 500,
    "early_stopping": True,
    "n_iter_no_change": 20,
}
WIDTHS = {4: (2, 2), 13: (5, 8)}  # input width of the classifier -> (dim θ, dim x)
ALPHA = 0.05
SPEED = "posterior-08-l-c2st-nf-lc2st-nf-against"
SIZE = "posterior-09-l-c2st-nf-size"
VERDICTS = "posterior-10-l-c2st-nf-verdicts-on-biased"
MODELS = {
    4: "`ConditionalGaussianModel`, x₀ = (0, 0)",
    13: "the speed runs' linear-Gaussian model, x₀ = 0",
}
FLOW_LABELS = {
    "dispersion x1.3": "dispersion (Cholesky factor × 1.3)",
    "shift 0.3": "shift (mean + (0.3, 0))",
    "local shift (x1 > 1)": "local shift (mean + (1, 0)·1{x₁ > 1})",
}


def linear_gaussian(m: int, d: int, seed: int = 0):
    """θ ~ N(0, I_m), x = A θ + ε, ε ~ N(0, 0.5 I_d); returns a simulator and the exact flow."""
    from modelcompare import AffineGaussianFlow

    rng = np.random.default_rng(seed)
    a = rng.standard_normal((d, m)) / np.sqrt(m)
    noise = 0.5
    post_cov = np.linalg.inv(np.eye(m) + a.T @ a / noise)
    gain = post_cov @ a.T / noise  # posterior mean = gain @ x
    flow = AffineGaussianFlow(gain, np.linalg.cholesky(post_cov))

    def simulate(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        r = np.random.default_rng(seed)
        theta = r.standard_normal((n, m))
        x = theta @ a.T + np.sqrt(noise) * r.standard_normal((n, d))
        return theta, x

    return simulate, flow


def run_ours(flow, theta, x, x0, n_resamples: int, n_eval: int, seed: int, **kw):
    """``lc2st_nf`` with the default classifier; returns (seconds, p-values, mean epochs)."""
    from modelcompare import lc2st_nf
    from modelcompare.posterior._local import _lc2st

    epochs = []
    real = _lc2st.lc2st_statistics

    def spy(*args, **kwargs):  # records the epochs of the classifiers
        fits = real(*args, **kwargs)
        epochs.append(fits.epochs)
        return fits

    _lc2st.lc2st_statistics = spy
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # too few resamples in the warm-up
            t0 = time.perf_counter()
            res = lc2st_nf(
                flow, theta, x, x0, n_eval=n_eval, n_resamples=n_resamples, seed=seed, **kw
            )
            elapsed = time.perf_counter() - t0
    finally:
        _lc2st.lc2st_statistics = real
    mean_epochs = float(np.mean(epochs[0])) if epochs else float("nan")
    return elapsed, res.pvalues, mean_epochs


def run_sbi(flow, theta, x, x0, n_resamples: int, n_eval: int, seed: int):
    """sbi's ``LC2ST_NF`` on the flow's latent; returns (seconds, p-values at x0, mean epochs).

    sbi's p-value is #{T_b > T} / B and it rejects when p < α; with B = 19 that is "T beats all
    null statistics", the same rule as (1 + #{T_b ≥ T}) / (1 + B) ≤ α.
    """
    import torch
    from sbi.diagnostics.lc2st import LC2ST_NF

    torch.manual_seed(seed)
    m = theta.shape[1]
    # sbi wants one posterior draw per x_n (its own stream, not the one that simulated θ); its
    # latent is a base draw, which is what sbi's class 0 should be
    rng = np.random.default_rng([seed, 7])
    posterior = flow.forward(rng.standard_normal(theta.shape), x)

    def inverse(t: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return torch.as_tensor(flow.to_latent(t.double().numpy(), c.double().numpy())).float()

    base = torch.distributions.MultivariateNormal(torch.zeros(m), torch.eye(m))
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lc2st = LC2ST_NF(
            prior_samples=torch.as_tensor(theta, dtype=torch.float32),
            xs=torch.as_tensor(x, dtype=torch.float32),
            posterior_samples=torch.as_tensor(posterior, dtype=torch.float32),
            flow_inverse_transform=inverse,
            flow_base_dist=base,
            num_eval=n_eval,
            num_trials_null=n_resamples,
            classifier_kwargs=dict(CLASSIFIER_KWARGS),
            z_score=True,
            seed=seed,
        )
        lc2st.train_on_observed_data(seed=seed, verbosity=0)
        lc2st.train_under_null_hypothesis(verbosity=0)
        pvalues = np.array(
            [lc2st.p_value(x_o=torch.as_tensor(row, dtype=torch.float32)) for row in x0]
        )
    elapsed = time.perf_counter() - t0
    clfs = [*lc2st.trained_clfs, *(c for fold in lc2st.trained_clfs_null.values() for c in fold)]
    return elapsed, pvalues, float(np.mean([c.n_iter_ for c in clfs]))


def speed(args: argparse.Namespace) -> None:
    import torch

    torch.set_num_threads(1)
    print(f"load average at start: {_load()} on {os.cpu_count()} CPUs")
    print(
        f"B = {args.n_resamples} null classifiers, n_eval = {args.n_eval}, one x0, "
        "MLP (64, 64), early stopping (10 % validation, 20 epochs), single-threaded, "
        f"fastest of {args.repeats}"
    )
    print(
        f"{'N':>6} {'width':>5} {'ours s':>8} {'sbi s':>8} {'ratio':>6} "
        f"{'epochs ours':>11} {'epochs sbi':>10} {'load':>5}"
    )
    # warm-up: imports, the kernel's build or load, scikit-learn's first fit
    simulate, flow = linear_gaussian(2, 2, seed=args.seed)
    theta, x = simulate(200, seed=args.seed)
    run_ours(flow, theta, x, x[:1], 2, 100, args.seed)
    run_sbi(flow, theta, x, x[:1], 2, 100, args.seed)
    rows = []
    for n in args.ns:
        for width in args.widths:
            m, d = WIDTHS[width]
            simulate, flow = linear_gaussian(m, d, seed=args.seed)
            theta, x = simulate(n, seed=args.seed + 1)
            x0 = simulate(1, seed=args.seed + 2)[1]
            ours_t, sbi_t = [], []
            for _ in range(args.repeats):  # interleaved; the fastest of each counts
                ours, p_ours, ep_ours = run_ours(
                    flow, theta, x, x0, args.n_resamples, args.n_eval, args.seed
                )
                sbi, p_sbi, ep_sbi = run_sbi(
                    flow, theta, x, x0, args.n_resamples, args.n_eval, args.seed
                )
                ours_t.append(ours)
                sbi_t.append(sbi)
            ours, sbi = min(ours_t), min(sbi_t)
            print(
                f"{n:>6} {width:>5} {ours:>8.2f} {sbi:>8.1f} {sbi / ours:>5.1f}x "
                f"{ep_ours:>11.1f} {ep_sbi:>10.1f} {_load():>5}"
                f"   (p: ours {p_ours[0]:.3f}, sbi {p_sbi[0]:.3f}; "
                f"all ours {_fmt(ours_t)}, sbi {_fmt(sbi_t)})",
                flush=True,
            )
            rows.append(
                [
                    1,
                    f"{n:,}",
                    width,
                    args.n_resamples,
                    f"{ours:.2f} s",
                    f"{sbi:.1f} s",
                    f"**{sbi / ours:.1f}×**",
                    f"{ep_ours:.1f} / {ep_sbi:.1f}",
                    f"{(sbi / ep_sbi) / (ours / ep_ours):.1f}×",
                    _load(),
                ]
            )
    print(f"load average at end: {_load()}")
    _harness.rerun(args, SPEED, rows, script=__file__)


def size_study(args: argparse.Namespace) -> None:
    from scipy.stats import binomtest

    from modelcompare import ConditionalGaussianModel, lc2st_nf

    model = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
    if args.study_width == 4:
        simulate, exact = model.simulate, model.exact_flow()
    else:
        simulate, exact = linear_gaussian(*WIDTHS[args.study_width], seed=args.seed)
    reps, n = args.size_study, args.study_n
    x0 = np.zeros((1, WIDTHS[args.study_width][1]))
    kw = {"n_eval": 500, "n_resamples": 19}
    print(f"load average at start: {_load()} on {os.cpu_count()} CPUs")
    t0 = time.perf_counter()
    rejected = 0
    for r in range(reps):
        theta, x = simulate(n, seed=10_000 + r)
        res = lc2st_nf(exact, theta, x, x0, seed=r, **kw)
        rejected += bool(res.decision(ALPHA))
    ci = binomtest(rejected, reps).proportion_ci(0.95)
    greater = binomtest(rejected, reps, ALPHA, alternative="greater").pvalue
    two_sided = binomtest(rejected, reps, ALPHA).pvalue
    print(
        f"size: {rejected}/{reps} = {rejected / reps:.3f} rejections at alpha {ALPHA} "
        f"(exact 95 % CI {ci.low:.3f}-{ci.high:.3f}; binomial p, size > {ALPHA}: {greater:.3f}; "
        f"two-sided: {two_sided:.3f}), width {args.study_width}, N = {n}, B = 19, "
        f"{time.perf_counter() - t0:.0f} s, load {_load()}",
        flush=True,
    )
    row = [
        MODELS[args.study_width],
        args.study_width,
        f"{n:,}",
        reps,
        f"{rejected} ({rejected / reps:.3f})",
        f"{ci.low:.3f}–{ci.high:.3f}",
        f"{greater:.2f}",
        f"{two_sided:.2f}",
        f"{time.perf_counter() - t0:.0f} s",
        _load(),
    ]
    stored = _harness.previous(SIZE)  # the other width's row stays
    rows = [r for r in (stored["rows"] if stored else []) if r[1] != args.study_width]
    _harness.rerun(args, SIZE, sorted([*rows, row], key=lambda r: r[1]), script=__file__)
    if args.study_width != 4:
        return
    flows = {
        "dispersion x1.3": model.exact_flow(scale_factor=1.3),
        "shift 0.3": model.exact_flow(offset=np.array([0.3, 0.0])),
        "local shift (x1 > 1)": model.exact_flow(
            offset=lambda c: np.column_stack([1.0 * (c[:, 0] > 1), 0 * c[:, 0]])
        ),
    }
    x0 = np.array([[0.0, 0.0], [2.0, 2.0]])
    print(
        f"biased flows, N = {args.power_n}, B = 19, x0 = (0, 0) and (2, 2): rejections over "
        f"{args.power_reps} data sets"
    )
    refs = {"sklearn": "sklearn", "sklearn float32": Float32MLP(**CLASSIFIER_KWARGS)}
    if args.with_sbi:
        refs["sbi"] = None
    rejections = {name: {ref: np.zeros(2, int) for ref in ("mlp", *refs)} for name in flows}
    agree = dict.fromkeys(refs, 0)
    cases = 0
    for name, flow in flows.items():
        for r in range(args.power_reps):
            theta, x = model.simulate(args.power_n, seed=20_000 + r)
            ours = lc2st_nf(flow, theta, x, x0, seed=r, **kw).pvalues <= ALPHA
            rejections[name]["mlp"] += ours
            cases += ours.size
            for ref, classifier in refs.items():
                if classifier is None:  # sbi: its own draws; it rejects when p < alpha
                    rejected = run_sbi(flow, theta, x, x0, 19, kw["n_eval"], r)[1] < ALPHA
                else:  # the same data, null draws and seeds as classifier="mlp"
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        res = lc2st_nf(flow, theta, x, x0, seed=r, classifier=classifier, **kw)
                    rejected = res.pvalues <= ALPHA
                rejections[name][ref] += rejected
                agree[ref] += int(np.sum(rejected == ours))
        counts = "  ".join(f"{ref} {c.tolist()}" for ref, c in rejections[name].items())
        print(f"  {name:<22} {counts}", flush=True)
    for ref, n_same in agree.items():
        print(f"same verdict as {ref}: {n_same}/{cases}")
    print(f"load average at end: {_load()}")
    order = ["mlp", "sklearn", "sklearn float32", "sbi"]
    rows = [
        [
            FLOW_LABELS[name],
            *(f"{c[0]} | {c[1]}" if (c := found.get(ref)) is not None else None for ref in order),
        ]
        for name, found in rejections.items()
    ]
    rows.append([f"same verdict as `mlp`, of {cases}", None, *(agree.get(r) for r in order[1:])])
    _harness.rerun(args, VERDICTS, rows, script=__file__)


class Float32MLP(MLPClassifier):
    """scikit-learn's ``MLPClassifier`` on float32 features, as sbi's ``LC2ST_NF`` feeds it."""

    def fit(self, X, y):
        return super().fit(np.asarray(X, dtype=np.float32), y)

    def predict_proba(self, X):
        return super().predict_proba(np.asarray(X, dtype=np.float32))


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def _fmt(times: list[float]) -> str:
    return "/".join(f"{t:.1f}" for t in times)


def main() -> None:
    parser = _harness.parser(__doc__)
    parser.add_argument("--ns", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--widths", type=int, nargs="+", default=[4, 13], choices=[4, 13])
    parser.add_argument("--n-resamples", type=int, default=100)
    parser.add_argument("--n-eval", type=int, default=10_000)
    parser.add_argument("--size-study", type=int, default=0, metavar="R")
    parser.add_argument("--study-n", type=int, default=500)
    parser.add_argument("--study-width", type=int, default=4, choices=[4, 13])
    parser.add_argument("--power-n", type=int, default=1000)
    parser.add_argument("--power-reps", type=int, default=10)
    parser.add_argument("--with-sbi", action="store_true", help="also sbi's verdicts")
    args = parser.parse_args()
    if args.quick:
        args.ns, args.widths, args.n_resamples, args.n_eval, args.repeats = [500], [4], 5, 500, 1
        args.size_study = min(args.size_study, 5)
        args.study_n, args.power_n, args.power_reps = 300, 300, 1
    if args.size_study:
        size_study(args)
    else:
        speed(args)


if __name__ == "__main__":
    main()
