"""The registry of feature extractors: the built-in networks and the ones users register.

A built-in network is never re-implemented: ``"inception"`` is torch-fidelity's FID Inception-v3,
``"dinov2"`` timm's ``vit_large_patch14_dinov2`` and ``"clip"`` open_clip's ViT-L/14. Each is
imported and built only when first used, with an error naming the extra to install when its
package is missing and saying where the weights come from when they cannot be loaded.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from modelcompare._foundation.errors import MissingDependencyError, ModelCompareError
from modelcompare._foundation.optional import install_hint
from modelcompare.features._preprocess import (
    CLIP_MEAN,
    CLIP_STD,
    IMAGENET_MEAN,
    IMAGENET_STD,
    normalized_bicubic,
    to_unit_float,
)

__all__ = [
    "Extractor",
    "WeightsUnavailableError",
    "available_extractors",
    "get_extractor",
    "register_extractor",
]

#: A loaded extractor: a uint8 (N, C, H, W) torch batch on the device → (N, d) features.
BatchFn = Callable[[Any], Any]


class WeightsUnavailableError(ModelCompareError, OSError):
    """An extractor's weights could neither be read from a file nor downloaded."""


@dataclass(frozen=True)
class Extractor:
    """A named feature extractor.

    Attributes
    ----------
    name : str
        The registry name.
    load : callable
        ``load(device, weights)`` returns a function from a uint8 (N, C, H, W) torch batch on
        ``device`` to an (N, d) tensor; ``weights`` is a local file or None.
    preprocessing : str
        What happens to the images before the network, recorded with the features.
    weights_source : str
        Where the default weights come from (shown when they cannot be loaded).
    weights_id : str
        Identifies the weights in the cache key when no file is given (a hash of a registered
        module's parameters, or the name of a built-in's published weights).
    """

    name: str
    load: Callable[[str, str | None], BatchFn] = field(repr=False)
    preprocessing: str
    weights_source: str = ""
    weights_id: str = ""


_REGISTRY: dict[str, Extractor] = {}


def _require(module: str, package: str, extractor: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        msg = (
            f"the {extractor!r} extractor needs {package}: {install_hint('features')}, or "
            f"`pip install {package}` ({type(exc).__name__}: {exc})."
        )
        raise MissingDependencyError(msg) from exc


def _weights_error(extractor: str, source: str, exc: Exception) -> WeightsUnavailableError:
    msg = (
        f"the weights of the {extractor!r} extractor could not be loaded ({type(exc).__name__}: "
        f"{exc}). They come from {source}; on a machine without internet, download that file "
        "elsewhere and pass its path as `weights=` (CLI: `--weights FILE`)."
    )
    return WeightsUnavailableError(msg)


def _check_weights(weights: str | None, extractor: str) -> None:
    if weights is not None and not Path(weights).is_file():
        msg = f"`weights` = {weights!r}: no such file for the {extractor!r} extractor."
        raise FileNotFoundError(msg)


# -- built-ins -------------------------------------------------------------------------------------

_INCEPTION_URL = (
    "https://github.com/toshas/torch-fidelity/releases/download/v0.2.0/"
    "weights-inception-2015-12-05-6726825d.pth"
)


def _load_inception(device: str, weights: str | None) -> BatchFn:
    _check_weights(weights, "inception")
    module = _require("torch_fidelity.feature_extractor_inceptionv3", "torch-fidelity", "inception")
    try:
        net = module.FeatureExtractorInceptionV3(
            "inception-v3-compat", ["2048"], feature_extractor_weights_path=weights
        )
    except Exception as exc:  # a failed download surfaces as any of several errors
        raise _weights_error("inception", _INCEPTION_URL, exc) from exc
    net = net.to(device).eval()
    # torch-fidelity's network takes uint8 and resizes itself (see resize_like_tensorflow1x)
    return lambda batch: net(batch)[0]


_DINOV2 = "vit_large_patch14_dinov2.lvd142m"


def _load_dinov2(device: str, weights: str | None) -> BatchFn:
    _check_weights(weights, "dinov2")
    timm = _require("timm", "timm", "dinov2")
    overlay = {"file": str(weights)} if weights else None
    try:
        net = timm.create_model(
            _DINOV2, pretrained=True, num_classes=0, img_size=224, pretrained_cfg_overlay=overlay
        )
    except Exception as exc:
        raise _weights_error("dinov2", f"the Hugging Face Hub (timm/{_DINOV2})", exc) from exc
    net = net.to(device).eval()
    return lambda batch: net(normalized_bicubic(batch, 224, IMAGENET_MEAN, IMAGENET_STD))


def _load_clip(device: str, weights: str | None) -> BatchFn:
    _check_weights(weights, "clip")
    open_clip = _require("open_clip", "open_clip_torch", "clip")
    try:
        net = open_clip.create_model("ViT-L-14-336", pretrained=str(weights or "openai"))
    except Exception as exc:
        raise _weights_error("clip", "OpenAI's release via open_clip (ViT-L-14-336)", exc) from exc
    net = net.to(device).eval()
    return lambda batch: net.encode_image(normalized_bicubic(batch, 336, CLIP_MEAN, CLIP_STD))


_BUILTINS = (
    Extractor(
        "inception",
        _load_inception,
        "TF1 bilinear resize to 299 × 299 (torch-fidelity), (x − 128)/128; pool3, 2048 features",
        _INCEPTION_URL,
        "pt_inception-2015-12-05",
    ),
    Extractor(
        "dinov2",
        _load_dinov2,
        "bicubic antialiased resize to 224 × 224, ImageNet mean/std; DINOv2 ViT-L/14 CLS token",
        f"the Hugging Face Hub (timm/{_DINOV2})",
        _DINOV2,
    ),
    Extractor(
        "clip",
        _load_clip,
        "bicubic antialiased resize to 336 × 336, CLIP mean/std; CLIP ViT-L/14@336 image embedding",
        "OpenAI's CLIP release via open_clip (ViT-L-14-336, pretrained='openai')",
        "openai/ViT-L-14-336",
    ),
)
for _e in _BUILTINS:
    _REGISTRY[_e.name] = _e


# -- user extractors -------------------------------------------------------------------------------

_PREPROCESS = {
    "unit": ("uint8 → float32 in [0, 1], no resize", to_unit_float),
    "uint8": ("uint8 passed as it is", lambda batch: batch),
}


def _module_hash(model: Any) -> str:
    state = getattr(model, "state_dict", None)
    if state is None:
        return ""
    h = hashlib.sha256()
    for key, tensor in sorted(state().items()):
        h.update(key.encode())
        h.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()


def register_extractor(
    name: str,
    model: Any,
    *,
    preprocess: str | Callable[[Any], Any] = "unit",
    description: str | None = None,
    overwrite: bool = False,
) -> Extractor:
    """Register a torch module or callable as a feature extractor.

    Parameters
    ----------
    name : str
        The name to pass as ``extractor=`` (and ``--extractor`` on the command line).
    model : torch.nn.Module or callable
        Maps a preprocessed (N, C, H, W) torch batch to (N, d) features. A module is moved to the
        device and set to evaluation mode.
    preprocess : {"unit", "uint8"} or callable
        ``"unit"``: float32 in [0, 1]; ``"uint8"``: the raw batch; or a callable on the uint8
        (N, C, H, W) batch.
    description : str, optional
        The preprocessing recorded with the features (default: a description of ``preprocess``).
    overwrite : bool
        Replace an extractor of the same name (the built-ins included).

    Returns
    -------
    Extractor
        The registered extractor.

    Raises
    ------
    ValueError
        If ``name`` is taken and ``overwrite`` is False, or ``preprocess`` is unknown.

    Examples
    --------
    >>> from modelcompare.features import register_extractor
    >>> ex = register_extractor("mean-colour", lambda b: b.mean(dim=(2, 3)), overwrite=True)
    >>> ex.name
    'mean-colour'
    """
    if not isinstance(name, str) or not name:
        msg = f"`name` must be a non-empty string; got {name!r}."
        raise ValueError(msg)
    if name in _REGISTRY and not overwrite:
        msg = f"`name` = {name!r} is already registered; pass overwrite=True to replace it."
        raise ValueError(msg)
    if not callable(model):
        msg = f"`model` must be a torch module or a callable; got {type(model).__name__}."
        raise TypeError(msg)
    if callable(preprocess):
        prep, text = preprocess, description or f"user preprocessing {preprocess!r}"
    elif preprocess in _PREPROCESS:
        text, prep = _PREPROCESS[preprocess]
    else:
        msg = f'`preprocess` must be "unit", "uint8" or a callable; got {preprocess!r}.'
        raise ValueError(msg)

    def load(device: str, weights: str | None) -> BatchFn:
        net = model
        if hasattr(net, "to") and hasattr(net, "eval"):
            net = net.to(device).eval()
        return lambda batch: net(prep(batch))

    extractor = Extractor(
        name, load, description or text, "the registered model", _module_hash(model)
    )
    _REGISTRY[name] = extractor
    return extractor


def available_extractors() -> list[str]:
    """The registered extractor names, built-ins first.

    Examples
    --------
    >>> from modelcompare.features import available_extractors
    >>> available_extractors()[:3]
    ['inception', 'dinov2', 'clip']
    """
    return list(_REGISTRY)


def get_extractor(extractor: str | Extractor) -> Extractor:
    """The registered extractor of that name (an :class:`Extractor` is returned as it is)."""
    if isinstance(extractor, Extractor):
        return extractor
    if extractor not in _REGISTRY:
        msg = (
            f"`extractor` = {extractor!r} is not registered; choose one of "
            f"{', '.join(map(repr, _REGISTRY))}, or register your own with register_extractor."
        )
        raise ValueError(msg)
    return _REGISTRY[extractor]
