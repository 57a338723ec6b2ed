"""compare_generators: both directions of every relative test, one Bonferroni rule, the page."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from modelcompare import GeneratorComparisonResult, MissingDependencyError, compare_generators
from modelcompare._foundation.html import format_number, render_page


def _gauss(rng, n=150, shift=0.0, d=2):
    out = rng.normal(size=(n, d))
    out[:, 0] += shift
    return out


def test_the_better_model_is_found_in_either_order():
    rng = np.random.default_rng(0)
    bad, good, ref = _gauss(rng, shift=1.0), _gauss(rng), _gauss(rng)
    res = compare_generators(bad, good, ref, names=("bad", "good"), seed=0)
    assert isinstance(res, GeneratorComparisonResult)
    assert res.better(0.05) == "second"
    assert res.verdict(0.05).startswith("good is closer")
    swapped = compare_generators(good, bad, ref, names=("good", "bad"), seed=0)
    assert swapped.better(0.05) == "first"
    # every rejected row says the good model is closer
    assert set(res.table.loc[res.rejected(0.05), "better"]) == {"good"}


def test_one_bonferroni_rule_over_the_whole_table():
    rng = np.random.default_rng(1)
    res = compare_generators(_gauss(rng, shift=0.4), _gauss(rng), _gauss(rng), seed=1)
    m = len(res.table)
    assert m == 8
    assert list(res.table["test"]) == [
        t for t in ("Rel-UME", "Rel-MMD", "Rel-KID", "Rel-FID") for _ in range(2)
    ]
    np.testing.assert_allclose(
        res.table["pvalue_adjusted"], np.minimum(1.0, res.table["pvalue"] * m)
    )
    assert res.pvalue == res.table["pvalue_adjusted"].min()
    assert res.decision(0.05) == bool(res.rejected(0.05).any())
    assert res.correction == "bonferroni"
    assert "Bonferroni-adjusted over the 8 p-values" in res.verdict(0.05)
    assert np.isfinite(res.table["pvalue"]).all()


def test_equal_models_rarely_give_a_verdict():
    """Family-wise size: under H0 (P = Q = R) the table rejects at most about α of the time."""
    rng = np.random.default_rng(2)
    rejections = [
        compare_generators(_gauss(rng, 80), _gauss(rng, 80), _gauss(rng, 80), seed=s).decision(0.1)
        for s in range(12)
    ]
    assert sum(rejections) <= 3  # P(Bin(12, 0.1) > 3) < 0.03


def test_the_same_seed_gives_the_same_result_and_inputs_stay():
    rng = np.random.default_rng(3)
    x, y, z = _gauss(rng, shift=0.5), _gauss(rng), _gauss(rng)
    copies = x.copy(), y.copy(), z.copy()
    a = compare_generators(x, y, z, seed=7)
    b = compare_generators(x, y, z, seed=np.random.default_rng(7))
    np.testing.assert_array_equal(a.table["pvalue"], b.table["pvalue"])
    np.testing.assert_array_equal(a.criterion, b.criterion)
    for before, after in zip(copies, (x, y, z)):
        np.testing.assert_array_equal(before, after)


def test_where_lists_reference_rows_of_the_right_sign():
    rng = np.random.default_rng(4)
    ref = _gauss(rng, 200)
    first = ref[rng.permutation(200)] + 0.0  # a copy of the reference: fits it everywhere
    second = _gauss(rng, 200, shift=3.0)
    res = compare_generators(first, second, ref, names=("copy", "far"), seed=0)
    where = res.where(top=5)
    assert len(where["copy"]) == 5
    assert (res.criterion[where["copy"]] < 0).all()
    assert (res.criterion[where["far"]] > 0).all()
    assert res.criterion.shape == (200,)


def test_images_arrays_tensors_and_folders(tmp_path):
    image_mod = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(5)
    imgs = [rng.integers(0, 256, size=(40, 6, 6), dtype=np.uint8) for _ in range(3)]
    folder = tmp_path / "ref"
    folder.mkdir()
    for i, im in enumerate(imgs[2]):
        image_mod.fromarray(im).save(folder / f"{i:03d}.png")

    class FakeTensor:  # the shape of a torch tensor (n, c, h, w), without torch
        def __init__(self, a):
            self.a = a

        def detach(self):
            return self

        def cpu(self):
            return self

        def numpy(self):
            return self.a

    res = compare_generators(imgs[0], FakeTensor(imgs[1][:, None]), folder, seed=0)
    assert res.n_features == 36
    assert res.origins == ("images (array)", "images (tensor)", f"images (folder {folder})")
    assert "8-bit images divided by 255" in res.extractor
    # pixels of the folder equal the array they were written from
    np.testing.assert_array_equal(res._images[2], imgs[2])
    with_extractor = compare_generators(
        imgs[0], imgs[1], imgs[2], extractor=lambda a: a.reshape(len(a), -1)[:, :4] / 255, seed=0
    )
    assert with_extractor.n_features == 4
    assert with_extractor.extractor == "<lambda>"


def test_the_page_follows_the_rule_and_escapes(tmp_path):
    pytest.importorskip("jinja2")
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(6)
    imgs = [rng.uniform(size=(60, 4, 4)) for _ in range(3)]
    imgs[0][:, 0, 0] += 3.0
    feats = [a.reshape(60, -1) for a in imgs]
    res = compare_generators(*feats, names=("<b>p</b>", "q"), images=tuple(imgs), seed=0)
    out = res.to_html(tmp_path / "page.html", alpha=0.01)
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "&lt;b&gt;p&lt;/b&gt;" in page
    assert "<b>p</b>" not in page
    assert res.verdict(0.01).split("(")[0].replace("<b>p</b>", "&lt;b&gt;p&lt;/b&gt;") in page
    assert "multiplied by 8 (Bonferroni)" in page
    assert page.count("data:image/png;base64,") >= 4  # histogram, where, three sample grids
    assert page.count('class="reject">rejects') == int(res.rejected(0.01).sum())
    assert "http://" not in page
    assert "https://" not in page


def test_the_summary_states_the_rule_and_what_was_used():
    rng = np.random.default_rng(7)
    res = compare_generators(_gauss(rng), _gauss(rng), _gauss(rng), seed=0)
    text = res.summary(0.05)
    assert res.verdict(0.05) in text
    assert "pvalue_adjusted" in text
    assert "features: given features, d = 2; n = 150" in text
    assert res.to_dict(include_arrays=False)["correction"] == "bonferroni"


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"names": ("a", "a")}, ValueError, "names"),
        ({"names": "ab"}, ValueError, "names"),
        ({"extractor": 3}, TypeError, "extractor"),
        ({"n_locations": 0}, ValueError, "n_locations"),
        ({"images": (np.zeros((3, 2, 2)),)}, ValueError, "images"),
        ({"images": (np.zeros((3, 2, 2)), None, None)}, ValueError, "images` for first"),
    ],
)
def test_bad_options_are_refused_by_name(kwargs, error, match):
    rng = np.random.default_rng(8)
    with pytest.raises(error, match=match):
        compare_generators(_gauss(rng, 20), _gauss(rng, 20), _gauss(rng, 20), **kwargs)


def test_bad_samples_are_refused_by_name(tmp_path):
    rng = np.random.default_rng(9)
    x = _gauss(rng, 20)
    with pytest.raises(ValueError, match="features"):
        compare_generators(x, _gauss(rng, 20, d=3), x)
    with pytest.raises(ValueError, match=r"`reference`: the folder .* holds no image"):
        compare_generators(x, x, tmp_path)
    with pytest.raises(ValueError, match=r"`second`: .* neither a folder"):
        compare_generators(x, tmp_path / "missing.txt", x)
    with pytest.raises(TypeError, match="`first` must hold numbers"):
        compare_generators(np.array([["a", "b"]] * 20), x, x)
    with pytest.raises(ValueError, match="`first` must be features"):
        compare_generators(np.zeros(20), x, x)
    with pytest.raises(ValueError, match="`extractor` must map"):
        compare_generators(
            np.zeros((20, 2, 2)),
            np.zeros((20, 2, 2)),
            np.zeros((20, 2, 2)),
            extractor=lambda a: np.zeros(3),
        )


def test_a_missing_jinja2_names_the_html_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "jinja2", None)
    with pytest.raises(MissingDependencyError, match=r"modelcompare\[html\]"):
        render_page("base.html", title="t", version="0")


def test_numbers_in_cells():
    assert format_number(None) == "—"
    assert format_number(True) == "True"
    assert format_number(1.23456e-9) == "1.23e-09"
