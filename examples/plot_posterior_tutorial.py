"""
Tutorial: validate an sbi posterior at an observation, act on the findings
==========================================================================

A first pass through the workflow of :func:`~modelcompare.validate_posterior` on a neural
posterior estimator (NPE, sbi) that is trained in seconds:

1. train a small masked autoregressive flow on a few simulations;
2. validate it at the observation ``x_obs`` on held-out calibration pairs
   (θ_n, x_n) ~ p(θ) p(x | θ);
3. read ``report.findings``: what is wrong, on which parameter, and the next step;
4. act on it (here: more simulations and more training) and validate again, until the report
   passes.

The model is linear-Gaussian, so its exact posterior is known, but the report never uses it:
every check reads only the estimator and the calibration pairs. What each kind of finding looks
like, and what to do about it, is in the user guide's "Reading a failing report".
"""

# %%
import contextlib
import tempfile
import textwrap
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import torch
from sbi.inference import NPE
from sbi.neural_nets import posterior_nn

import modelcompare as mc

torch.set_num_threads(1)  # small networks: one thread is fastest, and the build stays quiet

# θ ~ N(0, I₂), x = θ + ε with ε ~ N(0, 0.5 I₂)
model = mc.ConditionalGaussianModel(noise_cov=0.5 * np.eye(2))
prior = torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))


def train_npe(n_simulations: int, epochs: int, seed: int):
    """NPE with a small masked autoregressive flow, ``epochs`` passes over fresh simulations."""
    theta, x = model.simulate(n_simulations, seed=seed)
    torch.manual_seed(seed)
    builder = posterior_nn(model="maf", hidden_features=16, num_transforms=2)
    inference = NPE(prior=prior, density_estimator=builder, show_progress_bars=False)
    inference.append_simulations(
        torch.as_tensor(theta, dtype=torch.float32), torch.as_tensor(x, dtype=torch.float32)
    )
    # sbi writes TensorBoard logs into the working folder: train in a temporary one
    with tempfile.TemporaryDirectory() as logs, contextlib.chdir(logs), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Maximum number of epochs", category=UserWarning)
        estimator = inference.train(
            max_num_epochs=epochs,
            stop_after_epochs=epochs,
            training_batch_size=100,
            learning_rate=5e-3,
        )
    return inference.build_posterior(estimator)


# %%
# A first estimator, on a small budget
# ------------------------------------
# 200 simulations and 5 epochs: a few seconds, and an estimator that has not learnt much.
start = time.perf_counter()
first = train_npe(200, epochs=5, seed=1)
print(f"trained in {time.perf_counter() - start:.1f} s")

# %%
# Validate it at the observation
# ------------------------------
# The calibration pairs are fresh simulations, never seen in training. With ``x_obs`` the local
# checks (local coverage, local independence, L-C2ST-NF) run at the observation, and the
# ``misspecification`` check asks whether the simulator produces data like it at all.
theta_cal, x_cal = model.simulate(500, seed=2)
x_obs = np.array([[0.8, -0.5]])
report = mc.validate_posterior(first, theta_cal, x_cal, x_obs=x_obs, seed=0)
print(textwrap.fill(report.summary(), 78))

# %%
# The table holds one row per check, with its p-value adjusted by Holm's correction across the
# checks; ``report.failures()`` lists the rejecting ones.
print(report.checks[["name", "pvalue", "pvalue_adjusted"]].to_string(index=False))
print("failures:", report.failures(0.05))

# %%
# What is wrong: the findings
# ---------------------------
# Each row names a kind of finding, the parameter and the direction, with the evidence; a
# finding is listed only where the check behind it rejects in the table.
findings = report.findings
print(findings[["check", "kind", "parameter", "direction"]].to_string(index=False))
for row in findings.itertuples():
    print(textwrap.fill(f"{row.kind} {row.parameter}: {row.where}; {row.evidence}", 78))
for kind in dict.fromkeys(findings["kind"]):
    print(textwrap.fill(f"next step ({kind}): {mc.posterior.NEXT_STEPS[kind]}", 78))

# %%
# The SBC ranks behind the marginal findings. A calibrated posterior gives flat rank histograms
# and an ECDF difference inside its band; here the ranks of θ₁ and θ₂ pile up in the middle (too
# wide), and those of θ₁ lean to the low end (its posterior mass sits above the truth).


def plot_ranks(report, title):
    """Rank histograms and ECDFs, titled with the table's p-value (Holm across checks)."""
    fig, axes = plt.subplots(1, 2, figsize=(8, 3), layout="constrained")
    mc.plot_sbc(report.results["sbc"], ax=axes[0], kind="hist", labels=["θ₁", "θ₂"])
    mc.plot_sbc(report.results["sbc"], ax=axes[1], kind="ecdf", labels=["θ₁", "θ₂"])
    p = report.pvalues_adjusted["sbc"]
    axes[0].set_title(f"rank histograms (SBC, adjusted p = {p:.2g})", fontsize=10)
    axes[1].set_title("rank ECDF minus uniform", fontsize=10)
    fig.suptitle(title)


plot_ranks(report, "first estimator: SBC ranks")

# %%
# Act on the findings
# -------------------
# The next step of a too-wide or shifted posterior is more simulations and more training. Ten
# times the simulations and four times the epochs, still seconds:
start = time.perf_counter()
second = train_npe(2000, epochs=20, seed=5)
print(f"trained in {time.perf_counter() - start:.1f} s")
report2 = mc.validate_posterior(second, theta_cal, x_cal, x_obs=x_obs, seed=0)
print(textwrap.fill(report2.summary(), 78))
print(report2.checks[["name", "pvalue", "pvalue_adjusted"]].to_string(index=False))

# %%
plot_ranks(report2, "second estimator: SBC ranks")

# %%
# The report passes: no check rejects, so there is no finding. That is absence of evidence at
# this number of calibration pairs, not proof; more pairs give more power. ``report.to_html``
# writes the whole report, with every check's figure, on one page.
assert report2.failures(0.05) == []
print("findings:", len(report2.findings))
