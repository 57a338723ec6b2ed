"""Images → batches → features → cache → a test, offline, on images the tests make."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
Image = pytest.importorskip("PIL.Image")

from modelcompare import MissingDependencyError, fid, rel_mmd
from modelcompare.features import (
    FeatureSet,
    available_extractors,
    extract_features,
    load_features,
    load_images,
    register_extractor,
    resize_like_tensorflow1x,
)


def _tiny_net(seed: int = 0) -> torch.nn.Module:
    """A random-weight convolutional extractor: 3 channels → 8 features."""
    gen = torch.Generator().manual_seed(seed)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten()
    )
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.randn(p.shape, generator=gen))
    return net


def _write_pngs(folder: Path, images: np.ndarray) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, img in enumerate(images):
        p = folder / f"img_{i:03d}.png"
        Image.fromarray(img).save(p)
        paths.append(p)
    return paths


def _images(n: int, shift: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 200, size=(n, 16, 16, 3))
    return np.clip(base + shift, 0, 255).astype(np.uint8)


@pytest.fixture
def tiny() -> str:
    register_extractor("tiny-test", _tiny_net(), overwrite=True)
    return "tiny-test"


def test_builtins_are_registered() -> None:
    assert available_extractors()[:3] == ["inception", "dinov2", "clip"]


def test_load_images_folder_equals_array(tmp_path: Path) -> None:
    imgs = _images(5, 0, 0)
    _write_pngs(tmp_path / "a", imgs)
    np.testing.assert_array_equal(load_images(tmp_path / "a"), imgs)
    np.testing.assert_array_equal(load_images(str(tmp_path / "a" / "*.png")), imgs)
    grey = imgs[..., 0]
    assert load_images(grey).shape == (5, 16, 16, 3)
    tensor = torch.from_numpy(np.moveaxis(imgs, -1, 1).copy())
    np.testing.assert_array_equal(load_images(tensor), imgs)
    np.testing.assert_array_equal(load_images([imgs[:2], imgs[2:]]), imgs)


def test_load_images_errors(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="uint8"):
        load_images(np.zeros((2, 4, 4, 3)))
    with pytest.raises(ValueError, match="shape"):
        load_images(np.zeros((2, 4, 4, 5), np.uint8))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no image files"):
        load_images(tmp_path / "empty")
    with pytest.raises(FileNotFoundError, match="no such image file"):
        load_images([tmp_path / "nope.png"])


def test_whole_path_folder_to_test(tmp_path: Path, tiny: str) -> None:
    """folder → batches → features → cache → a relative test, offline."""
    p_imgs, q_imgs, r_imgs = _images(60, 40, 1), _images(60, 0, 2), _images(60, 0, 3)
    for name, imgs in (("p", p_imgs), ("q", q_imgs), ("r", r_imgs)):
        _write_pngs(tmp_path / name, imgs)
    cache = tmp_path / "cache"
    feats = {
        name: extract_features(tmp_path / name, tiny, batch_size=7, cache_dir=cache)
        for name in "pqr"
    }
    assert all(f.features.shape == (60, 8) for f in feats.values())
    # the folder and the array give the same features
    np.testing.assert_allclose(
        feats["p"].features, extract_features(p_imgs, tiny, batch_size=60).features, rtol=1e-6
    )
    assert feats["p"].provenance["source"] == str(tmp_path / "p")
    assert len(list(cache.glob("*.npz"))) == 3
    res = rel_mmd(feats["p"].features, feats["q"].features, feats["r"].features, seed=0)
    assert res.pvalue < 0.05  # the brighter P is further from R than Q
    assert (
        fid(feats["p"].features, feats["r"].features).value
        > fid(feats["q"].features, feats["r"].features).value
    )


def test_cache_reads_back_and_keys_on_content(tmp_path: Path, tiny: str) -> None:
    imgs = _images(12, 0, 4)
    _write_pngs(tmp_path / "a", imgs)
    first = extract_features(tmp_path / "a", tiny, cache_dir=tmp_path / "c")

    def boom(batch: torch.Tensor) -> torch.Tensor:
        raise AssertionError("the cache was not used")

    # same name, new model: same weights id is not guaranteed, so register with the old hash
    register_extractor(tiny, _tiny_net(), overwrite=True)
    again = extract_features(tmp_path / "a", tiny, cache_dir=tmp_path / "c")
    np.testing.assert_array_equal(first.features, again.features)
    # other weights → another key → computed afresh
    register_extractor(tiny, _tiny_net(seed=1), overwrite=True)
    other = extract_features(tmp_path / "a", tiny, cache_dir=tmp_path / "c")
    assert not np.allclose(first.features, other.features)
    # a changed file → another key
    Image.fromarray(imgs[0] // 2).save(tmp_path / "a" / "img_000.png")
    register_extractor(tiny, boom, overwrite=True)
    with pytest.raises(AssertionError, match="cache was not used"):
        extract_features(tmp_path / "a", tiny, cache_dir=tmp_path / "c")


def test_featureset_round_trip(tmp_path: Path, tiny: str) -> None:
    fs = extract_features(_images(4, 0, 5), tiny)
    path = fs.save(tmp_path / "f")
    assert path.suffix == ".npz"
    back = load_features(path)
    assert isinstance(back, FeatureSet)
    np.testing.assert_array_equal(back.features, fs.features)
    assert (back.extractor, back.preprocessing, back.n_images) == (
        tiny,
        fs.preprocessing,
        4,
    )
    assert back.provenance == fs.provenance
    np.save(tmp_path / "bare.npy", fs.features)
    assert load_features(tmp_path / "bare.npy").extractor == "unknown"


def test_register_errors() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register_extractor("inception", _tiny_net())
    with pytest.raises(ValueError, match="`preprocess`"):
        register_extractor("x-bad", _tiny_net(), preprocess="nope", overwrite=True)
    with pytest.raises(ValueError, match="`extractor` = 'no-such'"):
        extract_features(_images(2, 0, 0), "no-such")


def test_missing_package_names_the_extra() -> None:
    has = {m: importlib.util.find_spec(m) is not None for m in ("timm", "open_clip")}
    for name, module in (("dinov2", "timm"), ("clip", "open_clip")):
        if has[module]:
            continue
        with pytest.raises(MissingDependencyError, match=r"modelcompare\[features\]"):
            extract_features(_images(2, 0, 0), name)


def test_missing_weights_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="`weights`"):
        extract_features(_images(2, 0, 0), "inception", weights=tmp_path / "none.pth")


def _torch_fidelity_resize():
    """torch-fidelity's resize, loaded from its file (the package needs torchvision to import)."""
    spec = importlib.util.find_spec("torch_fidelity")
    if spec is None or spec.origin is None:
        pytest.skip("torch-fidelity is not installed")
    path = Path(spec.origin).parent / "interpolate_compat_tensorflow.py"
    mod_spec = importlib.util.spec_from_file_location("tf_resize_reference", path)
    module = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(module)
    return module.interpolate_bilinear_2d_like_tensorflow1x


@pytest.mark.parametrize("shape", [(32, 32), (64, 48), (300, 310)])
def test_inception_resize_equals_torch_fidelity(shape: tuple[int, int]) -> None:
    reference = _torch_fidelity_resize()
    rng = np.random.default_rng(0)
    imgs = torch.from_numpy(rng.integers(0, 256, size=(2, 3, *shape)).astype(np.float32))
    ours = resize_like_tensorflow1x(imgs, (299, 299))
    theirs = reference(imgs, size=(299, 299), align_corners=False)
    assert ours.shape == (2, 3, 299, 299)
    assert torch.equal(ours, theirs)


def _stored_resize_reference():
    """The generator of the stored torch-fidelity values, loaded from its file."""
    path = Path(__file__).parents[1] / "data" / "make_tf1x_resize_reference.py"
    spec = importlib.util.spec_from_file_location("tf1x_resize_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, np.load(path.with_name("tf1x_resize_reference.npz"))


def test_inception_resize_equals_stored_torch_fidelity_values() -> None:
    # Runs where torch-fidelity cannot be installed: its outputs on the same images, stored.
    make, stored = _stored_resize_reference()
    for i, shape in enumerate(make.SHAPES):
        ours = resize_like_tensorflow1x(make.images(shape), (299, 299)).numpy().ravel()
        key = f"{shape[0]}x{shape[1]}"
        np.testing.assert_allclose(
            ours[make.positions(i)], stored[f"values_{key}"], rtol=1e-6, atol=1e-4
        )
        assert ours.astype(np.float64).mean() == pytest.approx(stored[f"mean_{key}"], rel=1e-9)


@pytest.mark.gpu
def test_extract_on_cuda_equals_cpu(tiny: str) -> None:
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    imgs = _images(20, 0, 6)
    cpu = extract_features(imgs, tiny, batch_size=8)
    gpu = extract_features(imgs, tiny, batch_size=8, device="cuda")
    np.testing.assert_allclose(gpu.features, cpu.features, rtol=1e-4, atol=1e-5)
    assert gpu.provenance["device"] == "cuda"


def test_progress_bar_and_iterables(tiny: str, capsys: pytest.CaptureFixture[str]) -> None:
    imgs = _images(9, 0, 7)
    fs = extract_features(iter([imgs[:4], imgs[4:]]), tiny, batch_size=3, progress=True)
    assert fs.n_images == 9
    assert fs.provenance["content_hash"] is None  # a one-shot iterable is not cached
    assert "features (tiny-test)" in capsys.readouterr().err
