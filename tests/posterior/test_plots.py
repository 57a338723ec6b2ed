"""Plots of the posterior diagnostics."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from modelcompare import (
    ConditionalGaussianModel,
    TooFewResamplesWarning,
    global_coverage_test,
    local_coverage_test,
    pit,
    plot_global_histograms,
    plot_global_pp,
    plot_local_pp,
    plot_local_statistics,
)

mpl = pytest.importorskip("matplotlib")
mpl.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


@pytest.fixture(scope="module")
def results():
    model = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
    theta, x = model.simulate(500, seed=0)
    p = pit(model.exact_flow(offset=[0.3, 0.0]), theta, x)
    path = np.column_stack([np.linspace(-2, 2, 5)] * 2)
    with warnings.catch_warnings():  # small B on purpose: a plot, not a decision
        warnings.simplefilter("ignore", TooFewResamplesWarning)
        loc = local_coverage_test(p, x, path, levels=19, regressor="knn", n_resamples=40, seed=0)
    return global_coverage_test(p, levels=49, seed=0), loc


def test_global_plots_take_and_return_axes(results):
    glob, _ = results
    _fig, axes = plt.subplots(1, 2)
    out = plot_global_pp(glob, axes=axes)
    assert out[0] is axes[0]
    labels = out[0].get_legend_handles_labels()[1]
    assert any("95 % pointwise" in s for s in labels)
    assert any("simultaneous (Säilynoja" in s for s in labels)
    axs = plot_global_histograms(glob)
    assert len(axs) == 2
    assert any("95 %" in s for s in axs[0].get_legend_handles_labels()[1])
    with pytest.raises(ValueError, match="at least 2 Axes"):
        plot_global_pp(glob, axes=[axes[0]])
    plt.close("all")


def test_local_plots(results):
    _, loc = results
    ax = plot_local_statistics(loc, path=np.linspace(-2, 2, 5), labels=["θ1", "θ2"])
    assert len(ax.get_lines()) >= 2
    labels = ax.get_legend_handles_labels()[1]
    assert any("rejected" in s for s in labels) is bool(np.any(loc.pvalues_adjusted <= 0.05))
    assert any("credibility level" in a.get_xlabel() for a in plot_local_pp(loc, 0))
    axs = plot_local_pp(loc, 4)
    assert "pointwise null band" in axs[0].get_legend_handles_labels()[1][0]
    with pytest.raises(ValueError, match="index"):
        plot_local_pp(loc, 9)
    with pytest.raises(ValueError, match="path"):
        plot_local_statistics(loc, path=[1, 2])
    plt.close("all")
