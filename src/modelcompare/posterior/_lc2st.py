"""L-C2ST in its normalising-flow variant (Linhart et al. 2023), with the correct latent."""

from __future__ import annotations

from typing import Any

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone

from modelcompare._foundation.results import Result, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed, sklearn_seed
from modelcompare._foundation.validation import (
    check_choice,
    check_int,
    check_same_width,
    check_samples,
)
from modelcompare.posterior._flows import _pair_iv
from modelcompare.posterior._lct import _adjust, _check_n_null, _standardisation, mc_pvalue
from modelcompare.posterior._regressors import _set_seed

__all__ = ["LC2STResult", "lc2st_nf"]


def _classifier(classifier: Any) -> Any:
    if not isinstance(classifier, str):
        if not hasattr(classifier, "predict_proba"):
            msg = f"`classifier` must be 'mlp', 'quadratic' or a classifier with predict_proba; got {type(classifier).__name__}."
            raise TypeError(msg)
        return classifier
    check_choice(classifier, "classifier", ("mlp", "quadratic"))
    if classifier == "mlp":
        from sklearn.neural_network import MLPClassifier

        return MLPClassifier(
            hidden_layer_sizes=(64, 64), max_iter=500, early_stopping=True, n_iter_no_change=20
        )
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import PolynomialFeatures, StandardScaler

    return make_pipeline(PolynomialFeatures(2), StandardScaler(), LogisticRegression(max_iter=2000))


@result_class
class LC2STResult(Result):
    """Result of :func:`lc2st_nf`: T(x₀) = mean_o (d(z_o, x₀) − ½)² and its p-value per x₀."""

    statistic: np.ndarray
    pvalue: np.ndarray
    pvalue_adjusted: np.ndarray | None
    x_eval: np.ndarray
    classifier: str
    n: int
    n_null: int
    n_eval: int
    seed_used: int | None
    null_statistic: np.ndarray

    _repr_fields = ("n", "n_null", "classifier")


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
    est = _set_seed(clone(clf), seed).fit(feats, y)
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


def lc2st_nf(
    flow: Any,
    theta: Any,
    x: Any,
    x_eval: Any,
    *,
    n_eval: int = 1000,
    n_null: int = 100,
    classifier: Any = "mlp",
    eval_correction: str | None = None,
    seed: SeedLike = None,
    n_jobs: int | None = None,
) -> LC2STResult:
    """Local classifier two-sample test in latent space (L-C2ST-NF), with the flow's true latent.

    One classifier separates (z_n = T⁻¹(θ_n; x_n), x_n) [class 0] from (z ~ N(0, I), x_n) [class 1].
    At x₀, with ``n_eval`` base draws z_o, T(x₀) = mean_o (d(z_o, x₀) − ½)², d the predicted class-1
    probability. Null classifiers separate two sets of base draws with the same x's: they do not
    depend on the flow and are shared across x₀. p = (1 + #{T^{(b)} ≥ T}) / (1 + B).

    Parameters
    ----------
    flow : object with ``to_latent``
        The latent comes from :func:`to_latent` (for sbi, :class:`SbiFlow`, never sbi's raw-context
        ``inverse_transform``).
    theta, x : array-like, shapes (N, m), (N, d)
        Calibration pairs.
    x_eval : array-like, shape (E, d)
    n_eval : int
        Base draws per evaluation point.
    n_null : int
        B null classifiers.
    classifier : {"mlp", "quadratic"} or sklearn classifier
        ``"mlp"``: MLPClassifier (64, 64) with early stopping; ``"quadratic"``: logistic regression on
        degree-2 features of [z, x] (sees shifts, dispersion, correlation and linear x-interactions;
        cheap).
    eval_correction : {None, "bonferroni", "holm"}
    seed : int, Generator or None
    n_jobs : int, optional

    Returns
    -------
    LC2STResult

    Notes
    -----
    This tests the whole local null z | x₀ ~ N(0, I) (uniformity and independence together).
    """
    theta, x = _pair_iv(theta, x)
    x_eval = check_samples(x_eval, "x_eval", min_samples=1)
    check_same_width([("x", x), ("x_eval", x_eval)], what="lc2st_nf")
    n_eval = check_int(n_eval, "n_eval", low=1)
    n_null = _check_n_null(n_null)
    clf = _classifier(classifier)
    if eval_correction is not None:
        eval_correction = check_choice(eval_correction, "eval_correction", ("bonferroni", "holm"))
    rng, seed_used = check_seed(seed)
    null_rng, obs_rng, eval_rng = rng.spawn(3)
    z = np.asarray(flow.to_latent(theta, x), dtype=float)
    n, m = z.shape
    mean, scale = _standardisation(x)
    xs, xe = (x - mean) / scale, (x_eval - mean) / scale
    z_eval = eval_rng.standard_normal((n_eval, m))
    t_null = np.stack(
        Parallel(n_jobs=n_jobs)(
            delayed(_null_stat)(clf, xs, m, z_eval, xe, c) for c in null_rng.spawn(n_null)
        )
    )
    t_obs = _fit_stat(
        clf, z, obs_rng.standard_normal((n, m)), xs, z_eval, xe, sklearn_seed(obs_rng)
    )
    pvalue = mc_pvalue(t_obs, t_null)
    name = classifier if isinstance(classifier, str) else type(classifier).__name__
    return LC2STResult(
        statistic=t_obs,
        pvalue=pvalue,
        pvalue_adjusted=_adjust(pvalue, eval_correction),
        x_eval=x_eval.copy(),
        classifier=name,
        n=n,
        n_null=n_null,
        n_eval=n_eval,
        seed_used=seed_used,
        null_statistic=t_null,
    )
