"""Private torch helpers: imported only by the neural pieces, never by ``import modelcompare``."""

from __future__ import annotations

from typing import Any

from modelcompare._foundation.optional import import_optional
from modelcompare._foundation.validation import check_choice

__all__ = ["check_device", "import_torch", "resolve_device"]

DEVICES = ("cpu", "cuda", "mps", "gpu", "auto")


def check_device(device: Any) -> Any:
    """Check a device option without importing torch; returns it unchanged.

    A device is one of :data:`DEVICES`, ``"cuda:<index>"`` or a ``torch.device``; whether the
    device exists is checked later, by :func:`resolve_device`.
    """
    if type(device).__name__ == "device" and type(device).__module__.startswith("torch"):
        return device
    if isinstance(device, str) and device.startswith("cuda:") and device[5:].isdigit():
        return device
    if isinstance(device, str) and device.startswith("cuda:"):
        msg = f"`device` must be 'cuda' or 'cuda:<index>' for a CUDA device; got {device!r}."
        raise ValueError(msg)
    return check_choice(device, "device", DEVICES)


def import_torch(purpose: str, hint: str | None = None) -> Any:
    """Import torch or raise a MissingDependencyError naming ``purpose``."""
    return import_optional("torch", purpose=purpose, hint=hint)


def resolve_device(device: Any, torch: Any) -> Any:
    """Map ``"cpu" | "cuda" | "mps" | "gpu" | "auto"`` (or a torch.device) to a torch.device.

    ``"auto"`` tries cuda, then mps, then falls back to the CPU; ``"gpu"`` demands an accelerator.
    """
    if isinstance(device, torch.device):
        return device
    index = None
    if isinstance(device, str) and device.startswith("cuda:"):
        if not device[5:].isdigit():
            msg = f"`device` must be 'cuda' or 'cuda:<index>' for a CUDA device; got {device!r}."
            raise ValueError(msg)
        name, index = "cuda", int(device[5:])
    else:
        name = check_choice(device, "device", DEVICES)
    cuda = torch.cuda.is_available()
    mps = bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available())
    if name in ("gpu", "auto"):
        if cuda:
            return torch.device("cuda")
        if mps:
            return torch.device("mps")
        if name == "gpu":
            msg = "`device` is 'gpu' but torch sees neither a CUDA nor an MPS device."
            raise ValueError(msg)
        return torch.device("cpu")
    if name == "cuda" and not cuda:
        msg = f"`device` is {device!r} but torch.cuda.is_available() is False."
        raise ValueError(msg)
    if index is not None and index >= torch.cuda.device_count():
        count = torch.cuda.device_count()
        msg = f"`device` is {device!r} but torch sees {count} CUDA device(s), 0..{count - 1}."
        raise ValueError(msg)
    if name == "mps" and not mps:
        msg = "`device` is 'mps' but torch.backends.mps.is_available() is False."
        raise ValueError(msg)
    return torch.device(device)
