"""Images in, uint8 batches out: folders, globs, file lists, arrays, tensors and iterables.

Arrays are (N, H, W, C) as images are stored; torch tensors are (N, C, H, W) as torch stores them.
Every image becomes uint8 with three channels (grey images are repeated, as torch-fidelity and
clean-fid do for their Inception network).
"""

from __future__ import annotations

import glob
import hashlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from modelcompare._foundation.optional import import_optional

__all__ = [
    "IMAGE_SUFFIXES",
    "ImageSource",
    "image_source",
    "load_images",
]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff", ".gif")


def _is_tensor(x: Any) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "detach")


def _to_nhwc_uint8(batch: Any, name: str) -> np.ndarray:
    """One batch as a uint8 (N, H, W, 3) array; tensors are read as (N, C, H, W)."""
    if _is_tensor(batch):
        arr = batch.detach().cpu().numpy()
        if arr.ndim == 4:
            arr = np.moveaxis(arr, 1, -1)
        elif arr.ndim == 3:
            arr = np.moveaxis(arr, 0, -1)[None]
    else:
        arr = np.asarray(batch)
    if arr.ndim == 3 and arr.shape[-1] not in (1, 3):  # (N, H, W) grey images
        arr = arr[..., None]
    if arr.ndim != 4 or arr.shape[-1] not in (1, 3):
        msg = (
            f"`{name}` must hold images as (N, H, W, C) arrays or (N, C, H, W) tensors with C = 1 "
            f"or 3; got shape {np.shape(arr)}."
        )
        raise ValueError(msg)
    if arr.dtype != np.uint8:
        msg = (
            f"`{name}` must hold uint8 images (0–255); got dtype {arr.dtype}. Images in [0, 1] "
            "become uint8 with `(255 * images).round().astype(numpy.uint8)`."
        )
        raise TypeError(msg)
    if arr.shape[-1] == 1:
        arr = np.repeat(arr, 3, axis=-1)
    return np.ascontiguousarray(arr)


def _read_image(path: Path) -> np.ndarray:
    pil = import_optional("PIL.Image", purpose="reading image files")
    with pil.open(path) as img:
        return np.asarray(img.convert("RGB"), dtype=np.uint8)


def _files_of(source: str | Path | list[Any], name: str) -> list[Path]:
    if isinstance(source, list | tuple):
        files = [Path(p) for p in source]
    elif Path(source).is_dir():
        files = sorted(
            p for p in Path(source).rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()
        )
    elif any(ch in str(source) for ch in "*?["):
        files = sorted(Path(p) for p in glob.glob(str(source), recursive=True))  # noqa: PTH207
    else:
        files = [Path(source)]
    missing = [str(p) for p in files if not p.is_file()]
    if missing:
        msg = f"`{name}`: no such image file {missing[0]!r}."
        raise FileNotFoundError(msg)
    if not files:
        msg = f"`{name}` = {str(source)!r} holds no image files ({', '.join(IMAGE_SUFFIXES)})."
        raise ValueError(msg)
    return files


class ImageSource:
    """Where images come from, read batch by batch so that memory is bounded by the batch.

    Build it with :func:`image_source`. ``content_hash`` is None for a one-shot iterable (which
    cannot be read twice, so its features are not cached).
    """

    def __init__(
        self,
        *,
        files: list[Path] | None = None,
        array: np.ndarray | None = None,
        batches: Iterable[Any] | None = None,
        name: str = "images",
    ) -> None:
        self.files, self.array, self._batches, self.name = files, array, batches, name

    def __len__(self) -> int:
        if self.files is not None:
            return len(self.files)
        if self.array is not None:
            return int(self.array.shape[0])
        msg = "the number of images of an iterable is known only after reading it"
        raise TypeError(msg)

    @property
    def content_hash(self) -> str | None:
        """SHA-256 of the images' bytes (file contents, or the array's shape and pixels)."""
        h = hashlib.sha256()
        if self.files is not None:
            for p in self.files:
                h.update(hashlib.sha256(p.read_bytes()).digest())
            return h.hexdigest()
        if self.array is not None:
            h.update(repr(self.array.shape).encode())
            h.update(self.array.tobytes())
            return h.hexdigest()
        return None

    def batches(self, batch_size: int) -> Iterator[np.ndarray | list[np.ndarray]]:
        """Yield uint8 (B, H, W, 3) arrays; files of mixed sizes come as a list of images."""
        if self.array is not None:
            for start in range(0, self.array.shape[0], batch_size):
                yield self.array[start : start + batch_size]
        elif self.files is not None:
            for start in range(0, len(self.files), batch_size):
                imgs = [_read_image(p) for p in self.files[start : start + batch_size]]
                same = all(im.shape == imgs[0].shape for im in imgs)
                yield np.stack(imgs) if same else imgs
        else:
            assert self._batches is not None
            for batch in self._batches:
                arr = _to_nhwc_uint8(batch, self.name)
                for start in range(0, arr.shape[0], batch_size):
                    yield arr[start : start + batch_size]


def image_source(images: Any, name: str = "images") -> ImageSource:
    """Resolve ``images`` into an :class:`ImageSource`.

    Parameters
    ----------
    images : str, path, list of paths, array, tensor or iterable of batches
        A folder (searched recursively for image files), a glob pattern, a list of files, a uint8
        array (N, H, W, C), a torch tensor (N, C, H, W), or an iterable of such batches.
    name : str
        The argument's name in error messages.

    Returns
    -------
    ImageSource
        The images, to be read batch by batch.
    """
    if isinstance(images, str | Path) or (
        isinstance(images, list | tuple) and images and isinstance(images[0], str | Path)
    ):
        return ImageSource(files=_files_of(images, name), name=name)
    if isinstance(images, np.ndarray) or _is_tensor(images):
        return ImageSource(array=_to_nhwc_uint8(images, name), name=name)
    if isinstance(images, Iterable):
        return ImageSource(batches=images, name=name)
    msg = (
        f"`{name}` must be a folder, a glob, a list of image files, a uint8 array, a tensor or an "
        f"iterable of batches; got {type(images).__name__}."
    )
    raise TypeError(msg)


def load_images(images: Any) -> np.ndarray:
    """Read images into one uint8 array of shape (N, H, W, 3).

    Parameters
    ----------
    images : str, path, list of paths, array, tensor or iterable of batches
        A folder (searched recursively), a glob pattern, a list of image files, a uint8 array
        (N, H, W, C), a torch tensor (N, C, H, W) or an iterable of batches. Grey images get three
        equal channels. Files need Pillow (``modelcompare[features]``).

    Returns
    -------
    numpy.ndarray
        uint8, shape (N, H, W, 3). All images must have one size.

    Raises
    ------
    ValueError
        For an empty folder, a wrong shape or images of different sizes.
    TypeError
        For images that are not uint8.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare.features import load_images
    >>> load_images(np.zeros((2, 8, 8), dtype=np.uint8)).shape
    (2, 8, 8, 3)
    """
    parts: list[np.ndarray] = []
    for batch in image_source(images).batches(256):
        parts.extend([im[None] for im in batch] if isinstance(batch, list) else [batch])
    if len({p.shape[1:] for p in parts}) > 1:
        msg = "`images` have different sizes; resize them to one size first."
        raise ValueError(msg)
    return np.concatenate(parts)
