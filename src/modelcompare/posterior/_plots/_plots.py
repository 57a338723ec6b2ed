"""Plots of the posterior diagnostics (matplotlib imported lazily; nothing is shown or saved).

Every function takes ``ax`` (one Axes, or an array of them for several panels; created only
when None) and returns it. Bands state their
level and type in the legend.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare._foundation.deprecation import renamed_parameters
from modelcompare._foundation.plotting import (
    axes_row,
    check_labels,
    check_result_type,
    new_axes,
)
from modelcompare._foundation.results import check_alpha
from modelcompare._foundation.validation import check_choice, check_int, check_vector
from modelcompare.posterior._calibration._global import GlobalCoverageResult
from modelcompare.posterior._local._lct import LocalCoverageResult

__all__ = ["plot_global_histograms", "plot_global_pp", "plot_local_pp", "plot_local_statistics"]

BANDS = ("both", "pointwise", "simultaneous", "none")


def _axes(axes: Any, k: int, purpose: str) -> np.ndarray:
    return axes_row(axes, k, purpose, what="one per covariate")


def _labels(m: int, labels: Any) -> list[str]:
    return check_labels(labels, m, [f"z{i + 1}" for i in range(m)])


@renamed_parameters(axes="ax")
def plot_global_pp(
    result: GlobalCoverageResult,
    *,
    ax: Any = None,
    band: str = "both",
    labels: Any = None,
    **kwargs: Any,
) -> np.ndarray:
    """Global PP-plot r̂_i(γ) against the credibility level γ for each covariate, with null bands.

    Parameters
    ----------
    result : GlobalCoverageResult
    ax : array of Axes, optional
        One per covariate.
    band : {"both", "pointwise", "simultaneous", "none"}
    labels : list of str, optional
        Panel titles (default z1..zm: the covariates are latent coordinates).
    **kwargs
        Passed to the PP-curve ``plot`` call.

    Returns
    -------
    numpy.ndarray of Axes

    References
    ----------
    .. [1] J. Linhart, A. Gramfort and P. L. C. Rodrigues (2022). Validation Diagnostics for SBI
       algorithms based on Normalizing Flows. arXiv:2211.09602.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import global_coverage_test
    >>> res = global_coverage_test(np.random.default_rng(0).uniform(size=(200, 2)), seed=0)
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> axes = plot_global_pp(res)
    >>> len(axes)
    2
    >>> matplotlib.pyplot.close("all")
    """
    check_result_type(result, GlobalCoverageResult, "global_coverage_test")
    band = check_choice(band, "band", BANDS)
    m = result.pp_values.shape[1]
    names = _labels(m, labels)
    axs = _axes(ax, m, "plot_global_pp")
    a = result.levels
    for i, panel in enumerate(axs):
        if band in ("both", "simultaneous"):
            lo, hi = result.simultaneous_band
            panel.fill_between(a, lo, hi, color="0.85", label=result.band_label("simultaneous"))
        if band in ("both", "pointwise"):
            lo, hi = result.pointwise_band
            panel.fill_between(a, lo, hi, color="0.65", label=result.band_label("pointwise"))
        panel.plot([0, 1], [0, 1], "k--", lw=1)
        panel.plot(a, result.pp_values[:, i], **{"color": "C0", **kwargs})
        panel.set_title(f"{names[i]} (KS p={result.pvalues[i]:.2g})")
        panel.set_xlabel("credibility level γ")
        panel.set_ylabel("r̂(γ)")
    if band != "none":
        axs[0].legend(fontsize="x-small", loc="upper left")
    return axs


@renamed_parameters(axes="ax")
def plot_global_histograms(
    result: GlobalCoverageResult, *, ax: Any = None, labels: Any = None, **kwargs: Any
) -> np.ndarray:
    """Histogram of each PIT covariate with the binomial band of one bin's count.

    Parameters
    ----------
    result : GlobalCoverageResult
    ax : array of Axes, optional
        One per covariate.
    labels : list of str, optional
        Panel titles (default z1..zm).
    **kwargs
        Passed to the ``stairs`` call.

    Returns
    -------
    numpy.ndarray of Axes

    References
    ----------
    .. [1] J. Linhart, A. Gramfort and P. L. C. Rodrigues (2022). Validation Diagnostics for SBI
       algorithms based on Normalizing Flows. arXiv:2211.09602.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import global_coverage_test
    >>> res = global_coverage_test(np.random.default_rng(0).uniform(size=(200, 2)), seed=0)
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> axes = plot_global_histograms(res)
    >>> len(axes)
    2
    >>> matplotlib.pyplot.close("all")
    """
    check_result_type(result, GlobalCoverageResult, "global_coverage_test")
    m = result.hist_counts.shape[1]
    names = _labels(m, labels)
    axs = _axes(ax, m, "plot_global_histograms")
    edges = result.bin_edges
    lo, hi = result.hist_band
    corr = ", Bonferroni" if result.band_correction == "bonferroni" else ""
    for i, panel in enumerate(axs):
        panel.axhspan(
            lo,
            hi,
            color="0.85",
            label=f"{100 * result.confidence_level:g} % pointwise (binomial{corr})",
        )
        panel.stairs(result.hist_counts[:, i], edges, fill=True, **{"alpha": 0.7, **kwargs})
        panel.set_title(names[i])
        panel.set_xlabel("PIT")
    axs[0].set_ylabel("count")
    axs[0].legend(fontsize="x-small")
    return axs


def plot_local_statistics(
    result: LocalCoverageResult,
    *,
    path: Any = None,
    ax: Any = None,
    alpha: float | None = 0.05,
    labels: Any = None,
    **kwargs: Any,
) -> Any:
    """T_i(x₀) along a path of evaluation points, one line per covariate.

    Parameters
    ----------
    result : LocalCoverageResult
    path : array-like, shape (E,), optional
        The path coordinate of each x₀ (default: its index).
    ax : Axes, optional
    alpha : float or None
        Significance level: mark the evaluation points where H0(x₀) is rejected at this level after
        the correction across points (``result.pvalues_adjusted <= alpha``).
    labels : list of str, optional
        Legend names of the covariates (default z1..zm).
    **kwargs
        Passed to each line's ``plot`` call.

    Returns
    -------
    Axes

    References
    ----------
    .. [1] D. Zhao, N. Dalmasso, R. Izbicki and A. B. Lee (2021). Diagnostics for Conditional
       Density Models and Bayesian Inference Algorithms. Conference on Uncertainty in Artificial
       Intelligence (UAI). arXiv:2102.10473.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import local_coverage_test
    >>> rng = np.random.default_rng(0)
    >>> x, p = rng.normal(size=(300, 1)), rng.uniform(size=(300, 1))
    >>> res = local_coverage_test(p, x, [[-1.0], [0.0], [1.0]], regressor="knn",
    ...                           n_resamples=99, levels=9, seed=0)
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_local_statistics(res, path=[-1, 0, 1])
    >>> len(ax.get_lines())
    1
    >>> matplotlib.pyplot.close("all")
    """
    check_result_type(result, LocalCoverageResult, "local_coverage_test")
    m, e = result.statistics.shape
    t = np.arange(e) if path is None else check_vector(path, "path")
    if t.size != e:
        msg = f"`path` must have {e} values (one per evaluation point); got {t.size}."
        raise ValueError(msg)
    names = _labels(m, labels)
    level = None if alpha is None else check_alpha(alpha)
    ax = new_axes(ax, "plot_local_statistics", figsize=(5, 3))
    for i in range(m):
        ax.plot(t, result.statistics[i], marker=".", label=f"T {names[i]}", **kwargs)
    if level is not None:
        rej = result.pvalues_adjusted <= level
        if rej.any():
            top = result.statistics.max(axis=0)
            label = f"H0(x₀) rejected at {alpha:g} ({result.eval_correction})"
            ax.plot(t[rej], top[rej], "rv", ms=6, label=label)
    ax.set_xlabel("evaluation point" if path is None else "x₀ along path")
    ax.set_ylabel(f"T ({result.statistic_type})")
    ax.legend(fontsize="x-small")
    return ax


@renamed_parameters(axes="ax")
def plot_local_pp(
    result: LocalCoverageResult,
    index: int = 0,
    *,
    ax: Any = None,
    labels: Any = None,
    **kwargs: Any,
) -> np.ndarray:
    """Local PP-plot r̂_{i,γ}(x₀) against γ at evaluation point ``index``, with Algorithm 2's band.

    Parameters
    ----------
    result : LocalCoverageResult
    index : int
        The evaluation point.
    ax : array of Axes, optional
        One per covariate.
    labels : list of str, optional
        Panel titles (default z1..zm).
    **kwargs
        Passed to the PP-curve ``plot`` call.

    Returns
    -------
    numpy.ndarray of Axes

    References
    ----------
    .. [1] D. Zhao, N. Dalmasso, R. Izbicki and A. B. Lee (2021). Diagnostics for Conditional
       Density Models and Bayesian Inference Algorithms. Conference on Uncertainty in Artificial
       Intelligence (UAI). arXiv:2102.10473.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import local_coverage_test
    >>> rng = np.random.default_rng(0)
    >>> x, p = rng.normal(size=(300, 1)), rng.uniform(size=(300, 1))
    >>> res = local_coverage_test(p, x, [[0.0]], regressor="knn", n_resamples=99, levels=9,
    ...                           seed=0)
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> axes = plot_local_pp(res, 0)
    >>> len(axes)
    1
    >>> matplotlib.pyplot.close("all")
    """
    check_result_type(result, LocalCoverageResult, "local_coverage_test")
    m, e, _ = result.r_hat.shape
    index = check_int(index, "index", low=0, high=e - 1)
    names = _labels(m, labels)
    axs = _axes(ax, m, "plot_local_pp")
    a = result.levels
    for i, panel in enumerate(axs):
        panel.fill_between(
            a,
            result.band_low[index],
            result.band_high[index],
            color="0.85",
            label=result.band_label(),
        )
        panel.plot([0, 1], [0, 1], "k--", lw=1)
        panel.plot(a, result.r_hat[i, index], **{"color": "C1", **kwargs})
        panel.set_title(f"{names[i]} at x₀ #{index} (p={result.covariate_pvalues[i, index]:.2g})")
        panel.set_xlabel("credibility level γ")
    axs[0].set_ylabel("r̂(γ | x₀)")
    axs[0].legend(fontsize="x-small", loc="upper left")
    return axs
