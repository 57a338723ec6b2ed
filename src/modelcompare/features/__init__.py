"""From images to features: folders, arrays and tensors through maintained feature extractors.

The built-in extractors are torch-fidelity's FID Inception-v3 (``"inception"``), timm's DINOv2
ViT-L/14 (``"dinov2"``) and open_clip's CLIP ViT-L/14@336 (``"clip"``); any torch module or callable
can be registered. They need the ``features`` extra; features are cached on disk by content.
"""

from modelcompare.features._extract import extract_features
from modelcompare.features._featureset import FeatureSet, load_features
from modelcompare.features._images import load_images
from modelcompare.features._preprocess import resize_like_tensorflow1x
from modelcompare.features._registry import (
    Extractor,
    WeightsUnavailableError,
    available_extractors,
    register_extractor,
)

__all__ = [
    "Extractor",
    "FeatureSet",
    "WeightsUnavailableError",
    "available_extractors",
    "extract_features",
    "load_features",
    "load_images",
    "register_extractor",
    "resize_like_tensorflow1x",
]
