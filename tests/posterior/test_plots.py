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
    out = plot_global_pp(glob, ax=axes)
    assert out[0] is axes[0]
    labels = out[0].get_legend_handles_labels()[1]
    assert any("95 % pointwise" in s for s in labels)
    assert any("simultaneous (Säilynoja" in s for s in labels)
    axs = plot_global_histograms(glob)
    assert len(axs) == 2
    assert any("95 %" in s for s in axs[0].get_legend_handles_labels()[1])
    with pytest.raises(ValueError, match="at least 2 Axes"):
        plot_global_pp(glob, ax=[axes[0]])
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
    with pytest.raises(TypeError, match="`path` must hold numeric data"):
        plot_local_statistics(loc, path=list("abcde"))
    plt.close("all")


def test_plot_options_are_validated(results):
    glob, loc = results
    for band in ("both", "pointwise", "simultaneous", "none"):
        plot_global_pp(glob, band=band)
    with pytest.raises(ValueError, match="`band` must be one of 'both'"):
        plot_global_pp(glob, band="upper")
    with pytest.raises(ValueError, match=r"`labels` must have 2 entries"):
        plot_global_histograms(glob, labels=["a"])
    with pytest.raises(TypeError, match="`index` must be an int; got '0'"):
        plot_local_pp(loc, "0")
    with pytest.raises(TypeError, match="`index` must be an int"):
        plot_local_pp(loc, True)
    with pytest.raises(ValueError, match=r"`index` must be in \[0, 4\]; got -1"):
        plot_local_pp(loc, -1)
    assert len(plot_local_pp(loc, np.int64(1))) == 2
    with pytest.raises(TypeError, match=r"`ax\[0\]` must be a matplotlib Axes; got int"):
        plot_global_pp(glob, ax=[3, 4])
    plt.close("all")


@pytest.mark.parametrize("n_posterior_samples", [100, 99, 7])
def test_sbc_plots_of_exactly_uniform_ranks_lie_on_the_uniform(n_posterior_samples: int) -> None:
    """Every rank equally often: the ECDF difference is zero and each bin holds its share.

    Drawn between ranks, or with bins cut between ranks, discrete uniform ranks would show a
    saw-tooth or alternating bars under H0.
    """
    from modelcompare import plot_sbc, sbc_test

    ranks = np.repeat(np.arange(n_posterior_samples + 1), 3)[:, None]
    res = sbc_test(ranks, n_posterior_samples, seed=0)
    line = plot_sbc(res, kind="ecdf").lines[0]
    np.testing.assert_allclose(line.get_ydata(), 0.0, atol=1e-12)
    assert line.get_xdata()[-1] == 1.0
    ax = plot_sbc(res, kind="hist")
    expected, counts = (p.get_data().values for p in ax.patches[1:3])
    np.testing.assert_allclose(counts, expected)
    assert counts.sum() == ranks.size
    low = sbc_test(ranks // 2, n_posterior_samples, seed=0)  # all in the lower half
    assert plot_sbc(low, kind="ecdf").lines[0].get_ydata().max() > 0.3
    plt.close("all")


def test_calibration_plots_check_their_labels():
    from modelcompare import (
        pit_independence_test,
        plot_pit_correlations,
        plot_sbc,
        sbc_test,
    )

    rng = np.random.default_rng(0)
    res = sbc_test(rng.integers(0, 21, size=(100, 2)), 20, seed=0)
    ax = plot_sbc(res, labels=["a", "b"])
    assert ax.get_legend_handles_labels()[1][1:] == ["a", "b"]
    with pytest.raises(ValueError, match=r"`labels` must have 2 entries .*; got 1"):
        plot_sbc(res, labels=["a"])
    with pytest.raises(TypeError, match="`ax` must be a matplotlib Axes; got int"):
        plot_sbc(res, ax=3)
    pit_values = rng.random((100, 3))
    ax = plot_pit_correlations(pit_independence_test(pit_values), labels=["a", "b", "c"])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    with pytest.raises(ValueError, match=r"`labels` must have 3 entries .*; got 2"):
        plot_pit_correlations(pit_values, labels=["a", "b"])
    with pytest.raises(ValueError, match=r"`result` must lie in \[0, 1\]"):
        plot_pit_correlations(pit_values * 3)
    with pytest.raises(ValueError, match="`result` as PIT values must have m >= 2 columns"):
        plot_pit_correlations(pit_values[:, :1])
    plt.close("all")
