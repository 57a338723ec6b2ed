"""Names of the regressors and classifiers of the local checks (light: the command line reads them)."""

from __future__ import annotations

__all__ = ["INDEPENDENCE_REGRESSORS", "LC2ST_CLASSIFIERS", "REGRESSORS"]

#: Names of the regressors of the local coverage test (and of the report's local checks).
REGRESSORS = ("hgb", "knn", "mlp", "logistic")

#: The names among :data:`REGRESSORS` that regress rather than classify per level: the local
#: independence test regresses products of Gaussianised PIT values and takes only these.
INDEPENDENCE_REGRESSORS = ("hgb", "knn")

#: Names of L-C2ST-NF's classifiers (:func:`~modelcompare.lc2st_nf`): the batched MLP engine,
#: scikit-learn's MLPClassifier fitted one at a time, and logistic regression on quadratic features.
LC2ST_CLASSIFIERS = ("mlp", "sklearn", "quadratic")
