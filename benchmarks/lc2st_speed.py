"""Time ``modelcompare.lc2st_nf`` against sbi's ``LC2ST_NF`` at equal settings; a size study.

Run from the repository root::

    PYTHONPATH=src python benchmarks/lc2st_speed.py [--ns 2000 10000] [--widths 4 13]
        [--n-resamples 100] [--n-eval 10000] [--seed 0] [--repeats 1]
    PYTHONPATH=src python benchmarks/lc2st_speed.py --size-study 200 [--study-n 500]

Speed: for each N and input width (4: θ and x in R²; 13: θ in R⁵, x in R⁸) one linear-Gaussian
model with an exact posterior supplies the calibration pairs and the exact affine flow. Both
implementations get the same latent z = T⁻¹(θ; x) (sbi through ``flow_inverse_transform``), the
same number of null classifiers, ``n_eval`` base draws at one x₀, and the same classifier:
``MLPClassifier(hidden_layer_sizes=(64, 64), max_iter=500, early_stopping=True,
n_iter_no_change=20)`` (sbi's ``classifier_kwargs``; ``lc2st_nf``'s ``classifier="mlp"`` runs that
recipe on the batched MLP engine). Both run single-threaded (BLAS and torch pinned to one
thread), one after the other (``--repeats`` times, interleaved; the fastest run of each side
counts, which damps the noise of a shared machine). The sbi time covers ``train_on_observed_data``,
``train_under_null_hypothesis`` and ``p_value``. The script prints both wall times, the ratio and
the mean epochs of our classifiers.

Size study (``--size-study R``): R replicates of ``lc2st_nf`` on the exact flow (19 null
classifiers, so p ≤ 0.05 iff the observed statistic beats all of them), the rejection rate at
α = 0.05 with its exact binomial 95 % interval and two-sided binomial p-value; then, on three
biased flows (dispersion, shift, local shift) at two x₀, the verdicts of ``classifier="mlp"``
and ``classifier="sklearn"`` side by side at the same seeds.
"""

from __future__ import annotations

import argparse
import inspect
import os
import time
import warnings

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np

CLASSIFIER_KWARGS = {
    "hidden_layer_sizes": (64, 64),
    "max_iter": 500,
    "early_stopping": True,
    "n_iter_no_change": 20,
}
WIDTHS = {4: (2, 2), 13: (5, 8)}  # input width of the classifier -> (dim θ, dim x)


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


def _resample_kw(n_resamples: int) -> dict:
    from modelcompare import lc2st_nf

    name = "n_resamples" if "n_resamples" in inspect.signature(lc2st_nf).parameters else "n_null"
    return {name: n_resamples}


def time_ours(flow, theta, x, x0, n_resamples: int, n_eval: int, seed: int):
    from modelcompare import lc2st_nf
    from modelcompare.posterior import _lc2st

    epochs = []
    real = _lc2st.lc2st_statistics

    def spy(*args, **kwargs):  # records the epochs of the classifiers
        fits = real(*args, **kwargs)
        epochs.append(fits.epochs)
        return fits

    _lc2st.lc2st_statistics = spy
    try:
        t0 = time.perf_counter()
        res = lc2st_nf(flow, theta, x, x0, n_eval=n_eval, seed=seed, **_resample_kw(n_resamples))
        elapsed = time.perf_counter() - t0
    finally:
        _lc2st.lc2st_statistics = real
    pvalue = float(np.ravel(getattr(res, "pvalues", res.pvalue))[0])
    return elapsed, pvalue, float(np.mean(epochs[0]))


def time_sbi(flow, theta, x, x0, n_resamples: int, n_eval: int, seed: int):
    import torch
    from sbi.diagnostics.lc2st import LC2ST_NF

    torch.manual_seed(seed)
    m = theta.shape[1]
    # one draw of the flow per x_n (its own stream: not the one that simulated θ)
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
            seed=seed,
        )
        lc2st.train_on_observed_data(seed=seed, verbosity=0)
        lc2st.train_under_null_hypothesis(verbosity=0)
        pvalue = float(lc2st.p_value(x_o=torch.as_tensor(x0[0], dtype=torch.float32)))
    return time.perf_counter() - t0, pvalue


def speed(args: argparse.Namespace) -> None:
    import torch

    torch.set_num_threads(1)
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(
        f"B = {args.n_resamples} null classifiers, n_eval = {args.n_eval}, one x0, "
        "MLP (64, 64), early stopping (10 % validation, 20 epochs), single-threaded"
    )
    print(f"{'N':>6} {'width':>5} {'ours s':>8} {'sbi s':>8} {'ratio':>6} {'epochs':>7}")
    for n in args.ns:
        for width in args.widths:
            m, d = WIDTHS[width]
            simulate, flow = linear_gaussian(m, d, seed=args.seed)
            theta, x = simulate(n, seed=args.seed + 1)
            x0 = simulate(1, seed=args.seed + 2)[1]
            ours_t, sbi_t = [], []
            for _ in range(args.repeats):  # interleaved; the fastest of each counts (shared CPUs)
                ours, p_ours, epochs = time_ours(
                    flow, theta, x, x0, args.n_resamples, args.n_eval, args.seed
                )
                sbi, p_sbi = time_sbi(flow, theta, x, x0, args.n_resamples, args.n_eval, args.seed)
                ours_t.append(ours)
                sbi_t.append(sbi)
            ours, sbi = min(ours_t), min(sbi_t)
            print(
                f"{n:>6} {width:>5} {ours:>8.1f} {sbi:>8.1f} {sbi / ours:>5.1f}x {epochs:>7.1f}"
                f"   (p: ours {p_ours:.3f}, sbi {p_sbi:.3f})",
                flush=True,
            )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


def size_study(args: argparse.Namespace) -> None:
    from scipy.stats import binomtest

    from modelcompare import ConditionalGaussianModel, lc2st_nf

    model = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
    reps, n = args.size_study, args.study_n
    x0 = np.array([[0.0, 0.0]])
    kw = {"n_eval": 500, **_resample_kw(19)}
    t0 = time.perf_counter()
    rejected = 0
    for r in range(reps):
        theta, x = model.simulate(n, seed=10_000 + r)
        res = lc2st_nf(model.exact_flow(), theta, x, x0, seed=r, **kw)
        rejected += res.pvalue <= 0.05
    ci = binomtest(rejected, reps).proportion_ci(0.95)
    print(
        f"size: {rejected}/{reps} = {rejected / reps:.3f} rejections at alpha 0.05 "
        f"(95 % CI {ci.low:.3f}-{ci.high:.3f}; binomial p = {binomtest(rejected, reps, 0.05).pvalue:.2f}) "
        f"N = {n}, B = 19, {time.perf_counter() - t0:.0f} s"
    )
    flows = {
        "dispersion x1.3": model.exact_flow(scale_factor=1.3),
        "shift 0.3": model.exact_flow(offset=np.array([0.3, 0.0])),
        "local shift (x1 > 1)": model.exact_flow(
            offset=lambda c: np.column_stack([1.0 * (c[:, 0] > 1), 0 * c[:, 0]])
        ),
    }
    x0 = np.array([[0.0, 0.0], [2.0, 2.0]])
    print(f"power, N = {args.power_n}, B = 19, x0 = (0, 0) and (2, 2): rejections over seeds")
    for name, flow in flows.items():
        ours_rej = np.zeros(2, dtype=int)
        ref_rej = np.zeros(2, dtype=int)
        agree = 0
        for r in range(args.power_reps):
            theta, x = model.simulate(args.power_n, seed=20_000 + r)
            ours = lc2st_nf(flow, theta, x, x0, seed=r, **kw)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = lc2st_nf(flow, theta, x, x0, seed=r, classifier="sklearn", **kw)
            ours_rej += ours.pvalues <= 0.05
            ref_rej += ref.pvalues <= 0.05
            agree += int(np.sum((ours.pvalues <= 0.05) == (ref.pvalues <= 0.05)))
        print(
            f"  {name:<22} mlp engine {ours_rej.tolist()}  sklearn {ref_rej.tolist()}  "
            f"(of {args.power_reps}; same verdict {agree}/{2 * args.power_reps})",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--widths", type=int, nargs="+", default=[4, 13], choices=[4, 13])
    parser.add_argument("--n-resamples", type=int, default=100)
    parser.add_argument("--n-eval", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=1, help="timings per side (the min counts)")
    parser.add_argument("--size-study", type=int, default=0, metavar="R")
    parser.add_argument("--study-n", type=int, default=500)
    parser.add_argument("--power-n", type=int, default=1000)
    parser.add_argument("--power-reps", type=int, default=5)
    args = parser.parse_args()
    if args.size_study:
        size_study(args)
    else:
        speed(args)


if __name__ == "__main__":
    main()
