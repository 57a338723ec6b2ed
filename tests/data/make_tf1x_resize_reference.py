"""Write ``tf1x_resize_reference.npz``: torch-fidelity's TF1.x-style bilinear resize on fixed images.

The CI machine has no torch-fidelity (it needs torchvision, which does not import beside the CPU
torch pinned there), so the resize test compares against these stored values. Regenerate with
torch-fidelity 0.4.0 installed (``pip install --no-deps torch-fidelity==0.4.0``)::

    python tests/data/make_tf1x_resize_reference.py
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import torch

SHAPES = ((32, 32), (64, 48), (300, 310))
N_KEPT = 4000  # output values kept per shape, at seeded positions


def images(shape: tuple[int, int]) -> torch.Tensor:
    """The test's images: two seeded uint8-valued RGB images of ``shape``."""
    rng = np.random.default_rng(0)
    return torch.from_numpy(rng.integers(0, 256, size=(2, 3, *shape)).astype(np.float32))


def positions(seed: int) -> np.ndarray:
    """Flat indices into a (2, 3, 299, 299) output at which values are kept."""
    return np.random.default_rng(seed).choice(2 * 3 * 299 * 299, size=N_KEPT, replace=False)


def _reference():
    spec = importlib.util.find_spec("torch_fidelity")
    path = Path(spec.origin).parent / "interpolate_compat_tensorflow.py"
    mod_spec = importlib.util.spec_from_file_location("tf_resize_reference", path)
    module = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(module)
    return module.interpolate_bilinear_2d_like_tensorflow1x


def main() -> None:
    resize = _reference()
    arrays = {}
    for i, shape in enumerate(SHAPES):
        out = resize(images(shape), size=(299, 299), align_corners=False).numpy().ravel()
        arrays[f"values_{shape[0]}x{shape[1]}"] = out[positions(i)]
        arrays[f"mean_{shape[0]}x{shape[1]}"] = np.float64(out.astype(np.float64).mean())
    np.savez_compressed(Path(__file__).with_name("tf1x_resize_reference.npz"), **arrays)


if __name__ == "__main__":
    main()
