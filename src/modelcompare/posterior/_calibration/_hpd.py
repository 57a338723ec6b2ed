"""Expected coverage of highest-density regions: the SBC rank of the estimator's own density.

sbi computes it with ``run_sbc(..., reduce_fns=lambda theta, x: -posterior.log_prob(theta, x))``
and plots the ECDF of the ranks as the expected-coverage curve.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from scipy import stats

from modelcompare._foundation.resources import check_memory, estimate_array_bytes
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    check_int,
    check_same_rows,
    check_samples,
    check_vector,
)
from modelcompare.posterior._calibration._global import level_grid
from modelcompare.posterior._calibration._sbc import draw_posterior
from modelcompare.posterior._calibration._tarp import area_to_curve
from modelcompare.posterior._flows._adapters import adapt_sampler

__all__ = ["HPDCoverageResult", "hpd_coverage", "hpd_coverage_test"]


@result_class
class HPDCoverageResult(TestResult):
    """Result of :func:`hpd_coverage_test` and :func:`hpd_coverage`.

    Attributes
    ----------
    statistic : float
        KS distance of the randomised HPD ranks from U(0, 1).
    pvalue : float
        Its one-sample KS p-value (exact under calibration).
    atc : float
        ∫₀¹ (coverage(γ) − γ) dγ by the trapezoid rule on ``levels`` ∪ {0, 1}: > 0 when the
        highest-density regions cover too often (too wide a posterior), < 0 when too rarely (too
        narrow, or biased).
    levels, coverage : numpy.ndarray, shape (L,)
        The expected-coverage curve: coverage(γ) = (1/N) #{n : f_n < γ}, the share of true θ
        inside the estimated γ highest-density region.
    hpd_ranks : numpy.ndarray, shape (N,)
        f_n = (1/S) #{s : log q(θ̃_{n,s} | x_n) > log q(θ_n | x_n)}.
    n : int
        N, the simulations.
    n_posterior_samples : int
        S, the draws per simulation.
    seed_used : int or None
        The seed of the KS jitter (and of the draws, from :func:`hpd_coverage`).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> log_q = rng.normal(size=(300, 51))  # exchangeable: a calibrated estimator
    >>> res = hpd_coverage_test(log_q[:, 1:], log_q[:, 0], seed=1)
    >>> res.decision(0.01)
    False
    """

    statistic: float
    pvalue: float
    atc: float
    levels: np.ndarray
    coverage: np.ndarray
    hpd_ranks: np.ndarray
    n: int
    n_posterior_samples: int
    seed_used: int | None

    _repr_fields = ("statistic", "pvalue", "atc", "n")


def hpd_coverage_test(
    log_q_draws: Any, log_q_true: Any, *, levels: Any = None, seed: SeedLike = None
) -> HPDCoverageResult:
    """Expected coverage of highest-density regions, from log-densities, with a KS test.

    Parameters
    ----------
    log_q_draws : array-like, shape (N, S)
        log q(θ̃_{n,s} | x_n) of S draws θ̃_{n,s} ~ q(· | x_n) under the estimator itself.
    log_q_true : array-like, shape (N,)
        log q(θ_n | x_n) of the true parameters.
    levels : int, array-like or None
        Credibility levels γ of the coverage curve: ``None`` gives the 99 levels k/100, an int K
        gives k/(K + 1).
    seed : int, Generator or None
        Seeds the jitter that breaks the ties of the discrete ranks for the KS test.

    Returns
    -------
    HPDCoverageResult

    Raises
    ------
    ValueError
        If the shapes disagree or a value is NaN/inf (``log_q_draws`` and ``log_q_true`` must
        be finite log-densities).

    Notes
    -----
    θ_n lies in the estimated γ highest-density region of q(· | x_n) iff fewer than a share γ of
    the draws are more probable than θ_n, that is iff f_n < γ with
    f_n = (1/S) #{s : log q(θ̃_{n,s}) > log q(θ_n)}. If q is the true posterior, θ_n and the
    draws are S + 1 exchangeable draws of q(· | x_n), so S f_n is uniform on {0..S} and
    coverage(γ) ≈ γ (Hermans et al. 2022; Talts et al. 2018, with the estimator's density as the
    test quantity). This is what sbi computes with
    ``run_sbc(..., reduce_fns=lambda theta, x: -posterior.log_prob(theta, x))``.

    The test is a one-sample KS test of u_n = (G_n + W_n)/(S + 1), with G_n the count of draws
    with a larger log-density and W_n ~ U(0, E_n + 1) for E_n draws tied with θ_n: the u_n are
    exactly iid U(0, 1) under calibration. Unlike marginal SBC, the ranks look at the joint
    density, so a wrong correlation between parameters shows; the flip side is that a posterior
    that is wrong but agrees with the true one on its density ranks (some symmetric errors)
    passes.

    References
    ----------
    .. [1] Hermans, J., Delaunoy, A., Rozet, F., Wehenkel, A., Begy, V., and Louppe, G. (2022). A
       trust crisis in simulation-based inference? Your posterior approximations can be unfaithful.
       Transactions on Machine Learning Research. arXiv:2110.06581.

    Examples
    --------
    An under-dispersed estimator (sd 0.7 times the exact one): its regions cover too rarely.

    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(300, seed=0)
    >>> flow = model.exact_flow(scale_factor=0.7)
    >>> draws = flow.sample(x, 100, seed=1)
    >>> log_q_draws = flow.log_prob(draws.reshape(-1, 2), np.repeat(x, 100, axis=0))
    >>> res = hpd_coverage_test(log_q_draws.reshape(300, 100), flow.log_prob(theta, x), seed=2)
    >>> res.decision(0.01), bool(res.atc < 0)
    (True, True)
    """
    draws = check_samples(log_q_draws, "log_q_draws", min_samples=1)
    true = check_vector(log_q_true, "log_q_true")
    if true.shape[0] != draws.shape[0]:
        msg = (
            "`log_q_draws` and `log_q_true` must have one row per simulation; got "
            f"{draws.shape[0]} and {true.shape[0]}."
        )
        raise ValueError(msg)
    grid = level_grid(levels)
    rng, seed_used = check_seed(seed)
    n, s = draws.shape
    check_memory(estimate_array_bytes((n, grid.size), bool), "the coverage curve", "levels")
    above = np.sum(draws > true[:, None], axis=1)
    tied = np.sum(draws == true[:, None], axis=1)
    f = above / s
    u = (above + rng.uniform(size=n) * (tied + 1)) / (s + 1)
    ks = stats.kstest(u, "uniform")
    coverage = (f[:, None] < grid[None, :]).mean(axis=0)
    return HPDCoverageResult(
        statistic=float(ks.statistic),
        pvalue=float(ks.pvalue),
        atc=area_to_curve(grid, coverage),
        levels=grid,
        coverage=coverage,
        hpd_ranks=f,
        n=n,
        n_posterior_samples=s,
        seed_used=seed_used,
    )


def hpd_coverage(
    flow: Any,
    theta: Any,
    x: Any,
    *,
    n_posterior_samples: int = 100,
    levels: Any = None,
    seed: SeedLike = None,
) -> HPDCoverageResult:
    """Expected HPD coverage in one call, from a flow's ``sample`` and ``log_prob``.

    Parameters
    ----------
    flow : object with ``sample(x, n, seed)`` and ``log_prob(theta, x)``
        The estimated posterior (the adapters :class:`ZukoFlow`, :class:`NflowsFlow`,
        :class:`SbiFlow` have both).
    theta, x : array-like, shapes (N, m) and (N, d)
        Pairs drawn from the prior and the simulator.
    n_posterior_samples : int
        S, draws per pair.
    levels : int, array-like or None
        See :func:`hpd_coverage_test`.
    seed : int, Generator or None
        Seeds the draws and the test.

    Returns
    -------
    HPDCoverageResult

    Raises
    ------
    TypeError
        If ``flow`` has no ``sample`` or no ``log_prob``.

    Notes
    -----
    The draws come from ``flow.sample`` and their log-densities from ``flow.log_prob`` of the
    same flow: for an sbi posterior that samples by rejection inside the prior's support, the
    draws follow the truncated density while ``log_prob`` may be the untruncated one; the ranks
    are then only approximately uniform under calibration.

    References
    ----------
    .. [1] J. Hermans et al. (2022). A Crisis In Simulation-Based Inference? Beware, Your Posterior
       Approximations Can Be Unfaithful. Transactions on Machine Learning Research.
       arXiv:2110.06581.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(300, seed=0)
    >>> res = hpd_coverage(model.exact_flow(), theta, x, n_posterior_samples=50, seed=1)
    >>> res.decision(0.01), res.hpd_ranks.shape
    (False, (300,))
    """
    flow = adapt_sampler(flow, "flow")  # sbi's own log_prob and sample take other arguments
    if not hasattr(flow, "log_prob"):
        msg = f"`flow` needs a `log_prob(theta, x)` method for HPD coverage; {type(flow).__name__} has none."
        raise TypeError(msg)
    theta = check_samples(theta, "theta", min_samples=1)
    x = check_samples(x, "x", min_samples=1)
    check_same_rows([("theta", theta), ("x", x)], what="HPD coverage")
    s = check_int(n_posterior_samples, "n_posterior_samples", low=1)
    rng, seed_used = check_seed(seed)
    s_draws, s_test = rng.spawn(2)
    n, m = theta.shape
    draws = draw_posterior(flow, x, s, s_draws, m)
    check_memory(
        estimate_array_bytes((n * s, x.shape[1])),
        "the repeated observations",
        "n_posterior_samples",
    )
    log_q_draws = np.asarray(flow.log_prob(draws.reshape(n * s, m), np.repeat(x, s, axis=0)))
    log_q_true = np.asarray(flow.log_prob(theta, x))
    for what, values in (("its draws", log_q_draws), ("`theta`", log_q_true)):
        if not np.all(np.isfinite(values)):
            msg = (
                f"`flow.log_prob` is not finite at {what} given `x` (the log-densities of "
                "`theta` and of the draws must be finite; check `theta`, `x` and the flow)."
            )
            raise ValueError(msg)
    res = hpd_coverage_test(log_q_draws.reshape(n, s), log_q_true, levels=levels, seed=s_test)
    return dataclasses.replace(res, seed_used=seed_used)
