"""Names of the regressors of the local checks (light: the command line reads them for its help)."""

from __future__ import annotations

__all__ = ["INDEPENDENCE_REGRESSORS", "REGRESSORS"]

#: Names of the regressors of the local coverage test (and of the report's local checks).
REGRESSORS = ("hgb", "knn", "mlp", "logistic")

#: The names among :data:`REGRESSORS` that regress rather than classify per level: the local
#: independence test regresses products of Gaussianised PIT values and takes only these.
INDEPENDENCE_REGRESSORS = ("hgb", "knn")
