"""
Case study: the Jansen–Rit neural mass model, as in the local PIT paper
=======================================================================

Linhart, Gramfort & Rodrigues (*Validation Diagnostics for SBI algorithms based on Normalizing
Flows*, 2022) illustrate their diagnostics on the Jansen–Rit neural mass model (JRNMM): θ = (C,
μ, σ, g), where C is the connectivity of a cortical column, μ and σ the mean and spread of its
input, and g the gain of the recording in dB; x is an 8-second signal at 128 Hz, summarised by
its log power spectral density (33 frequencies), as in HNPE (Rodrigues et al. 2021). A masked
autoregressive flow (MAF) from sbi is trained on simulations, and its PIT values are checked on
a calibration set from the prior (Figure 1) and along the gain g₀ ∈ [−20, 20] dB with (C₀, μ₀,
σ₀) = (135, 220, 2000) fixed (Figure 2).

The flow was trained by ``benchmarks/jansen_rit_study.py`` (20,000 simulations and 10 MAF layers
here, where the paper used 50,000; a calibration set of 5,000 where the paper used 10,000). Its
PIT values, SBC ranks, the observations along g₀ and posterior draws at three of them are
committed in ``examples/data/jansen_rit.npz``; every test below runs on them with the library's
own functions.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

import modelcompare as mc

data = np.load("data/jansen_rit.npz")
names = ["C", "μ", "σ", "g"]
pit_values, x_cal = data["pit_values"], data["x_cal"].astype(float)
n_train, n_transforms, epochs, n_cal, _ = data["settings"]
print(f"MAF of {n_transforms} layers, {n_train} simulations, {epochs} epochs; N = {n_cal}")

# %%
# Figure 1: global consistency
# ----------------------------
# The PIT values of each latent coordinate of the flow, pooled over the calibration set: PP-plots
# with the 95 % bands and histograms, beside SBC on the parameters themselves. The paper's flow
# failed the PIT check on every covariate while SBC found nothing.
global_test = mc.global_coverage_test(pit_values, seed=0)
sbc = mc.sbc_test(data["sbc_ranks"], int(data["n_posterior_samples"]), seed=0)
latent = [f"z{i + 1}" for i in range(4)]
print(
    "global PIT test, p per latent coordinate:", ", ".join(f"{p:.2g}" for p in global_test.pvalues)
)
print(f"SBC (KS on the ranks of C, μ, σ, g): p = {sbc.pvalue:.3g}")

fig = plt.figure(figsize=(11, 9), layout="constrained")
top, bottom = fig.subfigures(2, 1, height_ratios=[2, 1.15])
pit_axes = top.subplots(2, 4)
mc.plot_global_pp(global_test, ax=pit_axes[0], labels=latent)
mc.plot_global_histograms(global_test, ax=pit_axes[1], labels=latent)
sbc_axes = bottom.subplots(1, 2)
mc.plot_sbc(sbc, ax=sbc_axes[0], kind="ecdf", labels=names)
mc.plot_sbc(sbc, ax=sbc_axes[1], kind="hist", labels=names)
for ax in [*pit_axes.ravel(), *sbc_axes]:  # every legend below its figure, off the data
    if ax.get_legend() is not None:
        ax.get_legend().remove()
for part, panels in [(top, pit_axes[:, 0]), (bottom, sbc_axes[:1])]:
    pairs = [pair for ax in panels for pair in zip(*ax.get_legend_handles_labels())]
    part.legend(*zip(*pairs), loc="outside lower center", ncol=6, fontsize="small", frameon=False)
top.suptitle(f"PIT of the flow's latent (smallest p = {global_test.pvalues.min():.2g})")
bottom.suptitle(f"SBC on the parameters (p = {sbc.pvalue:.2g})")
plt.show()

# %%
# Figure 2: local consistency along the gain
# ------------------------------------------
# The local coverage test at the 21 observations x₀ simulated at g₀ = −20, −18, ..., 20 dB. With
# m = 4 covariates (Bonferroni) and E = 21 points (Holm), a point can be rejected at α = 0.05
# only if B + 1 ≥ 4 · 21 / 0.05 = 1,680 null fits. With the kNN regressor they take seconds;
# gradient boosting would take about 8 minutes.
g_grid = data["g_grid"]
local = mc.local_coverage_test(
    pit_values, x_cal, data["x_eval"], regressor="knn", n_resamples=1679, seed=0
)
for g0, p in zip(g_grid[::5], local.pvalues_adjusted[::5]):
    print(f"g0 = {g0:+5.0f} dB: Holm-adjusted p = {p:.3g}")
print(f"rejected somewhere along g0 at 0.05: {local.decision(0.05)}")

fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
for i, label in enumerate(latent):
    ax.plot(g_grid, local.statistics[i], marker="o", ms=3, label=f"T at {label}")
rejected = local.pvalues_adjusted <= 0.05
ax.scatter(
    g_grid[rejected],
    np.zeros(rejected.sum()),
    marker="x",
    color="k",
    label="H0(x₀) rejected (Holm, 0.05)",
)
ax.set(xlabel="gain g₀ (dB) of the observation x₀", ylabel="local statistic Tᵢ(x₀)")
ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
ax.set_title("Figure 2, top: the local statistics along g₀")
plt.show()

# %%
# The local PP-plots at g₀ = −20, 0 and 20 dB: r̂_{i,γ}(x₀) against γ with the null band of
# Algorithm 2 (Zhao et al. 2021). Above the diagonal, the flow's latent puts too much mass
# below γ at that x₀; below it, too little.
rows = [int(np.argmin(np.abs(g_grid - g))) for g in data["pair_g"]]
fig, axes = plt.subplots(len(rows), 4, figsize=(11, 8), layout="constrained", sharey=True)
for row, e in zip(axes, rows):
    mc.plot_local_pp(local, e, ax=row, labels=latent)
    row[0].set_ylabel(f"g₀ = {g_grid[e]:+.0f} dB\nr̂(γ | x₀)")
    for ax, label in zip(row, latent):
        # the point's p-value as the test decides it: Bonferroni over z, Holm over the 21 points
        ax.set_title(
            f"{label}, g₀ = {g_grid[e]:+.0f} dB (p = {local.pvalues_adjusted[e]:.2g})", fontsize=9
        )
        if ax.get_legend() is not None:
            ax.get_legend().remove()
handles, labels = axes[0, 0].get_legend_handles_labels()
fig.legend(handles, labels, loc="outside lower center", fontsize="small", frameon=False)
fig.suptitle("Figure 2, bottom: local PP-plots")
plt.show()

# %%
# Pair plots of the flow's posterior at the three observations, with the parameters that
# simulated them (black lines): at the ends of the gain's range the posterior of g presses
# against the prior's bound, and the amplitude parameters μ and σ trade off with g.
lows, highs = np.array([10, 50, 100, -20]), np.array([250, 500, 5000, 20])
for draws, e in zip(data["pair_draws"], rows):
    truth = data["theta_eval"][e]
    fig, axes = plt.subplots(4, 4, figsize=(7, 7), layout="constrained")
    for i in range(4):
        for j in range(4):
            ax = axes[i, j]
            if j > i:
                ax.remove()
                continue
            if i == j:
                ax.hist(draws[:, i], bins=40, range=(lows[i], highs[i]), color="C0")
                ax.axvline(truth[i], color="k", lw=1)
                ax.set_yticks([])
            else:
                ax.scatter(draws[:, j], draws[:, i], s=1, alpha=0.3, color="C0")
                ax.axvline(truth[j], color="k", lw=0.8)
                ax.axhline(truth[i], color="k", lw=0.8)
                ax.set_ylim(lows[i], highs[i])
            ax.set_xlim(lows[j], highs[j])
            ax.tick_params(labelsize=6)
            if i == 3:
                ax.set_xlabel(names[j])
            if j == 0 and i > 0:
                ax.set_ylabel(names[i])
    fig.suptitle(
        f"q(θ | x₀) at g₀ = {g_grid[e]:+.0f} dB (local p = {local.pvalues_adjusted[e]:.2g})"
    )
plt.show()

# %%
# The report on the same arrays
# -----------------------------
# :func:`modelcompare.workflows.report_from_arrays` runs every check these arrays allow (SBC, the
# global and local PIT checks, the independence of the latent coordinates, the misspecification
# check) with B planned for Holm across the checks, here with the three observations at
# g₀ = −20, 0 and 20 dB as the user's ``x_obs``.
import textwrap

from modelcompare.workflows import report_from_arrays

report = report_from_arrays(
    pit_values=pit_values,
    x=x_cal,
    x_obs=data["x_eval"][rows],
    ranks=data["sbc_ranks"],
    n_posterior_samples=int(data["n_posterior_samples"]),
    parameter_names=names,
    seed=0,
)
print(textwrap.fill(report.summary(), 78))
