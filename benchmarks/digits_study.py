"""The seed paper's Table 1 and Figure 3 designs on scikit-learn's real 8×8 digits.

Jitkrittum et al. (2018, arXiv:1810.11630) compare two GANs on CelebA (Table 1) and show where
one model fits better on CIFAR-10 (Figure 3). Neither data set nor the Inception weights can be
used here, so the designs run on ``sklearn.datasets.load_digits`` (1,797 images):

* the feature extractor is the second hidden layer (d = 8, tanh) of a small MLP classifier,
  trained on 20 % of the images, stratified by digit, which no later step uses;
* group A (digits 0–4) and group B (5–9) play smiling and non-smiling. Of each group's other
  images, 300 train its generator, 60 are the pool of Rel-UME locations and the rest (about 360)
  is the real pool RS or RN. A generator is a Gaussian mixture (10 full-covariance components)
  in a 20-dimensional PCA space of its training images, decoded by the inverse PCA and clipped
  to the pixel range: S and N;
* Figure 3: A′ = digits {0, 1, 2}, B′ = {3, 4, 5}, C = {7, 8, 9}; P = A′ + C, Q = R = B′ + C,
  40 images per class of A′ and B′ and 30 per class of C in each sample, 20 held-out images
  per class as candidate locations; all disjoint.

``--stage build`` trains everything and writes ``examples/data/digits.npz`` (features, images
of samples and candidates; small). ``--stage study`` runs the five problems of Table 1 on those
pools and writes ``benchmarks/results/digits_table1.json``. The default (n = 120, 100 trials)
takes a few minutes on one core; ``--n-trials`` and ``--n`` make it bigger.

Run: ``python benchmarks/digits_study.py --stage all``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import _harness

_harness.one_thread()

import numpy as np
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.mixture import GaussianMixture
from sklearn.neural_network import MLPClassifier

import modelcompare

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "examples" / "data" / "digits.npz"
SMALL_N = (8, 12, 16, 24)
GROUP_A, GROUP_B = (0, 1, 2, 3, 4), (5, 6, 7, 8, 9)
FIG3 = {"A": (0, 1, 2), "B": (3, 4, 5), "C": (7, 8, 9)}
N_GEN_TRAIN, N_LOC_POOL = 300, 60


def load_analysis():
    path = ROOT / "examples" / "case_studies" / "digits.py"
    spec = importlib.util.spec_from_file_location("digits", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["digits"] = module
    spec.loader.exec_module(module)
    return module


def features(clf: MLPClassifier, images: np.ndarray) -> np.ndarray:
    """The classifier's last hidden layer, the analogue of Inception's pool3 features."""
    h = images
    for w, b in zip(clf.coefs_[:-1], clf.intercepts_[:-1]):
        h = np.tanh(h @ w + b)
    return h


def fit_generator(images: np.ndarray, seed: int) -> tuple[PCA, GaussianMixture]:
    pca = PCA(n_components=20, random_state=seed).fit(images)
    gmm = GaussianMixture(n_components=10, covariance_type="full", random_state=seed)
    return pca, gmm.fit(pca.transform(images))


def generate(gen: tuple[PCA, GaussianMixture], n: int, seed: int) -> np.ndarray:
    pca, gmm = gen
    gmm.random_state = seed
    latent, _ = gmm.sample(n)
    rows = np.random.default_rng(seed).permutation(n)  # gmm.sample orders by component
    return np.clip(pca.inverse_transform(latent[rows]), 0.0, 1.0)


def build(seed: int) -> None:
    t0 = time.perf_counter()
    digits = load_digits()
    images, labels = digits.data / 16.0, digits.target
    rng = np.random.default_rng(seed)
    # per class: 20 % for the classifier, the rest shuffled for the designs
    clf_rows, rest = [], {}
    for c in range(10):
        rows = rng.permutation(np.flatnonzero(labels == c))
        k = round(0.2 * len(rows))
        clf_rows.extend(rows[:k])
        rest[c] = rows[k:]
    clf = MLPClassifier(
        hidden_layer_sizes=(64, 8), activation="tanh", max_iter=2000, random_state=seed
    ).fit(images[clf_rows], labels[clf_rows])
    held = np.concatenate(list(rest.values()))
    accuracy = float(clf.score(images[held], labels[held]))

    # Table 1: generators and pools per group
    out: dict[str, np.ndarray] = {}
    for name, group, gen_name in (("RS", GROUP_A, "S"), ("RN", GROUP_B, "N")):
        rows = rng.permutation(np.concatenate([rest[c] for c in group]))
        train, loc, pool = (
            rows[:N_GEN_TRAIN],
            rows[N_GEN_TRAIN : N_GEN_TRAIN + N_LOC_POOL],
            rows[N_GEN_TRAIN + N_LOC_POOL :],
        )
        gen = fit_generator(images[train], seed)
        fake = generate(gen, 2000, seed + 1)
        out[f"pool_{gen_name}"] = features(clf, fake).astype(np.float32)
        out[f"pool_{name}"] = features(clf, images[pool]).astype(np.float32)
        out[f"locations_{name}"] = features(clf, images[loc]).astype(np.float32)
        out[f"samples_{gen_name}"] = np.round(fake[:40] * 16).astype(np.uint8)
        out[f"samples_{name}"] = np.round(images[pool[:40]] * 16).astype(np.uint8)

    # Figure 3: its own disjoint split of the held-out images
    f3 = {"P": [], "Q": [], "R": [], "cand": []}
    groups = []
    for g, classes in FIG3.items():
        for c in classes:
            rows = rng.permutation(rest[c])
            per = 40 if g != "C" else 30
            samples = {"A": ("P",), "B": ("Q", "R"), "C": ("P", "Q", "R")}[g]
            for i, s in enumerate(samples):
                f3[s].extend(rows[i * per : (i + 1) * per])
            start = len(samples) * per
            f3["cand"].extend(rows[start : start + 20])
            groups.extend([g] * 20)
    for s in ("P", "Q", "R"):
        out[f"fig3_{s}"] = features(clf, images[f3[s]]).astype(np.float32)
    out["fig3_candidates"] = features(clf, images[f3["cand"]]).astype(np.float32)
    out["fig3_images"] = digits.data[f3["cand"]].astype(np.uint8)
    out["fig3_labels"] = labels[f3["cand"]].astype(np.int8)
    out["fig3_groups"] = np.array(groups)
    out["classifier_accuracy"] = np.array(accuracy)
    out["n_classifier_train"] = np.array(len(clf_rows))
    DATA.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(DATA, **out)
    print(f"classifier accuracy on held-out digits: {accuracy:.3f}")
    print(
        f"wrote {DATA} ({DATA.stat().st_size / 1024:.0f} KiB) in {time.perf_counter() - t0:.0f} s"
    )


def study(args: argparse.Namespace, n: int, n_trials: int, fid_trials: int, seed: int) -> None:
    analysis = load_analysis()
    with np.load(DATA) as f:
        data = dict(f)
    pools = {k: data[f"pool_{k}"].astype(np.float64) for k in ("S", "N", "RS", "RN")}
    loc = (data["locations_RS"].astype(np.float64), data["locations_RN"].astype(np.float64))
    t0 = time.perf_counter()
    rejections = analysis.run_study(
        pools, loc, n=n, n_trials=n_trials, seed=seed, fid_trials=fid_trials
    )
    seconds = time.perf_counter() - t0
    columns, rows = analysis.rejection_table(rejections)
    print(columns)
    for row in rows:
        print(row)
    fig3 = analysis.figure3_summary(
        modelcompare.power_criterion_map(
            data["fig3_P"], data["fig3_Q"], data["fig3_R"], data["fig3_candidates"], seed=seed
        ).criterion,
        data["fig3_groups"],
    )
    print("Figure 3:", fig3)
    d = pools["S"].shape[1]
    record = _harness.record(
        "digits_table1",
        title="Relative tests on real 8×8 digits: the paper's Table 1 design",
        part="relative",
        script=__file__,
        meaning=(
            f"Rejection rate at α = {analysis.ALPHA} of each rule over {n_trials} trials "
            f"(the naive FID rule over {fid_trials}), n = {n} per sample, d = {d} classifier "
            "features. S and N are Gaussian-mixture generators of digits 0–4 and 5–9; RS, RN "
            "are held-out real digits of each group and RM their equal mixture; trials "
            "resample finite pools, so rates are conditional on them. Problems 1, 2, 3 and 5 "
            "are H0 (a rate above α is a false rejection); problem 4 is H1 (power)."
        ),
        columns=columns,
        rows=rows,
        notes=(
            f"Pools: S, N 2,000 generated each; RS {len(pools['RS'])}, RN {len(pools['RN'])} "
            f"real; 60 location candidates per group. Classifier accuracy on the held-out "
            f"digits {float(data['classifier_accuracy']):.3f}. {seconds:.0f} s for the trials."
        ),
    )
    _harness.save(args, record)

    # problem 4 is easy at n = 120; its power at small n shows how the tests compare
    t0 = time.perf_counter()
    small_rows = []
    for m in SMALL_N[:1] if args.quick else SMALL_N:
        rej = analysis.run_study(
            pools, loc, n=m, n_trials=n_trials, seed=seed, fid_trials=fid_trials, problems=(4,)
        )
        _, (row,) = analysis.rejection_table(rej)
        small_rows.append([m, *row[5:]])
        print(small_rows[-1])
    seconds = time.perf_counter() - t0
    small = dict(record)
    small.update(
        slug="digits_small_n",
        title="Relative tests on real 8×8 digits: power in problem 4 (S, N, RN) at small n",
        columns=["n", *columns[5:]],
        rows=small_rows,
        meaning=(
            f"Rejection rate at α = {analysis.ALPHA} over {n_trials} trials of problem 4 of the "
            "paper's Table 1 (P = S, Q = N, R = RN: Q is better, H1 holds) at small sample "
            "sizes, where the tests are not all at power 1. Same pools and features as "
            "`digits_table1`."
        ),
        notes=f"{seconds:.0f} s for the trials.",
    )
    _harness.save(args, small)


def main() -> None:
    parser = _harness.parser(__doc__)
    parser.add_argument("--stage", choices=("build", "study", "all"), default="all")
    parser.add_argument("--n", type=int, default=120, help="rows per sample")
    parser.add_argument("--n-trials", type=int, default=100)
    parser.add_argument("--fid-trials", type=int, default=100)
    args = parser.parse_args()
    if args.quick:  # the study only, on the stored pools (a build rewrites the example file)
        args.stage, args.n_trials, args.fid_trials = "study", 3, 3
    if args.stage in ("build", "all"):
        build(args.seed)
    if args.stage in ("study", "all"):
        study(args, args.n, args.n_trials, args.fid_trials, args.seed)


if __name__ == "__main__":
    main()
