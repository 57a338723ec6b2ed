"""The public ``c2st`` function and its result."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import Any, ClassVar

import numpy as np
from sklearn.model_selection import KFold

from modelcompare._foundation.errors import ConvergenceWarning, DegenerateDataWarning
from modelcompare._foundation.mlp.recipe import mlp_memory_bytes
from modelcompare._foundation.resources import check_memory
from modelcompare._foundation.results import (
    ConfidenceInterval,
    TestResult,
    check_alpha,
    result_class,
)
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.torch_support import check_device
from modelcompare._foundation.validation import (
    check_bool,
    check_choice,
    check_fraction,
    check_int,
    check_n_jobs,
    check_positive,
    check_same_width,
    check_samples,
)
from modelcompare.twosample._inference import conditional_pvalue, corrected_interval
from modelcompare.twosample._names import CLASSIFIERS

__all__ = [
    "CLASSIFIERS",
    "C2STResult",
    "c2st",
    "check_c2st_options",
    "check_flags",
    "check_mlp_memory",
    "import_mlp_torch",
    "mlp_memory_bytes",
    "prepare_c2st_data",
    "prepare_run",
    "recipe_seed",
    "summarise_folds",
]


@result_class
class C2STResult(TestResult):
    """Result of :func:`c2st`: a test with a p-value (``decision(alpha)``: reject iff p <= alpha).

    Attributes
    ----------
    statistic : float
        The mean held-out accuracy: the unweighted mean of the fold test accuracies (sbibm's
        statistic). Also readable as :attr:`accuracy`.
    pvalue : float
        One-sided p-value of H0 "x and y come from the same distribution" (see Notes of
        :func:`c2st`).
    auc : float
        Mean over folds of the ROC AUC of P(class y).
    fold_accuracy, fold_auc : numpy.ndarray
        Per-fold values.
    n_per_class : int
        Draws per class after balancing.
    classifier : str
        ``"mlp"`` or ``"logistic"``.
    epochs : numpy.ndarray
        Training epochs per fold (MLP; 0 for logistic).
    hit_max_epochs : bool
        True when some fold stopped at ``max_epochs`` rather than by the no-improvement rule.
    z : float
        The standardised conditional statistic behind ``pvalue``.
    degenerate : bool
        True when the null has no spread (every fold predicted one class); ``pvalue`` is then 1.
    hidden : tuple of int
        Hidden-layer widths used (empty for logistic).
    max_epochs : int
        The cap on epochs per fold.
    n_folds : int
        Number of cross-validation folds.
    seed_used : int or None
        The seed that reproduces the run (None when a Generator was passed).
    """

    statistic: float
    pvalue: float
    auc: float
    fold_accuracy: np.ndarray
    fold_auc: np.ndarray
    n_per_class: int
    classifier: str
    epochs: np.ndarray
    hit_max_epochs: bool
    z: float
    degenerate: bool
    hidden: tuple[int, ...]
    max_epochs: int
    n_folds: int
    seed_used: int | None
    _n_train: float = field(default=0.0)
    _n_test: float = field(default=0.0)
    _standard: bool = field(default=True)

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "auc", "n_per_class")

    @property
    def accuracy(self) -> float:
        """The mean held-out accuracy, the same number as :attr:`statistic` (sbibm's name)."""
        return self.statistic

    def summary(self, alpha: float | None = 0.05) -> str:
        """A one-line plain-language reading of the accuracy, with the decision at ``alpha``.

        Parameters
        ----------
        alpha : float or None
            The level of the verdict ("above chance" iff ``pvalue <= alpha``, as
            :meth:`decision`). None leaves the verdict out: the line then states the accuracy,
            its distance from 0.5 and the p-value only.

        Returns
        -------
        str
            The accuracy in binomial standard errors 0.5/√(2m) from chance, the verdict at
            ``alpha`` (when given) and the p-value, plus a caveat for the logistic classifier
            (linear, blind to differences in spread or dependence) or for a non-default network
            (not comparable with sbibm numbers).

        Examples
        --------
        >>> import numpy as np
        >>> from modelcompare import c2st
        >>> rng = np.random.default_rng(0)
        >>> res = c2st(rng.normal(size=(200, 2)), rng.normal(0.5, 1, size=(200, 2)),
        ...            classifier="logistic", seed=0)
        >>> "above chance" in res.summary(alpha=0.05), "chance" in res.summary(alpha=None)
        (True, False)
        """
        if alpha is not None:
            alpha = check_alpha(alpha)
        return _reading(
            self.statistic, self.pvalue, self.n_per_class, self.classifier, self._standard, alpha
        )

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Nadeau–Bengio corrected t-interval for the accuracy, from the fold accuracies.

        The variance of the k-fold mean is (1/k + n_test/n_train)·s², not s²/k, because the folds'
        training sets overlap (Nadeau and Bengio 2003).

        Parameters
        ----------
        confidence_level : float
            Coverage of the interval, in (0, 1).

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``, clipped to [0, 1].

        Examples
        --------
        >>> import numpy as np
        >>> from modelcompare import c2st
        >>> rng = np.random.default_rng(0)
        >>> res = c2st(rng.normal(size=(200, 2)), rng.normal(0.5, 1, size=(200, 2)),
        ...            classifier="logistic", seed=0)
        >>> ci = res.confidence_interval(0.9)
        >>> bool(ci.low < res.statistic < ci.high)
        True
        """
        level = check_fraction(confidence_level, "confidence_level")
        return corrected_interval(self.fold_accuracy, self._n_train, self._n_test, level)


def _zscore(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = x.mean(axis=0)
    std = x.std(axis=0, ddof=1)
    constant = std <= 1e-12 * np.maximum(1.0, np.abs(mean))
    if constant.any():
        cols = np.flatnonzero(constant).tolist()
        warnings.warn(
            f"column(s) {cols} of `x` are constant; they are centred but not scaled.",
            DegenerateDataWarning,
            stacklevel=3,
        )
        std = np.where(constant, 1.0, std)
    return (x - mean) / std, (y - mean) / std


def prepare_c2st_data(
    x: Any,
    y: Any,
    *,
    n_folds: int,
    rng: np.random.Generator,
    z_score: bool,
    noise_scale: float | None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Validate, balance, z-score and add noise; return the stacked data, labels and m per class."""
    x = check_samples(x, "x", min_samples=2)
    y = check_samples(y, "y", min_samples=2)
    check_same_width([("x", x), ("y", y)], what="c2st")
    m = min(x.shape[0], y.shape[0])
    if not 2 <= n_folds < 2 * m or n_folds >= m:
        msg = (
            f"`n_folds` must be at least 2 and fewer than the smaller sample size ({m}); "
            f"got {n_folds}."
        )
        raise ValueError(msg)
    balance_rng, noise_rng = rng.spawn(2)
    if x.shape[0] > m:
        x = x[np.sort(balance_rng.choice(x.shape[0], size=m, replace=False))]
    if y.shape[0] > m:
        y = y[np.sort(balance_rng.choice(y.shape[0], size=m, replace=False))]
    if z_score:
        x, y = _zscore(x, y)
    if noise_scale is not None:
        x = x + noise_scale * noise_rng.standard_normal(x.shape)
        y = y + noise_scale * noise_rng.standard_normal(y.shape)
    with np.errstate(over="ignore"):
        data = np.concatenate([x, y]).astype(np.float32)
    if not np.isfinite(data).all():
        name, part = ("x", x) if not np.isfinite(data[:m]).all() else ("y", y)
        scaled = " after the z-score by the scale of `x`" if z_score else ""
        msg = (
            f"`{name}` holds values beyond the float32 range of the classifiers{scaled} "
            f"(largest |value| {float(np.max(np.abs(part))):.3g}); rescale the data."
        )
        raise ValueError(msg)
    labels = np.concatenate([np.zeros(m), np.ones(m)]).astype(np.float32)
    return data, labels, m


def prepare_run(
    x: Any, y: Any, *, n_folds: int, seed: SeedLike, z_score: bool, noise_scale: float | None
) -> tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray]], int, int, int | None]:
    """Everything ``c2st`` does before training (shared with ``c2st_many``).

    Returns the stacked float32 data, the labels, the KFold splits, m per class, the recipe seed
    (KFold's and every fold network's int) and ``seed_used``.
    """
    rng, seed_used = check_seed(seed)
    fold_seed = recipe_seed(seed_used, rng)
    data, labels, m = prepare_c2st_data(
        x, y, n_folds=n_folds, rng=rng, z_score=z_score, noise_scale=noise_scale
    )
    folds = list(KFold(n_splits=n_folds, shuffle=True, random_state=fold_seed).split(data))
    return data, labels, folds, m, fold_seed, seed_used


def _auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """ROC AUC by Mann–Whitney, ties counted ½; NaN when the fold holds a single class."""
    from scipy.stats import rankdata

    n1 = int(labels.sum())
    n0 = labels.size - n1
    if n1 == 0 or n0 == 0:
        return float("nan")
    ranks = rankdata(scores)
    return float((ranks[labels == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def _reading(
    accuracy: float,
    pvalue: float,
    m: int,
    classifier: str,
    standard: bool,
    alpha: float | None,
) -> str:
    se = 0.5 / np.sqrt(2 * m)
    units = (accuracy - 0.5) / se
    text = f"accuracy {accuracy:.4f} is {units:+.1f} binomial SE (0.5/sqrt(2m) = {se:.4f}) from 0.5"
    if alpha is None:
        text += f" (p = {pvalue:.3g})"
    else:
        verdict = (
            "consistent with chance: the two sets are not told apart"
            if pvalue > alpha
            else "above chance: the classifier tells the two sets apart"
        )
        text += f"; at alpha = {alpha:g}, {verdict} (p = {pvalue:.3g})"
    if classifier == "logistic":
        text += "; logistic is linear and blind to differences in spread or dependence"
    elif not standard:
        text += "; non-default hidden/max_epochs: not comparable with sbibm numbers"
    return text


def check_c2st_options(
    n_folds: Any, classifier: Any, noise_scale: Any, hidden: Any, max_epochs: Any
) -> tuple[int, str, float | None, tuple[int, ...] | None, int]:
    """The options shared by ``c2st`` and ``c2st_many``, checked, each error naming its argument.

    Examples
    --------
    >>> check_c2st_options(5, "logistic", None, 8, 100)
    (5, 'logistic', None, (8,), 100)
    """
    n_folds = check_int(n_folds, "n_folds", low=2)
    classifier = check_choice(classifier, "classifier", CLASSIFIERS)
    if noise_scale is not None:
        noise_scale = check_positive(noise_scale, "noise_scale", allow_zero=True)
    if hidden is not None:
        if isinstance(hidden, int | np.integer):
            hidden = (hidden,)
        if not isinstance(hidden, Sequence) or len(hidden) == 0:
            msg = f"`hidden` must be a non-empty sequence of positive ints; got {hidden!r}."
            raise ValueError(msg)
        hidden = tuple(check_int(h, "hidden", low=1) for h in hidden)
    max_epochs = check_int(max_epochs, "max_epochs", low=1)
    return n_folds, classifier, noise_scale, hidden, max_epochs


def check_mlp_options(classifier: str, hidden: Any, device: Any) -> None:
    """Check ``device``, and refuse or flag the MLP-only options given to the logistic classifier.

    ``hidden`` with ``classifier="logistic"`` is refused (the widths describe a network that is
    not trained); a ``device`` other than the CPU is checked, then ignored with a warning.
    """
    check_device(device)
    if classifier != "logistic":
        return
    if hidden is not None:
        msg = (
            f"`hidden` sets the MLP's widths and does not apply to `classifier`='logistic'; "
            f"got hidden={hidden!r}. Leave it None, or pass classifier='mlp'."
        )
        raise ValueError(msg)
    if str(device) != "cpu":
        warnings.warn(
            f"`device`={device!r} is ignored by `classifier`='logistic', which runs on the CPU "
            "(scikit-learn).",
            UserWarning,
            stacklevel=3,
        )


def check_flags(z_score: Any, progress: Any) -> tuple[bool, bool | Callable[[int], None]]:
    """``z_score`` must be a bool; ``progress`` a bool or a callable."""
    z_score = check_bool(z_score, "z_score")
    if not callable(progress):
        progress = check_bool(progress, "progress")
    return z_score, progress


def check_mlp_memory(
    d: int,
    hidden: Sequence[int],
    n_train: int,
    n_test: int,
    n_networks: int,
    argument: str = "hidden",
) -> None:
    """Refuse (``ResourceLimitError``) an MLP training run that would pass the memory limit."""
    n_bytes = mlp_memory_bytes(d, hidden, n_train, n_test, n_networks)
    widths = ", ".join(str(h) for h in hidden)
    check_memory(
        n_bytes,
        f"training {n_networks} MLP classifier(s) of hidden widths ({widths}) on {d} features",
        argument,
    )


def import_mlp_torch() -> Any:
    """torch for the MLP classifier, or a ``MissingDependencyError`` pointing to the logistic one."""
    from modelcompare._foundation.torch_support import import_torch

    return import_torch(
        "the MLP classifier of c2st", hint="Or use classifier='logistic', which needs no torch."
    )


def recipe_seed(seed_used: int | None, rng: np.random.Generator) -> int:
    """The int sbibm passes to KFold and to every fold's MLP: the caller's int seed when there is one
    (the fresh entropy when ``seed`` was None), else a draw from the caller's Generator."""
    if seed_used is not None:
        return int(seed_used) % 2**32
    return int(rng.integers(2**32))


def c2st(
    x: Any,
    y: Any,
    *,
    n_folds: int = 5,
    seed: SeedLike = None,
    classifier: str = "mlp",
    z_score: bool = True,
    noise_scale: float | None = None,
    hidden: Sequence[int] | None = None,
    max_epochs: int = 10000,
    device: Any = "cpu",
    progress: bool | Callable[[int], None] = False,
    n_jobs: int | None = None,
) -> C2STResult:
    """Classifier two-sample test: sbibm's cross-validated accuracy, with a valid p-value.

    Parameters
    ----------
    x, y : array-like, shape (n, d) and (m, d)
        Sample matrices of the same width. Pass the **reference** draws as ``x``: their mean and
        standard deviation set the scale. The larger set is subsampled (seeded) to the smaller.
    n_folds : int
        Number of shuffled (unstratified) KFold splits; at least 2 and fewer than the smaller set.
    seed : int, numpy.random.Generator or None
        Fixes the subsampling, noise, fold split, network initialisation and minibatch order.
    classifier : {"mlp", "logistic"}
        ``"mlp"`` is sbibm's network trained on torch; ``"logistic"`` is scikit-learn's default
        logistic regression, needs no torch, and sees location shifts only.
    z_score : bool
        Standardise both sets by x's mean and standard deviation (N−1). A constant column of x is
        centred but not scaled, with a :class:`DegenerateDataWarning`.
    noise_scale : float or None
        Standard deviation of Gaussian noise added to both sets after z-scoring (in units of x's
        standard deviation). Use it for discrete or lattice data.
    hidden : sequence of int or None
        Hidden-layer widths; None is sbibm's ``(10 d, 10 d)``.
    max_epochs : int
        Cap on epochs per fold; reaching it warns (:class:`ConvergenceWarning`) and sets
        ``hit_max_epochs``.
    device : {"cpu", "cuda", "mps", "gpu", "auto"} or torch.device
        Where the MLP trains. ``"auto"`` tries cuda, then mps, then the CPU; ``"gpu"`` requires an
        accelerator. Ignored by the logistic classifier. On the CPU a compiled kernel trains the
        folds (built with the system C compiler on first use, a second or two, then cached; see
        Notes); without a compiler, or with ``MODELCOMPARE_NATIVE=0``, the batched torch engine
        does. The two agree up to float32 rounding, so a seed reproduces a run bit for bit on the
        same engine and machine.
    progress : bool or callable
        Show a progress bar of training epochs on stderr, or call ``progress(n_epochs_done)``.
        Default False: nothing is written.
    n_jobs : int or None
        Threads training the MLP's folds at once on the CPU kernel (at most ``n_folds``; -1: all
        cores). None: one, unless a ``joblib.parallel_config`` context sets more. Each fold is
        computed on its own, so the result is identical bit for bit for every ``n_jobs``.
        Nesting rule: inside a parallel worker of :func:`c2st_many`, :func:`lc2st_nf` or a sweep
        the folds train serially (those call the engine with one thread per worker); pass
        ``n_jobs`` > 1 only to a top-level ``c2st``. Ignored by the logistic classifier and by the
        torch engine.

    Returns
    -------
    C2STResult
        ``statistic`` (the mean held-out accuracy) and ``pvalue`` first, then the AUC, the fold
        values, epochs per fold, :meth:`~C2STResult.decision` and
        :meth:`~C2STResult.confidence_interval`.

    Raises
    ------
    ValueError, TypeError
        For bad data (NaN/inf or complex values, different widths, too few rows) or options
        (e.g. a flag that is not a bool).
    ResourceLimitError
        When training the MLP would pass the memory limit (4 GiB unless
        ``MODELCOMPARE_MAX_MEMORY`` says otherwise): its parameters, gradients, Adam moments and
        activations grow with ``hidden`` and the number of features. Checked before any training.

    Notes
    -----
    The statistic is exactly sbibm's ``c2st``: z-score by x, KFold(shuffle=True, random_state=seed),
    a d→10d→10d→1 ReLU network with Glorot-uniform initialisation, L2 penalty 1e-4, Adam (lr 1e-3) on
    minibatches of 200, stopping when the epoch training loss has not improved by 1e-4 for 11 epochs,
    and the unweighted mean of fold accuracies. Each fold starts from the same initial weights and
    shuffle stream, as sbibm's re-seeded folds do.

    With an int seed the folds, initial weights and minibatch order are scikit-learn's own, so
    our training differs from sbibm's only by float32 summation order: at d = 2 (10,000 vs 10,000)
    99 % of folds stop at scikit-learn's epoch (``benchmarks/c2st_exactness.py``). The CPU kernel
    is 10–15× faster than the scikit-learn recipe at d = 2 on one core
    (``benchmarks/c2st_speed.py``).

    The p-value goes beyond sbibm. A binomial test on the pooled predictions is anti-conservative
    (overlapping training sets and unstratified folds widen the null spread 1.3–1.7×). We condition
    each fold on its margins: under H0 the count of rows predicted and labelled 1 is hypergeometric
    (Fisher's exact test per fold). The folds' standardised counts are summed and their variance is
    inflated by 1 + k·n_test/n_train (Nadeau–Bengio), for the dependence between folds. The size of
    this test is measured by simulation (``benchmarks/c2st_null_calibration.py``).

    References
    ----------
    .. [1] Lopez-Paz, D. and Oquab, M. (2017). Revisiting classifier two-sample tests. ICLR.
       arXiv:1610.06545.
    .. [2] Lueckmann, J.-M. et al. (2021). Benchmarking simulation-based inference. AISTATS.
       arXiv:2101.04653.
    .. [3] Nadeau, C. and Bengio, Y. (2003). Inference for the generalization error. Machine
       Learning 52, 239–281. doi:10.1023/A:1024068626366.

    Examples
    --------
    Two samples of one distribution: the accuracy stays near chance and H0 is kept.

    >>> import numpy as np
    >>> from modelcompare import c2st
    >>> rng = np.random.default_rng(0)
    >>> reference, samples = rng.normal(size=(200, 2)), rng.normal(size=(200, 2))
    >>> res = c2st(reference, samples, classifier="logistic", seed=1)
    >>> bool(0.4 < res.statistic < 0.6), res.decision(alpha=0.05)
    (True, False)

    A shifted sample is told apart:

    >>> shifted = rng.normal(0.5, 1.0, size=(200, 2))
    >>> c2st(reference, shifted, classifier="logistic", seed=1).decision(alpha=0.05)
    True
    """
    n_folds, classifier, noise_scale, hidden, max_epochs = check_c2st_options(
        n_folds, classifier, noise_scale, hidden, max_epochs
    )
    check_mlp_options(classifier, hidden, device)
    n_jobs = check_n_jobs(n_jobs)
    z_score, progress = check_flags(z_score, progress)
    data, labels, folds, m, fold_seed, seed_used = prepare_run(
        x, y, n_folds=n_folds, seed=seed, z_score=z_score, noise_scale=noise_scale
    )
    d = data.shape[1]
    if classifier == "logistic":
        from modelcompare.twosample._logistic import fit_predict_logistic

        scores = fit_predict_logistic(data, labels, folds)
        epochs = np.zeros(n_folds, dtype=int)
        hidden_used: tuple[int, ...] = ()
        hit_max = False
    else:
        from modelcompare._foundation.mlp.trainer import FoldData, train_mlp

        hidden_used = hidden if hidden is not None else (10 * d, 10 * d)
        check_mlp_memory(
            d,
            hidden_used,
            max(tr.size for tr, _ in folds),
            max(te.size for _, te in folds),
            len(folds),
        )
        import_mlp_torch()
        fold_data = [FoldData(data[tr], labels[tr], data[te], fold_seed) for tr, te in folds]
        fits = train_mlp(
            fold_data,
            hidden=hidden_used,
            max_epochs=max_epochs,
            device=device,
            progress=progress,
            n_threads=_fold_threads(n_jobs, len(fold_data)),
        )
        scores = [f.test_logits for f in fits]
        epochs = np.array([f.epochs for f in fits], dtype=int)
        hit_max = bool(any(f.hit_max for f in fits))
        if hit_max:
            warnings.warn(
                f"some folds reached `max_epochs`={max_epochs} before the stopping rule.",
                ConvergenceWarning,
                stacklevel=2,
            )
    return summarise_folds(
        scores=scores,
        labels=labels,
        folds=folds,
        m=m,
        classifier=classifier,
        epochs=epochs,
        hit_max=hit_max,
        hidden=hidden_used,
        max_epochs=max_epochs,
        standard=hidden is None and max_epochs == 10000,
        seed_used=seed_used,
    )


def _fold_threads(n_jobs: int | None, n_folds: int) -> int:
    """Fold-training threads for ``n_jobs``: joblib's count (its context for None), ≤ folds, cores."""
    import joblib

    n = joblib.effective_n_jobs(check_n_jobs(n_jobs))
    return max(1, min(n, n_folds, os.cpu_count() or 1))


def summarise_folds(
    *,
    scores: list[np.ndarray],
    labels: np.ndarray,
    folds: list[tuple[np.ndarray, np.ndarray]],
    m: int,
    classifier: str,
    epochs: np.ndarray,
    hit_max: bool,
    hidden: tuple[int, ...],
    max_epochs: int,
    standard: bool,
    seed_used: int | None,
) -> C2STResult:
    """Turn per-fold test scores (logits) into the result; shared with ``c2st_many``."""
    preds = [(s > 0).astype(np.int8) for s in scores]  # class 1 iff p > 0.5, strictly
    test_labels = [labels[te].astype(np.int8) for _, te in folds]
    fold_acc = np.array([np.mean(p == t) for p, t in zip(preds, test_labels, strict=True)])
    fold_auc = np.array([_auc(t, s) for t, s in zip(test_labels, scores, strict=True)])
    n_train = float(np.mean([tr.size for tr, _ in folds]))
    n_test = float(np.mean([te.size for _, te in folds]))
    pvalue, z, degenerate = conditional_pvalue(preds, test_labels, n_train)
    accuracy = float(fold_acc.mean())
    auc = float(np.nanmean(fold_auc)) if np.isfinite(fold_auc).any() else float("nan")
    return C2STResult(
        statistic=accuracy,
        pvalue=pvalue,
        auc=auc,
        fold_accuracy=fold_acc,
        fold_auc=fold_auc,
        n_per_class=m,
        classifier=classifier,
        epochs=epochs,
        hit_max_epochs=hit_max,
        z=z,
        degenerate=degenerate,
        hidden=hidden,
        max_epochs=max_epochs,
        n_folds=len(folds),
        seed_used=seed_used,
        _n_train=n_train,
        _n_test=n_test,
        _standard=standard,
    )
