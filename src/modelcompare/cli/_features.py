"""``modelcompare features``: images to a feature file; and the resolver other commands share.

A path on the command line is either features (``.npz`` written by ``modelcompare features``,
or any matrix file ``read_matrix`` reads) or images (a folder, a glob, an image file, or a uint8
``.npy`` array), which are turned into features with ``--features``/``--extractor``.
"""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import numpy as np

from modelcompare.cli import _options as options
from modelcompare.cli._common import emit, handle_errors

__all__ = [
    "FeatureOptions",
    "feature_options",
    "feature_summary",
    "features_command",
    "resolve_features",
]

_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff", ".gif")


def _extractor_of(spec: str) -> str:
    """A registry name, or ``FILE.py:callable`` loaded and registered under that spelling."""
    from modelcompare.features import available_extractors, register_extractor

    if spec in available_extractors() or ".py:" not in spec:
        return spec
    file, _, attr = spec.rpartition(":")
    path = Path(file)
    if not path.is_file():
        msg = f"`--features` = {spec!r}: no such file {file!r}."
        raise FileNotFoundError(msg)
    module_spec = importlib.util.spec_from_file_location(f"modelcompare_user_{path.stem}", path)
    if module_spec is None or module_spec.loader is None:
        msg = f"`--features` = {spec!r}: {file!r} is not a Python file."
        raise ValueError(msg)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    model = getattr(module, attr, None)
    if model is None:
        msg = f"`--features` = {spec!r}: {file!r} defines no {attr!r}."
        raise ValueError(msg)
    register_extractor(spec, model, overwrite=True)
    return spec


def _is_images(path: str) -> bool:
    p = Path(path)
    if p.is_dir() or any(ch in path for ch in "*?[") or p.suffix.lower() in _IMAGE_SUFFIXES:
        return True
    if p.suffix == ".npy" and p.is_file():
        arr = np.load(p, mmap_mode="r", allow_pickle=False)
        return arr.dtype == np.uint8 and arr.ndim in (3, 4)
    return False


def resolve_features(
    path: str,
    extractor: str | None,
    *,
    weights: str | None = None,
    batch_size: int = 64,
    device: str = "cpu",
    cache_dir: str | None = None,
    columns: list[str] | None = None,
    progress: bool = False,
) -> Any:
    """The FeatureSet behind a command-line path: read it, or extract it from images."""
    from modelcompare._foundation.io import read_matrix
    from modelcompare.features import FeatureSet, extract_features, load_features

    if _is_images(path):
        if extractor is None:
            msg = (
                f"{path!r} holds images: pass --features inception|dinov2|clip|FILE.py:callable "
                "to turn them into features."
            )
            raise click.UsageError(msg)
        images: Any = path
        if Path(path).suffix == ".npy":
            images = np.load(path, allow_pickle=False)
        return extract_features(
            images,
            _extractor_of(extractor),
            weights=weights,
            batch_size=batch_size,
            device=device,
            cache_dir=cache_dir,
            progress=progress,
        )
    if path.endswith(".npz") and Path(path).is_file():
        with np.load(path, allow_pickle=False) as data:
            if "features" in data and "meta" in data:
                return load_features(path)
    feats = read_matrix(path, columns=columns)
    return FeatureSet(feats, "unknown", "unknown", int(feats.shape[0]), {"source": path})


def feature_summary(sets: dict[str, Any]) -> dict[str, Any]:
    """What the output says about the features: extractor, preprocessing, number of images.

    Features of different extractors measure different things and are refused together.
    """
    first = next(iter(sets.values()))
    known = {fs.extractor for fs in sets.values()} - {"unknown"}
    if len(known) > 1:
        msg = (
            f"the inputs hold features of different extractors ({', '.join(sorted(known))}); "
            "compare features of one extractor."
        )
        raise click.UsageError(msg)
    return {
        "extractor": first.extractor,
        "preprocessing": first.preprocessing,
        "n_images": {name: fs.n_images for name, fs in sets.items()},
    }


@dataclass(frozen=True)
class FeatureOptions:
    """How a command turns image inputs into features (see :func:`feature_options`)."""

    extractor: str | None
    weights: str | None
    batch_size: int
    device: str
    cache_dir: str | None

    def resolve(self, paths: dict[str, str], opts: options.CommonOptions) -> dict[str, Any]:
        """The FeatureSet behind each named path, in order (``--columns`` picks table columns)."""
        return {
            name: resolve_features(
                path,
                self.extractor,
                weights=self.weights,
                batch_size=self.batch_size,
                device=self.device,
                cache_dir=self.cache_dir,
                columns=opts.column_names,
                progress=not opts.quiet,
            )
            for name, path in paths.items()
        }


def feature_options(func: Any) -> Any:
    """``--features``, ``--weights``, ``--batch-size``, ``--device`` and ``--cache-dir``.

    The command gets them as one argument ``features``, a :class:`FeatureOptions`.
    """
    func = options.pass_as("features", FeatureOptions)(func)
    for option in reversed(
        [
            click.option(
                "--features",
                "extractor",
                default=None,
                metavar="NAME|FILE.py:callable",
                help="Turn image inputs (folders, globs, image files, uint8 .npy arrays) into "
                "features with this extractor: inception, dinov2, clip or FILE.py:callable.",
            ),
            click.option(
                "--weights",
                default=None,
                type=click.Path(dir_okay=False),
                help="A local weights file for a built-in extractor (no download).",
            ),
            click.option("--batch-size", default=64, show_default=True, type=click.IntRange(1)),
            options.device(),
            click.option(
                "--cache-dir",
                default=None,
                type=click.Path(file_okay=False),
                help="Folder of cached features, keyed by the images' content, the extractor, "
                "its weights, the preprocessing and the library version.",
            ),
        ]
    ):
        func = option(func)
    return func


@click.command("features")
@click.argument("images")
@click.option(
    "--extractor",
    default="inception",
    show_default=True,
    metavar="NAME|FILE.py:callable",
    help="inception (torch-fidelity's FID Inception-v3), dinov2 (timm's DINOv2 ViT-L/14), clip "
    "(open_clip's CLIP ViT-L/14@336, CMMD's embedding) or FILE.py:callable (a torch module or "
    "callable on float images in [0, 1], (N, C, H, W)).",
)
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="The .npz to write.")
@click.option(
    "--weights",
    default=None,
    type=click.Path(dir_okay=False),
    help="A local weights file for a built-in extractor (no download).",
)
@click.option("--batch-size", default=64, show_default=True, type=click.IntRange(1))
@options.device()
@click.option(
    "--cache-dir",
    default=None,
    type=click.Path(file_okay=False),
    help="Folder of cached features (keyed by the images' content, the extractor, its weights, "
    "the preprocessing and the library version).",
)
@options.common_options(seed=False, decision=False)
@handle_errors
def features_command(
    images: str,
    extractor: str,
    out: str,
    weights: str | None,
    batch_size: int,
    device: str,
    cache_dir: str | None,
    opts: options.CommonOptions,
) -> None:
    """Turn IMAGES into a feature file for `modelcompare metrics` and `modelcompare relative`.

    IMAGES is a folder (searched recursively), a glob, an image file or a uint8 .npy array
    (N, H, W[, C]). The built-in extractors need the extra modelcompare[features] and their
    weights: without internet, download them elsewhere and pass --weights FILE.

    \b
    Example (the pixels of scikit-learn's digits as features, through a small extractor file):
      $ modelcompare example-data
      $ modelcompare features examples/data/digits_p.npy --extractor examples/data/digit_features.py:pixels --out p.npz --json
      {"d": 64, "extractor": "examples/data/digit_features.py:pixels", "n_images": 300, ...}
    """
    started = time.perf_counter()
    fs = resolve_features(
        images,
        extractor,
        weights=weights,
        batch_size=batch_size,
        device=device,
        cache_dir=cache_dir,
        progress=not opts.quiet,
    )
    written = fs.save(out)
    summary = {
        "extractor": fs.extractor,
        "preprocessing": fs.preprocessing,
        "n_images": fs.n_images,
        "d": int(fs.features.shape[1]),
        "out": str(written),
    }
    emit(
        opts,
        test="features",
        result=summary,
        params={"batch_size": batch_size, "device": device},
        seed=None,
        started=started,
        rows=list(summary.items()),
    )
