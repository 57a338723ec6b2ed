"""Figures of the calibration checks: SBC ranks, TARP coverage and PIT-covariate correlations."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare._foundation.plotting import check_labels, check_result_type, new_axes
from modelcompare._foundation.validation import check_choice, check_fraction
from modelcompare.posterior._calibration._pit import check_pit_values
from modelcompare.posterior._calibration._pit_independence import IndependenceResult
from modelcompare.posterior._calibration._sbc import SBCResult
from modelcompare.posterior._calibration._tarp import TARPResult

__all__ = ["plot_pit_correlations", "plot_sbc", "plot_tarp"]

_FIGSIZE = (5.0, 3.6)


def plot_sbc(
    result: SBCResult,
    *,
    ax: Any = None,
    kind: str = "ecdf",
    confidence_level: float = 0.95,
    labels: Any = None,
    **kwargs: Any,
) -> Any:
    """Plot SBC ranks: the ECDF difference with a simultaneous band, or the rank histogram.

    Parameters
    ----------
    result : SBCResult
        From :func:`sbc` or :func:`sbc_test`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    kind : {"ecdf", "hist"}
        Rank r ∈ {0, ..., S} is drawn on [r, r + 1) / (S + 1), so that uniform ranks fill [0, 1]
        evenly. ``"ecdf"``: the rank ECDF minus the uniform one, F̂(k) − (k + 1)/(S + 1) at
        u = (k + 1)/(S + 1) for k = 0, ..., S, per parameter, with the Dvoretzky–Kiefer–Wolfowitz
        band ±√(log(2/(1−c))/(2N)), simultaneous over u for each parameter. ``"hist"``: the rank
        histogram of every parameter in at most 20 bins of whole ranks, with the pointwise
        binomial band of each bin under uniform ranks (bins hold equally many ranks when 20
        divides S + 1, else one rank more or less).
    confidence_level : float
        The coverage c of the band.
    labels : sequence of str, optional
        Parameter names for the legend.
    **kwargs
        Passed to the lines (``"ecdf"``) or the histogram steps (``"hist"``).

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    .. [1] S. Talts et al. (2018). Validating Bayesian Inference Algorithms with Simulation-Based
       Calibration. arXiv:1804.06788.
    .. [2] T. Säilynoja, P. Bürkner and A. Vehtari (2022). Graphical Test for Discrete Uniformity
       and its Applications in Goodness-of-Fit Evaluation and Multiple Sample Comparison. Statistics
       and Computing 32, 32. doi:10.1007/s11222-022-10090-6, arXiv:2103.10522.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from modelcompare import plot_sbc, sbc_test
    >>> ranks = np.random.default_rng(0).integers(0, 51, size=(200, 2))
    >>> ax = plot_sbc(sbc_test(ranks, 50, seed=0))
    >>> len(ax.lines) >= 2
    True
    """
    check_result_type(result, SBCResult, "sbc or sbc_test")
    kind = check_choice(kind, "kind", ("ecdf", "hist"))
    level = check_fraction(confidence_level, "confidence_level")
    ranks = np.asarray(result.ranks, dtype=float)
    n, m = ranks.shape
    names = check_labels(labels, m, [f"θ{j + 1}" for j in range(m)])
    ax = new_axes(ax, "plot_sbc", figsize=_FIGSIZE)
    n_ranks = result.n_posterior_samples + 1
    if kind == "ecdf":
        half = np.sqrt(np.log(2.0 / (1.0 - level)) / (2.0 * n))
        ax.fill_between([0, 1], -half, half, color="0.85", label=f"{level:.0%} simultaneous (DKW)")
        # At the end of each rank's interval, where the uniform ECDF of discrete ranks is exact:
        # evaluating between ranks would draw a saw-tooth of height 1/(S + 1) under H0.
        upper = (np.arange(n_ranks) + 1.0) / n_ranks
        for j in range(m):
            ecdf = np.searchsorted(np.sort(ranks[:, j]), np.arange(n_ranks), side="right") / n
            ax.plot(np.r_[0.0, upper], np.r_[0.0, ecdf - upper], label=names[j], **kwargs)
        ax.axhline(0.0, color="k", lw=0.8, ls="--")
        ax.set(xlabel="normalised rank r / (S + 1)", ylabel="ECDF − uniform")
    else:
        from scipy import stats

        # Whole ranks per bin: bins cut between ranks hold unequal shares under H0 and alternate.
        n_bins = min(20, n_ranks)
        first = -(-np.arange(n_bins + 1) * n_ranks // n_bins)  # ceil(b (S + 1) / n_bins)
        edges = first / n_ranks
        share = np.diff(edges)
        low, high = stats.binom.interval(level, n, share)
        ax.stairs(
            high,
            edges,
            baseline=low,
            fill=True,
            color="0.85",
            label=f"{level:.0%} pointwise (binomial)",
        )
        ax.stairs(n * share, edges, color="k", lw=0.8, ls="--")
        for j in range(m):
            counts = np.bincount(
                np.searchsorted(first, ranks[:, j], side="right") - 1, minlength=n_bins
            )
            ax.stairs(counts, edges, label=names[j], **kwargs)
        ax.set(xlabel="normalised rank r / (S + 1)", ylabel="count")
    ax.set_title(f"SBC ranks ({result.method} p = {result.pvalue:.3g})")
    ax.legend(fontsize="small")
    return ax


def plot_tarp(result: TARPResult, *, ax: Any = None, **kwargs: Any) -> Any:
    """Plot TARP's expected coverage against the credibility level, with the diagonal.

    A calibrated posterior follows the diagonal; a curve below it marks an over-confident posterior
    (too narrow), above it an under-confident one (too wide).

    Parameters
    ----------
    result : TARPResult
        From :func:`tarp`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    **kwargs
        Passed to the coverage curve.

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    .. [1] P. Lemos, A. Coogan, Y. Hezaveh and L. Perreault-Levasseur (2023). Sampling-Based
       Accuracy Testing of Posterior Estimators for General Inference. International Conference on
       Machine Learning (ICML). arXiv:2302.03026.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel, plot_tarp, tarp
    >>> model = ConditionalGaussianModel(noise_cov=np.eye(2))
    >>> theta, x = model.simulate(200, seed=0)
    >>> ax = plot_tarp(tarp(model.exact_flow(), theta, x, n_posterior_samples=50, seed=0))
    >>> len(ax.lines)
    2
    """
    check_result_type(result, TARPResult, "tarp")
    ax = new_axes(ax, "plot_tarp", figsize=_FIGSIZE)
    ax.plot([0, 1], [0, 1], color="k", lw=0.8, ls="--", label="calibrated")
    ax.plot(result.levels, result.ecp, label="TARP", **kwargs)
    ax.set(
        xlabel="credibility level",
        ylabel="expected coverage",
        xlim=(0, 1),
        ylim=(0, 1),
        title=f"TARP (ATC = {result.atc:.3g}, p = {result.pvalue:.3g})",
    )
    ax.set_aspect("equal")
    ax.legend(fontsize="small")
    return ax


def plot_pit_correlations(result: Any, *, ax: Any = None, labels: Any = None, **kwargs: Any) -> Any:
    """Plot the PIT-covariate dependence as an annotated matrix.

    Parameters
    ----------
    result : IndependenceResult or array-like of shape (N, m)
        A :func:`pit_independence_test` result (its pairwise statistics fill the matrix), or PIT
        values, whose Spearman correlation matrix is drawn. A calibrated posterior shows no
        dependence between the PIT values of different parameters.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    labels : sequence of str, optional
        Parameter names.
    **kwargs
        Passed to ``imshow``.

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    .. [1] J. Linhart, A. Gramfort and P. L. C. Rodrigues (2022). Validation Diagnostics for SBI
       algorithms based on Normalizing Flows. arXiv:2211.09602.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from modelcompare import pit_independence_test, plot_pit_correlations
    >>> pit_values = np.random.default_rng(0).random((300, 3))
    >>> ax = plot_pit_correlations(pit_independence_test(pit_values))
    >>> ax.images[0].get_array().shape
    (3, 3)
    """
    if isinstance(result, IndependenceResult):
        m = 1 + max(max(pair) for pair in result.pairs)
        matrix = np.eye(m)
        for (i, j), value in zip(result.pairs, np.asarray(result.statistics, dtype=float)):
            matrix[i, j] = matrix[j, i] = value
        title = f"PIT dependence ({result.method}, p = {result.pvalue:.3g})"
    elif isinstance(result, np.ndarray | list | tuple):
        from scipy import stats

        values = check_pit_values(result, "result")
        if values.shape[1] < 2:
            msg = f"`result` as PIT values must have m >= 2 columns; got shape {values.shape}."
            raise ValueError(msg)
        matrix = np.atleast_2d(stats.spearmanr(values).statistic)
        title = "Spearman correlation of the PIT values"
    else:
        msg = (
            "`result` must be an IndependenceResult (from pit_independence_test) or PIT values; "
            f"got {type(result).__name__}."
        )
        raise TypeError(msg)
    m = matrix.shape[0]
    names = check_labels(labels, m, [f"θ{j + 1}" for j in range(m)])
    ax = new_axes(ax, "plot_pit_correlations", figsize=_FIGSIZE)
    image = ax.imshow(matrix, vmin=-1, vmax=1, cmap="RdBu_r", **kwargs)
    for i in range(m):
        for j in range(m):
            if i != j:
                ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize="small")
    ax.set_xticks(range(m), names)
    ax.set_yticks(range(m), names)
    ax.figure.colorbar(image, ax=ax, shrink=0.8)
    ax.set_title(title, fontsize="medium")
    return ax
