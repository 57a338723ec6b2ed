"""L-C2ST in its normalising-flow variant (Linhart et al. 2023), with the correct latent."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone

from modelcompare._foundation.mlp.recipe import mlp_memory_bytes
from modelcompare._foundation.pvalues import (
    adjust_pvalues,
    check_correction,
    familywise_pvalue,
    monte_carlo_pvalue,
)
from modelcompare._foundation.resources import (
    GENERATOR_BYTES,
    check_memory,
    estimate_array_bytes,
)
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed, sklearn_seed
from modelcompare._foundation.validation import (
    check_bool,
    check_choice,
    check_float32_range,
    check_int,
    check_n_jobs,
    check_same_width,
    check_samples,
)
from modelcompare.posterior._flows._flows import check_pairs, latents, require_latent
from modelcompare.posterior._local._lc2st_engine import (
    HIDDEN,
    MAX_EPOCHS,
    N_ITER_NO_CHANGE,
    lc2st_statistics,
)
from modelcompare.posterior._local._local_common import check_n_resamples, standardisation
from modelcompare.posterior._local._names import LC2ST_CLASSIFIERS
from modelcompare.posterior._local._quadratic_logistic import (
    QUADRATIC_CHUNK_BYTES,
    QUADRATIC_MAX_FEATURES,
    n_quadratic_features,
    quadratic_statistics,
)
from modelcompare.posterior._local._regressors import with_seed

__all__ = ["LC2STResult", "lc2st_nf"]


def _classifier(classifier: Any) -> Any:
    """The scikit-learn estimator for ``classifier``; None for ``"mlp"`` (the batched engine)."""
    if not isinstance(classifier, str):
        if not hasattr(classifier, "predict_proba"):
            msg = (
                "`classifier` must be 'mlp', 'sklearn', 'quadratic' or a classifier with "
                f"predict_proba; got {type(classifier).__name__}."
            )
            raise TypeError(msg)
        return classifier
    check_choice(classifier, "classifier", LC2ST_CLASSIFIERS)
    if classifier == "mlp":
        return None
    if classifier == "sklearn":
        from sklearn.neural_network import MLPClassifier

        return MLPClassifier(
            hidden_layer_sizes=HIDDEN,
            max_iter=MAX_EPOCHS,
            early_stopping=True,
            n_iter_no_change=N_ITER_NO_CHANGE,
        )
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import PolynomialFeatures, StandardScaler

    return make_pipeline(PolynomialFeatures(2), StandardScaler(), LogisticRegression(max_iter=2000))


@result_class
class LC2STResult(TestResult):
    """Result of :func:`lc2st_nf` at E evaluation points.

    Attributes
    ----------
    statistic : float
        The largest per-point statistic, max over x₀ of T(x₀) = mean_o (d(z_o, x₀) − ½)².
    pvalue : float
        The smallest Holm-adjusted p-value across the evaluation points, min(1, E · min_e p(x₀_e)),
        so that ``decision(alpha)`` is Holm's family-wise decision.
    statistics, pvalues : numpy.ndarray, shape (E,)
        T(x₀) and its p-value (1 + #{T^{(b)} ≥ T}) / (1 + B) at each evaluation point.
    pvalues_adjusted : numpy.ndarray, shape (E,)
        ``pvalues`` adjusted across the evaluation points by ``eval_correction``.
    x_eval : numpy.ndarray, shape (E, d)
        The evaluation points.
    classifier : str
        The classifier the test ran with.
    eval_correction : str or None
        The correction of ``pvalues_adjusted``.
    n, n_resamples, n_eval : int
        Calibration pairs, null classifiers B and base draws per evaluation point.
    seed_used : int or None
        The seed of the null draws, the classifiers and the base draws.
    null_statistics : numpy.ndarray, shape (B, E)
        T^{(b)}(x₀) of the null classifiers.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(300, seed=0)
    >>> res = lc2st_nf(model.exact_flow(), theta, x, [[0.0, 0.0]], classifier="quadratic",
    ...                n_resamples=19, n_eval=100, seed=0)
    >>> res.decision(0.05), res.pvalues.shape
    (False, (1,))
    """

    statistic: float
    pvalue: float
    statistics: np.ndarray
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    x_eval: np.ndarray
    classifier: str
    eval_correction: str | None
    n: int
    n_resamples: int
    n_eval: int
    seed_used: int | None
    null_statistics: np.ndarray

    _repr_fields = ("statistic", "pvalue", "n", "n_resamples", "classifier")


def _check_lc2st_memory(
    n: int, width: int, n_points: int, n_eval: int, n_resamples: int, engine: str | None
) -> None:
    """Refuse a run whose classifiers, null statistics or evaluation rows pass the memory limit.

    Always: the B null statistics at the E points, one spawned generator per null classifier and
    the n_eval base draws with their rows at every point. On the batched MLP engine, also the
    B + 1 float32 training sets of 2N rows, the networks' training state and their class-1
    probabilities on the E · n_eval evaluation rows; for the batched quadratic classifiers, the
    B base draws and one chunk of designs.
    """
    rows = n_points * n_eval
    n_bytes = (
        estimate_array_bytes((n_resamples, n_points))
        + n_resamples * GENERATOR_BYTES
        + estimate_array_bytes((n_eval, width))
        + estimate_array_bytes((rows, width), np.float32)
    )
    if engine == "quadratic":
        n_bytes += estimate_array_bytes((n_resamples, 2 * n, width)) + QUADRATIC_CHUNK_BYTES
    if engine == "mlp":
        k = n_resamples + 1
        n_bytes += (
            estimate_array_bytes((k, 2 * n, width), np.float32)
            + estimate_array_bytes((k, rows), np.float32)
            + mlp_memory_bytes(width, HIDDEN, 2 * n, rows, k)
        )
    check_memory(n_bytes, "the L-C2ST classifiers and their statistics", "n_resamples` or `n_eval")


def _check_features(z: np.ndarray, xs: np.ndarray, xe: np.ndarray) -> None:
    """The classifiers' inputs must fit float32 (the MLP engine's precision)."""
    check_float32_range(
        z,
        "theta",
        what="the classifiers",
        subject="the latent z = flow.to_latent(θ, x) of `theta` given `x`",
    )
    check_float32_range(
        xs, "x", what="the classifiers", subject="`x` after its z-score (a column near the limit)"
    )
    check_float32_range(
        xe, "x_eval", what="the classifiers", subject="`x_eval` after the z-score by `x`'s scale"
    )


def _fit_stat(
    clf: Any,
    z0: np.ndarray,
    z1: np.ndarray,
    xs: np.ndarray,
    z_eval: np.ndarray,
    xe: np.ndarray,
    seed: int,
) -> np.ndarray:
    feats = np.vstack([np.hstack([z0, xs]), np.hstack([z1, xs])])
    y = np.r_[np.zeros(len(z0)), np.ones(len(z1))]
    est = with_seed(clone(clf), seed).fit(feats, y)
    out = np.empty(xe.shape[0])
    for e in range(xe.shape[0]):
        f = np.hstack([z_eval, np.repeat(xe[e : e + 1], len(z_eval), axis=0)])
        d = est.predict_proba(f)[:, 1]
        out[e] = np.mean((d - 0.5) ** 2)
    return out


def _null_stat(
    clf: Any, xs: np.ndarray, m: int, z_eval: np.ndarray, xe: np.ndarray, child: np.random.Generator
) -> np.ndarray:
    z = child.standard_normal((2, xs.shape[0], m))
    return _fit_stat(clf, z[0], z[1], xs, z_eval, xe, sklearn_seed(child))


#: Null statistics of recent calls, keyed by everything they depend on (never the flow).
_NULL_CACHE: OrderedDict[str, np.ndarray] = OrderedDict()
_NULL_CACHE_SIZE = 8


def _null_key(
    classifier: Any,
    xs: np.ndarray,
    z_eval: np.ndarray,
    xe: np.ndarray,
    m: int,
    n_resamples: int,
    null_rng: np.random.Generator,
    device: Any,
) -> str | None:
    """A digest of what the null statistics depend on, or None when they cannot be keyed.

    The null classifiers see base draws and the calibration x only, so the flow is not part of
    the key. A classifier object is not keyed (its parameters need not be comparable).
    """
    seq = null_rng.bit_generator.seed_seq
    if not isinstance(classifier, str) or not isinstance(seq, np.random.SeedSequence):
        return None
    digest = hashlib.sha256()
    for arr in (xs, z_eval, xe):
        digest.update(repr(arr.shape).encode())
        digest.update(np.ascontiguousarray(arr).tobytes())
    settings = (
        classifier,
        m,
        n_resamples,
        str(device),
        seq.entropy,
        seq.spawn_key,
        seq.n_children_spawned,
        HIDDEN,
        MAX_EPOCHS,
        N_ITER_NO_CHANGE,
    )
    digest.update(repr(settings).encode())
    return digest.hexdigest()


def _remember_null(key: str | None, null_statistics: np.ndarray) -> None:
    if key is None:
        return
    _NULL_CACHE[key] = null_statistics.copy()
    while len(_NULL_CACHE) > _NULL_CACHE_SIZE:
        _NULL_CACHE.popitem(last=False)


def _recalled_null(key: str | None) -> np.ndarray | None:
    if key is None or key not in _NULL_CACHE:
        return None
    _NULL_CACHE.move_to_end(key)
    return _NULL_CACHE[key].copy()


def lc2st_nf(
    flow: Any,
    theta: Any,
    x: Any,
    x_eval: Any,
    *,
    n_eval: int = 1000,
    n_resamples: int = 100,
    classifier: Any = "mlp",
    eval_correction: str | None = "holm",
    seed: SeedLike = None,
    n_jobs: int | None = None,
    device: Any = "cpu",
    progress: bool = False,
) -> LC2STResult:
    """Local classifier two-sample test in latent space (L-C2ST-NF), with the flow's true latent.

    One classifier separates (z_n = T⁻¹(θ_n; x_n), x_n) [class 0] from (z ~ N(0, I), x_n) [class 1].
    At x₀, with ``n_eval`` base draws z_o, T(x₀) = mean_o (d(z_o, x₀) − ½)², d the predicted class-1
    probability. Null classifiers separate two sets of base draws with the same x's: they do not
    depend on the flow and are shared across x₀. p = (1 + #{T^{(b)} ≥ T}) / (1 + B).

    Parameters
    ----------
    flow : object with ``to_latent``
        The latent comes from ``flow.to_latent`` (for sbi, :class:`SbiFlow`, never sbi's
        raw-context ``inverse_transform``).
    theta, x : array-like, shapes (N, m), (N, d)
        Calibration pairs.
    x_eval : array-like, shape (E, d)
        Evaluation points x₀.
    n_eval : int
        Base draws per evaluation point.
    n_resamples : int
        B null classifiers.
    classifier : {"mlp", "sklearn", "quadratic"} or sklearn classifier
        ``"mlp"``: scikit-learn's ``MLPClassifier((64, 64), max_iter=500, early_stopping=True,
        n_iter_no_change=20)`` recipe run step by step in float32 on the batched MLP engine, the
        observed and all null classifiers trained together (the compiled CPU kernel, or batched
        torch on a GPU); ``"sklearn"``: that ``MLPClassifier`` itself, fitted one classifier at a
        time (float64; the same data and seeds, so the same test up to rounding; about 10× slower);
        ``"quadratic"``: scikit-learn's ``PolynomialFeatures(2)``, ``StandardScaler()``,
        ``LogisticRegression()`` on [z, x] (sees shifts, dispersion, correlation and their
        linear dependence on x), each of the B + 1 classifiers minimised by Newton's method to
        the optimum that L-BFGS approaches (up to 230 monomials, m + d ≤ 20; wider inputs are
        fitted one at a time with scikit-learn); the report's choice (about 2.5 ms a
        classifier at N = 1,000 and m + d = 4, 10 ms at m + d = 20, against 35 ms for
        ``"mlp"``).
    eval_correction : {"holm", "bonferroni", "fdr_bh", None}
        The correction of ``pvalues_adjusted`` across the evaluation points (see
        :func:`~modelcompare.adjust_pvalues`). The overall ``pvalue`` is Holm's whatever this is,
        min(1, E · min p): Benjamini–Hochberg controls the false discovery rate, not the
        family-wise error of ``decision(alpha)``.
    seed : int, Generator or None
        Seeds the null draws, the classifiers and the base draws.
    n_jobs : int, optional
        Workers over the classifiers: threads of the compiled kernel for ``"mlp"``, joblib
        workers otherwise. The numbers do not depend on it.
    device : str or torch.device
        Where ``"mlp"`` trains: ``"cpu"`` (the compiled kernel; torch not needed), ``"cuda"``,
        ``"mps"``, ``"gpu"`` or ``"auto"`` (the batched torch engine). Other classifiers run on
        the CPU.
    progress : bool
        Show a progress bar over the epochs of all ``"mlp"`` classifiers.

    Returns
    -------
    LC2STResult

    Notes
    -----
    This tests the whole local null z | x₀ ~ N(0, I) (uniformity and independence together).

    The null statistics do not depend on the flow (Linhart et al. 2023): they are kept for
    the last eight settings in the process (calibration x, evaluation points, ``n_eval``, B, a
    named classifier, the device and an int or ``SeedSequence`` seed), so a second call with the
    same settings and another flow, the usual loop of retraining an estimator against a fixed
    calibration set, trains only the observed classifier. The numbers are the same either way.

    References
    ----------
    .. [1] Linhart, Gramfort, Rodrigues (2023). L-C2ST: Local diagnostics for posterior
       approximations in simulation-based inference. NeurIPS. arXiv:2306.03580.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(300, seed=0)
    >>> res = lc2st_nf(model.exact_flow(), theta, x, [[0.0, 0.0], [1.0, 1.0]],
    ...                classifier="quadratic", n_resamples=19, n_eval=100, seed=0)
    >>> res.statistics.shape, res.null_statistics.shape
    ((2,), (19, 2))
    """
    require_latent(flow)
    theta, x = check_pairs(theta, x)
    x_eval = check_samples(x_eval, "x_eval", min_samples=1)
    check_same_width([("x", x), ("x_eval", x_eval)], what="lc2st_nf")
    n_eval = check_int(n_eval, "n_eval", low=1)
    n_resamples = check_n_resamples(n_resamples)
    clf = _classifier(classifier)
    eval_correction = check_correction(eval_correction, "eval_correction")
    n_jobs = check_n_jobs(n_jobs)
    progress = check_bool(progress, "progress")
    n, m = theta.shape
    batched_quadratic = (
        classifier == "quadratic" and n_quadratic_features(m + x.shape[1]) <= QUADRATIC_MAX_FEATURES
    )
    engine = "mlp" if clf is None else "quadratic" if batched_quadratic else None
    _check_lc2st_memory(n, m + x.shape[1], x_eval.shape[0], n_eval, n_resamples, engine)
    rng, seed_used = check_seed(seed)
    null_rng, obs_rng, eval_rng = rng.spawn(3)
    z = latents(flow, theta, x)
    mean, scale = standardisation(x)
    with np.errstate(over="ignore"):
        xs, xe = (x - mean) / scale, (x_eval - mean) / scale
    _check_features(z, xs, xe)
    z_eval = eval_rng.standard_normal((n_eval, m))
    key = _null_key(classifier, xs, z_eval, xe, m, n_resamples, null_rng, device)
    t_null = _recalled_null(key)
    if clf is None:
        # the observed classifier trains alone exactly as it does beside the null ones
        fits = lc2st_statistics(
            z,
            xs,
            z_eval,
            xe,
            null_rngs=null_rng.spawn(n_resamples) if t_null is None else [],
            obs_rng=obs_rng,
            device=device,
            n_jobs=n_jobs,
            progress=progress,
        )
        t_obs = fits.statistics
        if t_null is None:
            t_null = fits.null_statistics
    elif batched_quadratic:
        # every classifier on the same stream as the one-at-a-time path, fitted by Newton's method
        if t_null is None:
            base = np.stack([c.standard_normal((2, n, m)) for c in null_rng.spawn(n_resamples)])
            t_null = quadratic_statistics(base[:, 0], base[:, 1], xs, z_eval, xe)
        base_obs = obs_rng.standard_normal((1, n, m))
        t_obs = quadratic_statistics(z[None], base_obs, xs, z_eval, xe)[0]
    else:
        if t_null is None:
            t_null = np.stack(
                Parallel(n_jobs=n_jobs)(
                    delayed(_null_stat)(clf, xs, m, z_eval, xe, c)
                    for c in null_rng.spawn(n_resamples)
                )
            )
        t_obs = _fit_stat(
            clf, z, obs_rng.standard_normal((n, m)), xs, z_eval, xe, sklearn_seed(obs_rng)
        )
    _remember_null(key, t_null)
    pvalues = monte_carlo_pvalue(t_obs, t_null)
    name = classifier if isinstance(classifier, str) else type(classifier).__name__
    return LC2STResult(
        statistic=float(t_obs.max()),
        pvalue=familywise_pvalue(pvalues),
        statistics=t_obs,
        pvalues=pvalues,
        pvalues_adjusted=adjust_pvalues(pvalues, eval_correction),
        x_eval=x_eval.copy(),
        classifier=name,
        eval_correction=eval_correction,
        n=n,
        n_resamples=n_resamples,
        n_eval=n_eval,
        seed_used=seed_used,
        null_statistics=t_null,
    )
