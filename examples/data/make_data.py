"""Write the example data shipped in the package, ``src/modelcompare/datasets/data/``.

Run from anywhere in the repository. Users get the files with ``modelcompare example-data`` (into
``examples/data/``) or from Python with ``modelcompare.datasets``.

The files this script writes are drawn from one seeded generator, so it reproduces them exactly:

- ``rel_p.npy``, ``rel_q.npy``, ``rel_ref.npy``: draws of two models and of the data, for
  ``modelcompare relative`` (Q is the closer model);
- ``pit.npy``, ``x.npy``: PIT values of an over-dispersed posterior and their observations, for
  ``modelcompare coverage`` and ``modelcompare report``;
- ``x_eval.npy``: three observations x₀ of the same model, the evaluation points of the local
  coverage test (``--x-eval``);
- ``categorical.npy``: draws of a categorical model over {0..5}^6, for ``modelcompare granularity``;
- ``digits_p.npy``, ``digits_q.npy``, ``digits_ref.npy``: 300 of scikit-learn's 8 × 8 digits each as
  uint8 images (0–255), P with pixel noise added, Q and the reference untouched (disjoint
  digits), for ``modelcompare features``, ``metrics`` and ``relative --features`` with the
  extractor in ``digit_features.py``;

The other files are shipped as they are:

- ``reference.npy``, ``samples.npy``, ``samples.csv``: two 2-D sample sets for ``modelcompare c2st``;
- ``cv_scores.csv``: cross-validated scores of four models (scikit-learn's grid-search example, as
  in ``examples/cv_grid_search.py``), for ``modelcompare cv``;
- ``sweep.yaml``: a small grid of C2STs over the files above, for ``modelcompare sweep``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import modelcompare as mc

HERE = Path(__file__).resolve().parents[2] / "src" / "modelcompare" / "datasets" / "data"


def relative_fit(rng: np.random.Generator) -> None:
    np.save(HERE / "rel_ref.npy", rng.normal(0.0, 1.0, size=(400, 2)))
    np.save(HERE / "rel_p.npy", rng.normal(0.6, 1.0, size=(400, 2)))
    np.save(HERE / "rel_q.npy", rng.normal(0.2, 1.0, size=(400, 2)))


def coverage(rng: np.random.Generator) -> None:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(500, seed=rng)
    too_wide = model.exact_flow(scale_factor=1.3)  # an over-dispersed posterior estimate
    np.save(HERE / "pit.npy", mc.pit(too_wide, theta, x))
    np.save(HERE / "x.npy", x)


def categorical(rng: np.random.Generator) -> None:
    reference = mc.stair_distribution(6, 6, 3, ratio=2.0)
    model = mc.perturb(reference, tv=0.08, seed=rng)
    np.save(HERE / "categorical.npy", model.sample(5000, seed=rng))


def evaluation_points(rng: np.random.Generator) -> None:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    _, x_eval = model.simulate(3, seed=rng)
    np.save(HERE / "x_eval.npy", x_eval)


def digits() -> None:
    from sklearn.datasets import load_digits

    images = np.round(load_digits().images * (255 / 16)).astype(np.uint8)  # (1797, 8, 8)
    noise = np.random.default_rng(7).normal(0.0, 80.0, size=(300, 8, 8))
    np.save(HERE / "digits_p.npy", np.clip(images[:300] + noise, 0, 255).astype(np.uint8))
    np.save(HERE / "digits_q.npy", images[300:600])
    np.save(HERE / "digits_ref.npy", images[600:900])


def main() -> None:
    rng = np.random.default_rng(20261201)
    relative_fit(rng)
    coverage(rng)
    categorical(rng)
    evaluation_points(rng)  # drawn last, so that the files above stay as they were
    digits()  # its own generator


if __name__ == "__main__":
    main()
