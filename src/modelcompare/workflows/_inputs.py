"""Helpers both front doors of the posterior report share: evaluation points, options, hashes."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from modelcompare._foundation.seeds import SeedLike
from modelcompare._foundation.validation import check_choice, check_samples
from modelcompare.posterior import REGRESSORS
from modelcompare.twosample import CLASSIFIERS

__all__ = [
    "StoredDraws",
    "check_classifier",
    "check_regressor",
    "default_x_eval",
    "evaluation_points",
    "input_hash",
    "regressor_name",
]


def default_x_eval(x: np.ndarray, n_points: int = 3) -> np.ndarray:
    """Evaluation points spread over the calibration x's.

    The rows of ``x`` nearest the 10 %, 50 % and 90 % quantiles (for ``n_points=3``; evenly spaced
    quantiles in general) of the projection of the standardised x's on their first principal
    direction, so that the points cover the bulk and both flanks of the data.

    Examples
    --------
    >>> x = np.arange(20.0).reshape(10, 2)
    >>> default_x_eval(x).shape
    (3, 2)
    """
    z = (x - x.mean(axis=0)) / np.where(x.std(axis=0) > 0, x.std(axis=0), 1.0)
    direction = np.linalg.svd(z, full_matrices=False)[2][0]
    projection = z @ direction
    targets = np.quantile(projection, np.linspace(0.1, 0.9, n_points))
    rows = [int(np.argmin(np.abs(projection - t))) for t in targets]
    return x[rows]


def check_regressor(regressor: Any) -> Any:
    """A regressor name among :data:`modelcompare.posterior.REGRESSORS`, or an estimator as is."""
    if isinstance(regressor, str):
        return check_choice(regressor, "regressor", REGRESSORS)
    return regressor


def check_classifier(classifier: Any) -> str:
    """A classifier name of the reference C2ST, among :data:`modelcompare.twosample.CLASSIFIERS`."""
    return check_choice(classifier, "classifier", CLASSIFIERS)


def regressor_name(regressor: Any) -> str:
    """The regressor as the report's settings record it."""
    return regressor if isinstance(regressor, str) else type(regressor).__name__


def input_hash(*arrays: Any) -> str:
    """SHA-256 of the shapes and float64 bytes of the given arrays (None skipped)."""
    digest = hashlib.sha256()
    for a in arrays:
        if a is not None:
            a = np.ascontiguousarray(np.asarray(a, dtype=float))
            digest.update(str(a.shape).encode())
            digest.update(a.tobytes())
    return digest.hexdigest()


class StoredDraws:
    """A flow-like object whose ``sample`` returns stored posterior draws (shape (N, S, m))."""

    def __init__(self, draws: np.ndarray) -> None:
        self.draws = draws

    def sample(self, x: Any, n: int, seed: SeedLike = None) -> np.ndarray:
        """The first ``n`` stored draws of every pair (``x`` and ``seed`` are not used)."""
        return self.draws[:, :n]


def evaluation_points(x: np.ndarray, x_eval: Any, x_obs: Any) -> tuple[np.ndarray, Any]:
    """The local checks' points (``x_eval``, then the rows of ``x_obs``) and the checked x_obs."""
    if x_obs is not None:
        x_obs = check_samples(x_obs, "x_obs", min_samples=1)
        if x_obs.shape[1] != x.shape[1]:
            msg = f"`x_obs` must have {x.shape[1]} columns like `x`; got {x_obs.shape[1]}."
            raise ValueError(msg)
    if x_eval is not None:
        x_eval = check_samples(x_eval, "x_eval", min_samples=1)
        return (x_eval if x_obs is None else np.vstack([x_eval, x_obs])), x_obs
    return (default_x_eval(x) if x_obs is None else x_obs), x_obs
