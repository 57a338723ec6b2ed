"""sbibm's MLP trained on torch, all folds batched. (Engine under construction.)"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._torch import import_torch

__all__ = ["FoldData", "MLPFoldFit", "train_mlp"]


@dataclass(frozen=True, eq=False)
class FoldData:
    """One network to train: a fold's training rows, labels, test rows and its recipe seed."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    seed: int


@dataclass(frozen=True, eq=False)
class MLPFoldFit:
    """A trained fold: test logits, epochs run, whether max_epochs was hit, final epoch loss."""

    test_logits: np.ndarray
    epochs: int
    hit_max: bool
    final_loss: float


def train_mlp(
    folds: Sequence[FoldData],
    *,
    hidden: tuple[int, ...],
    max_epochs: int,
    device: Any = "cpu",
    progress: bool | Callable[[int], None] = False,
) -> list[MLPFoldFit]:
    """Train one sbibm MLP per entry of ``folds``, batched; see the C2ST spec §2."""
    import_torch(
        "the MLP classifier of c2st",
        hint="Or use classifier='logistic', which needs no torch.",
    )
    raise NotImplementedError
