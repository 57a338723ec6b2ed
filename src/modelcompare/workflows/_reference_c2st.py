"""The report's reference C2ST: posterior draws against exact draws at several observations."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from modelcompare._foundation.pvalues import holm_adjust
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.validation import as_numpy, check_nonempty, check_samples

__all__ = ["ReferenceC2STResult", "check_reference", "reference_c2st"]


@result_class
class ReferenceC2STResult(TestResult):
    """C2ST of posterior draws against reference draws at several observations.

    Attributes
    ----------
    statistic : float
        The largest held-out accuracy over the observations.
    pvalue : float
        The smallest Holm-adjusted p-value over the observations.
    statistics, pvalues, pvalues_adjusted : numpy.ndarray, shape (n_observations,)
        Per-observation accuracies, p-values and Holm-adjusted p-values.
    results : tuple of C2STResult
        The per-observation results.
    seed_used : int or None
        Seed of the draws and classifiers.
    """

    statistic: float
    pvalue: float
    statistics: np.ndarray
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    results: tuple[Any, ...]
    seed_used: int | None


def reference_c2st(
    draws_at: Callable[[int, np.ndarray, int, Any], np.ndarray],
    reference: Sequence[tuple[Any, Any]],
    rng: np.random.Generator,
    classifier: str,
) -> ReferenceC2STResult:
    """C2ST at each reference observation, Holm across the observations.

    ``draws_at(i, x_o, n, rng)`` returns the posterior's ``n`` draws at the i-th observation
    ``x_o``; the draws and every classifier take their randomness from ``rng``, in turn.
    """
    from modelcompare.twosample import c2st

    results = []
    for i, (x_o, draws) in enumerate(reference):
        draws = check_samples(draws, f"reference[{i}] draws")
        x_o = np.asarray(x_o, dtype=float).reshape(1, -1)
        posterior = np.asarray(draws_at(i, x_o, draws.shape[0], rng), dtype=float)
        posterior = posterior.reshape(draws.shape[0], -1)
        results.append(c2st(draws, posterior, classifier=classifier, seed=rng))
    statistics = np.array([r.statistic for r in results])
    pvalues = np.array([r.pvalue for r in results])
    adjusted = holm_adjust(pvalues)
    return ReferenceC2STResult(
        statistic=float(statistics.max()),
        pvalue=float(adjusted.min()),
        statistics=statistics,
        pvalues=pvalues,
        pvalues_adjusted=adjusted,
        results=tuple(results),
        seed_used=None,
    )


def check_reference(
    reference: Any, n_params: int, n_features: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Validated ``(x_o, draws)`` pairs: x_o of shape (1, d) like ``x``, draws (n, m) like ``theta``."""
    out = []
    for i, pair in enumerate(check_nonempty(reference, "reference")):
        if isinstance(pair, str | bytes) or not hasattr(pair, "__len__") or len(pair) != 2:
            msg = f"`reference[{i}]` must be a pair (x_o, draws); got {type(pair).__name__}."
            raise TypeError(msg)
        x_o, draws = pair
        name = f"reference[{i}] x_o"
        x_o = check_samples(as_numpy(x_o, name).reshape(1, -1), name, min_samples=1)
        if x_o.shape[1] != n_features:
            msg = f"`{name}` must have {n_features} values like a row of `x`; got {x_o.shape[1]}."
            raise ValueError(msg)
        name = f"reference[{i}] draws"
        draws = check_samples(draws, name)
        if draws.shape[1] != n_params:
            msg = f"`{name}` must have {n_params} columns like `theta`; got {draws.shape[1]}."
            raise ValueError(msg)
        out.append((x_o, draws))
    return out
