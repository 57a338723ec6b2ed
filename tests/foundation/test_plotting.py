"""The plotting helpers shared by every part: lazy matplotlib, new or given Axes, input checks."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from modelcompare import MissingDependencyError
from modelcompare._foundation.plotting import (
    axes_row,
    check_labels,
    check_result_type,
    new_axes,
    pyplot,
)


class Alpha:
    pass


class Beta:
    pass


class _FakeAxes:
    figure = None

    def plot(self, *args: object) -> None:
        pass


def test_check_result_type_names_the_argument_and_the_producer() -> None:
    check_result_type(Alpha(), Alpha, "make_a")
    check_result_type(Beta(), (Alpha, Beta), "make_a or make_b")
    with pytest.raises(TypeError, match=r"^`result` must be an Alpha \(from make_a\); got dict\.$"):
        check_result_type({"pvalue": 0.5}, Alpha, "make_a")
    with pytest.raises(
        TypeError, match=r"`result` must be an Alpha or a Beta \(from make_a or make_b\)"
    ):
        check_result_type(None, (Alpha, Beta), "make_a or make_b")
    with pytest.raises(TypeError, match=r"^`result_or_map` must be"):
        check_result_type(3, Alpha, "make_a", name="result_or_map")


def test_check_labels() -> None:
    assert check_labels(None, 2, ["z1", "z2"]) == ["z1", "z2"]
    assert check_labels(("a", 3), 2, ["z1", "z2"]) == ["a", "3"]
    assert check_labels(np.array(["a", "b"]), 2, ["z1", "z2"]) == ["a", "b"]
    with pytest.raises(ValueError, match=r"`labels` must have 2 entries .*; got 1\."):
        check_labels(["a"], 2, ["z1", "z2"])
    with pytest.raises(ValueError, match=r"`labels` must have 2 entries .*; got 3\."):
        check_labels(["a", "b", "c"], 2, ["z1", "z2"])
    with pytest.raises(TypeError, match="`labels` must be a sequence of 2 names; got str"):
        check_labels("ab", 2, ["z1", "z2"])
    with pytest.raises(TypeError, match="`names` must be a sequence"):
        check_labels(5, 2, ["z1", "z2"], name="names")


def test_missing_matplotlib_gives_an_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # import fails
    with pytest.raises(MissingDependencyError, match=r"plot_x requires matplotlib.*\[plot\]"):
        pyplot("plot_x")
    with pytest.raises(MissingDependencyError, match="plot_x"):
        new_axes(None, "plot_x")
    given = _FakeAxes()
    assert new_axes(given, "plot_x") is given  # an Axes given needs no import
    with pytest.raises(TypeError, match="`ax` must be a matplotlib Axes; got int"):
        new_axes(3, "plot_x")


def test_new_axes_and_axes_row() -> None:
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    plt = pytest.importorskip("matplotlib.pyplot")
    ax = new_axes(None, "plot_x", figsize=(2.0, 1.5))
    assert tuple(ax.figure.get_size_inches()) == (2.0, 1.5)
    row = axes_row(None, 3, "plot_x")
    assert row.shape == (3,)
    assert len({id(a) for a in row}) == 3
    _, axes = plt.subplots(2, 2)
    assert list(axes_row(axes, 3, "plot_x")) == list(axes.ravel()[:3])
    with pytest.raises(ValueError, match=r"`ax` must hold at least 3 Axes \(one per panel\)"):
        axes_row(axes[0], 3, "plot_x")
    with pytest.raises(TypeError, match=r"`ax\[1\]` must be a matplotlib Axes; got str"):
        axes_row([axes[0, 0], "b", axes[1, 0]], 3, "plot_x")
    plt.close("all")
