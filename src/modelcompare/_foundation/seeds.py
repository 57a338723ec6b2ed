"""Seed handling: one place turns ``seed=`` into generators and bridges to sklearn and torch."""

from __future__ import annotations

import numbers
from typing import Any, TypeAlias

import numpy as np

__all__ = ["SeedLike", "check_seed", "sklearn_seed", "spawn", "torch_generator"]

SeedLike: TypeAlias = int | np.integer | np.random.Generator | None


def check_seed(seed: SeedLike) -> tuple[np.random.Generator, int | None]:
    """Normalise a ``seed`` argument.

    Parameters
    ----------
    seed : int, numpy.random.Generator or None
        ``None`` draws fresh entropy, an int seeds a new generator, a Generator is used and advanced.

    Returns
    -------
    rng : numpy.random.Generator
        The generator to draw from.
    seed_used : int or None
        The int that reproduces the run (the fresh entropy when ``seed`` was None), or None when the
        caller passed a Generator and owns its stream.

    Raises
    ------
    TypeError
        For a legacy ``RandomState`` or any other type.
    ValueError
        For a negative int.
    """
    if seed is None:
        entropy = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
        return np.random.default_rng(entropy), entropy
    if isinstance(seed, np.random.Generator):
        return seed, None
    if isinstance(seed, np.random.RandomState):
        msg = (
            "`seed` must be an int, a numpy Generator or None; got a legacy RandomState. "
            "Use np.random.default_rng(...) instead."
        )
        raise TypeError(msg)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        msg = f"`seed` must be an int, a numpy Generator or None; got {type(seed).__name__}."
        raise TypeError(msg)
    if int(seed) < 0:
        msg = f"`seed` must be a non-negative int; got {seed}."
        raise ValueError(msg)
    return np.random.default_rng(int(seed)), int(seed)


def spawn(rng: np.random.Generator, n: int) -> list[np.random.Generator]:
    """Return ``n`` independent child generators of ``rng`` (one per fold, trial or task)."""
    return list(rng.spawn(n))


def sklearn_seed(rng: np.random.Generator) -> int:
    """Draw an int ``random_state`` for scikit-learn, which does not accept Generators."""
    return int(rng.integers(2**32))


def torch_generator(rng: np.random.Generator, device: Any = "cpu") -> Any:
    """Return a ``torch.Generator`` on ``device`` seeded from ``rng``."""
    import torch

    gen = torch.Generator(device=device)
    gen.manual_seed(int(rng.integers(2**63)))
    return gen
