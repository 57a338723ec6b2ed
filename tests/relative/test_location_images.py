"""plot_locations_as_images: the best candidates drawn as images, best first, with their values."""

from __future__ import annotations

import numpy as np
import pytest

from modelcompare import plot_locations_as_images, power_criterion_map, rel_ume

plt = pytest.importorskip("matplotlib.pyplot")


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _images(count: int) -> np.ndarray:
    # image k is constant k, so the sheet says which images were drawn and where
    return np.repeat(np.arange(count, dtype=float), 16).reshape(count, 4, 4)


def test_the_largest_values_are_drawn_best_first_row_by_row():
    values = np.array([0.1, 3.0, -2.0, 2.0, 0.0, 1.0])
    _, ax = plt.subplots()
    assert plot_locations_as_images(values, _images(6), top=4, ncols=2, ax=ax) is ax
    sheet = ax.images[0].get_array()
    pad = 1
    tile = [sheet[pad + r * 5, pad + c * 5] for r in range(2) for c in range(2)]
    np.testing.assert_array_equal(tile, [1, 3, 5, 0])  # indices of 3.0, 2.0, 1.0, 0.1
    labels = [t.get_text() for t in ax.texts]
    assert labels == ["3", "2", "1", "0.1"]
    assert "where Q fits better" in ax.get_title()


def test_smallest_shows_where_p_fits_better_and_flat_rows_are_reshaped():
    values = np.array([0.1, 3.0, -2.0, 2.0])
    ax = plot_locations_as_images(values, _images(4).reshape(4, 16), top=1, largest=False)
    assert ax.images[0].get_array()[1, 1] == 2
    assert "where P fits better" in ax.get_title()


def test_colour_images_and_given_shapes():
    rng = np.random.default_rng(0)
    ax = plot_locations_as_images(rng.normal(size=5), rng.uniform(0, 255, size=(5, 3, 2, 3)))
    assert ax.images[0].get_array().shape[-1] == 3
    plot_locations_as_images(rng.normal(size=5), rng.uniform(size=(5, 6)), image_shape=(2, 3))


def test_a_map_and_a_test_result_give_their_values():
    rng = np.random.default_rng(1)
    z = rng.normal(size=(200, 2))
    x, y = z + np.array([2.0, 0.0]), rng.normal(size=(200, 2))
    cand = rng.normal(size=(12, 2)) * 2
    m = power_criterion_map(x, y, z, cand, seed=0)
    ax = plot_locations_as_images(m, _images(12), top=3)
    top = np.sort(m.criterion)[::-1][:3]
    assert [t.get_text() for t in ax.texts] == [f"{v:.3g}" for v in top]
    res = rel_ume(x, y, z, n_locations=3, optimizer=None, seed=0)
    ax = plot_locations_as_images(res, _images(3), top=3)
    assert len(ax.texts) == 3


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (("a", np.zeros((2, 2, 2))), {}, TypeError, "result_or_criterion"),
        (([1.0, np.nan], np.zeros((2, 2, 2))), {}, ValueError, "non-finite"),
        (([1.0, 2.0], np.zeros((3, 2, 2))), {}, ValueError, "3 images for 2"),
        (([1.0, 2.0], np.zeros((2, 5))), {}, ValueError, "image_shape"),
        (([1.0, 2.0], np.zeros((2, 6))), {"image_shape": (4, 4)}, ValueError, "image_shape"),
        (([1.0, 2.0], np.zeros((2, 2, 2))), {"top": 3}, ValueError, "top"),
        (([1.0, 2.0], np.zeros((2, 2, 2))), {"top": 1.5}, TypeError, "top"),
        (([1.0, 2.0], np.zeros((2, 2, 2))), {"largest": 1}, TypeError, "largest"),
        (([1.0, 2.0], np.zeros((2, 2, 2))), {"ncols": 0}, ValueError, "ncols"),
        (([1.0, 2.0], np.array(["a", "b"])), {}, ValueError, "images"),
        (([1.0, 2.0], np.zeros((2, 2, 2))), {"ax": 3}, TypeError, "ax"),
    ],
)
def test_bad_input_is_refused_by_name(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        plot_locations_as_images(*args, **kwargs)


def test_inputs_are_not_modified():
    values, images = np.array([2.0, 1.0]), _images(2)
    before = values.copy(), images.copy()
    plot_locations_as_images(values, images, top=2)
    np.testing.assert_array_equal(values, before[0])
    np.testing.assert_array_equal(images, before[1])
