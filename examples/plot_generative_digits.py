"""
Comparing two generative models of digits, from images to a verdict
====================================================================

The whole path of :doc:`/user_guide/generative` on scikit-learn's 8 × 8 digits, offline: images
→ features → scores with their intervals → a test of which model is closer to the data.

The real feature extractors (DINOv2, CLIP, Inception) need weights that this example does not
download. It **trains a small extractor here instead**: a two-layer network that learns to
classify the digits on one half of the data, whose hidden layer (32 features) is registered with
:func:`~modelcompare.features.register_extractor`. Its features are not DINOv2's; the mechanics
are the same. The two "models" are stand-ins too: model A is real digits with pixel noise, model
B real digits shifted one pixel sideways; the reference is real digits neither model saw.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch
from sklearn.datasets import load_digits

from modelcompare import cmmd, fd, prdc, rel_mmd
from modelcompare.features import extract_features, register_extractor

digits = load_digits()
images = np.round(digits.images * (255 / 16)).astype(np.uint8)  # (1797, 8, 8) uint8
labels = digits.target
rng = np.random.default_rng(0)
order = rng.permutation(len(images))
train, rest = order[:900], order[900:]

# %%
# A small extractor, trained here
# -------------------------------
# A 64 → 32 → 10 network, trained for a few hundred steps to classify the training digits; the
# 32 hidden units are the features. ``register_extractor`` gives it a name that
# ``extract_features`` (and the command line's ``--features``) accept.
torch.manual_seed(0)
hidden = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 32), torch.nn.Tanh())
head = torch.nn.Linear(32, 10)
opt = torch.optim.Adam([*hidden.parameters(), *head.parameters()], lr=0.01)
xt = torch.tensor(images[train] / 255.0, dtype=torch.float32)
yt = torch.tensor(labels[train])
for _ in range(300):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(head(hidden(xt)), yt)
    loss.backward()
    opt.step()
print(f"training loss {loss.item():.3f}")

# the extractor receives float images in [0, 1], (N, 3, 8, 8); the digits are grey
register_extractor("digits-mlp", lambda batch: hidden(batch.mean(dim=1)), overwrite=True)

# %%
# Images to features
# ------------------
# Three sets of 290 images: the reference, model A (noisy) and model B (shifted).
ref_imgs, a_src, b_src = rest[:290], rest[290:580], rest[580:870]
noisy = np.clip(images[a_src] + rng.normal(0, 40, images[a_src].shape), 0, 255).astype(np.uint8)
shifted = np.roll(images[b_src], 1, axis=2)
feats = {
    name: extract_features(imgs, "digits-mlp", batch_size=128)
    for name, imgs in (("reference", images[ref_imgs]), ("A", noisy), ("B", shifted))
}
print(feats["A"])

# %%
# Scores with their intervals
# ---------------------------
# FD (here on the small network's features; on DINOv2 features it is FD-DINOv2), CMMD and
# precision/recall/density/coverage, each with a 95 % interval for its expectation at these
# sample sizes.
z = feats["reference"].features
rows = {}
for name in ("A", "B"):
    x = feats[name].features
    f, c = fd(x, z, seed=0), cmmd(x, z)
    p = prdc(x, z, seed=0)
    rows[name] = {
        "FD": (f.value, *f.confidence_interval()),
        "CMMD": (c.value, *c.confidence_interval()),
        **{m: (getattr(p, m), *p.confidence_interval(m)) for m in ("precision", "recall")},
    }
    print(name, {k: round(v[0], 3) for k, v in rows[name].items()})

fig, axes = plt.subplots(1, 4, figsize=(12, 3), layout="constrained")
for ax, metric in zip(axes, ("FD", "CMMD", "precision", "recall")):
    for i, name in enumerate(("A", "B")):
        value, low, high = rows[name][metric]
        ax.errorbar(i, value, yerr=[[value - low], [high - value]], fmt="o", capsize=4)
    ax.set_xticks([0, 1], ["A (noisy)", "B (shifted)"])
    ax.set_xlim(-0.5, 1.5)
    ax.set_title(f"{metric}, 95 % interval")

# %%
# Which model is closer to the data?
# ----------------------------------
# Two intervals that do not overlap are suggestive, but "is A closer to the data than B?" is a
# question for a test: Rel-MMD on the three feature sets, with B as the first model. H0: B is at
# least as close to the reference as A; a small p-value says A is closer.
res = rel_mmd(feats["B"].features, feats["A"].features, z, seed=0)
print(f"Rel-MMD: statistic {res.statistic:.3f}, p-value {res.pvalue:.2g}")
