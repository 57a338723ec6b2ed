"""Features with their provenance: which extractor, which preprocessing, which images."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.results import Result, result_class

__all__ = ["FeatureSet", "load_features"]


@result_class
class FeatureSet(Result):
    """Features of a set of images and where they come from.

    Attributes
    ----------
    features : numpy.ndarray
        Shape (n_images, d), float32 as the networks return them.
    extractor : str
        The extractor's registry name (``"unknown"`` for a bare array file).
    preprocessing : str
        What was done to the images before the network.
    n_images : int
        Number of images.
    provenance : dict
        The content hash of the images, the weights' identity, the library version and, for a
        folder, its path.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare.features import FeatureSet
    >>> fs = FeatureSet(np.zeros((3, 2), np.float32), "mine", "none", 3, {})
    >>> fs
    FeatureSet(extractor='mine', n_images=3, preprocessing='none')
    """

    features: np.ndarray
    extractor: str
    preprocessing: str
    n_images: int
    provenance: dict[str, Any]

    _repr_fields: ClassVar[tuple[str, ...]] = ("extractor", "n_images", "preprocessing")

    def save(self, path: str | Path) -> Path:
        """Write the features and their provenance to a ``.npz`` file.

        Parameters
        ----------
        path : str or path
            Target file; ``.npz`` is appended when missing.

        Returns
        -------
        pathlib.Path
            The file written.
        """
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            "extractor": self.extractor,
            "preprocessing": self.preprocessing,
            "n_images": self.n_images,
            "provenance": self.provenance,
        }
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(tmp, features=self.features, meta=np.array(json.dumps(meta, sort_keys=True)))
        tmp.replace(path)  # a reader never sees a half-written cache file
        return path


def load_features(path: str | Path) -> FeatureSet:
    """Read a feature file written by :meth:`FeatureSet.save` (or a bare ``.npy`` array).

    Parameters
    ----------
    path : str or path
        A ``.npz`` from :meth:`FeatureSet.save` or ``modelcompare features``, or a ``.npy``
        array of shape (n, d) (its extractor is then ``"unknown"``).

    Returns
    -------
    FeatureSet
        The features and their provenance.

    Raises
    ------
    ValueError
        If the file holds no features or they are not 2-D.
    """
    path = Path(path)
    if path.suffix == ".npy":
        feats = np.load(path, allow_pickle=False)
        meta = {"extractor": "unknown", "preprocessing": "unknown", "provenance": {}}
    else:
        with np.load(path, allow_pickle=False) as data:
            if "features" not in data:
                msg = f"`path` = {str(path)!r} holds no `features` array."
                raise ValueError(msg)
            feats = data["features"]
            meta = json.loads(str(data["meta"])) if "meta" in data else {}
    if feats.ndim != 2:
        msg = f"`path` = {str(path)!r}: the features must be 2-D (n, d); got shape {feats.shape}."
        raise ValueError(msg)
    return FeatureSet(
        features=feats,
        extractor=meta.get("extractor", "unknown"),
        preprocessing=meta.get("preprocessing", "unknown"),
        n_images=int(feats.shape[0]),
        provenance=meta.get("provenance", {}),
    )
