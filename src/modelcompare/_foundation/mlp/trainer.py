"""Train the sbibm MLP on many networks at once, with the engine that suits the device.

:func:`train_mlp` is the entry point of the MLP engine: it draws each network's initial weights
from the recipe (:mod:`.recipe`), then hands the networks to the compiled CPU kernel
(:mod:`.native`) or to the batched torch engine (:mod:`.torch_engine`), and returns test-set
logits. :func:`fit_predict_proba` trains K classifiers on K same-shaped datasets (with
scikit-learn's validation early stopping by default) and returns their class-1 probabilities on
given inputs; it is what L-C2ST's observed and null classifiers run on. Nothing here depends on
anything outside the foundation.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from modelcompare._foundation.mlp import native, torch_engine
from modelcompare._foundation.mlp.recipe import (
    N_ITER_NO_CHANGE,
    TOL,
    VALIDATION_FRACTION,
    Entry,
    FoldData,
    ParamLayout,
    StoppingRule,
    ValidationRule,
    glorot_init,
    validation_split,
)
from modelcompare._foundation.threads import thread_limits
from modelcompare._foundation.torch_support import import_torch, resolve_device
from modelcompare._foundation.validation import check_choice, check_fraction, check_int

__all__ = ["ENGINES", "BatchedFit", "FoldData", "MLPFoldFit", "fit_predict_proba", "train_mlp"]

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
    validation_score : float or None
        With early stopping, the best validation accuracy (the returned weights are those of that
        epoch); None otherwise.
    """

    test_logits: np.ndarray
    epochs: int
    hit_max: bool
    final_loss: float
    validation_score: float | None = None


@dataclass(frozen=True, eq=False)
class BatchedFit:
    """K classifiers trained together by :func:`fit_predict_proba`.

    Attributes
    ----------
    proba : numpy.ndarray, shape (K, n_eval)
        Class-1 probabilities of every classifier on its evaluation rows (float64).
    epochs : numpy.ndarray of int, shape (K,)
        Epochs run by each classifier.
    hit_max : numpy.ndarray of bool, shape (K,)
        True where ``max_epochs`` stopped the classifier before its stopping rule.
    validation_score : numpy.ndarray, shape (K,)
        Best validation accuracy of each classifier (NaN without early stopping).
    engine : str
        ``"native"`` or ``"torch"``: the engine that trained them.
    """

    proba: np.ndarray
    epochs: np.ndarray
    hit_max: np.ndarray
    validation_score: np.ndarray
    engine: str


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
    early_stopping: bool = False,
    validation_fraction: float = VALIDATION_FRACTION,
    n_iter_no_change: int = N_ITER_NO_CHANGE,
    tol: float = TOL,
    n_threads: int = 1,
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
    early_stopping : bool
        False (the sbibm recipe): stop on the training loss and keep the last weights. True:
        scikit-learn's ``early_stopping=True``: hold out a stratified ``validation_fraction`` of
        each entry's rows, stop on the validation accuracy and return the best-validation weights.
    validation_fraction : float
        Share of rows held out when ``early_stopping`` is True.
    n_iter_no_change, tol : int, float
        The stopping rule: stop once the watched quantity has failed to improve by ``tol`` for
        more than ``n_iter_no_change`` epochs in a row.
    n_threads : int
        Threads training interleaved chunks of the entries at once (compiled kernel only; each
        entry is computed on its own, so the results are the same for every ``n_threads``).

    Returns
    -------
    list of MLPFoldFit
        In the order of ``folds``: test-set logits, epochs run, whether ``max_epochs`` was reached
        before the stopping rule, the last epoch's training loss and, with early stopping, the
        best validation accuracy.

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
    run = _train(
        folds,
        hidden=hidden,
        max_epochs=max_epochs,
        torch=torch,
        dev=dev,
        kernel=kernel,
        engine=engine,
        progress=progress,
        early_stopping=early_stopping,
        validation_fraction=validation_fraction,
        n_iter_no_change=n_iter_no_change,
        tol=tol,
        n_threads=n_threads,
    )
    return _fits(torch, run, folds)


def fit_predict_proba(
    x: Any,
    y: Any,
    x_eval: Any,
    *,
    seeds: Sequence[int],
    hidden: tuple[int, ...] = (64, 64),
    max_epochs: int = 200,
    early_stopping: bool = True,
    validation_fraction: float = VALIDATION_FRACTION,
    n_iter_no_change: int = N_ITER_NO_CHANGE,
    tol: float = TOL,
    device: Any = "cpu",
    engine: str = "auto",
    n_jobs: int | None = None,
    progress: bool | Callable[[int], None] = False,
) -> BatchedFit:
    """Train K binary MLP classifiers on K datasets of one shape together; predict on ``x_eval``.

    Classifier k is scikit-learn's ``MLPClassifier(hidden_layer_sizes=hidden, solver="adam",
    max_iter=max_epochs, early_stopping=early_stopping, n_iter_no_change=n_iter_no_change,
    tol=tol, random_state=seeds[k])`` step by step (float32 arithmetic): the same initial weights,
    validation split, minibatch order, Adam updates and stopping rule. Each classifier stops on
    its own and its result depends only on its own data and seed. On the CPU the compiled kernel
    trains them (torch is not needed); on an accelerator, or without a C compiler, the batched
    torch engine trains all of them as one network.

    Parameters
    ----------
    x : array-like, shape (K, n, d)
        The K training sets.
    y : array-like, shape (n,) or (K, n)
        0/1 labels, shared by all K sets or one row per set.
    x_eval : array-like, shape (n_eval, d) or (K, n_eval, d)
        Rows to predict, shared by all K classifiers or one set per classifier.
    seeds : sequence of int, length K
        ``random_state`` of each classifier.
    hidden : tuple of int
        Hidden-layer widths (ReLU).
    max_epochs : int
        Cap on epochs (scikit-learn's ``max_iter``).
    early_stopping : bool
        True: scikit-learn's ``early_stopping=True`` (stratified validation split, stop on the
        validation accuracy, keep the best-validation weights). False: stop on the training loss.
    validation_fraction : float
        Share of rows held out for early stopping.
    n_iter_no_change, tol : int, float
        Stop once the watched score has failed to improve by ``tol`` for more than
        ``n_iter_no_change`` epochs in a row.
    device : str or torch.device
        ``"cpu"`` (default), ``"cuda"``, ``"mps"``, ``"gpu"`` or ``"auto"``.
    engine : {"auto", "native", "torch"}
        As in :func:`train_mlp`.
    n_jobs : int, optional
        Threads for the compiled kernel (classifiers are split among them; the results do not
        change). None means 1, -1 all CPUs. Ignored by the torch engine.
    progress : bool or callable
        As in :func:`train_mlp`.

    Returns
    -------
    BatchedFit
        ``proba`` (K, n_eval) class-1 probabilities, ``epochs``, ``hit_max``,
        ``validation_score`` and the engine used.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare._foundation.mlp.trainer import fit_predict_proba
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(3, 100, 2))
    >>> y = np.r_[np.zeros(50), np.ones(50)]
    >>> x[:, 50:, 0] += 2.0  # class 1 is shifted
    >>> fit = fit_predict_proba(x, y, [[-2.0, 0.0], [4.0, 0.0]], seeds=[0, 1, 2], hidden=(8,))
    >>> fit.proba.shape
    (3, 2)
    """
    x = np.asarray(x, dtype=np.float32)
    if x.ndim != 3:
        msg = f"`x` must have shape (K, n, d); got {x.shape}."
        raise ValueError(msg)
    k, n, d = x.shape
    y = np.asarray(y, dtype=np.float32)
    y = np.broadcast_to(y, (k, n)) if y.ndim == 1 else y
    if y.shape != (k, n) or not np.all((y == 0) | (y == 1)):
        msg = f"`y` must hold 0/1 labels of shape ({n},) or ({k}, {n})."
        raise ValueError(msg)
    x_eval = np.asarray(x_eval, dtype=np.float32)
    shared = x_eval.ndim == 2
    if x_eval.shape[-1] != d or x_eval.ndim not in (2, 3) or (not shared and len(x_eval) != k):
        msg = f"`x_eval` must have shape (n_eval, {d}) or ({k}, n_eval, {d}); got {x_eval.shape}."
        raise ValueError(msg)
    seeds = [int(s) for s in seeds]
    if len(seeds) != k:
        msg = f"`seeds` must hold one seed per dataset ({k}); got {len(seeds)}."
        raise ValueError(msg)
    max_epochs = check_int(max_epochs, "max_epochs", low=1)
    n_iter_no_change = check_int(n_iter_no_change, "n_iter_no_change", low=1)
    if early_stopping:
        validation_fraction = check_fraction(validation_fraction, "validation_fraction")
    n_threads = _n_threads(n_jobs)
    torch, dev, kernel = _engine_for(engine, device)
    empty = np.empty((0, d), dtype=np.float32)
    folds = [FoldData(x[j], y[j], empty, seeds[j]) for j in range(k)]
    run = _train(
        folds,
        hidden=tuple(int(h) for h in hidden),
        max_epochs=max_epochs,
        torch=torch,
        dev=dev,
        kernel=kernel,
        engine=engine,
        progress=progress,
        early_stopping=early_stopping,
        validation_fraction=validation_fraction,
        n_iter_no_change=n_iter_no_change,
        tol=tol,
        n_threads=n_threads,
        track_loss=False,  # BatchedFit has no losses: with early stopping the kernel skips them
    )
    thetas = np.stack([run.final_theta[j] for j in range(k)])
    if run.engine == "native":
        logits = _predict_native(kernel, run.layout, thetas, x_eval)
    else:
        logits = _predict_batched(torch, dev, run.layout, thetas, x_eval)
    with np.errstate(over="ignore"):
        proba = 1.0 / (1.0 + np.exp(-logits))
    return BatchedFit(
        proba=proba,
        epochs=np.array([e.epochs for e in run.entries], dtype=int),
        hit_max=np.array([run.hit_max[j] for j in range(k)], dtype=bool),
        validation_score=np.array([run.scores.get(j, np.nan) for j in range(k)]),
        engine=run.engine,
    )


def _n_threads(n_jobs: int | None) -> int:
    if n_jobs is None:
        return 1
    n_jobs = check_int(n_jobs, "n_jobs")
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    if n_jobs == 0:
        msg = "`n_jobs` must not be 0 (None means 1, -1 all CPUs)."
        raise ValueError(msg)
    return n_jobs


def _engine_for(engine: str, device: Any) -> tuple[Any, Any, Any]:
    """(torch or None, torch.device or None, kernel or None) for ``engine`` on ``device``.

    The compiled kernel on the CPU needs no torch: torch is imported only when the device is not
    the plain CPU or the batched engine is used.
    """
    engine = check_choice(engine, "engine", ENGINES)
    cpu = isinstance(device, str) and device == "cpu"
    if cpu and engine != "torch":
        kernel = native.load_kernel(respect_env=engine == "auto")
        if kernel is not None:
            return None, None, kernel
    torch = import_torch("the batched MLP engine")
    dev = resolve_device(device, torch)
    return torch, dev, _choose_kernel(engine, dev)


EVAL_CHUNK = 65_536  # evaluation rows per batched product (bounds the activations' memory)


def _predict_native(
    kernel: Any, layout: ParamLayout, thetas: np.ndarray, x_eval: np.ndarray
) -> np.ndarray:
    """Logits (K, n_eval) of every network with the compiled kernel's forward pass (float64 out)."""
    out = np.empty((len(thetas), x_eval.shape[-2]), dtype=np.float64)
    for j in range(len(thetas)):
        padded = native.to_padded(layout, thetas[j])
        rows = x_eval if x_eval.ndim == 2 else x_eval[j]
        out[j] = native.native_logits(kernel, layout, padded, rows)
    return out


def _predict_batched(
    torch: Any, dev: Any, layout: ParamLayout, thetas: np.ndarray, x_eval: np.ndarray
) -> np.ndarray:
    """Logits (K, n_eval) of every network, batched on ``dev`` (float32; float64 out)."""
    k = len(thetas)
    n_eval = x_eval.shape[-2]
    with torch.inference_mode():
        params = torch.as_tensor(thetas, device=dev)
        weights = []
        for off, fan_in, fan_out in layout.blocks:
            block = params[:, off : off + (fan_in + 1) * fan_out].reshape(k, fan_in + 1, fan_out)
            weights.append((block[:, :fan_in].contiguous(), block[:, fan_in:].contiguous()))
        xe = torch.as_tensor(x_eval, device=dev)
        widest = max(layout.sizes[1:])
        chunk = max(1, min(EVAL_CHUNK, (1 << 26) // max(1, k * widest)))
        out = torch.empty((k, n_eval), dtype=torch.float32, device=dev)
        for a in range(0, n_eval, chunk):
            rows = xe[a : a + chunk] if xe.dim() == 2 else xe[:, a : a + chunk]
            h = rows.expand(k, *rows.shape) if rows.dim() == 2 else rows
            for i, (w, b) in enumerate(weights):
                h = torch.baddbmm(b, h, w)
                if i < len(weights) - 1:
                    h.clamp_min_(0.0)
            out[:, a : a + chunk] = h[:, :, 0]
        return out.cpu().numpy().astype(np.float64)


@dataclass(eq=False)
class _Run:
    """What one training run leaves: the final weights and the per-entry bookkeeping."""

    layout: ParamLayout
    entries: list[Entry]
    final_theta: dict[int, np.ndarray]
    final_loss: dict[int, float]
    hit_max: dict[int, bool]
    scores: dict[int, float]
    engine: str


def _check_width(folds: Sequence[FoldData]) -> int:
    d = int(folds[0].x_train.shape[1])
    if any(int(f.x_train.shape[1]) != d or int(f.x_test.shape[1]) != d for f in folds):
        msg = "all entries of `folds` must have the same number of columns."
        raise ValueError(msg)
    return d


def _train(
    folds: Sequence[FoldData],
    *,
    hidden: tuple[int, ...],
    max_epochs: int,
    torch: Any,
    dev: Any,
    kernel: Any,
    engine: str,
    progress: bool | Callable[[int], None],
    early_stopping: bool,
    validation_fraction: float,
    n_iter_no_change: int,
    tol: float,
    n_threads: int = 1,
    track_loss: bool = True,
) -> _Run:
    """Initialise every entry, split off its validation rows if asked, and train on one engine.

    ``torch`` and ``dev`` may be None when ``kernel`` is the compiled kernel (the native engine
    needs no torch). ``n_threads`` > 1 trains chunks of entries in parallel threads (native
    engine only; every entry is computed on its own, so the results do not change).
    ``track_loss`` False lets the native engine skip the training loss when the stopping rule
    does not read it (early stopping); the final losses are then NaN.
    """
    d = _check_width(folds)
    layout = ParamLayout((d, *hidden, 1))
    entries = []
    train_folds: list[FoldData] = []
    validation: list[tuple[np.ndarray, np.ndarray]] | None = [] if early_stopping else None
    init = np.empty((len(folds), layout.size), dtype=np.float32)
    for j, f in enumerate(folds):
        rs = np.random.RandomState(int(f.seed))
        init[j] = layout.pack(glorot_init(rs, layout.sizes))
        if validation is not None:
            # scikit-learn draws the split after the initial weights, from the same stream
            tr, va = validation_split(rs, f.y_train, validation_fraction)
            validation.append((f.x_train[va], f.y_train[va]))
            f = FoldData(f.x_train[tr], f.y_train[tr], f.x_test, f.seed)
        train_folds.append(f)
        entries.append(Entry(j, int(f.x_train.shape[0]), rs))

    def new_rule(n: int) -> StoppingRule | ValidationRule:
        if early_stopping:
            return ValidationRule(n, tol=tol, n_iter_no_change=n_iter_no_change)
        return StoppingRule(n, tol=tol, n_iter_no_change=n_iter_no_change)

    update, bar = _progress_callback(progress)
    final_theta: dict[int, np.ndarray] = {}
    final_loss: dict[int, float] = {}
    hit_max: dict[int, bool] = {}
    scores: dict[int, float] = {}
    if kernel is not None and len(layout.sizes) - 1 > native.MAX_LAYERS:
        if engine == "native":
            msg = f"`engine` 'native' takes at most {native.MAX_LAYERS} layers; use 'torch'."
            raise ValueError(msg)
        kernel = None
    if kernel is not None:
        try:
            chunks = _chunks(len(train_folds), n_threads)

            def run(chunk: list[int]) -> tuple[dict, dict, dict]:
                sub_entries = [entries[j] for j in chunk]
                return native.train_native(
                    kernel,
                    layout,
                    [train_folds[j] for j in chunk],
                    sub_entries,
                    init,
                    max_epochs,
                    update,
                    rule=new_rule(len(chunk)),
                    validation=validation,
                    scores=scores,
                    track_loss=track_loss,
                )

            if len(chunks) == 1:
                outs = [run(chunks[0])]
            else:
                with ThreadPoolExecutor(len(chunks)) as pool:
                    outs = list(pool.map(run, chunks))
            for theta_j, loss_j, hit_j in outs:
                final_theta.update(theta_j)
                final_loss.update(loss_j)
                hit_max.update(hit_j)
        finally:
            if bar is not None:
                bar.close()
        return _Run(layout, entries, final_theta, final_loss, hit_max, scores, "native")
    if torch is None:
        torch = import_torch("the batched MLP engine (no C compiler built the native kernel)")
        dev = resolve_device("cpu", torch)
    # A minibatch step is a few dozen tiny kernels: on the CPU, intra-op threads only add
    # synchronisation (a 300 vs 300 fit took 32 s with two threads on a busy 2-core machine and
    # 0.8 s with one). Train single-threaded and restore the caller's setting; parallelism across
    # comparisons belongs to c2st_many / joblib.
    limits = thread_limits(1) if dev.type == "cpu" else contextlib.nullcontext()
    try:
        with limits, torch.inference_mode():
            torch_engine.run_batched(
                torch,
                dev,
                layout,
                train_folds,
                entries,
                init,
                max_epochs,
                update,
                final_theta,
                final_loss,
                hit_max,
                rule=new_rule(len(entries)),
                validation=validation,
                scores=scores,
            )
    finally:
        if bar is not None:
            bar.close()
    return _Run(layout, entries, final_theta, final_loss, hit_max, scores, "torch")


def _chunks(n: int, k: int) -> list[list[int]]:
    """``range(n)`` in ``k`` interleaved chunks (at most ``n``, at least one)."""
    k = max(1, min(k, n))
    return [list(range(i, n, k)) for i in range(k)]


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


def _fits(torch: Any, run: _Run, folds: Sequence[FoldData]) -> list[MLPFoldFit]:
    """Test-set logits of every trained network, in the order of ``folds``."""
    fits = []
    for j, f in enumerate(folds):
        logits = _predict_logits(torch, run.layout.unpack(run.final_theta[j]), f.x_test)
        fits.append(
            MLPFoldFit(
                test_logits=logits,
                epochs=run.entries[j].epochs,
                hit_max=run.hit_max[j],
                final_loss=run.final_loss[j],
                validation_score=run.scores.get(j),
            )
        )
    return fits
