"""The Jansen–Rit study of Linhart, Gramfort & Rodrigues (2022), rerun with modelcompare.

Trains an sbi masked autoregressive flow (NPE) on simulations of the stochastic JRNMM
(``examples/case_studies/jansen_rit.py``: HNPE's prior and 33 log-PSD summary features), then
computes with the library what the paper's Figures 1 and 2 need, and saves the small derived
arrays to ``examples/data/jansen_rit.npz``, from which ``examples/plot_jansen_rit.py`` redraws
the figures without training:

- a calibration set from the prior: θ, x (summaries), the flow's PIT values and SBC ranks
  (Figure 1: global PP-plots and histograms of each PIT covariate, beside SBC);
- observations x₀ along the gain g₀ ∈ [−20, 20] (21 points) with (C₀, μ₀, σ₀) =
  (135, 220, 2000) fixed, and posterior draws at g₀ ∈ {−20, 0, 20} (Figure 2).

The paper trained a 10-layer MAF on 50,000 simulations and calibrated on 10,000. The defaults
here fit a two-core machine without a GPU in about ten minutes of one core (see
``BENCHMARKS.md``); pass the paper's sizes to run it in full.

Run from the repository root::

    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/jansen_rit_study.py \
        [--n-train 20000] [--n-transforms 10] [--n-cal 5000] [--max-epochs 150] [--seed 0]
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
import time
from pathlib import Path

import _harness

_harness.one_thread()

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "case_studies"))

import jansen_rit as jr

import modelcompare as mc

G_GRID = np.linspace(-20.0, 20.0, 21)
G_PAIRS = (-20.0, 0.0, 20.0)
SLUG = "posterior-14-case-study-the-jansen-rit-neural"


def train(theta: np.ndarray, x: np.ndarray, n_transforms: int, seed: int, max_epochs: int):
    """sbi's NPE with a MAF of ``n_transforms`` layers (50 hidden units) and HNPE's box prior."""
    import torch
    from sbi.inference import NPE
    from sbi.neural_nets import posterior_nn
    from sbi.utils import BoxUniform
    from sbi.utils.tracking import TensorBoardTracker
    from torch.utils.tensorboard import SummaryWriter

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    prior = BoxUniform(
        torch.as_tensor(jr.PRIOR_LOW, dtype=torch.float32),
        torch.as_tensor(jr.PRIOR_HIGH, dtype=torch.float32),
    )
    builder = posterior_nn(model="maf", hidden_features=50, num_transforms=n_transforms)
    with tempfile.TemporaryDirectory() as logs:
        tracker = TensorBoardTracker(SummaryWriter(logs))  # sbi's logs, not in the working folder
        npe = NPE(prior=prior, density_estimator=builder, show_progress_bars=False, tracker=tracker)
        npe.append_simulations(
            torch.as_tensor(theta, dtype=torch.float32), torch.as_tensor(x, dtype=torch.float32)
        )
        with contextlib.redirect_stdout(None):
            estimator = npe.train(max_num_epochs=max_epochs, show_train_summary=False)
        epochs = len(npe.summary["training_loss"])
    return npe.build_posterior(estimator), epochs


def main() -> None:
    parser = _harness.parser(__doc__)
    parser.add_argument("--n-train", type=int, default=20_000)
    parser.add_argument("--n-transforms", type=int, default=10)
    parser.add_argument("--n-cal", type=int, default=5_000)
    parser.add_argument("--n-draws", type=int, default=100, help="posterior draws for SBC")
    parser.add_argument("--max-epochs", type=int, default=150)
    parser.add_argument(
        "--arrays",
        type=Path,
        default=None,
        help="the derived arrays (default examples/data/jansen_rit.npz; benchmarks/out/ if --quick)",
    )
    args = parser.parse_args()
    if args.quick:
        args.n_train, args.n_transforms, args.n_cal, args.max_epochs = 500, 2, 200, 3
    if args.arrays is None:
        folder = _harness.SCRATCH if args.quick else ROOT / "examples" / "data"
        args.arrays = folder / "jansen_rit.npz"
    rng = np.random.default_rng(args.seed)
    times = {}

    t = time.perf_counter()
    theta_train = jr.sample_prior(args.n_train, seed=rng)
    x_train = jr.simulate_summaries(theta_train, seed=rng)
    theta_cal = jr.sample_prior(args.n_cal, seed=rng)
    x_cal = jr.simulate_summaries(theta_cal, seed=rng)
    theta_eval = np.tile(jr.STANDARD, (len(G_GRID), 1))
    theta_eval[:, 3] = G_GRID
    x_eval = jr.simulate_summaries(theta_eval, seed=rng)
    times["simulate_s"] = time.perf_counter() - t
    print(f"simulated {args.n_train} + {args.n_cal} + {len(G_GRID)} in {times['simulate_s']:.0f} s")

    t = time.perf_counter()
    posterior, epochs = train(theta_train, x_train, args.n_transforms, args.seed, args.max_epochs)
    times["train_s"] = time.perf_counter() - t
    print(f"trained {args.n_transforms} transforms, {epochs} epochs, in {times['train_s']:.0f} s")

    t = time.perf_counter()
    flow = mc.as_flow(posterior)  # the MAF's exact latent and its draws
    pit_values = mc.pit(flow, theta_cal, x_cal)
    ranks = mc.sbc_ranks(flow, theta_cal, x_cal, n_posterior_samples=args.n_draws, seed=rng)
    pair_rows = [int(np.argmin(np.abs(G_GRID - g))) for g in G_PAIRS]
    draws = np.stack([flow.sample(x_eval[i : i + 1], 2_000, seed=rng)[0] for i in pair_rows])
    times["diagnose_s"] = time.perf_counter() - t
    print(f"PIT values, SBC ranks and draws in {times['diagnose_s']:.0f} s")

    args.arrays.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.arrays,
        theta_cal=theta_cal.astype(np.float32),
        x_cal=x_cal.astype(np.float32),
        pit_values=pit_values.astype(np.float64),
        sbc_ranks=ranks.astype(np.int16),
        n_posterior_samples=args.n_draws,
        g_grid=G_GRID,
        theta_eval=theta_eval,
        x_eval=x_eval,
        pair_g=np.array(G_PAIRS),
        pair_draws=draws.astype(np.float32),
        settings=np.array(
            [args.n_train, args.n_transforms, epochs, args.n_cal, args.seed], dtype=np.int64
        ),
        times_s=np.array([times["simulate_s"], times["train_s"], times["diagnose_s"]]),
    )
    print(f"wrote {args.arrays} ({args.arrays.stat().st_size / 1e6:.2f} MB)")
    total = sum(times.values())
    rows = [
        [
            "simulate (vectorised Strang splitting, h = 1/1024 s, 10 s a series)",
            (
                f"{args.n_train:,} training (50,000) + {args.n_cal:,} calibration (10,000) + "
                f"{len(G_GRID)} along g₀"
            ),
            f"{times['simulate_s']:.0f} s",
        ],
        [
            "train the MAF",
            f"{args.n_transforms} transforms, 50 hidden units, {epochs} epochs"
            + (" (the cap)" if epochs >= args.max_epochs else ""),
            f"{times['train_s']:.0f} s",
        ],
        [
            f"PIT values, SBC ranks ({args.n_draws} draws each), draws at three g₀",
            f"N = {args.n_cal:,}",
            f"{times['diagnose_s']:.0f} s",
        ],
        ["whole study", None, f"{total // 60:.0f} min {total % 60:.0f} s"],
    ]
    _harness.rerun(args, SLUG, rows, script=__file__)


if __name__ == "__main__":
    main()
