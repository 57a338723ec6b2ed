"""sbibm's MLP (scikit-learn's ``MLPClassifier`` recipe): many networks trained together.

Every entry of ``folds`` is one network with its own training rows, seed, Adam clock and stopping
counter; all entries share the input width and the hidden widths and are trained in one call (the
folds of one comparison, or of many comparisons at once): by the compiled kernel on the CPU, as
**one** batched torch network elsewhere (see below).

The recipe (C2ST spec §2, steps 6–14) is scikit-learn 1.9's ``MLPClassifier(activation="relu",
solver="adam")`` with ``max_iter`` = ``max_epochs``:

- Glorot-uniform initialisation with factor 6, drawn in float64 from ``RandomState(seed)`` in the
  order W0, b0, W1, b1, …, then cast to float32 (biases are not zero);
- float32 training; minibatches of ``min(200, n_train)`` taken from a fresh shuffle every epoch, the
  shuffle drawn from the same ``RandomState`` stream that drew the initialisation (and composed with
  the previous epoch's order, as ``sklearn.utils.shuffle`` does), so the batch order is the one
  scikit-learn uses for the same seed;
- loss = mean binary cross-entropy (probabilities clipped to float32's eps, evaluated in float64)
  + (α/2B)·Σ‖W‖² with α = 1e-4 on weights only; gradients from the logits (δ = p − y);
- scikit-learn's Adam (lr 1e-3, ε added to the uncorrected √v, t counting minibatches);
- epoch loss = Σ_b L_b·|b| / n_train; stop once the loss has failed to improve on the best by more
  than 1e-4 for more than 10 epochs in a row; the last weights are kept.

Two engines train the recipe; both give scikit-learn's trajectory up to float32 rounding:

- **CPU: the compiled kernel** (``_native.py`` / ``_native_mlp.c``). One C call runs a whole epoch
  of one network (gather, forward, loss, backward, Adam) with register-tiled products and the ReLU
  fused into them; the arithmetic follows scikit-learn's ``_backprop`` and ``AdamOptimizer`` step
  by step. The shuffles, the stopping rule and the epoch loop stay in Python (one call per
  network-epoch). Each network is computed on its own, so an entry's result never depends on the
  other entries. It is built with the system C compiler on first use and cached.
- **Accelerators, or no C compiler: the batched torch engine** (``_mlp_engine.py``), which trains
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
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from modelcompare._foundation.torch_support import import_torch, resolve_device
from modelcompare._foundation.validation import check_choice

__all__ = ["FoldData", "MLPFoldFit", "train_mlp"]

ALPHA = 1e-4
LEARNING_RATE = 1e-3
BETA1 = 0.9
BETA2 = 0.999
ADAM_EPS = 1e-8
TOL = 1e-4
N_ITER_NO_CHANGE = 10
BATCH_SIZE = 200
EPS32 = float(np.finfo(np.float32).eps)

# Use torch's fused Adam kernel (one call per step) when it is available; the hand-written update is
# the fallback and the reference the tests compare it with.
USE_FUSED_ADAM = True


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


def adam_step_size(t: int) -> float:
    """scikit-learn's bias-corrected step size lr·√(1−β₂ᵗ)/(1−β₁ᵗ)."""
    return LEARNING_RATE * math.sqrt(1.0 - BETA2**t) / (1.0 - BETA1**t)


def adam_update_(theta: Any, grad: Any, m: Any, v: Any, t: int, torch: Any) -> None:
    """One sklearn-form Adam step in place: ε is added to the *uncorrected* √v."""
    m.lerp_(grad, 1.0 - BETA1)
    v.mul_(BETA2).addcmul_(grad, grad, value=1.0 - BETA2)
    theta.addcdiv_(m, torch.sqrt(v).add_(ADAM_EPS), value=-adam_step_size(t))


def fused_adam_update_(
    thetas: list[Any], grads: list[Any], ms: list[Any], vs: list[Any], step: Any, t: int, torch: Any
) -> None:
    """The same step with torch's fused kernel.

    torch divides √v by √(1−β₂ᵗ) before adding its ε, so passing ε/√(1−β₂ᵗ) reproduces
    scikit-learn's update exactly (up to float rounding): lr/(1−β₁ᵗ) · m / ((√v + ε)/√(1−β₂ᵗ)).
    """
    step.fill_(float(t))
    torch._fused_adam_(
        thetas,
        grads,
        ms,
        vs,
        [],
        [step] * len(thetas),
        lr=LEARNING_RATE,
        beta1=BETA1,
        beta2=BETA2,
        weight_decay=0.0,
        eps=ADAM_EPS / math.sqrt(1.0 - BETA2**t),
        amsgrad=False,
        maximize=False,
    )


def fused_adam_works(torch: Any, device: Any) -> bool:
    if not USE_FUSED_ADAM or not hasattr(torch, "_fused_adam_"):
        return False
    try:
        p = torch.ones(4, device=device)
        g = torch.full((4,), 0.5, device=device)
        m = torch.zeros(4, device=device)
        v = torch.zeros(4, device=device)
        step = torch.zeros((), device=device)
        fused_adam_update_([p], [g], [m], [v], step, 1, torch)
        expected = 1.0 - LEARNING_RATE * 0.05 / (math.sqrt(0.00025) + ADAM_EPS) * math.sqrt(
            1 - BETA2
        ) / (1 - BETA1)
        return bool(abs(float(p[0]) - expected) < 1e-6)
    except (RuntimeError, NotImplementedError, TypeError):
        return False


def _predict_logits(torch: Any, layers: list[tuple[np.ndarray, np.ndarray]], x: Any) -> np.ndarray:
    """Test-set logits on the CPU in float32 (torch: single-threaded BLAS when the user set it)."""
    with torch.inference_mode():
        a = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
        for i, (w, b) in enumerate(layers):
            a = torch.addmm(torch.from_numpy(b), a, torch.from_numpy(w))
            if i < len(layers) - 1:
                a.clamp_min_(0.0)
        return a[:, 0].numpy().astype(np.float64)


def _progress_callback(progress: bool | Callable[[int], None]) -> tuple[Any, Any]:
    if callable(progress):
        return progress, None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc="training MLP (epochs, all folds)", unit="epoch", leave=False)
        return bar.update, bar
    return None, None


def train_mlp(
    folds: Sequence[FoldData],
    *,
    hidden: tuple[int, ...],
    max_epochs: int,
    device: Any = "cpu",
    progress: bool | Callable[[int], None] = False,
    engine: str = "auto",
) -> list[MLPFoldFit]:
    """Train one sbibm MLP per entry of ``folds`` (C2ST spec §2).

    On the CPU the compiled kernel (``_native``) trains each network in one call per epoch; on an
    accelerator, or where no C compiler is available, all entries are batched as one torch network.

    Parameters
    ----------
    folds : sequence of FoldData
        One entry per network. Entries share the input width; their row counts and seeds may
        differ (e.g. folds of different comparisons).
    hidden : tuple of int
        Hidden-layer widths (ReLU); the output is one logistic unit.
    max_epochs : int
        Cap on epochs per entry (scikit-learn's ``max_iter``).
    device : str or torch.device
        ``"cpu"``, ``"cuda"``, ``"mps"``, ``"gpu"`` or ``"auto"``.
    progress : bool or callable
        ``True`` shows a tqdm bar on stderr; a callable receives the number of epochs (summed over
        entries) completed since its last call.
    engine : {"auto", "native", "torch"}
        ``"auto"``: the compiled kernel on the CPU when it builds (and ``MODELCOMPARE_NATIVE`` is
        not ``0``), else the batched torch engine. ``"native"`` demands the kernel, ``"torch"``
        forces the batched engine.

    Returns
    -------
    list of MLPFoldFit
        In the order of ``folds``: test-set logits, epochs run, whether ``max_epochs`` was reached
        before the stopping rule, and the last epoch's training loss.
    """
    torch = import_torch(
        "the MLP classifier of c2st",
        hint="Or use classifier='logistic', which needs no torch.",
    )
    from modelcompare._foundation.mlp import native as _native
    from modelcompare._foundation.mlp.torch_engine import Entry, run_batched

    dev = resolve_device(device, torch)
    kernel = _choose_kernel(engine, dev)
    if len(folds) == 0:
        return []
    d = int(folds[0].x_train.shape[1])
    if any(int(f.x_train.shape[1]) != d or int(f.x_test.shape[1]) != d for f in folds):
        msg = "all entries of `folds` must have the same number of columns."
        raise ValueError(msg)
    layout = ParamLayout((d, *hidden, 1))
    entries = []
    init = np.empty((len(folds), layout.size), dtype=np.float32)
    for j, f in enumerate(folds):
        rs = np.random.RandomState(int(f.seed))
        init[j] = layout.pack(glorot_init(rs, layout.sizes))
        entries.append(Entry(j, int(f.x_train.shape[0]), rs))

    update, bar = _progress_callback(progress)
    final_theta: dict[int, np.ndarray] = {}
    final_loss: dict[int, float] = {}
    hit_max: dict[int, bool] = {}
    if kernel is not None and len(layout.sizes) - 1 > _native.MAX_LAYERS:
        if engine == "native":
            msg = f"`engine` 'native' takes at most {_native.MAX_LAYERS} layers; use 'torch'."
            raise ValueError(msg)
        kernel = None
    if kernel is not None:
        try:
            final_theta, final_loss, hit_max = _native.train_native(
                kernel, layout, folds, entries, init, max_epochs, update
            )
        finally:
            if bar is not None:
                bar.close()
        return _fits(torch, layout, folds, entries, final_theta, final_loss, hit_max)
    # A minibatch step is a few dozen tiny kernels: on the CPU, intra-op threads only add
    # synchronisation (a 300 vs 300 fit took 32 s with two threads on a busy 2-core machine and
    # 0.8 s with one). Train single-threaded and restore the caller's setting; parallelism across
    # comparisons belongs to c2st_many / joblib.
    n_threads = torch.get_num_threads()
    single = dev.type == "cpu" and n_threads != 1
    try:
        if single:
            torch.set_num_threads(1)
        with torch.inference_mode():
            run_batched(
                torch,
                dev,
                layout,
                folds,
                entries,
                init,
                max_epochs,
                update,
                final_theta,
                final_loss,
                hit_max,
            )
    finally:
        if single:
            torch.set_num_threads(n_threads)
        if bar is not None:
            bar.close()

    return _fits(torch, layout, folds, entries, final_theta, final_loss, hit_max)


def _choose_kernel(engine: str, dev: Any) -> Any:
    """The compiled kernel when ``engine`` and the device call for it, else None (torch engine)."""
    from modelcompare._foundation.mlp import native as _native

    engine = check_choice(engine, "engine", ("auto", "native", "torch"))
    auto_off = dev.type != "cpu" or not _native.native_enabled()
    if engine == "torch" or (engine == "auto" and auto_off):
        return None
    if dev.type != "cpu":
        msg = f"`engine` 'native' runs on the CPU; `device` is {dev.type!r}."
        raise ValueError(msg)
    kernel = _native.load_kernel(respect_env=engine == "auto")
    if kernel is None and engine == "native":
        msg = (
            "`engine` is 'native' but no C compiler could build the MLP kernel "
            "(set CC, or use engine='torch')."
        )
        raise RuntimeError(msg)
    return kernel


def _fits(
    torch: Any,
    layout: ParamLayout,
    folds: Sequence[FoldData],
    entries: Sequence[Any],
    final_theta: dict[int, np.ndarray],
    final_loss: dict[int, float],
    hit_max: dict[int, bool],
) -> list[MLPFoldFit]:
    fits = []
    for j, f in enumerate(folds):
        logits = _predict_logits(torch, layout.unpack(final_theta[j]), f.x_test)
        fits.append(
            MLPFoldFit(
                test_logits=logits,
                epochs=entries[j].epochs,
                hit_max=hit_max[j],
                final_loss=final_loss[j],
            )
        )
    return fits
