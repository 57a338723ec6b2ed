"""The pass/fail ladder of a granularity evaluation; matplotlib is imported lazily."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare._foundation.optional import import_optional
from modelcompare._foundation.plotting import check_result_type, new_axes
from modelcompare.categorical._granularity import GranularityResult

__all__ = ["plot_granularity"]


def plot_granularity(result: GranularityResult, *, ax: Any = None, **kwargs: Any) -> Any:
    """Draw the pass/fail ladder of a granularity evaluation over the levels k.

    For each tested level k the binned total-variation distance d_TV(p^B, q̂^B) is a marker: a
    circle where the closeness test accepted (q^B close to p^B at that k), a cross where it
    rejected. A vertical dashed line marks the granularity ``value`` (the finest level passed
    before the first rejection) and the legend states the level α of every test.

    The binned TV is drawn rather than the test statistic against its threshold: it is a distance
    in [0, 1] on the same scale for every mode and level, it grows with k as the bins refine (the
    ladder), and in the batch-majority modes (``"paper"``, ``"amplified"``) the decision is taken
    by the batches, so the overall statistic alone can sit on either side of its threshold. With
    ``mode="tv-bound"`` the statistic *is* the binned TV and its threshold is drawn too.

    Parameters
    ----------
    result : GranularityResult
        A :func:`~modelcompare.granularity` result.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure is made only when None.
    **kwargs
        Forwarded to both ``ax.scatter`` calls (accepted and rejected levels), e.g. ``s=`` or
        ``edgecolors=``; ``color`` or ``marker`` override the pass/fail styling.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        If ``result`` is not a :class:`~modelcompare.GranularityResult`.

    References
    ----------
    .. [1] F. Regol, A. Kroon and M. Coates (2023). Evaluation of Categorical Generative Models --
       Bridging the Gap Between Real and Synthetic Data. IEEE International Conference on Acoustics,
       Speech and Signal Processing (ICASSP). arXiv:2210.16405.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from modelcompare import granularity, plot_granularity, stair_distribution
    >>> p = stair_distribution(6, 6, 3, 2.0)
    >>> res = granularity(p, p.sample(2000, seed=1), epsilon=0.18, seed=0)
    >>> ax = plot_granularity(res)
    >>> ax.get_xlabel()
    'level k (number of bins)'
    """
    check_result_type(result, GranularityResult, "modelcompare.granularity")
    ax = new_axes(ax, "plot_granularity", figsize=(6.4, 4.0))
    ticker = import_optional("matplotlib.ticker", purpose="plot_granularity")
    k = np.asarray(result.k_values)
    tv = np.asarray(result.tv)
    rejected = np.asarray(result.decisions, dtype=bool)
    ax.plot(k, tv, color="0.7", linewidth=1.0, zorder=1)
    styles = (
        (~rejected, {"marker": "o", "color": "C0", "s": 50, "label": "accepted"}),
        (rejected, {"marker": "X", "color": "C3", "s": 70, "label": "rejected"}),
    )
    for mask, style in styles:
        if mask.any():
            ax.scatter(k[mask], tv[mask], zorder=3, **{**style, **kwargs})
    if result.mode == "tv-bound":
        ax.plot(k, result.thresholds, color="0.4", linestyle=":", label="threshold")
    value = int(result.value)
    if result.all_accepted:
        note = " (every level accepted)"
    elif value < int(k[0]):
        note = f" (even k = {int(k[0])} rejected)"
    else:
        note = ""
    ax.axvline(
        value, color="k", linestyle="--", linewidth=1.2, label=f"granularity = {value}{note}"
    )
    ax.set_xlim(min(value, int(k[0])) - 0.5, int(k[-1]) + 0.5)
    ax.axhline(0.0, color="0.85", linewidth=0.8, zorder=0)  # TV >= 0; keeps y autoscaling on
    ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    ax.set_xlabel("level k (number of bins)")
    ref = r"\hat{p}" if result.two_sample else "p"
    ax.set_ylabel(rf"binned TV distance $d_\mathrm{{TV}}({ref}^B, \hat{{q}}^B)$")
    ax.legend(
        title=f"level α = {result.alpha:g} per test, ε = {result.epsilon:g}",
        fontsize="small",
        title_fontsize="small",
        loc="best",
    )
    return ax
