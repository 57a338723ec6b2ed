"""Size and power of McNemar's test, the 5×2cv t-test and F-test, beside the corrected t-test.

Each replicate draws a fresh classification data set (``make_classification``, 300 rows, 10
features, 3 informative, 10 % flipped labels) and compares two learners on it four ways:

- McNemar's test (exact, and chi-square with continuity correction) on one 50/50 split: both
  learners trained on the first half, tested on the second (Dietterich 1998, §3.1);
- Dietterich's 5×2cv paired t-test and Alpaydın's combined 5×2cv F-test (5 × 2-fold CV);
- the Nadeau–Bengio corrected t-test on 10 × 10-fold CV (n_test/n_train = 1/9).

Under H0 the two learners are the **same randomised learner** with different seeds (nearest
class centroid on 3 of the 10 features, drawn at random): by symmetry their expected accuracies
are equal, so a test of "the two learning algorithms are equally accurate" should reject about α
of the time. McNemar's
H0 is narrower, that two **fixed** trained models have the same error rate: two rules on different
random features are two different models, whose error rates differ, so McNemar rejects the
learners' H0 more often than α. Under H1 learner a uses all 10 features instead of 3 drawn at
random, which makes it more accurate on average.

Run: ``OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/cv_dietterich_size_power.py
[--replicates 1000]``; writes ``benchmarks/results/cv_dietterich_size_power.json``.
"""

from __future__ import annotations

import time
import warnings
import zlib

import _harness

_harness.one_thread()

import numpy as np
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.model_selection import RepeatedStratifiedKFold, train_test_split

import modelcompare as mc

ALPHA = 0.05
TESTS = ("mcnemar_exact", "mcnemar_chi2", "ttest_5x2cv", "ftest_5x2cv", "corrected_10x10")


class SubspaceCentroid(ClassifierMixin, BaseEstimator):
    """Nearest class centroid on ``n_features`` features drawn at random at each fit.

    A randomised learner in a few lines of numpy: scikit-learn's input checks would cost more
    than these fits, and the study needs about 250 fits per replicate. The features are drawn
    afresh for every training set (the draw is seeded by ``random_state`` and the training
    data), so two copies with different seeds are the same learning algorithm: exchangeable,
    with equal expected accuracy on any data set.
    """

    def __init__(self, n_features: int | None = 3, random_state: int = 0) -> None:
        self.n_features = n_features
        self.random_state = random_state

    def fit(self, X: np.ndarray, y: np.ndarray) -> SubspaceCentroid:
        d = X.shape[1]
        rng = np.random.default_rng([self.random_state, zlib.crc32(np.ascontiguousarray(X))])
        k = d if self.n_features is None else self.n_features
        self.features_ = np.sort(rng.choice(d, size=k, replace=False))
        self.classes_ = np.unique(y)
        Xs = X[:, self.features_]
        self.centroids_ = np.stack([Xs[y == c].mean(axis=0) for c in self.classes_])
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        Xs = X[:, self.features_]
        dist = ((Xs[:, None, :] - self.centroids_[None, :, :]) ** 2).sum(axis=2)
        return self.classes_[np.argmin(dist, axis=1)]


def _learners(setting: str, rng: np.random.Generator) -> tuple[object, object]:
    sa, sb = (int(v) for v in rng.integers(2**31 - 1, size=2))
    b = SubspaceCentroid(3, random_state=sb)
    if setting == "H0":
        return SubspaceCentroid(3, random_state=sa), b
    return SubspaceCentroid(None, random_state=sa), b


def _kfold_scores(a: object, b: object, X: np.ndarray, y: np.ndarray, cv: object) -> tuple:
    # a plain loop: cross_val_score's per-call machinery costs more than these small fits
    sa, sb = [], []
    for train, test in cv.split(X, y):
        sa.append(np.mean(a.fit(X[train], y[train]).predict(X[test]) == y[test]))
        sb.append(np.mean(b.fit(X[train], y[train]).predict(X[test]) == y[test]))
    return np.array(sa), np.array(sb)


def one_replicate(setting: str, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    X, y = make_classification(
        n_samples=300,
        n_features=10,
        n_informative=3,
        flip_y=0.1,
        random_state=int(rng.integers(2**31 - 1)),
    )
    a, b = _learners(setting, rng)
    out = {}
    X1, X2, y1, y2 = train_test_split(
        X, y, test_size=0.5, random_state=int(rng.integers(2**31 - 1))
    )
    pa = a.fit(X1, y1).predict(X2)
    pb = b.fit(X1, y1).predict(X2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no discordant pairs: flagged, p = 1
        out["mcnemar_exact"] = mc.mcnemar_test(
            y_true=y2, y_pred_a=pa, y_pred_b=pb, exact=True
        ).pvalue
        out["mcnemar_chi2"] = mc.mcnemar_test(y_true=y2, y_pred_a=pa, y_pred_b=pb).pvalue
        five = mc.cross_validate_5x2(a, b, X, y, seed=rng)
        out["ttest_5x2cv"] = five.ttest().pvalue
        out["ftest_5x2cv"] = five.ftest().pvalue
        cv = RepeatedStratifiedKFold(
            n_splits=10, n_repeats=10, random_state=int(rng.integers(2**31 - 1))
        )
        sa, sb = _kfold_scores(a, b, X, y, cv)
        out["corrected_10x10"] = mc.corrected_ttest(sa, sb, test_train_ratio=1 / 9).pvalue
    return out


def _rate(p: np.ndarray) -> tuple[float, float, float]:
    k, n = int(np.sum(p <= ALPHA)), p.size
    lo = stats.beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    return k / n, float(lo), float(hi)


def main() -> None:
    parser = _harness.parser(__doc__, seed=20261205)
    parser.add_argument("--replicates", type=int, default=1000)
    args = parser.parse_args()
    if args.quick:
        args.replicates = 20
    started = time.perf_counter()
    rows = []
    for setting in ("H0", "H1"):
        seeds = np.random.SeedSequence([args.seed, setting == "H1"]).generate_state(args.replicates)
        results = [one_replicate(setting, int(s)) for s in seeds]
        for test in TESTS:
            p = np.array([r[test] for r in results])
            rate, lo, hi = _rate(p)
            rows.append([setting, test, round(rate, 3), round(lo, 3), round(hi, 3), p.size])
    elapsed = time.perf_counter() - started
    for row in rows:
        print(*row)
    result = _harness.record(
        "cv_dietterich_size_power",
        title="Size and power of McNemar, 5×2cv t and F, and the corrected t-test",
        part="cv",
        script=__file__,
        columns=["setting", "test", "rejection rate", "95 % low", "95 % high", "replicates"],
        rows=rows,
        meaning=(
            "Rejection rate at α = 0.05 over fresh data sets (300 rows), with a 95 % "
            "Clopper–Pearson interval. **H0**: the same randomised learner (nearest class "
            "centroid on 3 random features of 10) with two seeds, so the two learning algorithms are equally accurate; a test "
            "of learners should reject about 5 % of the time. **H1**: the centroid rule on all "
            "10 features against 3 random ones (the rate is the power). McNemar's test is on one 50/50 "
            "split; its H0 is that the two *trained* models have equal error, which two rules on "
            "different random features do not, so its rate under the learners' H0 is not its "
            "size. The 5×2cv tests and the corrected 10×10-fold t-test test the learners."
        ),
        notes=f"Total run time {elapsed:.0f} s, one process.",
    )
    _harness.save(args, result)


if __name__ == "__main__":
    main()
