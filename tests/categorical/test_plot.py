"""``plot_granularity``: the pass/fail ladder over k (Agg backend)."""

from __future__ import annotations

import numpy as np
import pytest

import modelcompare
from modelcompare import granularity, perturb, plot_granularity, stair_distribution

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


@pytest.fixture(scope="module")
def results():
    p = stair_distribution(6, 6, 3, 2.0)
    x = perturb(p, l1=0.2, seed=3).sample(4000, seed=1)
    return {
        "mixed": granularity(p, x, seed=0),  # accepts k = 4, rejects from k = 5
        "all": granularity(p, p.sample(10_000, seed=1), seed=0),
        "none": granularity(p, x, epsilon=0.02, seed=0),
        "tv": granularity(p, x, mode="tv-bound", seed=0),
    }


def _markers(ax):
    """(offsets, label) of each scatter collection."""
    return [(c.get_offsets(), c.get_label()) for c in ax.collections]


def test_ladder_artists(results):
    res = results["mixed"]
    assert res.decisions.tolist() == [False, True, True, True, True]
    _, ax = plt.subplots()
    assert plot_granularity(res, ax=ax) is ax
    (acc, acc_label), (rej, rej_label) = _markers(ax)
    assert (acc_label, rej_label) == ("accepted", "rejected")
    np.testing.assert_allclose(acc, np.c_[res.k_values[~res.decisions], res.tv[~res.decisions]])
    np.testing.assert_allclose(rej, np.c_[res.k_values[res.decisions], res.tv[res.decisions]])
    vlines = [ln for ln in ax.lines if ln.get_label().startswith("granularity")]
    assert len(vlines) == 1
    assert np.allclose(vlines[0].get_xdata(), res.value)
    assert vlines[0].get_label() == f"granularity = {res.value}"
    legend = ax.get_legend()
    assert legend is not None
    assert "α = 0.05" in legend.get_title().get_text()
    assert {t.get_text() for t in legend.get_texts()} >= {"accepted", "rejected"}
    assert ax.get_xlabel() == "level k (number of bins)"
    assert "TV" in ax.get_ylabel()
    plt.close("all")


def test_every_or_no_level_accepted(results):
    ax = plot_granularity(results["all"])
    assert [label for _, label in _markers(ax)] == ["accepted"]
    assert any("every level accepted" in t.get_text() for t in ax.get_legend().get_texts())
    ax = plot_granularity(results["none"], s=20, edgecolors="k")
    res = results["none"]
    assert [label for _, label in _markers(ax)] == ["rejected"]
    assert res.value == res.k_values[0] - 1
    assert ax.get_xlim()[0] < res.value  # the granularity line is inside the axes
    assert ax.collections[0].get_sizes()[0] == 20
    plt.close("all")


def test_tv_bound_draws_its_threshold(results):
    ax = plot_granularity(results["tv"])
    (thr,) = [ln for ln in ax.lines if ln.get_label() == "threshold"]
    np.testing.assert_allclose(thr.get_ydata(), results["tv"].thresholds)
    plt.close("all")


def test_refuses_other_results():
    with pytest.raises(TypeError, match="GranularityResult"):
        plot_granularity(modelcompare.closeness_test([0.5, 0.5], [3, 7]))


def test_exported():
    assert "plot_granularity" in modelcompare.__all__
    assert "plot_granularity" in modelcompare.categorical.__all__
