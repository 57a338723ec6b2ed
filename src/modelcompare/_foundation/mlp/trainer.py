"""Train the sbibm MLP on many networks at once, with the engine that suits the device.

:func:`train_mlp` is the entry point of the MLP engine: it draws each network's initial weights
from the recipe (:mod:`.recipe`), then hands the networks to the compiled CPU kernel
(:mod:`.native`) or to the batched torch engine (:mod:`.torch_engine`), and returns test-set
logits. It depends on nothing outside the foundation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from modelcompare._foundation.mlp import native, torch_engine
from modelcompare._foundation.mlp.recipe import Entry, FoldData, ParamLayout, glorot_init
from modelcompare._foundation.torch_support import import_torch, resolve_device
from modelcompare._foundation.validation import check_choice

__all__ = ["ENGINES", "FoldData", "MLPFoldFit", "train_mlp"]

ENGINES = ("auto", "native", "torch")


@dataclass(frozen=True, eq=False)
class MLPFoldFit:
    """One trained network.

    Attributes
    ----------
    test_logits : numpy.ndarray, shape (n_test,)
        Logits of the fold's ``x_test`` rows (float64; class 1 iff the logit is > 0).
    epochs : int
        Epochs run.
    hit_max : bool
        True when ``max_epochs`` stopped the network before the no-improvement rule did.
    final_loss : float
        The training loss of the last epoch.
    """

    test_logits: np.ndarray
    epochs: int
    hit_max: bool
    final_loss: float


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
    """The per-epoch callback and the tqdm bar to close (None when there is none)."""
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
    """Train one sbibm MLP (scikit-learn's ``MLPClassifier`` recipe) per entry of ``folds``.

    On the CPU the compiled kernel (:mod:`.native`) trains each network in one call per epoch; on
    an accelerator, or where no C compiler is available, all entries are batched as one torch
    network (:mod:`.torch_engine`). Each entry's result depends only on that entry.

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

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare._foundation.mlp.trainer import FoldData, train_mlp
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(40, 2)).astype(np.float32)
    >>> y = (x[:, 0] > 0).astype(np.float32)
    >>> fit = train_mlp([FoldData(x, y, x[:5], seed=0)], hidden=(4,), max_epochs=3)[0]
    >>> fit.test_logits.shape, fit.epochs, fit.hit_max
    ((5,), 3, True)
    """
    torch = import_torch("the sbibm MLP classifier")
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
    if kernel is not None and len(layout.sizes) - 1 > native.MAX_LAYERS:
        if engine == "native":
            msg = f"`engine` 'native' takes at most {native.MAX_LAYERS} layers; use 'torch'."
            raise ValueError(msg)
        kernel = None
    if kernel is not None:
        try:
            final_theta, final_loss, hit_max = native.train_native(
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
            torch_engine.run_batched(
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
    engine = check_choice(engine, "engine", ENGINES)
    auto_off = dev.type != "cpu" or not native.native_enabled()
    if engine == "torch" or (engine == "auto" and auto_off):
        return None
    if dev.type != "cpu":
        msg = f"`engine` 'native' runs on the CPU; `device` is {dev.type!r}."
        raise ValueError(msg)
    kernel = native.load_kernel(respect_env=engine == "auto")
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
    entries: Sequence[Entry],
    final_theta: dict[int, np.ndarray],
    final_loss: dict[int, float],
    hit_max: dict[int, bool],
) -> list[MLPFoldFit]:
    """Test-set logits of every trained network, in the order of ``folds``."""
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
