"""L-C2ST-NF's classifiers on the batched MLP engine: the observed and every null classifier in one call.

L-C2ST in latent space (Linhart et al. 2023, Sec. 3.3 and Eq. 17) trains one classifier to
separate (T⁻¹(θ_n; x_n), x_n) [class 0] from (z_n, x_n) with z_n ~ N(0, I) [class 1], and B null
classifiers that separate two sets of base draws with the same x's. All B + 1 training sets have
the same shape (2N rows of width m + d, the same labels), so
:func:`modelcompare._foundation.mlp.trainer.fit_predict_proba` trains them together: on the CPU
the compiled kernel, on a GPU the batched torch engine.

Each classifier is scikit-learn's ``MLPClassifier(hidden_layer_sizes=(64, 64), max_iter=500,
early_stopping=True, n_iter_no_change=20)`` step by step in float32: Glorot initialisation, a
stratified 10 % validation split, minibatches of 200 from a fresh shuffle each epoch, Adam
(lr 1e-3) with an L2 penalty of 1e-4, and a stop once the validation accuracy has not improved by
1e-4 for more than 20 epochs, keeping the best-validation weights. The data and the seeds are
drawn exactly as with the scikit-learn classifier, so the two differ only by float32 rounding
(the scikit-learn path trains in float64).

The observed classifier and the null classifiers are identically distributed functions of
identically distributed data when the flow is exact, so the Monte Carlo p-value
(1 + #{T^{(b)} ≥ T}) / (1 + B) is valid whatever the stopping rule.

References
----------
.. [1] Linhart, J., Gramfort, A. and Rodrigues, P. L. C. (2023). L-C2ST: Local diagnostics for
   posterior approximations in simulation-based inference. NeurIPS.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from modelcompare._foundation.errors import ConvergenceWarning
from modelcompare._foundation.seeds import sklearn_seed

__all__ = ["HIDDEN", "MAX_EPOCHS", "N_ITER_NO_CHANGE", "LC2STFits", "lc2st_statistics"]

HIDDEN = (64, 64)
MAX_EPOCHS = 500
N_ITER_NO_CHANGE = 20


@dataclass(frozen=True, eq=False)
class LC2STFits:
    """The L-C2ST statistics of the observed and the null classifiers.

    Attributes
    ----------
    statistics : numpy.ndarray, shape (E,)
        T(x₀) = mean_o (d(z_o, x₀) − ½)² of the observed classifier at each evaluation point.
    null_statistics : numpy.ndarray, shape (B, E)
        The same statistic of the B null classifiers.
    epochs : numpy.ndarray of int, shape (B + 1,)
        Epochs run, the observed classifier first.
    engine : str
        ``"native"`` (compiled CPU kernel) or ``"torch"`` (batched torch engine).
    """

    statistics: np.ndarray
    null_statistics: np.ndarray
    epochs: np.ndarray
    engine: str


def _eval_rows(z_eval: np.ndarray, xe: np.ndarray) -> np.ndarray:
    """[z_o, x₀] for every evaluation point x₀ (E blocks of n_eval rows)."""
    n_eval, m = z_eval.shape
    e, d = xe.shape
    rows = np.empty((e, n_eval, m + d), dtype=np.float32)
    rows[:, :, :m] = z_eval[None]
    rows[:, :, m:] = xe[:, None, :]
    return rows.reshape(e * n_eval, m + d)


def lc2st_statistics(
    z: np.ndarray,
    xs: np.ndarray,
    z_eval: np.ndarray,
    xe: np.ndarray,
    *,
    null_rngs: list[np.random.Generator],
    obs_rng: np.random.Generator,
    hidden: tuple[int, ...] = HIDDEN,
    max_epochs: int = MAX_EPOCHS,
    n_iter_no_change: int = N_ITER_NO_CHANGE,
    device: Any = "cpu",
    n_jobs: int | None = None,
    progress: bool | Callable[[int], None] = False,
) -> LC2STFits:
    """Train the observed and the null L-C2ST-NF classifiers together; return their statistics.

    Parameters
    ----------
    z : numpy.ndarray, shape (N, m)
        The flow's latent T⁻¹(θ_n; x_n) of the calibration pairs.
    xs : numpy.ndarray, shape (N, d)
        The calibration x's, standardised.
    z_eval : numpy.ndarray, shape (n_eval, m)
        Base draws z_o at which every classifier is evaluated.
    xe : numpy.ndarray, shape (E, d)
        The evaluation points x₀, standardised like ``xs``.
    null_rngs : list of numpy.random.Generator
        One generator per null classifier: it draws the two sets of base draws, then the
        classifier's seed.
    obs_rng : numpy.random.Generator
        Draws the observed classifier's base draws, then its seed.
    hidden : tuple of int
        Hidden-layer widths.
    max_epochs, n_iter_no_change : int
        scikit-learn's ``max_iter`` and ``n_iter_no_change`` (early stopping on a 10 % validation
        split, ``tol`` 1e-4).
    device : str or torch.device
        ``"cpu"`` (the compiled kernel; no torch needed), ``"cuda"``, ``"mps"``, ``"gpu"`` or
        ``"auto"`` (the batched torch engine on an accelerator).
    n_jobs : int, optional
        Threads for the compiled kernel (the classifiers are split among them; the numbers do
        not change). None means 1, -1 all CPUs.
    progress : bool or callable
        A tqdm bar over the epochs of all classifiers, or a callable receiving epoch counts.

    Returns
    -------
    LC2STFits

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare.posterior._local._lc2st_engine import lc2st_statistics
    >>> rng = np.random.default_rng(0)
    >>> xs = rng.standard_normal((200, 2))
    >>> z = rng.standard_normal((200, 2))  # an exact flow's latent
    >>> import warnings
    >>> with warnings.catch_warnings():  # 20 epochs are too few to stop early; fine for shapes
    ...     warnings.simplefilter("ignore")
    ...     fits = lc2st_statistics(z, xs, rng.standard_normal((50, 2)), np.zeros((1, 2)),
    ...                             null_rngs=rng.spawn(4), obs_rng=rng, hidden=(16,), max_epochs=20)
    >>> fits.statistics.shape, fits.null_statistics.shape, fits.epochs.shape
    ((1,), (4, 1), (5,))
    """
    from modelcompare._foundation.mlp.trainer import fit_predict_proba

    n, m = z.shape
    width = m + xs.shape[1]
    k = len(null_rngs) + 1
    data = np.empty((k, 2 * n, width), dtype=np.float32)
    data[:, :n, m:] = xs
    data[:, n:, m:] = xs
    seeds = np.empty(k, dtype=np.int64)
    # the null classifiers draw first, as the scikit-learn path does (each from its own stream)
    for j, child in enumerate(null_rngs, start=1):
        base = child.standard_normal((2, n, m))
        data[j, :n, :m] = base[0]
        data[j, n:, :m] = base[1]
        seeds[j] = sklearn_seed(child)
    data[0, :n, :m] = z
    data[0, n:, :m] = obs_rng.standard_normal((n, m))
    seeds[0] = sklearn_seed(obs_rng)
    labels = np.r_[np.zeros(n), np.ones(n)]
    fit = fit_predict_proba(
        data,
        labels,
        _eval_rows(z_eval, xe),
        seeds=seeds.tolist(),
        hidden=hidden,
        max_epochs=max_epochs,
        early_stopping=True,
        n_iter_no_change=n_iter_no_change,
        device=device,
        n_jobs=n_jobs,
        progress=progress,
    )
    if fit.hit_max.any():
        warnings.warn(
            f"{int(fit.hit_max.sum())} of {k} L-C2ST classifiers reached `max_epochs`="
            f"{max_epochs} before early stopping.",
            ConvergenceWarning,
            stacklevel=3,
        )
    proba = fit.proba.reshape(k, xe.shape[0], z_eval.shape[0])
    stats = np.mean((proba - 0.5) ** 2, axis=-1)
    return LC2STFits(
        statistics=stats[0], null_statistics=stats[1:], epochs=fit.epochs, engine=fit.engine
    )
