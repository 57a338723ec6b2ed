"""The compiled CPU engine of the sbibm MLP: one C function runs a whole epoch of one network.

At d = 2 a minibatch step of the recipe is ~270k multiply-adds per network, so an eager framework
spends most of its time between kernels, and small batched GEMMs run far from the FLOP peak. The
kernel in ``native_mlp.c`` does the whole epoch (gather, forward, loss, backward, Adam) in one call
with register-tiled products and the ReLU fused into them.

It is compiled on first use with the system C compiler (``$CC``, else ``cc``/``gcc``/``clang``) for
the host CPU and cached in ``$MODELCOMPARE_CACHE_DIR`` (default ``~/.cache/modelcompare``), keyed by
the source, the flags and the CPU model, so a cluster with mixed CPUs never loads a foreign build.
When no compiler works, :func:`load_kernel` returns None and training falls back to the batched
torch engine; ``MODELCOMPARE_NATIVE=0`` forces that fallback.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from modelcompare._foundation.mlp import recipe
from modelcompare._foundation.mlp.recipe import (
    Entry,
    FoldData,
    ParamLayout,
    StoppingRule,
    ValidationRule,
    forward_logits,
    glorot_init,
    validation_accuracy,
)

__all__ = [
    "from_padded",
    "load_kernel",
    "native_enabled",
    "native_logits",
    "padded_size",
    "to_padded",
    "train_native",
]

SOURCE = Path(__file__).with_name("native_mlp.c")
VECTOR = 8  # floats; the kernel pads every row width to a multiple of this
MAX_LAYERS = 64  # weight layers the kernel takes (MAX_LAYERS in native_mlp.c)
COMMON_FLAGS = ("-O3", "-ffp-contract=fast", "-fno-math-errno")
X86 = ("x86_64", "amd64", "i386", "i686")


def native_enabled() -> bool:
    """False when the user set ``MODELCOMPARE_NATIVE=0`` (use the torch engine on the CPU too)."""
    return os.environ.get("MODELCOMPARE_NATIVE", "1").strip() not in ("0", "false", "no", "off")


def _cache_dir() -> Path:
    env = os.environ.get("MODELCOMPARE_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "modelcompare"


def _fallback_cache_dir() -> Path:
    # used when the cache directory is not writable (read-only home on a cluster node)
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"modelcompare-{user}"


def _cpu_identity() -> str:
    # The build is for the host CPU (-march=native): key it by the CPU's model and feature flags.
    try:
        with Path("/proc/cpuinfo").open() as fh:
            wanted = ("model name", "flags", "Features", "CPU part")
            lines = [ln.strip() for ln in fh if ln.startswith(wanted)]
        return "\n".join(sorted(set(lines)))
    except OSError:
        return f"{platform.machine()} {platform.processor()}"


def flag_sets() -> list[tuple[str, ...]]:
    """Compiler flags to try, best first.

    ``-march=native`` first. Then, on x86, AVX2 + FMA when the CPU has them, but never plain SSE2:
    that build runs the recipe about 2× slower than the torch engine, which is then the better
    fallback. Elsewhere (ARM: NEON and FMA are baseline) the portable flags.
    """
    sets = [(*COMMON_FLAGS, "-march=native")]
    if platform.machine().lower() in X86:
        cpu_flags = set(_cpu_identity().split())
        if {"avx2", "fma"} <= cpu_flags:
            sets.append((*COMMON_FLAGS, "-mavx2", "-mfma"))
    else:
        sets.append(COMMON_FLAGS)
    return sets


def _compilers() -> list[str]:
    names = [os.environ.get("CC", ""), "cc", "gcc", "clang"]
    found = [shutil.which(n) for n in names if n]
    # cc is often a link to gcc: try each real compiler once
    return list(dict.fromkeys(str(Path(p).resolve()) for p in found if p))


def _compile(compiler: str, flags: Sequence[str], target: Path) -> bool:
    """Build the kernel into ``target``; False when the compiler fails (OSError: unwritable)."""
    # build under a private name, then rename: concurrent workers never load a half-written file
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=target.parent)
    os.close(fd)
    cmd = [compiler, *flags, "-fPIC", "-shared", "-o", tmp, str(SOURCE), "-lm"]
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=120, check=False)
        if done.returncode != 0:
            return False
        Path(tmp).replace(target)
        return True
    except subprocess.SubprocessError:
        return False
    finally:
        Path(tmp).unlink(missing_ok=True)


def _bind(lib: ctypes.CDLL) -> ctypes.CDLL:
    vp, c_long, c_int = ctypes.c_void_p, ctypes.c_long, ctypes.c_int
    lib.mc_mlp_epoch.argtypes = [
        vp,
        vp,
        c_long,
        c_int,
        vp,
        c_int,
        vp,
        vp,
        vp,
        vp,
        c_long,
        c_int,
        vp,
        vp,
    ]
    lib.mc_mlp_epoch.restype = c_int
    lib.mc_param_size.argtypes = [c_int, vp]
    lib.mc_param_size.restype = c_long
    lib.mc_mlp_logits.argtypes = [vp, c_long, c_int, c_int, vp, vp, vp]
    lib.mc_mlp_logits.restype = c_int
    return lib


@functools.cache
def _load() -> ctypes.CDLL | None:
    source = SOURCE.read_bytes()
    for compiler in _compilers():
        for flags in flag_sets():
            lib = _build_or_load(source, compiler, flags)
            if lib is not None:
                return lib
    return None


def build_name(source: bytes, compiler: str, flags: Sequence[str]) -> str:
    """File name of the build for this source, compiler, flags and host CPU."""
    parts = [source, compiler.encode(), " ".join(flags).encode(), _cpu_identity().encode()]
    digest = hashlib.sha256(b"\0".join(parts)).hexdigest()[:20]
    return f"c2st_mlp_{digest}.so"


def _build_or_load(source: bytes, compiler: str, flags: Sequence[str]) -> ctypes.CDLL | None:
    """The cached build for (source, compiler, flags, CPU), built first if needed and smoke-tested."""
    name = build_name(source, compiler, flags)
    for cache in (_cache_dir(), _fallback_cache_dir()):
        target = cache / name
        try:
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                if not _compile(compiler, flags, target):
                    return None  # the compiler refuses these flags: another folder won't help
            lib = _bind(ctypes.CDLL(str(target)))
        except OSError:
            continue  # an unwritable folder or an unloadable file: try the next folder
        return lib if _works(lib) else None
    return None


def _hyper(lr: float) -> np.ndarray:
    """The kernel's ``hyper`` vector: (alpha, learning rate, beta1, beta2, eps)."""
    return np.array([recipe.ALPHA, lr, recipe.BETA1, recipe.BETA2, recipe.ADAM_EPS])


def _run_epoch(
    lib: Any,
    x: np.ndarray,
    y: np.ndarray,
    order: np.ndarray,
    sizes: np.ndarray,
    theta: np.ndarray,
    m: np.ndarray,
    v: np.ndarray,
    t0: int,
    batch: int,
    hyper: np.ndarray,
    loss: np.ndarray | None,
) -> int:
    """One ``mc_mlp_epoch`` call on contiguous arrays (float32 x, y, θ, m, v; int64 order; int32
    sizes; float64 hyper); the epoch loss lands in ``loss[0]``, or is not computed when ``loss`` is
    None (the weights are the same). Returns the kernel's status."""
    return lib.mc_mlp_epoch(
        x.ctypes.data,
        y.ctypes.data,
        len(x),
        x.shape[1],
        order.ctypes.data,
        len(sizes) - 1,
        sizes.ctypes.data,
        theta.ctypes.data,
        m.ctypes.data,
        v.ctypes.data,
        t0,
        batch,
        hyper.ctypes.data,
        None if loss is None else loss.ctypes.data,
    )


def native_logits(
    lib: Any,
    layout: ParamLayout,
    padded: np.ndarray,
    x: np.ndarray,
    sizes: np.ndarray | None = None,
) -> np.ndarray:
    """Logits (float32) of the network with padded parameters ``padded`` on the rows ``x``.

    The kernel's forward pass (``mc_mlp_logits``): the products and the output sum of training.
    """
    x = np.ascontiguousarray(x, dtype=np.float32)
    if sizes is None:
        sizes = np.asarray(layout.sizes, dtype=np.int32)
    out = np.empty(len(x), dtype=np.float32)
    status = lib.mc_mlp_logits(
        x.ctypes.data,
        len(x),
        x.shape[1],
        len(sizes) - 1,
        sizes.ctypes.data,
        padded.ctypes.data,
        out.ctypes.data,
    )
    if status != 0:
        msg = "the compiled MLP kernel could not allocate its workspace (out of memory)."
        raise MemoryError(msg)
    return out


def _works(lib: ctypes.CDLL) -> bool:
    """Smoke test of a fresh build, so that a miscompiled kernel is never used.

    On 37 rows (one ragged minibatch) of a 3 → 5 → 4 → 1 network: with a zero learning rate the
    epoch loss must equal the numpy loss at the initial weights and the weights must not move;
    with the recipe's rate, 40 epochs on separable data must lower the loss, and give the same
    weights when the loss is not computed; the forward pass alone must give the numpy logits.
    """
    layout = ParamLayout((3, 5, 4, 1))
    rs = np.random.RandomState(0)
    layers = glorot_init(rs, layout.sizes)
    x = rs.standard_normal((37, 3)).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.float32)
    p = 1.0 / (1.0 + np.exp(-forward_logits(layers, x).astype(np.float64)))
    p = np.clip(p, recipe.EPS32, 1.0 - recipe.EPS32)
    bce = -np.mean(np.where(y > 0.5, np.log(p), np.log1p(-p)))
    l2 = 0.5 * recipe.ALPHA * sum(float(np.sum(w.astype(np.float64) ** 2)) for w, _ in layers)
    expected = bce + l2 / len(x)

    sizes = np.asarray(layout.sizes, dtype=np.int32)
    order = np.arange(len(x), dtype=np.int64)
    loss = np.empty(1, dtype=np.float64)

    def run(lr: float, epochs: int, track: bool = True) -> tuple[np.ndarray, list[float]]:
        hyper = _hyper(lr)
        theta = to_padded(layout, layout.pack(layers))
        m, v = np.zeros_like(theta), np.zeros_like(theta)
        losses = []
        for epoch in range(epochs):
            out = loss if track else None
            status = _run_epoch(lib, x, y, order, sizes, theta, m, v, epoch, 64, hyper, out)
            if status != 0:
                return theta, [np.nan]
            losses.append(float(loss[0]))
        return theta, losses

    frozen, first = run(0.0, 1)
    if not abs(first[0] - expected) <= 1e-5 * max(1.0, expected):
        return False
    if not np.array_equal(frozen, to_padded(layout, layout.pack(layers))):
        return False
    trained, curve = run(recipe.LEARNING_RATE * 10, 40)
    if not (np.all(np.isfinite(curve)) and curve[-1] < 0.9 * curve[0]):
        return False
    if not np.array_equal(run(recipe.LEARNING_RATE * 10, 40, track=False)[0], trained):
        return False
    # the forward pass alone (validation scores, predictions) gives the numpy logits
    logits = native_logits(lib, layout, to_padded(layout, layout.pack(layers)), x)
    return bool(np.allclose(logits, forward_logits(layers, x), rtol=1e-5, atol=1e-5))


def load_kernel(respect_env: bool = True) -> ctypes.CDLL | None:
    """The compiled kernel, or None when disabled (``MODELCOMPARE_NATIVE=0``, unless
    ``respect_env`` is False) or when no C compiler could build it."""
    if respect_env and not native_enabled():
        return None
    return _load()


# --------------------------------------------------------------------------------------------------
# The kernel's parameter layout (see mc_param_size in native_mlp.c)
# --------------------------------------------------------------------------------------------------


def _pad(n: int) -> int:
    return -(-n // VECTOR) * VECTOR


def padded_size(sizes: Sequence[int]) -> int:
    """Floats in the kernel's flat parameter vector for layer widths ``sizes`` (d, h1, …, 1)."""
    hidden_layers = sum((sizes[i] + 1) * _pad(sizes[i + 1]) for i in range(len(sizes) - 2))
    return hidden_layers + _pad(sizes[-2]) + VECTOR


def _blocks(sizes: Sequence[int]) -> list[tuple[int, int, int, int]]:
    """(W offset, b offset, fan_in, fan_out) of every layer in the padded vector."""
    out, off = [], 0
    for i in range(len(sizes) - 2):
        fan_in, fan_out = sizes[i], sizes[i + 1]
        out.append((off, off + fan_in * _pad(fan_out), fan_in, fan_out))
        off += (fan_in + 1) * _pad(fan_out)
    out.append((off, off + _pad(sizes[-2]), sizes[-2], 1))
    return out


def to_padded(layout: ParamLayout, flat: np.ndarray) -> np.ndarray:
    """Convert a :class:`ParamLayout` vector to the kernel's padded layout (zero padding)."""
    sizes = layout.sizes
    out = np.zeros(padded_size(sizes), dtype=np.float32)
    *hidden, (w_off, b_off, fan_in, _) = _blocks(sizes)
    *hidden_layers, (w_out, b_out) = layout.unpack(flat)
    for (w_off_l, b_off_l, fan_in_l, fan_out), (w, b) in zip(hidden, hidden_layers):
        width = _pad(fan_out)
        out[w_off_l : w_off_l + fan_in_l * width].reshape(fan_in_l, width)[:, :fan_out] = w
        out[b_off_l : b_off_l + fan_out] = b
    out[w_off : w_off + fan_in] = w_out[:, 0]  # the output unit's weights are one padded row
    out[b_off] = b_out[0]
    return out


def from_padded(layout: ParamLayout, padded: np.ndarray) -> np.ndarray:
    """Inverse of :func:`to_padded`."""
    sizes = layout.sizes
    layers = []
    *hidden, (w_off, b_off, fan_in, _) = _blocks(sizes)
    for w_off_l, b_off_l, fan_in_l, fan_out in hidden:
        width = _pad(fan_out)
        w = padded[w_off_l : w_off_l + fan_in_l * width].reshape(fan_in_l, width)[:, :fan_out]
        layers.append((w, padded[b_off_l : b_off_l + fan_out]))
    layers.append((padded[w_off : w_off + fan_in].reshape(fan_in, 1), padded[b_off : b_off + 1]))
    return layout.pack(layers)


# --------------------------------------------------------------------------------------------------
# Training
# --------------------------------------------------------------------------------------------------


def train_native(
    lib: ctypes.CDLL,
    layout: ParamLayout,
    folds: Sequence[FoldData],
    entries: Sequence[Entry],
    init: np.ndarray,
    max_epochs: int,
    update: Callable[[int], None] | None,
    *,
    rule: StoppingRule | ValidationRule | None = None,
    validation: Sequence[tuple[np.ndarray, np.ndarray]] | None = None,
    scores: dict[int, float] | None = None,
    track_loss: bool = True,
) -> tuple[dict[int, np.ndarray], dict[int, float], dict[int, bool]]:
    """Train every entry to its stopping rule; each epoch runs one kernel call per active entry.

    ``entries`` are the recipe's :class:`~modelcompare._foundation.mlp.recipe.Entry` objects (RNG
    stream, shuffles, clocks), ``init`` their initial ParamLayout vectors. ``update`` receives the
    number of entries that ran after each epoch, as with the torch engine. ``rule`` is the stopping
    rule (default: the recipe's training-loss :class:`StoppingRule`). With ``validation`` (one
    ``(x_val, y_val)`` per fold) and a :class:`ValidationRule`, the rule watches the validation
    accuracy after every epoch, the best-validation weights are returned and ``scores`` receives
    each entry's best validation accuracy. With ``validation`` and ``track_loss`` False the kernel
    skips the training loss, which nothing then reads (about a tenth of an epoch at width 64; the
    weights are the same), and the final losses are NaN. Returns the final ParamLayout vectors,
    final losses and whether ``max_epochs`` stopped the entry.
    """
    sizes = np.asarray(layout.sizes, dtype=np.int32)
    hyper = _hyper(recipe.LEARNING_RATE)
    states = [_NetState(layout, fold, e, init[e.index]) for fold, e in zip(folds, entries)]
    rule = StoppingRule(len(states)) if rule is None else rule
    if validation is not None:
        for s in states:
            x_val, y_val = validation[s.entry.index]
            s.x_val = np.ascontiguousarray(x_val, dtype=np.float32)
            s.y_val = np.asarray(y_val)
            s.best = s.theta.copy()
    loss = np.full(len(states), np.nan)
    want_loss = validation is None or track_loss
    score = np.empty(len(states), dtype=np.float64)
    final_theta: dict[int, np.ndarray] = {}
    final_loss: dict[int, float] = {}
    hit_max: dict[int, bool] = {}
    while states:
        for j, s in enumerate(states):
            e = s.entry
            order = np.ascontiguousarray(e.shuffle(), dtype=np.int64)
            status = _run_epoch(
                lib,
                s.x,
                s.y,
                order,
                sizes,
                s.theta,
                s.m,
                s.v,
                e.t,
                e.batch,
                hyper,
                loss[j:] if want_loss else None,
            )
            if status != 0:  # train_mlp checked the depth, so only malloc can fail here
                msg = "the compiled MLP kernel could not allocate its workspace (out of memory)."
                raise MemoryError(msg)
            e.t += e.n_batches
            e.epochs += 1
            if validation is not None:
                logits = native_logits(lib, layout, s.theta, s.x_val, sizes)
                score[j] = validation_accuracy(logits, s.y_val)
        n_active = len(states)
        stop = rule.update(score[:n_active] if validation is not None else loss[:n_active])
        if validation is not None:
            for j in np.flatnonzero(rule.improved):
                states[j].best[:] = states[j].theta
        capped = np.array([s.entry.epochs >= max_epochs for s in states])
        if update is not None:
            update(n_active)
        for j, s in enumerate(states):
            if stop[j] or capped[j]:
                kept = s.theta if validation is None else s.best
                final_theta[s.entry.index] = from_padded(layout, kept)
                final_loss[s.entry.index] = float(loss[j])
                hit_max[s.entry.index] = bool(capped[j] and not stop[j])
                if scores is not None and validation is not None:
                    scores[s.entry.index] = float(rule.best[j])
        keep = ~(stop | capped)
        rule.keep(keep)
        states = [s for s, kp in zip(states, keep) if kp]
    return final_theta, final_loss, hit_max


class _NetState:
    """One network's rows, labels and padded parameter and Adam buffers."""

    def __init__(self, layout: ParamLayout, fold: FoldData, entry: Entry, init: np.ndarray) -> None:
        self.entry = entry
        self.x = np.ascontiguousarray(fold.x_train, dtype=np.float32)
        self.y = np.ascontiguousarray(fold.y_train, dtype=np.float32)
        self.theta = to_padded(layout, init)
        self.m = np.zeros_like(self.theta)
        self.v = np.zeros_like(self.theta)
        # early stopping on a validation set: its rows and the best-validation weights
        self.x_val: np.ndarray | None = None
        self.y_val: np.ndarray | None = None
        self.best: np.ndarray | None = None
