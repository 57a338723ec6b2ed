"""sbibm's MLP recipe (scikit-learn's ``MLPClassifier``): constants and the pieces every engine shares.

This module is the leaf of the MLP engine: it imports no engine and no trainer. The engines
(:mod:`.native`, the compiled CPU kernel, and :mod:`.torch_engine`, the batched torch network) build
on it, and :func:`modelcompare._foundation.mlp.trainer.train_mlp` picks one of them.

The recipe is scikit-learn 1.9's ``MLPClassifier(activation="relu", solver="adam")`` as sbibm's
C2ST uses it (Lueckmann et al. 2021), with ``max_iter`` = ``max_epochs``:

- Glorot-uniform initialisation with factor 6 (Glorot and Bengio 2010), drawn in float64 from
  ``RandomState(seed)`` in the order W0, b0, W1, b1, …, then cast to float32 (biases are not zero);
- float32 training; minibatches of ``min(200, n_train)`` taken from a fresh shuffle every epoch, the
  shuffle drawn from the same ``RandomState`` stream that drew the initialisation (and composed with
  the previous epoch's order, as ``sklearn.utils.shuffle`` does), so the batch order is the one
  scikit-learn uses for the same seed;
- loss = mean binary cross-entropy (probabilities clipped to float32's eps, evaluated in float64)
  + (α/2B)·Σ‖W‖² with α = 1e-4 on weights only; gradients from the logits (δ = p − y);
- scikit-learn's Adam (Kingma and Ba 2015; lr 1e-3, ε added to the uncorrected √v, t counting
  minibatches);
- epoch loss = Σ_b L_b·|b| / n_train; stop once the loss has failed to improve on the best by more
  than 1e-4 for more than 10 epochs in a row; the last weights are kept.

With ``early_stopping`` (scikit-learn's ``early_stopping=True``, which L-C2ST's classifiers use) the
stopping rule watches a held-out validation set instead:

- after the initial weights, the same ``RandomState`` draws a stratified split of the rows
  (scikit-learn's ``train_test_split(..., test_size=validation_fraction, stratify=y)``, 10 % by
  default); the network trains on the rest, in the order that split returns;
- after each epoch the validation accuracy is computed (class 1 iff the float32 sigmoid is
  > 0.5); a score below best + tol counts as no improvement; a score above the best replaces the
  best and the weights are copied; stop once the count exceeds ``n_iter_no_change``;
- the best-validation weights are returned, not the last ones.

Two engines train the recipe; both give scikit-learn's trajectory up to float32 rounding:

- **CPU: the compiled kernel** (``native.py`` / ``native_mlp.c``). One C call runs a whole epoch
  of one network (gather, forward, loss, backward, Adam) with register-tiled products and the ReLU
  fused into them; the arithmetic follows scikit-learn's ``_backprop`` and ``AdamOptimizer`` step
  by step. The shuffles, the stopping rule and the epoch loop stay in Python (one call per
  network-epoch). Each network is computed on its own, so an entry's result never depends on the
  other entries. It is built with the system C compiler on first use and cached.
- **Accelerators, or no C compiler: the batched torch engine** (``torch_engine.py``), which trains
  all entries as one batched network:

  - All parameters of all entries live in one flat float32 buffer, laid out layer-major so that
    every weight and bias block is a contiguous ``(E, fan_in, fan_out)`` tensor (torch's batched
    GEMM then stays on MKL's batched path); Adam is one fused call on the whole buffer (or five
    in-place ops where torch lacks ``_fused_adam_``) and the L2 term one multiply.
  - Forward and backward are written by hand with ``bmm``/``baddbmm`` into preallocated buffers;
    layer 0 carries its bias as an extra input row (a ones column in the data), the output layer
    works on row vectors.
  - Ragged minibatches (entries with different ``n_train``, the smaller last batch) are padded and
    carry per-row weights 1/|b| (0 for padding), so δ = (p − y)·w gives each entry its own batch
    mean; entries whose batch counts differ update on their own Adam clocks.
  - Each epoch's minibatches are gathered with one ``index_select``; the probabilities and L2
    terms of every step are kept and the epoch loss is evaluated once at the end, in float64. The
    only host/device synchronisation per epoch is that loss vector, which drives the stopping rule.
  - A finished entry is dropped from every buffer (compaction), so the cost follows the sum of the
    epochs, not k times the longest fold.

References
----------
.. [1] Lueckmann, J.-M. et al. (2021). Benchmarking simulation-based inference. AISTATS.
.. [2] Glorot, X. and Bengio, Y. (2010). Understanding the difficulty of training deep feedforward
   neural networks. AISTATS.
.. [3] Kingma, D. P. and Ba, J. (2015). Adam: a method for stochastic optimization. ICLR.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "ADAM_EPS",
    "ALPHA",
    "BATCH_SIZE",
    "BETA1",
    "BETA2",
    "EPS32",
    "LEARNING_RATE",
    "N_ITER_NO_CHANGE",
    "TOL",
    "VALIDATION_FRACTION",
    "Entry",
    "FoldData",
    "ParamLayout",
    "StoppingRule",
    "ValidationRule",
    "adam_step_size",
    "forward_logits",
    "glorot_init",
    "mlp_memory_bytes",
    "validation_accuracy",
    "validation_split",
]

# scikit-learn's MLPClassifier defaults, as sbibm's C2ST uses them
ALPHA = 1e-4  # L2 penalty on the weights (not the biases)
LEARNING_RATE = 1e-3  # Adam's learning_rate_init
BETA1 = 0.9
BETA2 = 0.999
ADAM_EPS = 1e-8
TOL = 1e-4  # the stopping rule's improvement threshold
N_ITER_NO_CHANGE = 10
BATCH_SIZE = 200  # the optimiser minibatch: min(BATCH_SIZE, n_train) rows
EPS32 = float(np.finfo(np.float32).eps)  # probabilities are clipped to [EPS32, 1 - EPS32]
VALIDATION_FRACTION = 0.1  # rows held out by the early-stopping rule


@dataclass(frozen=True, eq=False)
class FoldData:
    """One network to train.

    Attributes
    ----------
    x_train : numpy.ndarray, shape (n_train, d)
        Training rows (cast to float32 by the engines).
    y_train : numpy.ndarray, shape (n_train,)
        0/1 labels of the training rows.
    x_test : numpy.ndarray, shape (n_test, d)
        Rows whose logits the trained network returns.
    seed : int
        The recipe seed: ``RandomState(seed)`` draws the initial weights and then every epoch's
        shuffle.
    """

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    seed: int


# --------------------------------------------------------------------------------------------------
# Recipe pieces (numpy; unit-tested against scikit-learn)
# --------------------------------------------------------------------------------------------------


def glorot_init(
    rs: np.random.RandomState, sizes: Sequence[int]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """scikit-learn's ``_init_coef`` for ReLU layers: U(±√(6/(fan_in+fan_out))), W then b per layer.

    Draws in float64 from ``rs`` (advancing it exactly as scikit-learn does) and casts to float32.
    """
    layers = []
    for fan_in, fan_out in itertools.pairwise(sizes):
        bound = np.sqrt(6.0 / (fan_in + fan_out))
        w = rs.uniform(-bound, bound, (fan_in, fan_out))
        b = rs.uniform(-bound, bound, fan_out)
        layers.append((w.astype(np.float32), b.astype(np.float32)))
    return layers


class ParamLayout:
    """Offsets of each layer's ``(fan_in + 1, fan_out)`` block (bias in the last row) in a flat vector."""

    def __init__(self, sizes: Sequence[int]) -> None:
        self.sizes = tuple(int(s) for s in sizes)
        self.blocks: list[tuple[int, int, int]] = []  # (offset, fan_in, fan_out)
        offset = 0
        for fan_in, fan_out in itertools.pairwise(self.sizes):
            self.blocks.append((offset, fan_in, fan_out))
            offset += (fan_in + 1) * fan_out
        self.size = offset
        mask = np.zeros(self.size, dtype=np.float32)
        for off, fan_in, fan_out in self.blocks:
            mask[off : off + fan_in * fan_out] = 1.0
        self.weight_mask = mask

    def pack(self, layers: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        """Flatten ``[(W, b), ...]`` into one float32 vector."""
        flat = np.empty(self.size, dtype=np.float32)
        for (off, fan_in, fan_out), (w, b) in zip(self.blocks, layers):
            block = flat[off : off + (fan_in + 1) * fan_out].reshape(fan_in + 1, fan_out)
            block[:fan_in] = w
            block[fan_in] = b
        return flat

    def unpack(self, flat: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Inverse of :meth:`pack` (views into ``flat``)."""
        out = []
        for off, fan_in, fan_out in self.blocks:
            block = flat[off : off + (fan_in + 1) * fan_out].reshape(fan_in + 1, fan_out)
            out.append((block[:fan_in], block[fan_in]))
        return out


def forward_logits(layers: Sequence[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    """Logits of the ReLU network (float32 arithmetic, as scikit-learn's forward pass)."""
    a = np.asarray(x, dtype=np.float32)
    for i, (w, b) in enumerate(layers):
        a = a @ w + b
        if i < len(layers) - 1:
            np.maximum(a, 0, out=a)
    return a[:, 0]


class StoppingRule:
    """scikit-learn's ``_update_no_improvement_count`` (training loss, no early stopping), vectorised.

    After each epoch: ``bad = (L > best − tol) ? bad + 1 : 0``; ``best = min(best, L)``; an entry
    stops when ``bad > n_iter_no_change``.
    """

    def __init__(self, n: int, tol: float = TOL, n_iter_no_change: int = N_ITER_NO_CHANGE) -> None:
        self.best = np.full(n, np.inf)
        self.bad = np.zeros(n, dtype=np.int64)
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change

    def update(self, loss: np.ndarray) -> np.ndarray:
        """Record one epoch's losses; return the mask of entries that stop now."""
        loss = np.asarray(loss, dtype=np.float64)
        worse = loss > self.best - self.tol
        self.bad = np.where(worse, self.bad + 1, 0)
        self.best = np.minimum(self.best, loss)
        return self.bad > self.n_iter_no_change

    def keep(self, mask: np.ndarray) -> None:
        """Drop the entries where ``mask`` is False."""
        self.best = self.best[mask]
        self.bad = self.bad[mask]


class ValidationRule:
    """scikit-learn's ``_update_no_improvement_count`` with ``early_stopping=True``, vectorised.

    After each epoch, with validation accuracy ``s``: ``bad = (s < best + tol) ? bad + 1 : 0``;
    where ``s > best`` the best score is replaced and the weights are to be kept
    (:attr:`improved`); an entry stops when ``bad > n_iter_no_change``. A NaN score resets the
    count and is never the best, as in scikit-learn.
    """

    def __init__(self, n: int, tol: float = TOL, n_iter_no_change: int = N_ITER_NO_CHANGE) -> None:
        self.best = np.full(n, -np.inf)
        self.bad = np.zeros(n, dtype=np.int64)
        self.improved = np.zeros(n, dtype=bool)
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change

    def update(self, score: np.ndarray) -> np.ndarray:
        """Record one epoch's validation scores; return the mask of entries that stop now."""
        score = np.asarray(score, dtype=np.float64)
        self.bad = np.where(score < self.best + self.tol, self.bad + 1, 0)
        self.improved = score > self.best
        self.best = np.where(self.improved, score, self.best)
        return self.bad > self.n_iter_no_change

    def keep(self, mask: np.ndarray) -> None:
        """Drop the entries where ``mask`` is False."""
        self.best = self.best[mask]
        self.bad = self.bad[mask]
        self.improved = self.improved[mask]


def validation_split(
    rs: np.random.RandomState, y: np.ndarray, fraction: float = VALIDATION_FRACTION
) -> tuple[np.ndarray, np.ndarray]:
    """Row indices ``(train, validation)`` of scikit-learn's early-stopping split.

    ``train_test_split(..., random_state=rs, test_size=fraction, stratify=y)`` on the row indices:
    the same draws from ``rs`` (so the epoch shuffles that follow are scikit-learn's too) and the
    training rows in the order scikit-learn trains on them.
    """
    from sklearn.model_selection import train_test_split

    y = np.asarray(y)
    train, val = train_test_split(
        np.arange(len(y)), random_state=rs, test_size=fraction, stratify=y
    )
    if len(val) < 2:
        msg = "the validation set is too small: increase `validation_fraction` or the sample."
        raise ValueError(msg)
    return np.asarray(train), np.asarray(val)


def validation_accuracy(logits: np.ndarray, y: np.ndarray) -> float:
    """scikit-learn's validation score: accuracy of class 1 iff the float32 sigmoid is > 0.5."""
    z = np.asarray(logits, dtype=np.float32)
    with np.errstate(over="ignore"):
        p = np.float32(1.0) / (np.float32(1.0) + np.exp(-z))
    return float(np.mean((p > 0.5) == (np.asarray(y) > 0.5)))


def adam_step_size(t: int) -> float:
    """scikit-learn's bias-corrected step size lr·√(1−β₂ᵗ)/(1−β₁ᵗ)."""
    return LEARNING_RATE * math.sqrt(1.0 - BETA2**t) / (1.0 - BETA1**t)


class Entry:
    """Host-side state of one network: its RNG stream, sample order, minibatch size and clocks.

    ``rs`` is the ``RandomState`` that drew the network's initial weights; every epoch's shuffle
    comes from the same stream, as in scikit-learn.
    """

    def __init__(self, index: int, n: int, rs: np.random.RandomState) -> None:
        self.index = index
        self.n = n
        self.rs = rs
        self.order = np.arange(n)
        self.batch = min(BATCH_SIZE, n)
        self.n_batches = -(-n // self.batch)
        self.t = 0  # Adam clock: minibatches done
        self.epochs = 0

    def shuffle(self) -> np.ndarray:
        """The next epoch's sample order."""
        # sklearn.utils.shuffle(sample_idx, random_state=rs): shuffle arange(n), then compose.
        idx = np.arange(self.n)
        self.rs.shuffle(idx)
        self.order = self.order[idx]
        return self.order


def mlp_memory_bytes(
    d: int, hidden: Sequence[int], n_train: int, n_test: int, n_networks: int
) -> int:
    """Rough peak bytes of training ``n_networks`` sbibm MLPs together (either engine).

    Per network: the float32 parameters four times over (weights, gradients, Adam's two moments)
    and once more for the initial copy, plus one minibatch of activations and deltas per hidden
    layer; once: the float64 Glorot draw of the largest layer and the test-set forward pass.
    """
    sizes = (int(d), *(int(h) for h in hidden), 1)
    pairs = list(itertools.pairwise(sizes))
    params = sum((a + 1) * b for a, b in pairs)
    largest = max(a * b for a, b in pairs)
    batch = min(BATCH_SIZE, int(n_train))
    per_network = 5 * 4 * params + 2 * 4 * batch * sum(sizes[1:-1])
    once = 12 * largest + 2 * 4 * int(n_test) * max(sizes)
    return int(n_networks) * per_network + once
