"""
Validating a posterior estimator in one call: SBC, TARP, PIT correlations and a report
======================================================================================

:func:`~modelcompare.validate_posterior` runs every calibration check of a posterior estimator on
held-out pairs (θ_n, x_n) ~ p(θ) p(x | θ): SBC ranks (Talts et al. 2018), TARP's expected coverage
(Lemos et al., ICML 2023), the global PIT check and the independence of the PIT values (Linhart,
Gramfort & Rodrigues 2022), the local coverage and local independence tests at a few observations,
L-C2ST-NF and, given exact posterior draws, C2ST. It corrects across the checks with Holm's method,
so a report flags a posterior at level α with family-wise error at most α. Two wrong posteriors of
a Gaussian model are checked: one 20 % too narrow (over-confident), and one with the right
marginals but no correlation between the parameters, which every one-parameter-at-a-time check
passes.
"""

# %%
import tempfile
import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import modelcompare as mc

noise_cov = 0.5 * np.array([[1.0, 0.8], [0.8, 1.0]])
model = mc.ConditionalGaussianModel(noise_cov)  # θ ~ N(0, I), x = θ + ε, ε ~ N(0, noise_cov)
theta, x = model.simulate(1000, seed=0)

# The exact posterior is N(Kx, S), S = (I + Σε⁻¹)⁻¹, K = S Σε⁻¹. Keeping only the diagonal of S
# gives a flow whose every marginal is right and whose parameters are wrongly independent.
S = np.linalg.inv(np.eye(2) + np.linalg.inv(noise_cov))
K = S @ np.linalg.inv(noise_cov)
flows = {
    "20 % too narrow": model.exact_flow(scale_factor=0.8),
    "no correlation": mc.AffineGaussianFlow(K, np.diag(np.sqrt(np.diag(S)))),
}

# exact posterior draws at two observations, for the C2ST check
x_obs = x[:2]
exact = model.exact_flow().sample(x_obs, 1000, seed=1)  # shape (2, 1000, 2)
reference = [(x_obs[i], exact[i]) for i in range(2)]

# Every check but L-C2ST-NF, which trains one classifier per null resample (about 7 s here): the
# default ``checks="all"`` includes it.
checks = ["sbc", "tarp", "global_coverage", "pit_independence", "local_coverage"]
checks += ["local_independence", "c2st"]
reports = {}
for name, flow in flows.items():
    # the default kNN regressor keeps the local checks fast, and the default n_resamples=None gives
    # each local check the null fits it needs to reject at 0.05 after Holm across the checks
    reports[name] = mc.validate_posterior(
        flow, theta, x, reference=reference, checks=checks, seed=0
    )
    print(f"--- {name}")
    print(reports[name].checks[["name", "statistic", "pvalue", "pvalue_adjusted"]].round(4))
    print(textwrap.fill(reports[name].summary(), 78))

# %%
# The panels of each posterior: the SBC rank ECDFs minus the uniform CDF with their simultaneous
# band, TARP's expected coverage against the credibility level, and the matrix of PIT
# correlations. The too-narrow posterior bends SBC's curves out of the band (too many true θ in
# the tails of the draws) and TARP's curve away from the diagonal. The uncorrelated one passes the
# one-parameter checks (SBC, the global PIT check); TARP, which measures distances in the joint
# space, and the correlation matrix catch it.
fig, axes = plt.subplots(2, 3, figsize=(14, 8.5), layout="constrained")
for row, (name, report) in zip(axes, reports.items()):
    results = report.results
    mc.plot_sbc(results["sbc"], ax=row[0], labels=["θ1", "θ2"])
    mc.plot_tarp(results["tarp"], ax=row[1])
    mc.plot_pit_correlations(results["pit_independence"], ax=row[2], labels=["θ1", "θ2"])
    for ax in row:
        ax.set_title(f"{name}: {ax.get_title()}", fontsize="medium")
plt.show()

# %%
# The rank histograms carry the same information as the ECDF view; a too-narrow posterior
# puts too many true θ at the extreme ranks (a U shape).
fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
mc.plot_sbc(reports["20 % too narrow"].results["sbc"], kind="hist", ax=ax, labels=["θ1", "θ2"])
plt.show()

# %%
# The report as one self-contained HTML page (figures inline, no network resources), here written
# to a temporary folder; ``to_json`` writes the same content for machines.
with tempfile.TemporaryDirectory() as folder:
    page = reports["no correlation"].to_html(Path(folder) / "posterior_report.html", alpha=0.05)
    print(f"wrote {page.name}: {page.stat().st_size / 1024:.0f} KiB, open it in a browser")
print("failures at 0.05:", {name: r.failures(0.05) for name, r in reports.items()})
