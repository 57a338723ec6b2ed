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

:func:`cross_validation` writes, from scikit-learn's bundled and generated data sets (no
download), the files of ``modelcompare cv --test ...``:

- ``cv_datasets.csv``: mean 10-fold accuracy of four classifiers on eight data sets (data sets ×
  models), for ``--test report``;
- ``cv_splits_long.csv``: the same runs split by split (columns ``dataset``, ``model``,
  ``split0`` ... ``split9``), for ``--test hierarchical`` and ``--test report``;
- ``cv_5x2.csv``: two classifiers' 5 × 2 CV accuracies on the breast-cancer data, for
  ``--test 5x2cv`` and ``--test 5x2cv-f``;
- ``mcnemar_predictions.csv``: true labels and two classifiers' predictions on one test set, for
  ``--test mcnemar``.
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


def _cv_datasets() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    from sklearn import datasets

    out = {}
    for name in ("iris", "wine", "breast_cancer", "digits"):
        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
        out[name] = (X, y)
    out["moons"] = datasets.make_moons(n_samples=300, noise=0.3, random_state=0)
    out["circles"] = datasets.make_circles(n_samples=300, noise=0.15, factor=0.5, random_state=0)
    out["blobs"] = datasets.make_classification(
        n_samples=300, n_features=8, n_informative=4, random_state=0
    )
    out["noisy"] = datasets.make_classification(
        n_samples=300, n_features=20, n_informative=3, flip_y=0.2, random_state=1
    )
    return out


def cv_models() -> dict[str, object]:
    """The four classifiers the CV files and the gallery's many-data-sets example compare."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return {
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "forest": RandomForestClassifier(n_estimators=50, random_state=0),
        "knn": make_pipeline(StandardScaler(), KNeighborsClassifier()),
        "naive_bayes": GaussianNB(),
    }


def cross_validation() -> None:
    import pandas as pd
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import StratifiedKFold, cross_val_score, train_test_split

    models = cv_models()
    rows = []
    for data_name, (X, y) in _cv_datasets().items():
        cv = StratifiedKFold(n_splits=10, shuffle=True, random_state=0)  # the same splits for all
        for model_name, model in models.items():
            scores = cross_val_score(model, X, y, cv=cv)
            rows.append([data_name, model_name, *np.round(scores, 6)])
    long = pd.DataFrame(rows, columns=["dataset", "model", *[f"split{j}" for j in range(10)]])
    long.to_csv(HERE / "cv_splits_long.csv", index=False)
    means = long.set_index(["dataset", "model"]).mean(axis=1).unstack("model")
    means = means.loc[list(dict.fromkeys(long["dataset"])), list(models)].round(6)
    means.to_csv(HERE / "cv_datasets.csv", index_label="dataset")
    X, y = load_breast_cancer(return_X_y=True)
    res = mc.cross_validate_5x2(models["logistic"], models["naive_bayes"], X, y, seed=0)
    five = pd.DataFrame(
        np.round([res.scores_a.ravel(), res.scores_b.ravel()], 6),
        index=["logistic", "naive_bayes"],
        columns=[f"r{i}f{j}" for i in range(5) for j in range(2)],
    )
    five.to_csv(HERE / "cv_5x2.csv", index_label="model")
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)
    pred_a = models["logistic"].fit(X_train, y_train).predict(X_test)
    pred_b = models["naive_bayes"].fit(X_train, y_train).predict(X_test)
    pd.DataFrame({"y_true": y_test, "y_pred_a": pred_a, "y_pred_b": pred_b}).to_csv(
        HERE / "mcnemar_predictions.csv", index=False
    )


def main() -> None:
    rng = np.random.default_rng(20261201)
    relative_fit(rng)
    coverage(rng)
    categorical(rng)
    evaluation_points(rng)  # drawn last, so that the files above stay as they were
    digits()  # its own generator
    cross_validation()  # seeded by its own random_states, apart from the stream above


if __name__ == "__main__":
    main()
