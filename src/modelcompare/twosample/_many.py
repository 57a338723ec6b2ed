"""``c2st_many``: many C2STs in one call; the folds of pairs of one width train together."""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.errors import ConvergenceWarning
from modelcompare._foundation.results import CollectionResult, result_class
from modelcompare._foundation.seeds import SeedLike
from modelcompare._foundation.validation import (
    check_int,
    check_n_jobs,
    check_nonempty,
    check_same_width,
    check_samples,
)
from modelcompare.twosample._api import (
    C2STResult,
    check_c2st_options,
    check_flags,
    check_mlp_memory,
    check_mlp_options,
    import_mlp_torch,
    prepare_run,
    summarise_folds,
)

__all__ = ["C2STManyResult", "c2st_many", "pair_key"]


@result_class
class C2STManyResult(CollectionResult):
    """Result of :func:`c2st_many`: a collection of one :class:`C2STResult` per pair, and a table.

    Each pair's result is a test (``res[i].statistic``, ``res[i].pvalue``,
    ``res[i].decision(alpha)``); the collection itself makes no decision and applies no
    multiplicity correction. ``print(res)`` shows the table.

    Attributes
    ----------
    results : tuple of C2STResult
        In the order of ``pairs``. ``res[i]`` (position), ``res[name]`` (for a dict of pairs)
        and iteration give the same objects.
    table : pandas.DataFrame
        One row per pair: ``pair`` (index or name), ``key``, ``seed``, then the scalar fields of
        each result (``statistic``, ``pvalue``, ``auc``, ...).
    seeds : tuple of int
        Child seed of each pair: ``c2st(x_i, y_i, seed=seeds[i], ...)`` gives ``results[i]``.
    keys : tuple of str
        Stable key of each pair (its name, or a hash of its content).
    seed_used : int
        Base seed.
    """

    results: tuple[C2STResult, ...]
    table: Any
    seeds: tuple[int, ...]
    keys: tuple[str, ...]
    seed_used: int

    _repr_fields: ClassVar[tuple[str, ...]] = ("n_pairs", "seed_used")

    @property
    def n_pairs(self) -> int:
        """Number of pairs."""
        return len(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def __getitem__(self, i: int | str) -> C2STResult:
        if isinstance(i, int | np.integer):
            return self.results[i]
        try:
            return self.results[self.keys.index(f"name:{i}")]
        except ValueError:
            msg = f"no pair named {i!r}; pairs are indexed by position or by their dict name."
            raise KeyError(msg) from None

    def __iter__(self) -> Iterator[C2STResult]:
        return iter(self.results)


def pair_key(x: np.ndarray, y: np.ndarray) -> str:
    """Content key of a validated (float64) pair: SHA-256 of both shapes and both arrays' bytes."""
    digest = hashlib.sha256()
    for arr in (x, y):
        arr = np.ascontiguousarray(arr, dtype=np.float64)
        digest.update(repr(arr.shape).encode())
        digest.update(arr.tobytes())
    return "sha256:" + digest.hexdigest()[:32]


def _as_pairs(pairs: Any) -> tuple[list[Any], list[tuple[Any, Any]], list[str]]:
    """Labels, raw pairs and stable keys; a mapping is keyed by name, a sequence by content."""
    if isinstance(pairs, Mapping):
        labels = list(pairs)
        raw = list(pairs.values())
    elif isinstance(pairs, Sequence | np.ndarray) and not isinstance(pairs, str | bytes):
        labels = list(range(len(pairs)))
        raw = list(pairs)
    else:
        msg = (
            "`pairs` must be a list of (reference, samples) pairs or a dict name -> pair; "
            f"got {type(pairs).__name__}."
        )
        raise TypeError(msg)
    check_nonempty(pairs, "pairs")
    out, keys = [], []
    for label, pair in zip(labels, raw, strict=True):
        if not isinstance(pair, Sequence | np.ndarray) or len(pair) != 2:
            msg = f"`pairs[{label!r}]` must be a (reference, samples) pair of arrays."
            raise TypeError(msg)
        x = check_samples(pair[0], f"pairs[{label!r}][0]", min_samples=2)
        y = check_samples(pair[1], f"pairs[{label!r}][1]", min_samples=2)
        check_same_width([(f"pairs[{label!r}][0]", x), (f"pairs[{label!r}][1]", y)], what="c2st")
        out.append((x, y))
        keys.append(f"name:{label}" if isinstance(pairs, Mapping) else pair_key(x, y))
    return labels, out, keys


def _fit_logistic_chunk(jobs: list[tuple[np.ndarray, np.ndarray, list]], limit: bool) -> list:
    from modelcompare.twosample._logistic import fit_predict_logistic

    def run() -> list:
        return [fit_predict_logistic(data, labels, folds) for data, labels, folds in jobs]

    if not limit:
        return run()
    from modelcompare._foundation.threads import thread_limits

    with thread_limits(1):
        return run()


def _fit_mlp_chunk(
    fold_data: list,
    hidden: tuple[int, ...],
    max_epochs: int,
    device: Any,
    progress: Any,
    limit: bool,
) -> list[tuple[np.ndarray, int, bool]]:
    from modelcompare._foundation.mlp.trainer import train_mlp

    def run() -> list[tuple[np.ndarray, int, bool]]:
        fits = train_mlp(
            fold_data, hidden=hidden, max_epochs=max_epochs, device=device, progress=progress
        )
        return [(np.asarray(f.test_logits), int(f.epochs), bool(f.hit_max)) for f in fits]

    if not limit:
        return run()
    from modelcompare._foundation.threads import thread_limits

    import_mlp_torch()  # a worker without torch says so before any thread limit is set
    with thread_limits(1):  # one BLAS/OpenMP/torch thread per worker
        return run()


def _chunks(items: list[int], n: int) -> list[list[int]]:
    n = max(1, min(n, len(items)))
    return [
        chunk.tolist() for chunk in np.array_split(np.asarray(items, dtype=int), n) if chunk.size
    ]


def c2st_many(
    pairs: Sequence[tuple[Any, Any]] | Mapping[Any, tuple[Any, Any]],
    *,
    n_folds: int = 5,
    seed: SeedLike = None,
    classifier: str = "mlp",
    z_score: bool = True,
    noise_scale: float | None = None,
    hidden: Sequence[int] | None = None,
    max_epochs: int = 10000,
    device: Any = "cpu",
    n_jobs: int | None = None,
    group_size: int | None = None,
    progress: bool | Callable[[int], None] = False,
) -> C2STManyResult:
    """Many classifier two-sample tests in one call, the same statistic as :func:`c2st`.

    Parameters
    ----------
    pairs : sequence of (x, y), or dict name -> (x, y)
        The comparisons; in each pair the **reference** comes first (it sets the z-score scale).
        Pairs may differ in sizes and widths.
    n_folds, classifier, z_score, noise_scale, hidden, max_epochs, device
        As in :func:`c2st`, applied to every pair.
    seed : int, numpy.random.Generator or None
        Base seed. Pair i runs with the child seed ``seeds[i]`` derived from the base seed and the
        pair's stable key (see Notes).
    n_jobs : int or None
        joblib workers. ``None`` means one process, unless a ``joblib.parallel_config`` context
        (e.g. ``backend="dask"``) says otherwise. The training groups (see ``group_size``) are the
        parallel tasks; logistic fits are split evenly. Results do not depend on ``n_jobs`` or the
        backend.
    group_size : int or None
        MLP only: at most this many pairs are trained together in one training group (None: all
        pairs of one width, hidden widths and minibatch layout). With the torch engine a group is
        one batched network; each network still uses the recipe's own optimiser minibatches of
        ``min(200, n_train)`` rows. Smaller groups give workers more, smaller tasks;
        ``group_size=1`` trains each pair's folds exactly as :func:`c2st` does. Which pairs share
        a group is fixed by ``group_size`` and the order of ``pairs``, never by ``n_jobs``.
    progress : bool or callable
        Passed to the MLP trainer in a serial run (epochs of each training group). Default False:
        nothing is written.

    Returns
    -------
    C2STManyResult
        ``results`` (one :class:`C2STResult` per pair, indexable), ``table`` (tidy DataFrame),
        ``seeds`` and ``keys``.

    Raises
    ------
    ValueError, TypeError
        For an empty ``pairs``, bad data in a pair, or bad options (``n_jobs=0``, a flag that is
        not a bool, ...).
    ResourceLimitError
        When one training group would pass the memory limit (see :func:`c2st`); lower ``hidden``
        or ``group_size``. Checked before any training.

    Notes
    -----
    **Seeds.** Pair i gets ``seeds[i] = task_seed(base, key_i)`` (see
    :func:`modelcompare.experiments.task_seed`), where ``key_i`` is ``"name:<name>"`` when
    ``pairs`` is a dict, and otherwise a SHA-256 hash of the pair's validated float64 contents
    and shapes. A pair's result therefore does not depend on its position, on the other pairs,
    on ``n_jobs`` or on the backend, and ``c2st(x_i, y_i, seed=seeds[i], **same_options)`` runs
    the same procedure with the same seeds. Two identical pairs in a list get identical results.

    **Exactness.** Pair *i* gives bit for bit what ``c2st(x_i, y_i, seed=seeds[i])`` gives, with
    either classifier and any ``group_size``, ``n_jobs`` or backend (tested at d = 2 and 5). On the
    CPU the compiled engine trains every network on its own, so this holds by construction. The
    batched torch engine (accelerators, or no C compiler) keeps each network's arithmetic
    independent of the rest of the batch: every network's parameter block is padded to 64 bytes
    (the CPU GEMM kernels' rounding depends on operand alignment, i.e. on a network's position),
    the buffers of the elementwise kernels are padded so that no element falls into a kernel's
    partial last vector chunk, ragged steps use the same fused Adam kernel, and pairs are grouped
    by the minibatch layout of their folds (mixing layouts changes the batch's step count).

    **Grouping.** Each pair is balanced, z-scored, noised and split into folds exactly as
    :func:`c2st` does. With the MLP, the folds of all pairs of the same width, hidden widths and
    minibatch layout are handed to the trainer together. On the CPU the compiled kernel then runs
    one call per network-epoch (no per-step overhead is left to share, so the gain over a loop of
    :func:`c2st` is small; use ``n_jobs`` for parallelism). With the torch engine they train as
    **one** batched network, folds × comparisons, each with its own rows, recipe seed, Adam state
    and stopping rule, so the per-step overhead that dominates small networks is paid once per
    step for all comparisons.

    References
    ----------
    .. [1] D. Lopez-Paz and M. Oquab (2017). Revisiting Classifier Two-Sample Tests. International
       Conference on Learning Representations (ICLR). arXiv:1610.06545.
    .. [2] J. Lueckmann et al. (2021). Benchmarking Simulation-Based Inference. International
       Conference on Artificial Intelligence and Statistics (AISTATS). arXiv:2101.04653.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import c2st, c2st_many
    >>> rng = np.random.default_rng(0)
    >>> pairs = {f"shift={s}": (rng.normal(size=(100, 2)), rng.normal(s, 1, size=(100, 2)))
    ...          for s in (0.0, 1.0)}
    >>> many = c2st_many(pairs, classifier="logistic", seed=0)
    >>> many
    C2STManyResult(n_pairs=2, seed_used=0)
    >>> list(many.table.columns[:5])
    ['pair', 'key', 'seed', 'statistic', 'pvalue']
    >>> [bool(r.decision(alpha=0.05)) for r in many]
    [False, True]
    >>> one = c2st(*pairs["shift=1.0"], classifier="logistic", seed=many.seeds[1])
    >>> one.statistic == many["shift=1.0"].statistic
    True
    """
    import joblib

    from modelcompare._foundation.parallel import flatten_output
    from modelcompare._foundation.task_seeds import base_seed, task_seed

    n_folds, classifier, noise_scale, hidden, max_epochs = check_c2st_options(
        n_folds, classifier, noise_scale, hidden, max_epochs
    )
    check_mlp_options(classifier, hidden, device)
    z_score, progress = check_flags(z_score, progress)
    n_jobs = check_n_jobs(n_jobs)
    if group_size is not None:
        group_size = check_int(group_size, "group_size", low=1)
    labels, raw, keys = _as_pairs(pairs)
    base = base_seed(seed)

    prepared = []  # (data, labels, folds, m, child_seed, fold_seed)
    for label, (x, y), key in zip(labels, raw, keys, strict=True):
        child = task_seed(base, key)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            data, lab, folds, m, fold_seed, _ = prepare_run(
                x, y, n_folds=n_folds, seed=child, z_score=z_score, noise_scale=noise_scale
            )
        for w in caught:
            warnings.warn(f"pair {label!r}: {w.message}", w.category, stacklevel=2)
        prepared.append((data, lab, folds, m, child, fold_seed))

    n_workers = joblib.effective_n_jobs(n_jobs)
    parallel = n_workers != 1
    n_chunks = len(prepared) if n_workers < 1 else n_workers
    scores: list[list[np.ndarray]] = [[] for _ in prepared]
    epochs = [np.zeros(n_folds, dtype=int) for _ in prepared]
    hit = [False] * len(prepared)
    hidden_of: list[tuple[int, ...]] = []

    if classifier == "logistic":
        hidden_of = [()] * len(prepared)
        chunks = _chunks(list(range(len(prepared))), n_chunks)
        jobs = [[prepared[i][:3] for i in chunk] for chunk in chunks]
        if parallel:
            outs = joblib.Parallel(n_jobs=n_jobs)(
                joblib.delayed(_fit_logistic_chunk)(job, True) for job in jobs
            )
        else:
            outs = [_fit_logistic_chunk(job, False) for job in jobs]
        for chunk, out in zip(chunks, outs, strict=True):
            for i, s in zip(chunk, out, strict=True):
                scores[i] = s
    else:
        from modelcompare._foundation.mlp.recipe import BATCH_SIZE, FoldData

        import_mlp_torch()
        # One training group per (width, hidden widths, minibatch layout of the folds). Entries
        # whose folds have the same numbers of minibatches train bit-identically to c2st's own
        # network whatever else shares the batch; mixing layouts changes the batch's step count
        # and can move results in the last bits.
        groups: dict[tuple[Any, ...], list[int]] = {}
        for i, (data, _lab, folds, *_rest) in enumerate(prepared):
            width = hidden if hidden is not None else (10 * data.shape[1], 10 * data.shape[1])
            hidden_of.append(width)
            layout = tuple(-(-tr.size // min(BATCH_SIZE, tr.size)) for tr, _ in folds)
            groups.setdefault((data.shape[1], width, layout), []).append(i)
        calls = []  # (pair indices, fold data, hidden)
        for members in groups.values():
            size = group_size or len(members)
            for chunk in (members[j : j + size] for j in range(0, len(members), size)):
                fold_data = [
                    FoldData(
                        prepared[i][0][tr], prepared[i][1][tr], prepared[i][0][te], prepared[i][5]
                    )
                    for i in chunk
                    for tr, te in prepared[i][2]
                ]
                calls.append((chunk, fold_data, hidden_of[chunk[0]]))
        for _, fold_data, width in calls:  # before any training, each group as it will train
            check_mlp_memory(
                fold_data[0].x_train.shape[1],
                width,
                max(f.x_train.shape[0] for f in fold_data),
                max(f.x_test.shape[0] for f in fold_data),
                len(fold_data),
                argument="hidden` or `group_size",
            )
        if parallel:
            outs = joblib.Parallel(n_jobs=n_jobs)(
                joblib.delayed(_fit_mlp_chunk)(fd, h, max_epochs, device, False, True)
                for _, fd, h in calls
            )
        else:
            outs = [
                _fit_mlp_chunk(fd, h, max_epochs, device, progress, False) for _, fd, h in calls
            ]
        for (chunk, _, _), out in zip(calls, outs, strict=True):
            for j, i in enumerate(chunk):
                fits = out[j * n_folds : (j + 1) * n_folds]
                scores[i] = [f[0] for f in fits]
                epochs[i] = np.array([f[1] for f in fits], dtype=int)
                hit[i] = any(f[2] for f in fits)
        stopped = [labels[i] for i in range(len(prepared)) if hit[i]]
        if stopped:
            warnings.warn(
                f"some folds reached `max_epochs`={max_epochs} before the stopping rule, in "
                f"pair(s) {stopped}.",
                ConvergenceWarning,
                stacklevel=2,
            )

    results = []
    for i, (_data, lab, folds, m, child, _recipe) in enumerate(prepared):
        results.append(
            summarise_folds(
                scores=scores[i],
                labels=lab,
                folds=folds,
                m=m,
                classifier=classifier,
                epochs=epochs[i],
                hit_max=hit[i],
                hidden=hidden_of[i],
                max_epochs=max_epochs,
                standard=hidden is None and max_epochs == 10000,
                seed_used=child,
            )
        )
    import pandas as pd

    seeds = tuple(p[4] for p in prepared)
    table = pd.DataFrame.from_records(
        [
            {"pair": label, "key": key, "seed": s, **flatten_output(r)}
            for label, key, s, r in zip(labels, keys, seeds, results, strict=True)
        ]
    )
    return C2STManyResult(
        results=tuple(results), table=table, seeds=seeds, keys=tuple(keys), seed_used=base
    )
