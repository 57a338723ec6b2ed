"""Bayesian hierarchical correlated t-test across data sets (Corani et al. 2017), without Stan."""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np
from scipy import stats

from modelcompare._foundation.errors import ConvergenceWarning, DegenerateDataWarning
from modelcompare._foundation.results import BayesianComparisonResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import as_numpy, check_int, check_positive
from modelcompare.cv._gibbs import (
    HierarchicalPriors,
    effective_sample_size,
    sample_hierarchical,
    split_rhat,
)

__all__ = ["HierarchicalTTestResult", "bayesian_hierarchical_ttest"]

# Vehtari et al. (2021): R̂ below 1.01 and a bulk ESS of at least 100 per chain.
RHAT_MAX = 1.01
ESS_PER_CHAIN = 100


@result_class
class HierarchicalTTestResult(BayesianComparisonResult):
    """Result of :func:`bayesian_hierarchical_ttest`: a Bayesian comparison.

    Attributes
    ----------
    prob_a_better, prob_rope, prob_a_worse : float
        baycomp's summary: the fraction of posterior draws in which, for a **new** data set,
        "a practically better" (δ > rope), "practically equivalent" or "a practically worse" is
        the most probable of the three regions under the predictive t_ν(δ₀, s₀).
    predictive_a_better, predictive_rope, predictive_a_worse : float
        The posterior predictive probabilities of the three regions for a new data set's δ
        (the mean over draws of each region's predictive probability).
    rope : float
        Half-width of the region of practical equivalence, in score units.
    n_datasets, n_splits : int
        Rows (data sets) and columns (CV splits per data set) of the input.
    rho : float
        Correlation of the splits' differences, 1/``n_folds``.
    scale : float
        The differences were divided by this (the mean within-data-set standard deviation).
    rhat, ess : dict
        Split-R̂ and effective sample size of δ₀, s₀ and ν.
    converged : bool
        Whether every R̂ is below 1.01 and every ESS at least 100 per chain.
    delta0, std0, nu : numpy.ndarray
        Posterior draws (all chains) of δ₀ and s₀ (in score units) and of ν.
    n_chains, n_draws : int
        Chains and kept draws per chain.
    seed_used : int or None
        The seed that reproduces the draws.
    """

    prob_a_better: float
    prob_rope: float
    prob_a_worse: float
    predictive_a_better: float
    predictive_rope: float
    predictive_a_worse: float
    rope: float
    n_datasets: int
    n_splits: int
    rho: float
    scale: float
    rhat: dict
    ess: dict
    converged: bool
    delta0: np.ndarray
    std0: np.ndarray
    nu: np.ndarray
    n_chains: int
    n_draws: int
    seed_used: int | None

    _repr_fields: ClassVar[tuple[str, ...]] = (
        "prob_a_better",
        "prob_rope",
        "prob_a_worse",
        "converged",
    )


def _table(x: Any, name: str) -> np.ndarray:
    arr = as_numpy(x, name)
    if arr.ndim != 2:
        msg = f"`{name}` must be 2-D (data sets × CV splits); got shape {arr.shape}."
        raise ValueError(msg)
    if arr.dtype.kind not in "biuf":
        msg = f"`{name}` must hold numeric scores; got dtype {arr.dtype}."
        raise TypeError(msg)
    arr = np.array(arr, dtype=np.float64)  # a copy: never modify the caller's array
    if not np.all(np.isfinite(arr)):
        msg = f"`{name}` must hold finite scores."
        raise ValueError(msg)
    return arr


def bayesian_hierarchical_ttest(
    scores_a: Any,
    scores_b: Any,
    *,
    rope: float = 0.01,
    n_folds: int | None = None,
    n_draws: int = 5000,
    n_warmup: int = 1000,
    n_chains: int = 4,
    seed: SeedLike = None,
) -> HierarchicalTTestResult:
    """Bayesian hierarchical correlated t-test of two models over several data sets.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_datasets, n_splits)
        Per-split CV scores of models a and b, one row per data set (the same splits for both
        models); greater is better.
    rope : float
        Half-width of the region of practical equivalence for the difference a − b, in score
        units (default 0.01).
    n_folds : int, optional
        Folds of the (repeated) k-fold CV that produced each row; ρ = 1/n_folds. Default:
        ``n_splits`` (one run of CV, as baycomp's ``runs=1``).
    n_draws, n_warmup, n_chains : int
        Kept draws per chain, warm-up iterations per chain, and chains.
    seed : int, numpy.random.Generator or None
        Fixes the draws (and the jitter of zero-variance rows).

    Returns
    -------
    HierarchicalTTestResult
        baycomp's three probabilities, the predictive probabilities, the hyper-parameter draws
        and their convergence diagnostics.

    Raises
    ------
    ValueError
        For shapes that differ, fewer than 2 data sets or 2 splits, non-finite scores, a bad
        ``n_folds``, or rows that all have zero variance.

    Warns
    -----
    ConvergenceWarning
        When an R̂ exceeds 1.01 or an effective sample size is below 100 per chain.
    DegenerateDataWarning
        When a row has zero variance (it is jittered as baycomp does).

    Notes
    -----
    The model is baycomp's ``HierarchicalTest`` (Corani et al. 2017; Benavoli et al. 2017, §4).
    With x_ij = a_ij − b_ij divided by the mean over data sets of the within-row standard
    deviation (ddof = 0), and M the n × n matrix with 1 on the diagonal and ρ = 1/n_folds off it:

    - x_i ~ MVN(δ_i·1, σ_i² M), the correlated likelihood of the corrected t-test;
    - δ_i ~ t_ν(δ₀, s₀): the data sets' mean differences, with heavy tails;
    - ν − 1 ~ Gamma(α, rate β), α ~ U(1, 2), β ~ U(0.01, 0.1);
    - δ₀ ~ U(−max|x|, max|x|); s₀ ~ U(0, 1000 · sd(x̄_i)); σ_i ~ U(0, 1000 · mean_i sd(x_i)).

    A row with zero variance is replaced, as in baycomp, by n/2 uniform draws on (−rope, rope)
    and their negatives (after scaling). The probabilities are those of a **new** data set's
    δ ~ t_ν(δ₀, s₀) falling below −rope, inside, or above rope; ``prob_*`` counts how often each
    region is the most probable one over the posterior draws (baycomp's ``probs()``), and
    ``predictive_*`` averages each region's probability.

    Sampling is a Gibbs sampler in numpy (the t as a scale mixture of normals, Metropolis steps
    for ν and α); it needs no Stan. Chains are independent streams of ``seed``.

    References
    ----------
    .. [1] G. Corani, A. Benavoli, J. Demšar, F. Mangili and M. Zaffalon, "Statistical comparison
       of classifiers through Bayesian hierarchical modelling", Machine Learning 106, 2017.
    .. [2] A. Benavoli, G. Corani, J. Demšar and M. Zaffalon, "Time for a change: a tutorial for
       comparing multiple classifiers through Bayesian analysis", JMLR 18(77), 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import bayesian_hierarchical_ttest
    >>> rng = np.random.default_rng(0)
    >>> b = 0.8 + 0.02 * rng.standard_normal((6, 10))
    >>> a = b + 0.03 + 0.01 * rng.standard_normal((6, 10))
    >>> res = bayesian_hierarchical_ttest(a, b, n_folds=10, seed=0)
    >>> res.decision(), res.converged
    ('a_better', True)
    """
    a = _table(scores_a, "scores_a")
    b = _table(scores_b, "scores_b")
    if a.shape != b.shape:
        msg = f"`scores_a` and `scores_b` must have the same shape; got {a.shape} and {b.shape}."
        raise ValueError(msg)
    q, n = a.shape
    if q < 2 or n < 2:
        msg = f"the hierarchical test needs at least 2 data sets and 2 splits; got shape {a.shape}."
        raise ValueError(msg)
    rope = check_positive(rope, "rope", allow_zero=True)
    n_folds = n if n_folds is None else check_int(n_folds, "n_folds", low=2)
    if n % n_folds:
        msg = f"`n_folds` ({n_folds}) must divide the number of splits per data set ({n})."
        raise ValueError(msg)
    n_draws = check_int(n_draws, "n_draws", low=10)
    n_warmup = check_int(n_warmup, "n_warmup", low=0)
    n_chains = check_int(n_chains, "n_chains", low=1)
    rng, seed_used = check_seed(seed)
    jitter_rng, chain_rng = rng.spawn(2)

    with np.errstate(over="ignore"):
        diff = a - b
    if not np.all(np.isfinite(diff)):
        msg = "the difference `scores_a` − `scores_b` overflows; rescale the scores."
        raise ValueError(msg)
    # the model is scale-free: divide by a power of two first, so that std() cannot overflow
    largest = float(np.max(np.abs(diff)))
    pow2 = 1.0 if largest == 0.0 else math.ldexp(1.0, math.frexp(largest)[1])
    scale_s = float(np.mean(np.std(diff / pow2, axis=1)))
    if scale_s == 0.0:
        msg = (
            "every data set's differences `scores_a` − `scores_b` have zero variance; the "
            "hierarchical model is undefined."
        )
        raise ValueError(msg)
    scale = scale_s * pow2
    x = diff / pow2 / scale_s
    with np.errstate(over="ignore"):
        r = rope / scale_s / pow2
    flat = np.var(x, axis=1) == 0.0
    if np.any(flat):
        warnings.warn(
            f"bayesian_hierarchical_ttest: {int(flat.sum())} data set(s) have zero-variance "
            "differences; jittered uniformly within the ROPE as baycomp does.",
            DegenerateDataWarning,
            stacklevel=2,
        )
        half = n // 2
        for i in np.flatnonzero(flat):
            x[i, :half] = jitter_rng.uniform(-r, r, half)
            x[i, half : 2 * half] = -x[i, :half]
    std_within = float(np.mean(np.std(x, axis=1)))
    std_among = float(np.std(np.mean(x, axis=1)))
    priors = HierarchicalPriors(
        delta_bound=float(np.max(np.abs(x))),
        std0_max=1000.0 * std_among if std_among > 0 else 1000.0 * std_within,
        sigma_max=1000.0 * std_within,
    )
    draws = sample_hierarchical(
        x,
        1.0 / n_folds,
        priors,
        n_draws=n_draws,
        n_warmup=n_warmup,
        n_chains=n_chains,
        rng=chain_rng,
    )
    rhat = {
        k: split_rhat(v)
        for k, v in (("delta0", draws.delta0), ("std0", draws.std0), ("nu", draws.nu))
    }
    ess = {
        k: effective_sample_size(v)
        for k, v in (("delta0", draws.delta0), ("std0", draws.std0), ("nu", draws.nu))
    }
    converged = all(v <= RHAT_MAX for v in rhat.values()) and all(
        v >= ESS_PER_CHAIN * n_chains for v in ess.values()
    )
    if not converged:
        warnings.warn(
            "bayesian_hierarchical_ttest: the sampler may not have converged (R̂ "
            + ", ".join(f"{k} {v:.3f}" for k, v in rhat.items())
            + "; ESS "
            + ", ".join(f"{k} {v:.0f}" for k, v in ess.items())
            + "); increase `n_draws` or `n_warmup`.",
            ConvergenceWarning,
            stacklevel=2,
        )
    mu, sd, nu = draws.delta0.ravel(), draws.std0.ravel(), draws.nu.ravel()
    below = stats.t.cdf(-r, nu, mu, sd)
    above = stats.t.sf(r, nu, mu, sd)
    inside = np.clip(1.0 - below - above, 0.0, 1.0)
    winners = np.argmax(np.stack([below, inside, above], axis=1), axis=1)
    worse, rope_p, better = np.bincount(winners, minlength=3) / winners.size
    return HierarchicalTTestResult(
        prob_a_better=float(better),
        prob_rope=float(rope_p),
        prob_a_worse=float(worse),
        predictive_a_better=float(np.mean(above)),
        predictive_rope=float(np.mean(inside)),
        predictive_a_worse=float(np.mean(below)),
        rope=float(rope),
        n_datasets=q,
        n_splits=n,
        rho=1.0 / n_folds,
        scale=scale,
        rhat=rhat,
        ess=ess,
        converged=bool(converged),
        delta0=draws.delta0.ravel() * scale,
        std0=draws.std0.ravel() * scale,
        nu=nu,
        n_chains=n_chains,
        n_draws=n_draws,
        seed_used=seed_used,
    )
