"""Which of two posterior estimators is closer to the true posterior, and where?

A paired test on held-out simulations (θ_n, x_n) ~ p(θ, x): for a strictly proper scoring rule S,
the mean of d_n = S(q_first, θ_n, x_n) − S(q_second, θ_n, x_n) estimates a difference of
divergences to the true posterior, without any reference posterior.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.plotting import check_result_type, new_axes
from modelcompare._foundation.pvalues import adjust_pvalues
from modelcompare._foundation.resources import check_memory, estimate_array_bytes
from modelcompare._foundation.results import (
    ConfidenceInterval,
    TestResult,
    check_alpha,
    result_class,
)
from modelcompare._foundation.seeds import SeedLike, check_seed, spawn
from modelcompare._foundation.validation import (
    check_choice,
    check_int,
    check_n_jobs,
    check_same_rows,
    check_same_width,
    check_samples,
)
from modelcompare.posterior.comparison._local_mean import (
    MeanTest,
    local_mean_test,
    mean_interval,
    paired_mean_test,
)
from modelcompare.posterior.comparison._posterior_scores import (
    calibration_scale,
    energy_scores,
    log_scores,
    replace_neg_inf,
)

__all__ = [
    "PosteriorComparisonResult",
    "compare_posteriors",
    "plot_posterior_comparison",
    "posterior_scores",
]

SCORING_RULES = ("log", "energy")
METHODS = ("t", "bootstrap")
ALTERNATIVES = ("two-sided", "greater", "less")


@result_class
class PosteriorComparisonResult(TestResult):
    """Which of two posterior estimators is closer to the true posterior (:func:`compare_posteriors`).

    Attributes
    ----------
    statistic : float
        The mean paired score difference, positive when ``first`` is closer. For the log rule in
        nats per pair: an estimate of E_x[KL(p ‖ q_second) − KL(p ‖ q_first)]; for the energy rule
        an estimate of E_x[½D_E(p, q_second) − ½D_E(p, q_first)] in standardised θ units.
    pvalue : float
        The p-value of the global mean (H0: E[d] = 0), from the paired t-test or the bootstrap-t.
    n : int
        The number of calibration pairs.
    standard_error : float
        The standard error of ``statistic``, sd(d)/√n.
    scoring_rule, method, alternative : str
        The options the test ran with.
    n_neg_inf_first, n_neg_inf_second : int
        Pairs at which that estimator's log-density is −inf (the log rule; 0 for energy).
    degenerate : bool
        True when all d_n are equal (for example two identical estimators): ``pvalue`` is 1.
    differences : numpy.ndarray of shape (n,)
        The per-pair d_n.
    x_eval : numpy.ndarray of shape (k, d) or None
        The evaluation points of the local test.
    n_neighbors : int or None
        The calibration pairs averaged at each evaluation point.
    local_statistics, local_standard_errors : numpy.ndarray of shape (k,) or None
        The kNN mean of d near each evaluation point, and its robust standard error.
    local_pvalues, local_pvalues_adjusted : numpy.ndarray of shape (k,) or None
        Per-point p-values of H0: E[d | x] = 0, raw and adjusted by ``correction``.
    correction : str or None
        The multiplicity correction across evaluation points.
    seed_used : int or None
        The seed that reproduces the run.
    """

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "n", "scoring_rule")

    statistic: float
    pvalue: float
    n: int
    standard_error: float
    scoring_rule: str
    method: str
    alternative: str
    n_neg_inf_first: int
    n_neg_inf_second: int
    degenerate: bool
    seed_used: int | None
    differences: np.ndarray
    x_eval: np.ndarray | None = None
    n_neighbors: int | None = None
    local_statistics: np.ndarray | None = None
    local_standard_errors: np.ndarray | None = None
    local_pvalues: np.ndarray | None = None
    local_pvalues_adjusted: np.ndarray | None = None
    correction: str | None = None
    _test: MeanTest | None = None

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """An interval for E[d]: the t interval, or the bootstrap-t one for ``method="bootstrap"``.

        One-sided alternatives give one-sided bounds, as scipy's ``ttest_rel``.
        """
        return mean_interval(self._test, confidence_level, self.alternative)

    def where(self, alpha: float = 0.05) -> np.ndarray:
        """Per evaluation point: ``"first"``, ``"second"`` or ``"neither"`` is shown to be closer.

        A point names an estimator when its adjusted p-value is ≤ ``alpha``, by the sign of the
        local mean (positive: ``first``).

        Raises
        ------
        ValueError
            If the comparison was run without ``x_eval``.
        """
        level = check_alpha(alpha)
        if self.local_pvalues_adjusted is None or self.local_statistics is None:
            msg = "`where` needs local results: run compare_posteriors with `x_eval`."
            raise ValueError(msg)
        reject = self.local_pvalues_adjusted <= level
        sign = np.where(self.local_statistics > 0, "first", "second")
        return np.where(reject, sign, "neither")


def check_estimators_iv(
    theta: Any, x: Any, scoring_rule: Any, alternative: Any, method: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Validate the calibration pairs and the string options shared by the comparisons."""
    check_choice(scoring_rule, "scoring_rule", SCORING_RULES)
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(method, "method", METHODS)
    theta_arr = check_samples(theta, "theta", min_samples=3)
    x_arr = check_samples(x, "x", min_samples=3)
    check_same_rows([("theta", theta_arr), ("x", x_arr)], what="the calibration pairs")
    return theta_arr, x_arr


def check_sizes_iv(
    n_resamples: Any, n_posterior_samples: Any, shape: tuple[int, int]
) -> tuple[int, int]:
    """Validate the resample and draw counts, refusing at once those that cannot fit in memory."""
    n_resamples = check_int(n_resamples, "n_resamples", low=1)
    n_posterior_samples = check_int(n_posterior_samples, "n_posterior_samples", low=2)
    # the bootstrap keeps its B sorted draws for the interval
    check_memory(estimate_array_bytes(n_resamples), "the bootstrap-t draws", "n_resamples")
    # the energy score's smallest block: one row's draws and their S × S distances
    s, m = n_posterior_samples, shape[1]
    check_memory(
        estimate_array_bytes((s, m)) + 2 * estimate_array_bytes((s, s)),
        "the energy score's draws and distances",
        "n_posterior_samples",
    )
    return n_resamples, n_posterior_samples


def _local_iv(
    x_eval: Any, n_neighbors: Any, correction: Any, x: np.ndarray
) -> tuple[np.ndarray | None, int | None]:
    """Validate the where-map's options before any scoring: the points, k and the correction.

    ``n_neighbors`` is checked even without ``x_eval``, so that a bad value never passes
    silently.
    """
    n = x.shape[0]
    if n_neighbors is not None:
        check_int(n_neighbors, "n_neighbors", low=2, high=n)
    adjust_pvalues([], correction)  # validates `correction` before any scoring, used or not
    if x_eval is None:
        return None, None
    eval_arr = check_samples(x_eval, "x_eval", min_samples=1)
    check_same_width([("x", x), ("x_eval", eval_arr)], what="the local comparison")
    k = math.ceil(n ** (2 / 3)) if n_neighbors is None else n_neighbors
    k = check_int(k, "n_neighbors", low=2, high=n)
    return eval_arr, k


def posterior_scores(
    estimators: list[Any],
    names: list[str],
    theta: np.ndarray,
    x: np.ndarray,
    *,
    scoring_rule: str,
    n_posterior_samples: int,
    rng: np.random.Generator,
    n_jobs: int | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Scores (n, k), larger is better, and the −inf counts per estimator (zeros for energy)."""
    children = spawn(rng, len(estimators))
    if scoring_rule == "log":
        raw = np.column_stack(
            [
                log_scores(e, theta, x, nm, c)
                for e, nm, c in zip(estimators, names, children, strict=True)
            ]
        )
        return replace_neg_inf(raw, names)
    with np.errstate(over="ignore", invalid="ignore"):
        scale = calibration_scale(theta)
        cols = [
            energy_scores(e, theta, x, scale, n_posterior_samples, c, nm, n_jobs)
            for e, nm, c in zip(estimators, names, children, strict=True)
        ]
    scores = np.column_stack(cols)
    if not np.isfinite(scores).all():
        # squared distances overflow float64 long before the draws do; say so, not "identical"
        msg = (
            "the energy scores are not finite: the squared distances between `theta` (largest "
            f"|value| {np.max(np.abs(theta)):.3g}) and the draws overflow float64; rescale "
            "`theta` and the estimators, or use `scoring_rule='log'`."
        )
        raise ValueError(msg)
    return scores, np.zeros(len(estimators), dtype=int)


def compare_posteriors(
    first: Any,
    second: Any,
    theta: Any,
    x: Any,
    *,
    scoring_rule: str = "log",
    x_eval: Any = None,
    alternative: str = "two-sided",
    method: str = "t",
    n_resamples: int = 1999,
    n_neighbors: int | None = None,
    correction: str | None = "holm",
    n_posterior_samples: int = 100,
    seed: SeedLike = None,
    n_jobs: int | None = None,
) -> PosteriorComparisonResult:
    r"""Test which of two posterior estimators is closer to the true posterior, and where.

    On held-out simulations (θ_n, x_n) ~ p(θ) p(x | θ), n = 1, ..., N, each estimator is scored
    by a strictly proper scoring rule, and the paired differences
    d_n = S(q_first; θ_n, x_n) − S(q_second; θ_n, x_n) are tested for a zero mean. No reference
    posterior is needed. **Positive means** ``first`` **is closer.**

    Parameters
    ----------
    first, second : object
        The two estimators. For ``scoring_rule="log"``: an object with a normalised
        ``log_prob(theta, x)`` (numpy or torch, one value per row), an sbi ``DirectPosterior``
        (scored by its own batched ``log_prob``, which renormalises the mass that leaks outside a
        bounded prior), an sbi density estimator, an nflows flow or a zuko flow; any base
        distribution is accepted. For ``"energy"``: an object with ``sample(x, n, seed)`` returning
        shape (N, n, m), or an sbi ``DirectPosterior`` (its ``sample_batched``).
    theta : array-like of shape (n_samples, m)
        The true parameters of the calibration pairs, drawn from the prior.
    x : array-like of shape (n_samples, d)
        The observations simulated from them.
    scoring_rule : {"log", "energy"}
        The score: the log score log q(θ | x), or the negative energy score.
    x_eval : array-like of shape (k, d), optional
        Observations at which the local comparison is evaluated.
    alternative : {"two-sided", "greater", "less"}
        H1 for E[d]: ``"greater"`` is "``first`` is closer".
    method : {"t", "bootstrap"}
        The global test: the paired t-test, or the bootstrap-t (studentised bootstrap) with
        ``n_resamples`` resamples, more accurate for skewed or heavy-tailed d_n at small N.
    n_resamples : int
        Bootstrap resamples for ``method="bootstrap"``.
    n_neighbors : int, optional
        Calibration pairs averaged at each evaluation point; default ⌈N^{2/3}⌉ (at most N).
    correction : {"holm", "bonferroni", "fdr_bh", None}
        The multiplicity correction across evaluation points.
    n_posterior_samples : int
        Draws S per observation for the energy score.
    seed : None, int or numpy.random.Generator
        Seeds the draws of the energy score, the bootstrap, and the leakage correction of sbi
        posteriors (a rejection-sampling estimate of each x's in-prior mass).
    n_jobs : int, optional
        joblib workers for the energy score's blocks of rows.

    Returns
    -------
    PosteriorComparisonResult
        ``statistic`` (mean of d_n), ``pvalue`` of the global mean, ``confidence_interval()``,
        ``differences``, and with ``x_eval`` the local results and :meth:`~PosteriorComparisonResult.where`.

    Raises
    ------
    TypeError
        If an estimator lacks the method its rule needs, or its density is known only up to a
        constant per x (sbi's ``MCMCPosterior``, ``RejectionPosterior`` and
        ``ImportanceSamplingPosterior`` of likelihood- or ratio-based methods).
    ValueError
        For bad options or shapes, or log-densities that are NaN or +inf.

    Notes
    -----
    **Log rule.** E_{p(θ,x)}[log q(θ | x)] = −E_x[KL(p(·|x) ‖ q(·|x))] − H, where H is the expected
    entropy of the true posterior and does not depend on q. The mean of
    d_n = log q_first(θ_n | x_n) − log q_second(θ_n | x_n) therefore estimates
    E_x[KL(p ‖ q_second) − KL(p ‖ q_first)] in nats per pair (Gneiting & Raftery 2007, §4;
    the logarithmic score is strictly proper). Where an estimator's log-density is −inf (the true θ
    outside its support), it is replaced by a finite stand-in one nat below the smallest finite
    log-density of both estimators: that estimator loses the pair, the statistic stays finite (a
    lower bound of an infinite KL difference), and the count is reported in
    ``n_neg_inf_first``/``n_neg_inf_second`` with a warning.

    **Energy rule.** ES(q, θ) = E‖Y − θ‖ − ½E‖Y − Y'‖ with Y, Y' ~ q(· | x) independent
    (Gneiting & Raftery 2007, eq. 22), strictly proper for distributions with a finite mean. From S
    draws it is estimated by (1/S)Σ_s‖Y_s − θ‖ − 1/(2S(S−1))Σ_{s≠s'}‖Y_s − Y_s'‖, the unbiased
    U-statistic form: the plug-in second term (dividing by 2S²) is biased by a factor (S − 1)/S,
    which favours the wider estimator and breaks the size of the test. The energy score is not
    scale-invariant, so θ and the draws are divided, per coordinate, by the standard deviation of
    the calibration θ (ddof=1) before scoring. d_n = ES_second − ES_first then estimates
    E_x[½D_E(p, q_second) − ½D_E(p, q_first)], with D_E the energy distance. Use the log rule when
    both estimators have normalised densities: it needs no draws and is the more powerful. Use the
    energy rule for estimators that can only sample (ABC, NLE or NRE with MCMC).

    **The tests.** Pairs are independent, so the d_n are iid and the paired t-test is valid for
    large N by the central limit theorem. d_n of estimators that differ in spread are skewed, and
    those of an estimator with lighter tails than the posterior are heavy-tailed: the t-test then
    needs more pairs to reach its level, and ``method="bootstrap"`` (bootstrap-t) corrects the
    skewness to second order. The local test at each point of ``x_eval`` t-tests the mean of the
    d of its ``n_neighbors`` nearest calibration x's (coordinates divided by the calibration x's
    standard deviations), with the heteroscedasticity-robust standard error sd/√k; the p-values are
    adjusted across points by ``correction``. Unlike the tests whose overall ``pvalue`` is the
    smallest adjusted one, ``pvalue`` here is that of the global mean; the local p-values sit in
    ``local_pvalues_adjusted``.

    The unit compared is two *fitted* estimators: to compare methods (NPE against NLE, a budget
    against another), train each method with several seeds and compare the spread of the
    statistics across seeds, not one fit of each.

    References
    ----------
    T. Gneiting and A. E. Raftery (2007). Strictly proper scoring rules, prediction, and
    estimation. Journal of the American Statistical Association 102(477), 359-378.

    B. Efron and R. J. Tibshirani (1993). An Introduction to the Bootstrap, §12.5 (bootstrap-t).

    Examples
    --------
    >>> import numpy as np
    >>> import modelcompare as mc
    >>> model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    >>> theta, x = model.simulate(2000, seed=0)
    >>> exact, wide = model.exact_flow(), model.exact_flow(scale_factor=1.5)
    >>> result = mc.compare_posteriors(exact, wide, theta, x, seed=0)
    >>> bool(result.statistic > 0), result.decision(0.05)
    (True, True)

    The exact KL difference is m (log c + 1/(2c²) − ½) = 0.255 nats for c = 1.5, m = 2:

    >>> ci = result.confidence_interval()
    >>> bool(ci.low < 2 * (np.log(1.5) + 1 / (2 * 1.5**2) - 0.5) < ci.high)
    True
    """
    theta_arr, x_arr = check_estimators_iv(theta, x, scoring_rule, alternative, method)
    n_resamples, n_posterior_samples = check_sizes_iv(
        n_resamples, n_posterior_samples, theta_arr.shape
    )
    n_jobs = check_n_jobs(n_jobs)
    n = theta_arr.shape[0]
    eval_arr, k = _local_iv(x_eval, n_neighbors, correction, x_arr)
    rng, seed_used = check_seed(seed)
    score_rng, boot_rng = spawn(rng, 2)
    scores, neg_inf = posterior_scores(
        [first, second],
        ["first", "second"],
        theta_arr,
        x_arr,
        scoring_rule=scoring_rule,
        n_posterior_samples=n_posterior_samples,
        rng=score_rng,
        n_jobs=n_jobs,
    )
    d = scores[:, 0] - scores[:, 1]
    test = paired_mean_test(
        d, alternative=alternative, method=method, n_resamples=n_resamples, rng=boot_rng
    )
    if test.degenerate:
        warnings.warn(
            "all paired score differences are equal (identical estimators?); the comparison is "
            "degenerate and its p-value is 1.",
            DegenerateDataWarning,
            stacklevel=2,
        )
    local: dict[str, Any] = {}
    if eval_arr is not None:
        means, ses, pvals = local_mean_test(
            d, x_arr, eval_arr, n_neighbors=k, alternative=alternative
        )
        local = {
            "x_eval": eval_arr.copy(),
            "n_neighbors": k,
            "local_statistics": means,
            "local_standard_errors": ses,
            "local_pvalues": pvals,
            "local_pvalues_adjusted": adjust_pvalues(pvals, correction),
            "correction": correction,
        }
    return PosteriorComparisonResult(
        statistic=test.mean,
        pvalue=test.pvalue,
        n=n,
        standard_error=test.standard_error,
        scoring_rule=scoring_rule,
        method=method,
        alternative=alternative,
        n_neg_inf_first=int(neg_inf[0]),
        n_neg_inf_second=int(neg_inf[1]),
        degenerate=test.degenerate,
        seed_used=seed_used,
        differences=d,
        _test=test,
        **local,
    )


#: marker of each verdict of :meth:`PosteriorComparisonResult.where`
_VERDICT_MARKERS = {"first": "^", "second": "v", "neither": "o"}


def _where_profile(
    ax: Any,
    result: PosteriorComparisonResult,
    verdict: np.ndarray,
    label: str,
    confidence_level: float,
    **kw: Any,
) -> None:
    """One x coordinate: the local means along it, with their unadjusted t intervals."""
    from scipy import stats

    order = np.argsort(result.x_eval[:, 0], kind="stable")
    xs = result.x_eval[order, 0]
    stat = result.local_statistics[order]
    half = (
        stats.t.ppf(0.5 + confidence_level / 2, result.n_neighbors - 1)
        * result.local_standard_errors[order]
    )
    style = {"color": "0.4", "lw": 1} | kw
    ax.plot(xs, stat, **style)
    ax.fill_between(
        xs,
        stat - half,
        stat + half,
        color="0.85",
        label=f"{round(100 * confidence_level, 2):g} % interval (unadjusted)",
    )
    for name, marker in _VERDICT_MARKERS.items():
        sel = verdict[order] == name
        color = {"first": "C0", "second": "C3", "neither": "0.5"}[name]
        ax.scatter(xs[sel], stat[sel], marker=marker, color=color, zorder=3, label=name)
    ax.axhline(0.0, color="0.5", lw=1, ls="--")
    ax.legend(loc="best", fontsize="small")
    ax.set_xlabel("x")
    ax.set_ylabel(label)


def _where_map(
    ax: Any, result: PosteriorComparisonResult, verdict: np.ndarray, label: str, **kw: Any
) -> None:
    """Two or more x coordinates: the evaluation points in (x₁, x₂), coloured by local mean."""
    from matplotlib.lines import Line2D

    stat = result.local_statistics
    top = float(np.max(np.abs(stat))) or 1.0
    style = {"cmap": "coolwarm_r", "vmin": -top, "vmax": top, "s": 70, "edgecolors": "k"} | kw
    points = None
    for name, marker in _VERDICT_MARKERS.items():
        sel = verdict == name
        points = ax.scatter(
            result.x_eval[sel, 0],
            result.x_eval[sel, 1],
            c=stat[sel],
            marker=marker,
            linewidths=0.3 if name == "neither" else 1.2,
            **style,
        )
    ax.figure.colorbar(points, ax=ax, label=label)
    # the legend names the markers only: their colour is the colour bar's
    handles = [
        Line2D([], [], ls="", marker=m, mfc="w", mec="k", ms=8, label=name)
        for name, m in _VERDICT_MARKERS.items()
    ]
    ax.legend(handles=handles, loc="best", fontsize="small")
    ax.set_xlabel("x₁")
    ax.set_ylabel("x₂")


def plot_posterior_comparison(
    result: PosteriorComparisonResult,
    *,
    ax: Any = None,
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    **kwargs: Any,
) -> Any:
    """The where-map of :func:`compare_posteriors`: which estimator is closer at each x_eval.

    Each evaluation point is drawn with its verdict from
    :meth:`~PosteriorComparisonResult.where` at ``alpha`` (after the result's multiplicity
    correction): ▲ ``first`` is closer, ▼ ``second`` is closer, ● neither is shown to be. With
    one x coordinate, the local mean score difference is drawn along x with its unadjusted t
    interval at ``confidence_level``; with two or more, the points sit at their first two coordinates and are coloured
    by the local mean (blue: ``first`` is closer, red: ``second``).

    Parameters
    ----------
    result : PosteriorComparisonResult
        From :func:`compare_posteriors` run with ``x_eval``.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    alpha : float
        The level of the verdicts.
    confidence_level : float
        The coverage of the intervals drawn with one x coordinate.
    **kwargs
        Passed to ``Axes.plot`` (one coordinate) or ``Axes.scatter`` (two or more).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        If the comparison was run without ``x_eval``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> import modelcompare as mc
    >>> model = mc.ConditionalGaussianModel(noise_cov=np.eye(1))
    >>> theta, x = model.simulate(1000, seed=0)
    >>> exact, wide = model.exact_flow(), model.exact_flow(scale_factor=1.5)
    >>> x_eval = np.linspace(-2, 2, 5)[:, None]
    >>> result = mc.compare_posteriors(exact, wide, theta, x, x_eval=x_eval, seed=0)
    >>> ax = mc.plot_posterior_comparison(result)
    >>> ax.get_xlabel()
    'x'
    """
    check_result_type(result, PosteriorComparisonResult, "compare_posteriors")
    verdict = result.where(alpha)
    ax = new_axes(ax, "plot_posterior_comparison")
    unit = "nats" if result.scoring_rule == "log" else "energy units"
    label = f"local mean difference ({unit}); > 0: first closer"
    if result.x_eval.shape[1] == 1:
        level = check_alpha(confidence_level, "confidence_level")
        _where_profile(ax, result, verdict, label, level, **kwargs)
    else:
        _where_map(ax, result, verdict, label, **kwargs)
    legend = ax.get_legend()
    legend.set_title(f"closer at α = {check_alpha(alpha):g}", prop={"size": "small"})
    return ax
