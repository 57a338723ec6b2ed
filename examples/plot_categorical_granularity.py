"""
Granularity of categorical models: the pass/fail ladder
=======================================================

A categorical generative model on sequences Ω = {0..5}^6 is scored by the finest granularity at
which its samples still pass a closeness test against the known reference p (Regol, Kroon &
Coates, ICASSP 2023). Ω is binned ever more finely, from the s = 4 level sets ("stairs") of p up to
2s = 8 bins that split each stair by the sign of p − q̂, and an ℓ2 closeness test at tolerance
ε = 0.1 and level α = 0.05 runs at every level k.

Four models are compared, each known by 10 000 samples: p itself and three perturbations q of p at
ℓ1 distance 0.1, 0.15 and 0.2 (the paper's "d_TV" values, which are ℓ1 distances). Each panel is
the ladder of one model: the binned TV distance at every level, a circle where the test accepted
and a cross where it rejected; the dashed line is the granularity, the last level passed before
the first rejection. Closer models climb higher.
"""

# %%
import matplotlib.pyplot as plt

from modelcompare import granularity, perturb, plot_granularity, stair_distribution

p = stair_distribution(6, 6, 3, 2.0)  # S = 3 positive stairs, s = S + 1 = 4 with the zero stair
models = {"q = p": p}
for l1 in (0.1, 0.15, 0.2):
    models[f"‖q − p‖₁ = {l1:g}"] = perturb(p, l1=l1, seed=3)

fig, axes = plt.subplots(1, 4, figsize=(15, 3.8), sharey=True, layout="constrained")
for ax, (name, q) in zip(axes, models.items()):
    result = granularity(p, q.sample(10_000, seed=1), epsilon=0.1, alpha=0.05, seed=0)
    plot_granularity(result, ax=ax)
    ax.set_title(f"{name}: granularity {result.value}")
    print(f"{name:>18}: granularity {result.value}, decisions {result.decisions.astype(int)}")
for ax in axes[1:]:
    ax.set_ylabel("")
fig.suptitle(
    "Granularity of four models against p (binned ℓ2 closeness test, m = 10 000 samples each)"
)

# %%
# Without ``split=True`` the bins B*_k are chosen on the same samples they test, so the binned TV
# over-fits sampling noise and grows with k even for q = p; ``granularity(..., split=True,
# mode="cantelli")`` chooses the bins on half of the samples and gives each level a calibrated
# level α.
plt.show()
