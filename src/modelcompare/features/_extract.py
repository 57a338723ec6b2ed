"""The extraction engine: batches of images through an extractor, with an on-disk cache."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from modelcompare._foundation.optional import import_optional
from modelcompare._foundation.torch_support import check_device, import_torch, resolve_device
from modelcompare._foundation.validation import check_int
from modelcompare._foundation.version import __version__
from modelcompare.features._featureset import FeatureSet, load_features
from modelcompare.features._images import image_source
from modelcompare.features._registry import Extractor, get_extractor

__all__ = ["cache_key", "extract_features"]


def cache_key(content_hash: str, extractor: Extractor, weights: str | None) -> str:
    """The cache key: images' content, extractor, weights, preprocessing and library version."""
    weights_id = (
        hashlib.sha256(Path(weights).read_bytes()).hexdigest() if weights else extractor.weights_id
    )
    parts = {
        "content": content_hash,
        "extractor": extractor.name,
        "weights": weights_id,
        "preprocessing": extractor.preprocessing,
        "version": __version__,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]


def _run(fn: Any, batch: Any, device: str) -> np.ndarray:
    import torch

    with torch.inference_mode():
        tensor = torch.from_numpy(np.ascontiguousarray(np.moveaxis(batch, -1, 1))).to(device)
        out = fn(tensor)
    out = out[0] if isinstance(out, tuple | list) else out
    return out.detach().reshape(out.shape[0], -1).to("cpu", torch.float32).numpy()


def extract_features(
    images: Any,
    extractor: str | Extractor = "inception",
    *,
    weights: str | Path | None = None,
    batch_size: int = 64,
    device: str = "cpu",
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> FeatureSet:
    """Turn images into features with a registered extractor, batch by batch.

    Parameters
    ----------
    images : str, path, list of paths, array, tensor or iterable of batches
        A folder (searched recursively), a glob, a list of image files, a uint8 array
        (N, H, W, C), a torch tensor (N, C, H, W) or an iterable of such batches.
    extractor : str or Extractor
        ``"inception"`` (FID's Inception-v3 through torch-fidelity), ``"dinov2"`` (DINOv2
        ViT-L/14 through timm), ``"clip"`` (CLIP ViT-L/14@336 through open_clip, the CMMD
        embedding), or a name given to :func:`register_extractor`.
    weights : str or path, optional
        A local weights file for a built-in extractor (default: the library's download).
    batch_size : int
        Images per forward pass; memory is bounded by one batch.
    device : str
        Torch device: ``"cpu"``, ``"cuda"``, ``"mps"``, ``"gpu"`` or ``"auto"``.
    cache_dir : str or path, optional
        Folder of cached features. A second call on the same images (same file contents), with
        the same extractor, weights, preprocessing and library version reads them back.
    progress : bool
        Show a tqdm progress bar (on stderr).

    Returns
    -------
    FeatureSet
        The (n_images, d) features with the extractor, preprocessing and provenance.

    Raises
    ------
    MissingDependencyError
        When the extractor's package is not installed (the message names the extra).
    WeightsUnavailableError
        When the weights can neither be read nor downloaded (the message says where they come
        from and how to pass a local file).

    Notes
    -----
    FD-DINOv2 (Stein et al. 2023) is :func:`~modelcompare.fid` on ``"dinov2"`` features and CMMD
    (Jayasumana et al. 2024) :func:`~modelcompare.cmmd` on ``"clip"`` features. An iterable of
    batches can be read only once, so its features are not cached.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare.features import extract_features, register_extractor
    >>> _ = register_extractor("mean-colour", lambda b: b.mean(dim=(2, 3)), overwrite=True)
    >>> imgs = np.random.default_rng(0).integers(0, 256, (10, 16, 16, 3), dtype=np.uint8)
    >>> fs = extract_features(imgs, "mean-colour", batch_size=4)
    >>> fs.features.shape, fs.extractor
    ((10, 3), 'mean-colour')
    """
    ex = get_extractor(extractor)
    check_device(device)
    batch_size = check_int(batch_size, "batch_size", low=1)
    weights = None if weights is None else str(weights)
    source = image_source(images)
    content = source.content_hash
    cache_file = None
    if cache_dir is not None and content is not None:
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", ex.name)[-40:]  # a registered name may be a path
        cache_file = Path(cache_dir) / f"{stem}-{cache_key(content, ex, weights)}.npz"
        if cache_file.is_file():
            return load_features(cache_file)
    torch = import_torch(f"the {ex.name!r} feature extractor")
    device = str(resolve_device(device, torch))
    fn = ex.load(device, weights)
    tqdm = import_optional("tqdm.auto", purpose="the progress bar").tqdm
    try:
        total = len(source)
    except TypeError:
        total = None
    parts = []
    with tqdm(total=total, disable=not progress, desc=f"features ({ex.name})", unit="img") as bar:
        for batch in source.batches(batch_size):
            if isinstance(batch, list):  # images of mixed sizes: one at a time
                parts.extend(_run(fn, im[None], device) for im in batch)
            else:
                parts.append(_run(fn, batch, device))
            bar.update(len(batch))
    feats = np.concatenate(parts)
    provenance = {
        "content_hash": content,
        "weights": weights or ex.weights_id,
        "version": __version__,
        "device": device,
    }
    if isinstance(images, str | Path):
        provenance["source"] = str(images)
    result = FeatureSet(feats, ex.name, ex.preprocessing, int(feats.shape[0]), provenance)
    if cache_file is not None:
        result.save(cache_file)
    return result
