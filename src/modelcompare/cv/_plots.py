"""Plots for cross-validated comparison; matplotlib is imported lazily, inside the functions."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare._foundation.plotting import check_result_type, new_axes
from modelcompare._foundation.results import check_alpha
from modelcompare.cv._bayes import BayesianTTestResult
from modelcompare.cv._multi import NemenyiResult, WilcoxonHolmResult, nemenyi_test

__all__ = ["plot_critical_difference", "plot_pair_probabilities", "plot_posterior"]


def plot_posterior(
    result: BayesianTTestResult,
    *,
    ax: Any = None,
    names: tuple[str, str] = ("a", "b"),
    **kwargs: Any,
) -> Any:
    """Plot the Student-t posterior of the mean difference with the ROPE shaded.

    Parameters
    ----------
    result : BayesianTTestResult
        From :func:`bayesian_ttest`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure is made only when None.
    names : (str, str)
        Model names for the legend.
    **kwargs
        Passed to the density line (``ax.plot``).

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    .. [1] A. Benavoli, G. Corani, J. Demšar and M. Zaffalon (2017). Time for a Change: a Tutorial
       for Comparing Multiple Classifiers Through Bayesian Analysis. Journal of Machine Learning
       Research 18(77), 1–36. arXiv:1606.04316.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from modelcompare import bayesian_ttest, plot_posterior
    >>> rng = np.random.default_rng(0)
    >>> a = 0.8 + 0.02 * rng.standard_normal(20)
    >>> res = bayesian_ttest(a, a - 0.01 + 0.01 * rng.standard_normal(20), n_train=90, n_test=10)
    >>> ax = plot_posterior(res, names=("svm", "tree"))
    >>> ax.get_xlabel()
    'mean difference μ (svm − tree)'
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    check_result_type(result, BayesianTTestResult, "bayesian_ttest")
    if (
        not isinstance(names, tuple | list)
        or len(names) != 2
        or not all(isinstance(n, str) for n in names)
    ):
        msg = f"`names` must be two model names (str, str); got {names!r}."
        raise TypeError(msg)
    ax = new_axes(ax, "plot_posterior")
    a, b = names
    lo, hi = result.rope
    if result.posterior is None:  # point mass
        ax.axvline(result.mean_difference, **{"color": "C0", **kwargs})
        grid_lo, grid_hi = (
            min(lo, result.mean_difference) - 0.01,
            max(hi, result.mean_difference) + 0.01,
        )
        ymax = 1.0
    else:
        post = result.posterior
        grid_lo = min(float(post.ppf(0.001)), lo)
        grid_hi = max(float(post.ppf(0.999)), hi)
        x = np.linspace(grid_lo, grid_hi, 400)
        pdf = post.pdf(x)
        ax.plot(x, pdf, **{"color": "C0", "label": "posterior of μ", **kwargs})
        ax.fill_between(
            x,
            pdf,
            where=x > hi,
            color="C2",
            alpha=0.3,
            label=f"P({a} better) = {result.prob_a_better:.3f}",
        )
        ax.fill_between(
            x,
            pdf,
            where=x < lo,
            color="C3",
            alpha=0.3,
            label=f"P({b} better) = {result.prob_a_worse:.3f}",
        )
        ymax = float(pdf.max())
    if hi > lo:
        ax.axvspan(
            lo,
            hi,
            color="0.6",
            alpha=0.35,
            label=f"ROPE [{lo:g}, {hi:g}]: P = {result.prob_rope:.3f}",
        )
    ax.set_xlim(grid_lo, grid_hi)
    ax.set_ylim(0, ymax * 1.05)
    ax.set_xlabel(f"mean difference μ ({a} − {b})")
    ax.set_ylabel("posterior density")
    ax.set_title("Bayesian correlated t-test")
    ax.legend(loc="best", fontsize="small")
    return ax


def plot_critical_difference(
    result: Any,
    *,
    alpha: float | None = None,
    ax: Any = None,
    **kwargs: Any,
) -> Any:
    """Critical-difference diagram (Demšar 2006): average ranks, with cliques joined by bars.

    Models on one bar are not significantly different by the post-hoc test that produced
    ``result``: Nemenyi at the level it ran at (its critical difference is drawn above the axis),
    or Wilcoxon signed-rank tests with their correction at ``alpha``.

    Parameters
    ----------
    result : NemenyiResult, WilcoxonHolmResult or scores table
        From :func:`nemenyi_test` or :func:`wilcoxon_holm_test`; or a data sets × models table of
        scores (a DataFrame whose columns name the models, or a 2-D array; greater is better),
        on which :func:`nemenyi_test` runs at ``alpha``.
    alpha : float, optional
        The level of the cliques for a :class:`WilcoxonHolmResult` or a scores table (default
        0.05). A Nemenyi result has its level fixed when the test ran, so ``alpha`` must then be
        None.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure is made only when None.
    **kwargs
        Passed to the clique bars (``ax.plot``).

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    .. [1] J. Demšar (2006). Statistical Comparisons of Classifiers over Multiple Data Sets. Journal
       of Machine Learning Research 7, 1–30. https://jmlr.org/papers/v7/demsar06a.html.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from modelcompare import nemenyi_test, plot_critical_difference, wilcoxon_holm_test
    >>> rng = np.random.default_rng(0)
    >>> scores = np.array([0.8, 0.7, 0.6]) + 0.05 * rng.standard_normal((12, 3))
    >>> ax = plot_critical_difference(nemenyi_test(scores, names=["a", "b", "c"]))
    >>> ax = plot_critical_difference(wilcoxon_holm_test(scores), alpha=0.01)
    >>> ax.get_title()
    'average ranks; bars: not significantly different (Wilcoxon, holm, α = 0.01)'
    >>> import pandas as pd
    >>> ax = plot_critical_difference(pd.DataFrame(scores, columns=["a", "b", "c"]))
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    if not isinstance(result, NemenyiResult | WilcoxonHolmResult) and (
        hasattr(result, "columns") or getattr(result, "ndim", None) == 2
    ):
        # a scores table: Nemenyi's test at alpha, the post-hoc test of Demšar's CD diagram
        result = nemenyi_test(result, alpha=0.05 if alpha is None else alpha)
        alpha = None
    check_result_type(
        result,
        (NemenyiResult, WilcoxonHolmResult),
        "nemenyi_test or wilcoxon_holm_test, or pass a data sets × models DataFrame of scores",
    )
    if isinstance(result, NemenyiResult):
        if alpha is not None:
            msg = (
                "a Nemenyi result's level is fixed when the test runs; leave `alpha` None or "
                "rerun nemenyi_test(..., alpha=...)."
            )
            raise ValueError(msg)
        level = result.alpha
        cliques = result.cliques()
        cd: float | None = result.threshold
        method = "Nemenyi"
    else:
        level = 0.05 if alpha is None else check_alpha(alpha)
        cliques = result.cliques(level)
        cd = None
        method = "Wilcoxon" + (f", {result.correction}" if result.correction else "")
    ax = new_axes(ax, "plot_critical_difference")
    names = list(result.names)
    ranks = np.asarray(result.average_ranks, dtype=float)
    k = len(names)
    order = np.argsort(ranks, kind="stable")
    lo_r, hi_r = 1.0, float(max(k, np.ceil(ranks.max())))
    ax.plot([lo_r, hi_r], [0, 0], color="k", lw=1)
    for r in range(1, int(hi_r) + 1):
        ax.plot([r, r], [0, 0.05], color="k", lw=1)
        ax.text(r, 0.1, str(r), ha="center", va="bottom", fontsize="small")
    half = (k + 1) // 2
    step = 0.25
    for pos, j in enumerate(order):
        left = pos < half
        depth = -(pos + 1) * step if left else -(k - pos) * step
        x_text = lo_r - 0.3 if left else hi_r + 0.3
        ax.plot([ranks[j], ranks[j], x_text], [0, depth, depth], color="k", lw=0.8)
        ax.text(
            x_text,
            depth,
            f"{names[j]} ({ranks[j]:.2f})",
            ha="right" if left else "left",
            va="center",
            fontsize="small",
        )
    bar_style = {"color": "k", "lw": 3, "solid_capstyle": "round", **kwargs}
    for c, clique in enumerate(cliques):
        idx = [names.index(m) for m in clique]
        y = -0.1 - c * 0.08
        ax.plot([ranks[idx].min() - 0.03, ranks[idx].max() + 0.03], [y, y], **bar_style)
    if cd is not None:
        ax.plot([lo_r, lo_r + cd], [0.45, 0.45], color="k", lw=1.5)
        ax.text(lo_r + cd / 2, 0.5, f"CD = {cd:.3f}", ha="center", va="bottom", fontsize="small")
    ax.set_xlim(lo_r - 2.0, hi_r + 2.0)
    ax.set_ylim(-(half + 1) * step - 0.1, 0.8)
    ax.axis("off")
    ax.set_title(
        f"average ranks; bars: not significantly different ({method}, α = {level:g})",
        fontsize="small",
    )
    return ax


def plot_pair_probabilities(table: Any, *, ax: Any = None) -> Any:
    """Stacked bars of each pair's posterior probabilities (a worse, ROPE, a better).

    Parameters
    ----------
    table : pandas.DataFrame
        A pairwise table with ``model_a``, ``model_b``, ``prob_a_worse``, ``prob_rope`` and
        ``prob_a_better`` (``ModelComparisonResult.table`` or ``ModelComparisonReport.table``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure is made only when None.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from modelcompare import compare_models, plot_pair_probabilities
    >>> rng = np.random.default_rng(0)
    >>> scores = {"a": 0.9 + 0.02 * rng.standard_normal(50), "b": 0.88 + 0.02 * rng.standard_normal(50)}
    >>> ax = plot_pair_probabilities(compare_models(scores, n_train=90, n_test=10).table)
    >>> ax.get_xlabel()
    'posterior probability'
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    needed = ["model_a", "model_b", "prob_a_worse", "prob_rope", "prob_a_better"]
    missing = [c for c in needed if c not in getattr(table, "columns", [])]
    if missing:
        msg = f"`table` must be a pairwise table with columns {needed}; missing {missing}."
        raise ValueError(msg)
    ax = new_axes(ax, "plot_pair_probabilities")
    labels = [f"{a} vs {b}" for a, b in zip(table["model_a"], table["model_b"])]
    y = np.arange(len(labels))[::-1]
    left = np.zeros(len(labels))
    for col, colour, name in (
        ("prob_a_better", "tab:blue", "first better"),
        ("prob_rope", "tab:gray", "practically equivalent"),
        ("prob_a_worse", "tab:orange", "second better"),
    ):
        values = table[col].to_numpy(dtype=float)
        ax.barh(y, values, left=left, color=colour, label=name)
        left = left + values
    ax.set_yticks(y, labels)
    ax.set_xlim(0, 1)
    ax.axvline(0.95, color="k", lw=0.8, ls=":")
    ax.set_xlabel("posterior probability")
    ax.legend(loc="lower right", fontsize="small")
    return ax
