"""
Reading a failing report: one figure per kind of finding
========================================================

:attr:`PosteriorValidationResult.findings <modelcompare.PosteriorValidationResult.findings>` says what is wrong with a
posterior estimator, and where: a location ``shift``, a posterior ``too_wide`` or ``too_narrow``,
a ``dependence`` between its latent coordinates, a ``local`` miscalibration at some observations,
and a ``misspecified_observation`` that the simulator does not produce. Each case below builds
an estimator of a linear-Gaussian model with one known flaw, runs
:func:`~modelcompare.validate_posterior` on 1000 calibration pairs with the checks behind that
finding, prints the finding, and draws the figure to read it by. The user guide's "Reading a
failing report" explains each figure and the next step.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

import modelcompare as mc

model = mc.ConditionalGaussianModel(0.5 * np.eye(2))  # θ ~ N(0, I₂), x = θ + N(0, 0.5 I₂)
theta, x = model.simulate(1000, seed=0)
sd = float(np.sqrt(model.posterior_cov[0, 0]))  # the exact posterior sd of each θ_j, 0.58
names = ["θ₁", "θ₂"]
marginal = ["sbc", "global_coverage", "pit_independence"]


def show(report):
    """The findings table, the columns a reader needs."""
    print(report.findings[["kind", "parameter", "direction", "where", "evidence"]].to_string())


def plot_ranks(report, title):
    """SBC rank histograms with the band of uniform ranks, and the rank ECDF minus uniform."""
    fig, axes = plt.subplots(1, 2, figsize=(8, 3), layout="constrained")
    mc.plot_sbc(report.results["sbc"], ax=axes[0], kind="hist", labels=names)
    mc.plot_sbc(report.results["sbc"], ax=axes[1], kind="ecdf", labels=names)
    p = report.pvalues_adjusted["sbc"]  # the table's p-value: Holm across the report's checks
    axes[0].set_title(f"rank histograms (SBC, adjusted p = {p:.2g})", fontsize=10)
    axes[1].set_title("rank ECDF minus uniform", fontsize=10)
    for ax in axes:  # each legend below its panel, off the data
        ax.legend(
            fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=3, frameon=False
        )
    fig.suptitle(title)


# %%
# ``shift``: the posterior's mass sits above the truth
# -----------------------------------------------------
# Every draw of θ₁ moved up by half a posterior sd. The truth then ranks low among the draws:
# the histogram of θ₁ leans left and its ECDF rises above the band.
shifted = mc.validate_posterior(
    model.exact_flow(offset=[0.5 * sd, 0.0]), theta, x, checks=marginal, seed=0
)
show(shifted)
plot_ranks(shifted, "shift: θ₁'s posterior sits above the truth")

# %%
# ``too_wide``: over-dispersed
# ----------------------------
# Both posterior sds 1.5 times too large: the truth ranks too often in the middle (a hump), and
# the ECDF falls below the diagonal and then rises above it.
wide = mc.validate_posterior(model.exact_flow(scale_factor=1.5), theta, x, checks=marginal, seed=0)
show(wide)
plot_ranks(wide, "too_wide: the truth ranks too often in the middle")

# %%
# ``too_narrow``: over-confident
# ------------------------------
# Both sds 0.7 times the exact ones: the truth falls too often outside the draws, at rank 0 or S
# (a U), and the ECDF first rises above the diagonal, then dips below it.
narrow = mc.validate_posterior(
    model.exact_flow(scale_factor=0.7), theta, x, checks=marginal, seed=0
)
show(narrow)
plot_ranks(narrow, "too_narrow: the truth ranks too often at the extremes")

# %%
# ``dependence``: the right marginals, the wrong joint
# ----------------------------------------------------
# A model whose posterior correlates θ₁ and θ₂, and an estimator with the right marginals but
# independent parameters. SBC sees nothing wrong with either parameter; the PIT values of the
# flow's two latent coordinates are correlated, which a calibrated posterior never shows.
noise_cov = 0.5 * np.array([[1.0, 0.8], [0.8, 1.0]])
correlated = mc.ConditionalGaussianModel(noise_cov)
theta_c, x_c = correlated.simulate(1000, seed=0)
no_correlation = mc.AffineGaussianFlow(
    correlated.posterior_mean_matrix, np.diag(np.sqrt(np.diag(correlated.posterior_cov)))
)
dependent = mc.validate_posterior(no_correlation, theta_c, x_c, checks=marginal, seed=0)
show(dependent)
fig, axes = plt.subplots(1, 2, figsize=(8, 3.2), layout="constrained")
pit_values = dependent.pit_values
axes[0].scatter(pit_values[:, 0], pit_values[:, 1], s=4, alpha=0.4, color="C0")
axes[0].set(xlabel="PIT of z₁", ylabel="PIT of z₂", title="PIT values of the flow's latent")
mc.plot_pit_correlations(dependent.results["pit_independence"], ax=axes[1], labels=["z₁", "z₂"])
p = dependent.pvalues_adjusted["pit_independence"]
axes[1].set_title(f"Spearman ρ of the PIT values\n(adjusted p = {p:.2g})", fontsize=10)
fig.suptitle("dependence: the latent coordinates are correlated")

# %%
# ``local``: miscalibrated at some observations only
# --------------------------------------------------
# The mean of θ₁ off by one posterior sd only where x₁ > 1. The report here runs the local
# coverage check alone, at its default evaluation points: the calibration row nearest the
# centre of the x's and rows on both sides along each principal direction. The finding names the
# flagged points; the local PP-curves at the worst one leave the band, and the statistic T of
# each point is labelled with its p-value adjusted across the covariates, the points and the
# checks.
bias = lambda c: np.c_[sd * (c[:, 0] > 1), 0.0 * c[:, 0]]
local = mc.validate_posterior(
    model.exact_flow(offset=bias), theta, x, checks="local_coverage", seed=0
)
show(local)
result = local.results["local_coverage"]
worst = int(np.argmin(result.pvalues))
fig, axes = plt.subplots(1, 3, figsize=(10, 3.8), layout="constrained")
mc.plot_local_pp(result, worst, ax=axes[:2], labels=names)
for ax, name in zip(axes[:2], names):
    ax.set_title(f"{name} at x₀ = ({result.x_eval[worst, 0]:.2g}, {result.x_eval[worst, 1]:.2g})")
    if ax.get_legend() is not None:  # one legend for the row, below it
        ax.get_legend().remove()
handles, labels = axes[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="outside lower center", fontsize="small", frameon=False)
mc.plot_local_statistics(result, ax=axes[2], alpha=None, labels=names)
p_report = np.minimum(1.0, result.pvalues_adjusted)  # one check: no factor across checks
axes[2].set_xticks(range(len(result.x_eval)))
axes[2].set_xticklabels(
    [f"({a:.1f}, {b:.1f})\np = {p:.2g}" for (a, b), p in zip(result.x_eval, p_report)],
    fontsize=6,
)
axes[2].set_title("T at each evaluation point")
fig.suptitle("local: wrong only where x₁ > 1")

# %%
# ``misspecified_observation``: data the simulator does not produce
# -----------------------------------------------------------------
# Two observed data sets, one typical of the simulator and one far outside its reach. The
# ``misspecification`` check flags the second (a kNN conformal test against the calibration x's,
# Holm across the rows); the verdict opens with it, and every posterior check is silent there.
x_obs = np.array([[0.5, -0.3], [4.0, -4.0]])
observed = mc.validate_posterior(
    model.exact_flow(), theta, x, x_obs=x_obs, checks="misspecification", seed=0
)
flags = observed.results["misspecification"]
print("flagged rows:", flags.flagged_at(0.05), "adjusted p:", flags.pvalues_adjusted)
print(observed.summary())
fig, ax = plt.subplots(figsize=(5, 5), layout="constrained")
ax.scatter(x[:, 0], x[:, 1], s=4, color="0.7", label="calibration x (the simulator's data)")
for row, p in zip(x_obs, flags.pvalues_adjusted):
    flagged = p <= 0.05
    ax.scatter(
        *row,
        s=80,
        marker="X" if flagged else "o",
        color="C3" if flagged else "C0",
        label=f"x_obs ({row[0]:g}, {row[1]:g}): p = {p:.2g}" + (" flagged" if flagged else ""),
    )
ax.set(xlabel="x₁", ylabel="x₂", title="misspecified_observation")
ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.15))

# %%
# sphinx-gallery keeps the figures in this order; the user guide shows them with their reading.
plt.show()
