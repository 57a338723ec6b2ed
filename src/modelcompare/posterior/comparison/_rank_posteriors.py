"""Rank k posterior estimators by a proper score on the same held-out pairs, with pairwise tests."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.plotting import check_result_type, new_axes
from modelcompare._foundation.pvalues import adjust_pvalues
from modelcompare._foundation.results import CollectionTestResult, check_alpha, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed, spawn
from modelcompare._foundation.validation import check_fraction, check_n_jobs
from modelcompare.posterior.comparison._compare_posteriors import (
    check_estimators_iv,
    check_sizes_iv,
    posterior_scores,
)
from modelcompare.posterior.comparison._local_mean import mean_interval, paired_mean_test

__all__ = ["PosteriorRankingResult", "plot_posterior_ranking", "rank_posteriors"]


@result_class
class PosteriorRankingResult(CollectionTestResult):
    """k posterior estimators ranked by a proper score, with pairwise tests (:func:`rank_posteriors`).

    A collection: ``table`` has one row per pair (``first``, ``second``, ``statistic`` = the mean
    score difference, positive when ``first`` is closer, ``standard_error``, ``ci_low``/``ci_high``
    of the 95 % interval, ``pvalue``, ``pvalue_adjusted``); ``pvalue`` is the smallest adjusted
    p-value, so :meth:`decision` is the family-wise decision "some pair differs".

    Attributes
    ----------
    pvalue : float
        The smallest adjusted pairwise p-value (1.0 for a single estimator).
    table : pandas.DataFrame
        One row per pair of estimators.
    names : list of str
        The estimators, best first (by mean score).
    mean_scores : numpy.ndarray of shape (k,)
        The mean score of each estimator in ``names`` order (log: mean log q, nats; energy: −ES).
    scoring_rule, method, correction : str
        The options the ranking ran with.
    n : int
        The number of calibration pairs.
    seed_used : int or None
        The seed that reproduces the run.
    scores : numpy.ndarray of shape (n, k)
        Per-pair scores, columns in ``names`` order.
    """

    _repr_fields: ClassVar[tuple[str, ...]] = ("pvalue", "n", "scoring_rule")

    pvalue: float
    table: Any
    names: list[str]
    mean_scores: np.ndarray
    scoring_rule: str
    method: str
    correction: str | None
    n: int
    seed_used: int | None
    scores: np.ndarray
    _tests: tuple[Any, ...] = ()

    def confidence_intervals(self, confidence_level: float = 0.95) -> np.ndarray:
        """Unadjusted intervals for the mean difference of each row of ``table``, shape (rows, 2)."""
        level = check_fraction(confidence_level, "confidence_level")
        return np.array([tuple(mean_interval(t, level, "two-sided")) for t in self._tests])


def _names_and_estimators(estimators: Any) -> tuple[list[str], list[Any]]:
    if isinstance(estimators, Mapping):
        names = [str(k) for k in estimators]
        items = list(estimators.values())
    elif isinstance(estimators, list | tuple):
        names = [f"estimator_{i}" for i in range(len(estimators))]
        items = list(estimators)
    else:
        msg = (
            "`estimators` must be a dict {name: estimator} or a list of estimators; got "
            f"{type(estimators).__name__}."
        )
        raise TypeError(msg)
    if len(items) < 2:
        msg = f"`estimators` needs at least 2 estimators; got {len(items)}."
        raise ValueError(msg)
    if len(set(names)) != len(names):
        msg = f"`estimators` names must be distinct; got {names}."
        raise ValueError(msg)
    return names, items


def rank_posteriors(
    estimators: Any,
    theta: Any,
    x: Any,
    *,
    scoring_rule: str = "log",
    correction: str | None = "holm",
    method: str = "t",
    n_resamples: int = 1999,
    n_posterior_samples: int = 100,
    seed: SeedLike = None,
    n_jobs: int | None = None,
) -> PosteriorRankingResult:
    """Rank k posterior estimators by their mean score on the same calibration pairs.

    Every estimator is scored on every pair (θ_n, x_n) as in :func:`compare_posteriors`, and each
    pair of estimators gets a paired two-sided test of its mean score difference; the k(k − 1)/2
    p-values are adjusted by ``correction``.

    Parameters
    ----------
    estimators : dict or list
        ``{name: estimator}``, or a list (named ``estimator_0``, ...). Each as in
        :func:`compare_posteriors`.
    theta : array-like of shape (n_samples, m)
        True parameters of the calibration pairs.
    x : array-like of shape (n_samples, d)
        Observations simulated from them.
    scoring_rule : {"log", "energy"}
        The proper score (see :func:`compare_posteriors`).
    correction : {"holm", "bonferroni", "fdr_bh", None}
        The multiplicity correction across pairs.
    method : {"t", "bootstrap"}
        The paired test of each pair.
    n_resamples : int
        Bootstrap resamples for ``method="bootstrap"``.
    n_posterior_samples : int
        Draws per observation for the energy score.
    seed : None, int or numpy.random.Generator
        Seeds the energy score's draws and the bootstrap.
    n_jobs : int, optional
        joblib workers for the energy score's blocks of rows.

    Returns
    -------
    PosteriorRankingResult
        The pairwise ``table``, the estimators ranked by mean score, ``pvalue`` and
        ``decision(alpha)``.

    Examples
    --------
    >>> import numpy as np
    >>> import modelcompare as mc
    >>> model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    >>> theta, x = model.simulate(2000, seed=0)
    >>> flows = {c: model.exact_flow(scale_factor=c) for c in (1.0, 1.5, 0.6)}
    >>> ranking = mc.rank_posteriors({f"c={c}": f for c, f in flows.items()}, theta, x, seed=0)
    >>> ranking.names
    ['c=1.0', 'c=1.5', 'c=0.6']
    >>> ranking.decision(0.05)
    True
    """
    theta_arr, x_arr = check_estimators_iv(theta, x, scoring_rule, "two-sided", method)
    names, items = _names_and_estimators(estimators)
    adjust_pvalues([], correction)
    n_resamples, n_posterior_samples = check_sizes_iv(
        n_resamples, n_posterior_samples, theta_arr.shape
    )
    n_jobs = check_n_jobs(n_jobs)
    rng, seed_used = check_seed(seed)
    score_rng, boot_rng = spawn(rng, 2)
    scores, _ = posterior_scores(
        items,
        names,
        theta_arr,
        x_arr,
        scoring_rule=scoring_rule,
        n_posterior_samples=n_posterior_samples,
        rng=score_rng,
        n_jobs=n_jobs,
    )
    means = scores.mean(axis=0)
    order = np.argsort(-means, kind="stable")
    names = [names[i] for i in order]
    scores = scores[:, order]
    pairs = list(itertools.combinations(range(len(names)), 2))
    children = spawn(boot_rng, len(pairs))
    tests = tuple(
        paired_mean_test(
            scores[:, i] - scores[:, j],
            alternative="two-sided",
            method=method,
            n_resamples=n_resamples,
            rng=c,
        )
        for (i, j), c in zip(pairs, children, strict=True)
    )
    same = [
        f"{names[i]} and {names[j]}" for (i, j), t in zip(pairs, tests, strict=True) if t.degenerate
    ]
    if same:
        warnings.warn(
            f"{'; '.join(same)} score identically on every pair (the same estimator passed "
            "twice?): their comparison is degenerate and its p-value is 1.",
            DegenerateDataWarning,
            stacklevel=2,
        )
    raw = np.array([t.pvalue for t in tests])
    adjusted = adjust_pvalues(raw, correction)
    import pandas as pd

    ci = [mean_interval(t, 0.95, "two-sided") for t in tests]
    table = pd.DataFrame(
        {
            "first": [names[i] for i, _ in pairs],
            "second": [names[j] for _, j in pairs],
            "statistic": [t.mean for t in tests],
            "standard_error": [t.standard_error for t in tests],
            "ci_low": [c.low for c in ci],
            "ci_high": [c.high for c in ci],
            "pvalue": raw,
            "pvalue_adjusted": adjusted,
        }
    )
    return PosteriorRankingResult(
        pvalue=float(adjusted.min()),
        table=table,
        names=names,
        mean_scores=means[order],
        scoring_rule=scoring_rule,
        method=method,
        correction=correction,
        n=int(theta_arr.shape[0]),
        seed_used=seed_used,
        scores=scores,
        _tests=tests,
    )


def plot_posterior_ranking(
    result: PosteriorRankingResult,
    *,
    ax: Any = None,
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    **kwargs: Any,
) -> Any:
    """Mean score differences of every pair of estimators, with their intervals.

    One row per pair of ``result.table``: the mean difference (positive: the first-named
    estimator is closer) and its unadjusted interval at ``confidence_level``; pairs whose adjusted
    p-value is ≤ ``alpha`` are drawn filled.

    Parameters
    ----------
    result : PosteriorRankingResult
        From :func:`rank_posteriors`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    alpha : float
        The level of the verdicts: pairs rejected at ``alpha`` (adjusted p-value) are marked.
    confidence_level : float
        The interval's coverage.
    **kwargs
        Passed to ``Axes.errorbar``.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> import modelcompare as mc
    >>> model = mc.ConditionalGaussianModel(noise_cov=np.eye(1))
    >>> theta, x = model.simulate(500, seed=0)
    >>> flows = [model.exact_flow(), model.exact_flow(scale_factor=2.0)]
    >>> ax = mc.plot_posterior_ranking(mc.rank_posteriors(flows, theta, x, seed=0))
    >>> len(ax.get_yticks())
    1
    """
    check_result_type(result, PosteriorRankingResult, "rank_posteriors")
    ci = result.confidence_intervals(confidence_level)
    ax = new_axes(ax, "plot_posterior_ranking")
    table = result.table
    y = np.arange(len(table))[::-1]
    stat = table["statistic"].to_numpy()
    err = np.vstack([stat - ci[:, 0], ci[:, 1] - stat])
    style = {"fmt": "o", "capsize": 3, "color": "C0"} | kwargs
    ax.errorbar(
        stat, y, xerr=err, label=f"{round(100 * confidence_level, 2):g} % interval", **style
    )
    alpha = check_alpha(alpha)
    significant = table["pvalue_adjusted"].to_numpy() <= alpha
    ax.scatter(
        stat[significant],
        y[significant],
        s=60,
        color="C3",
        zorder=3,
        label=f"adjusted p ≤ {alpha:g}",
    )
    ax.axvline(0.0, color="0.5", lw=1, ls="--")
    ax.set_yticks(y, [f"{a} − {b}" for a, b in zip(table["first"], table["second"], strict=True)])
    unit = "nats per pair" if result.scoring_rule == "log" else "standardised energy units"
    ax.set_xlabel(f"mean score difference ({unit}); > 0: first is closer")
    ax.legend(loc="best", fontsize="small")
    return ax
