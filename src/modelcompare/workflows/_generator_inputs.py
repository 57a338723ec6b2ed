"""The inputs of :func:`compare_generators`: folders, arrays or tensors of images, or features."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from modelcompare._foundation.optional import import_optional
from modelcompare._foundation.validation import check_samples

__all__ = ["IMAGE_SUFFIXES", "Sample", "read_folder", "read_sample"]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp")


class Sample(NamedTuple):
    """One sample: its features, its images (None when features were given) and its origin."""

    features: np.ndarray
    images: np.ndarray | None
    origin: str


def read_folder(path: Path, name: str) -> np.ndarray:
    """All images of a folder (sorted by file name) as one array (n, h, w) or (n, h, w, c)."""
    files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        msg = f"`{name}`: the folder {path} holds no image ({', '.join(IMAGE_SUFFIXES)})."
        raise ValueError(msg)
    image = import_optional("PIL.Image", purpose="reading a folder of images")
    arrays = []
    for f in files:
        with image.open(f) as im:
            arrays.append(np.asarray(im.convert("L" if im.mode in ("1", "L", "P") else "RGB")))
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        msg = f"`{name}`: the images of {path} differ in size: {sorted(shapes)[:3]}."
        raise ValueError(msg)
    return np.stack(arrays)


def _to_array(value: Any, name: str) -> tuple[np.ndarray, str]:
    if isinstance(value, str | Path):
        path = Path(value)
        if path.is_dir():
            return read_folder(path, name), f"folder {path}"
        if path.suffix == ".npy" and path.is_file():
            return np.load(path, allow_pickle=False), f"file {path}"
        msg = f"`{name}`: {path} is neither a folder of images nor a .npy file."
        raise ValueError(msg)
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a torch tensor, without torch
        arr = value.detach().cpu().numpy()
        if arr.ndim == 4 and arr.shape[1] in (1, 3):  # torch's (n, c, h, w)
            arr = np.moveaxis(arr, 1, -1)
        return arr, "tensor"
    try:
        return np.array(value, copy=True), "array"
    except (TypeError, ValueError) as exc:
        msg = (
            f"`{name}` must be an array of samples, a tensor, a file or a folder of images ({exc})."
        )
        raise ValueError(msg) from exc


def read_sample(value: Any, name: str, extractor: Callable[[np.ndarray], Any] | None) -> Sample:
    """Features (n, d) and images of one sample; images pass through ``extractor``.

    Without an extractor, the features of images are their pixels, flattened (8-bit images
    divided by 255).
    """
    arr, origin = _to_array(value, name)
    if arr.dtype.kind not in "biuf":
        msg = f"`{name}` must hold numbers; got dtype {arr.dtype}."
        raise TypeError(msg)
    if arr.ndim == 2:
        return Sample(check_samples(arr, name, min_samples=4), None, f"features ({origin})")
    if arr.ndim not in (3, 4) or (arr.ndim == 4 and arr.shape[-1] == 1):
        if arr.ndim == 4 and arr.shape[-1] == 1:
            arr = arr[..., 0]
        else:
            msg = (
                f"`{name}` must be features (n, d) or images (n, h, w) or (n, h, w, c); got "
                f"shape {arr.shape}."
            )
            raise ValueError(msg)
    images = arr
    if extractor is None:
        # 8-bit images to [0, 1]; other numbers as they are
        scale = 255.0 if arr.dtype == np.uint8 else 1.0
        features = arr.reshape(arr.shape[0], -1).astype(float) / scale
    else:
        features = np.asarray(extractor(arr), dtype=float)
        if features.ndim != 2 or features.shape[0] != arr.shape[0]:
            msg = (
                f"`extractor` must map the {arr.shape[0]} images of `{name}` to an array "
                f"(n, d); got shape {features.shape}."
            )
            raise ValueError(msg)
    return Sample(check_samples(features, name, min_samples=4), images, f"images ({origin})")
