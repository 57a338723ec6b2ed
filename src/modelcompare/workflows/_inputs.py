"""Helpers both front doors of the posterior report share: evaluation points, options, hashes."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from modelcompare._foundation.seeds import SeedLike
from modelcompare._foundation.validation import check_choice, check_int, check_samples
from modelcompare.posterior import REGRESSORS
from modelcompare.twosample import CLASSIFIERS

__all__ = [
    "DEFAULT_EVAL_DIRECTIONS",
    "DEFAULT_EVAL_QUANTILE",
    "StoredDraws",
    "check_classifier",
    "check_regressor",
    "default_x_eval",
    "evaluation_points",
    "input_hash",
    "regressor_name",
]


#: Principal directions the default evaluation points reach, on both sides of the centre.
DEFAULT_EVAL_DIRECTIONS = 3

#: The Mahalanobis-radius quantile of the calibration x's at which the off-centre points sit.
DEFAULT_EVAL_QUANTILE = 0.8


def default_x_eval(
    x: np.ndarray,
    *,
    n_directions: int = DEFAULT_EVAL_DIRECTIONS,
    quantile: float = DEFAULT_EVAL_QUANTILE,
) -> np.ndarray:
    """Evaluation points that reach the calibration x's in every principal direction.

    The rule, in the Mahalanobis (whitened) coordinates w of the standardised x's, where the
    calibration cloud is round: the row nearest the centre w = 0, then, for each of the first
    ``n_directions`` principal directions e_k of the standardised x's, the rows nearest
    +r e_k and −r e_k, with r the ``quantile`` of the rows' Mahalanobis radii ‖w‖. Nearest is
    in the Mahalanobis distance, so every point is a calibration row. That is 1 + 2k points, k
    = min(d, ``n_directions``, the rank of x): 3 for d = 1 (the rows nearest the 10 % and 90 %
    quantiles and the median, for symmetric data), 5 for d = 2 and 7 for d ≥ 3. For every unit
    direction u of a k-dimensional x one of the ±e_j has u · (±e_j) ≥ 1/√k, so some target
    lies r/√k or further out along u: every direction of the cloud, not only its first, holds a
    point well away from the centre (r ≈ 2.1 for d = 3, so beyond about 1.2 standard deviations
    in the worst direction). The local checks' cost and their planned B grow with the number of
    points, hence at most three directions: for d > 3 the trailing directions are not reached,
    and ``x_eval`` (or ``x_obs``) should name the points that matter.
    Points that fall on the same row are kept once. The sign of e_k is chosen so that its
    largest coordinate is positive; the order is centre, +e₁, −e₁, +e₂, −e₂, ….

    Parameters
    ----------
    x : numpy.ndarray, shape (N, d)
        The calibration x's.
    n_directions : int
        The most principal directions the points reach (both signs).
    quantile : float
        The Mahalanobis-radius quantile of the off-centre points, in (0, 1).

    Returns
    -------
    numpy.ndarray, shape (E, d)
        Rows of ``x``, E ≤ 1 + 2·``n_directions``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(500, 3))
    >>> default_x_eval(x).shape
    (7, 3)
    >>> default_x_eval(x[:, :2]).shape
    (5, 2)
    """
    n_directions = check_int(n_directions, "n_directions", low=1)
    if not 0.0 < quantile < 1.0:
        msg = f"`quantile` must be in (0, 1); got {quantile}."
        raise ValueError(msg)
    sd = x.std(axis=0)
    z = (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    u, s, vt = np.linalg.svd(z, full_matrices=False)
    rank = int(np.sum(s > s[0] * 1e-10)) if s.size and s[0] > 0 else 0
    if rank == 0:  # every row the same: the one point there is
        return x[:1]
    w = u[:, :rank] * np.sqrt(x.shape[0])  # whitened: unit variance along every direction
    radius = float(np.quantile(np.linalg.norm(w, axis=1), quantile))
    k = min(n_directions, rank)
    signs = np.sign(vt[np.arange(k), np.argmax(np.abs(vt[:k]), axis=1)])
    targets = [np.zeros(rank)]
    for j in range(k):
        for side in (1.0, -1.0):
            t = np.zeros(rank)
            t[j] = side * signs[j] * radius
            targets.append(t)
    rows: list[int] = []
    for t in targets:
        row = int(np.argmin(np.sum((w - t) ** 2, axis=1)))
        if row not in rows:
            rows.append(row)
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
