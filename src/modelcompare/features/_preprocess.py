"""Preprocessing of uint8 image batches for the built-in extractors (torch only, lazily imported).

The Inception resize is TensorFlow 1.x's bilinear resize (``align_corners=False``), computed as
torch-fidelity's ``interpolate_bilinear_2d_like_tensorflow1x`` computes it (its ``"slow"``,
bit-exact route): the FID Inception network was trained and is evaluated with that resize, and
Kynkäänniemi et al. and Parmar et al. (clean-fid, 2022) show that the resize alone moves FID.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CLIP_MEAN",
    "CLIP_STD",
    "IMAGENET_MEAN",
    "IMAGENET_STD",
    "normalized_bicubic",
    "resize_like_tensorflow1x",
    "to_unit_float",
]

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)


def resize_like_tensorflow1x(x: Any, size: tuple[int, int]) -> Any:
    """Bilinear resize as TensorFlow 1.x's ``resize_bilinear(align_corners=False)``.

    Parameters
    ----------
    x : torch.Tensor
        Floating point, shape (N, C, H, W).
    size : tuple of int
        Output (height, width).

    Returns
    -------
    torch.Tensor
        Shape (N, C, height, width), same dtype.

    Notes
    -----
    Output pixel (i, j) reads the input at (i·H/h, j·W/w), interpolating between the floor and
    the next pixel (clamped at the border), first along the width, then along the height: the
    same float32 operations in the same order as torch-fidelity 0.4's
    ``interpolate_bilinear_2d_like_tensorflow1x(method="slow")``, so the results agree bit for bit.
    """
    import torch

    out_h, out_w = int(size[0]), int(size[1])
    scale_x = x.shape[3] / out_w
    scale_y = x.shape[2] / out_h
    gx = torch.arange(0, out_w, 1, dtype=x.dtype, device=x.device) * torch.tensor(
        scale_x, dtype=torch.float32
    )
    gx_lo = gx.long()
    gx_hi = (gx_lo + 1).clamp_max(x.shape[3] - 1)
    dx = gx - gx_lo.float()
    gy = torch.arange(0, out_h, 1, dtype=x.dtype, device=x.device) * torch.tensor(
        scale_y, dtype=torch.float32
    )
    gy_lo = gy.long()
    gy_hi = (gy_lo + 1).clamp_max(x.shape[2] - 1)
    dy = gy - gy_lo.float()
    in_00 = x[:, :, gy_lo, :][:, :, :, gx_lo]
    in_01 = x[:, :, gy_lo, :][:, :, :, gx_hi]
    in_10 = x[:, :, gy_hi, :][:, :, :, gx_lo]
    in_11 = x[:, :, gy_hi, :][:, :, :, gx_hi]
    in_0 = in_00 + (in_01 - in_00) * dx.view(1, 1, 1, out_w)
    in_1 = in_10 + (in_11 - in_10) * dx.view(1, 1, 1, out_w)
    return in_0 + (in_1 - in_0) * dy.view(1, 1, out_h, 1)


def to_unit_float(batch: Any) -> Any:
    """uint8 (N, C, H, W) → float32 in [0, 1]."""
    import torch

    return batch.to(torch.float32) / 255.0


def normalized_bicubic(
    batch: Any, size: int, mean: tuple[float, ...], std: tuple[float, ...]
) -> Any:
    """uint8 (N, C, H, W) → bicubic resize to size × size, [0, 1], then (x − mean) / std.

    This is the evaluation transform of DINOv2 and CLIP (torchvision's ``Resize`` with
    ``BICUBIC`` and antialiasing on a tensor, as dgm-eval applies it to square images).
    """
    import torch
    import torch.nn.functional as F

    x = to_unit_float(batch)
    if tuple(x.shape[-2:]) != (size, size):
        x = F.interpolate(x, size=(size, size), mode="bicubic", align_corners=False, antialias=True)
    m = torch.tensor(mean, dtype=x.dtype, device=x.device).view(1, -1, 1, 1)
    s = torch.tensor(std, dtype=x.dtype, device=x.device).view(1, -1, 1, 1)
    return (x.clamp(0.0, 1.0) - m) / s
