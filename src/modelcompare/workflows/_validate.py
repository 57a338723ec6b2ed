"""``validate_posterior``: every calibration check of a posterior estimator in one call."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from modelcompare._foundation.pvalues import resamples_needed, smallest_adjusted_pvalue
from modelcompare._foundation.results import check_alpha
from modelcompare._foundation.seeds import SeedLike
from modelcompare._foundation.threads import thread_limits
from modelcompare._foundation.validation import (
    check_bool,
    check_int,
    check_n_jobs,
    check_same_rows,
    check_samples,
)
from modelcompare.posterior import adapt_flow, is_estimator, pit
from modelcompare.posterior.comparison import check_log_density
from modelcompare.workflows._build import build_report
from modelcompare.workflows._checks import REGISTRY, ReportInputs, check_names, select
from modelcompare.workflows._checks._figures import check_parameter_names
from modelcompare.workflows._from_arrays import report_from_arrays
from modelcompare.workflows._inputs import (
    check_classifier,
    check_regressor,
    default_x_eval,
    evaluation_points,
    input_hash,
    regressor_name,
)
from modelcompare.workflows._planning import MIN_RESAMPLES
from modelcompare.workflows._reference_c2st import ReferenceC2STResult, check_reference
from modelcompare.workflows._report import PosteriorValidationResult

__all__ = [
    "CHECKS",
    "MIN_RESAMPLES",
    "RESAMPLING_CHECKS",
    "ReferenceC2STResult",
    "build_report",
    "default_x_eval",
    "report_from_arrays",
    "resamples_needed",
    "smallest_adjusted_pvalue",
    "validate_posterior",
]

#: The names of the registered checks, in report order.
CHECKS = check_names()

#: The checks whose p-values are Monte Carlo p-values (1 + #{T⁽ᵇ⁾ ≥ T}) / (1 + B).
RESAMPLING_CHECKS = tuple(c.name for c in REGISTRY if c.resampling)


def _as_protocol(flow: Any) -> Any:
    """The flow protocol for ``flow``: estimators (sbi, zuko, nflows) through :func:`as_flow`.

    An object with ``to_latent`` is used as it is, and one that only offers ``sample(x, n, seed)``
    is kept for the sampling checks. sbi's posteriors have a ``sample`` of their own with another
    signature, so estimators are always adapted (and refused when their base is not N(0, I)).
    """
    if hasattr(flow, "to_latent") or (hasattr(flow, "sample") and not is_estimator(flow)):
        return flow
    return adapt_flow(flow, "flow")


def _flow_inputs(
    flow: Any,
    theta: np.ndarray,
    x: np.ndarray,
    x_eval: np.ndarray,
    reference: list[tuple[np.ndarray, np.ndarray]] | None,
    **options: Any,
) -> ReportInputs:
    """The report's inputs from a flow and calibration pairs; what the flow lacks is missing."""
    has_latent, has_sample = hasattr(flow, "to_latent"), hasattr(flow, "sample")
    no_latent = "the flow has no to_latent(theta, x), so no PIT values"
    no_sample = "the flow has no sample(x, n, seed)"
    missing: dict[str, str] = {}
    if not has_latent:
        missing["pit"] = missing["latent"] = no_latent
    if theta.shape[1] < 2:
        missing["two_parameters"] = "θ has one parameter"
    if not has_sample:
        missing["ranks"] = missing["draws"] = no_sample
    if not (has_sample and hasattr(flow, "log_prob")):
        missing["log_prob"] = "the flow has no log_prob(theta, x) with sample(x, n, seed)"
    if options["x_obs"] is None:
        missing["x_obs"] = "no observed data (x_obs) were given"
    if reference is None:
        missing["reference"] = "no reference draws were given"
    elif not has_sample:
        missing["reference"] = no_sample

    def draws_at(i: int, x_o: np.ndarray, n_draws: int, rng: Any) -> np.ndarray:
        return flow.sample(x_o, n_draws, rng)

    return ReportInputs(
        n=theta.shape[0],
        n_params=theta.shape[1],
        n_features=x.shape[1],
        pit_values=pit(flow, theta, x) if has_latent else None,
        x=x,
        x_eval=x_eval,
        x_obs=options["x_obs"],
        theta=theta,
        flow=flow,
        sampler=flow if has_sample else None,
        sample_x=x,
        n_draws=options["n_posterior_samples"],
        reference=reference,
        draws_at_reference=draws_at if has_sample else None,
        regressor=options["regressor"],
        classifier=options["classifier"],
        n_jobs=options["n_jobs"],
        missing=missing,
    )


def validate_posterior(
    flow: Any,
    theta: Any,
    x: Any,
    *,
    x_eval: Any = None,
    x_obs: Any = None,
    reference: Sequence[tuple[Any, Any]] | None = None,
    checks: Any = "all",
    n_posterior_samples: int = 100,
    n_resamples: int | None = None,
    alpha: float = 0.05,
    regressor: Any = "knn",
    classifier: str = "logistic",
    seed: SeedLike = None,
    n_jobs: int | None = None,
    progress: bool = False,
    compare_with: Any = None,
    parameter_names: Sequence[str] | None = None,
) -> PosteriorValidationResult:
    """Validate a posterior estimator on calibration pairs: every check, one report.

    Runs, on calibration pairs (θ_n, x_n) drawn from the prior and the simulator: SBC ranks and
    their test (Talts et al. 2018); TARP (Lemos et al. 2023); the global PIT check with
    simultaneous bands and the pairwise independence of the PIT values (Linhart et al. 2022); the
    local coverage test (Zhao et al. 2021) and the local independence test at the evaluation
    points; L-C2ST-NF (Linhart et al. 2023) at the evaluation points; and, with ``reference``, C2ST
    of the posterior's draws against exact posterior draws (Lopez-Paz & Oquab 2017, as in sbibm).

    Parameters
    ----------
    flow : object
        The posterior estimator: anything :func:`modelcompare.as_flow` accepts (sbi, zuko,
        nflows), or an object with ``to_latent(theta, x)`` and/or ``sample(x, n, seed)``. Checks
        that need what the flow lacks (a latent, or sampling) are skipped with the reason.
    theta, x : array-like, shapes (N, m) and (N, d)
        Calibration pairs.
    x_eval : array-like, shape (E, d), optional
        Evaluation points of the local checks. Default: ``x_obs`` when given; otherwise the row of
        ``x`` nearest its centre and, along each of its first three principal directions, the
        rows nearest both sides at the 80 % quantile of the Mahalanobis radius (E = 3, 5 and 7
        points for d = 1, 2 and ≥ 3; see :func:`default_x_eval`), so that every direction of the
        calibration cloud holds a point away from its centre.
    x_obs : array-like, shape (n_obs, d), optional
        The observed data, one data set per row. The local checks and L-C2ST-NF then run at
        these points (after the rows of ``x_eval``, when both are given), and the
        ``misspecification`` check tests whether each row is typical of the simulator's data
        under the prior, the calibration ``x`` (:func:`~modelcompare.misspecification_test`,
        Holm across the rows). It is a family of its own, outside the posterior checks' Holm
        correction and the plan of B: its null concerns the simulator, not the estimator.
    reference : sequence of (x_o, draws), optional
        Exact posterior draws (shape (n, m)) at observations x_o, for the C2ST check.
    checks : "all", str or sequence of str
        Which checks to run, among ``"misspecification"`` (with ``x_obs``), ``"sbc"``,
        ``"sbc_log_gamma"``, ``"tarp"``, ``"global_coverage"``, ``"expected_coverage"``,
        ``"pit_independence"``, ``"local_coverage"``, ``"local_independence"``, ``"lc2st_nf"``,
        ``"c2st"`` and the score ``"scores"``. ``"all"`` (default) runs every check whose inputs
        are there except ``expected_coverage``, which runs when named. Why: each test that runs
        is one more C in Holm across checks, and raises the B of every resampling check (so
        the cost of L-C2ST-NF, the slowest); ``sbc_log_gamma`` (one more S draws per pair, or
        the given ranks, and a cheap binomial null) is worth its C, while ``expected_coverage``
        (S draws and a ``log_prob`` per draw) largely repeats SBC and TARP. ``scores`` (one more
        S draws per pair) and ``misspecification`` (with ``x_obs``) add no C. A flow without
        ``log_prob`` skips ``expected_coverage`` with the reason.
    n_posterior_samples : int
        Posterior draws per calibration pair for SBC and TARP.
    n_resamples : int or None
        B, the null resamples of each resampling check (local coverage, local independence,
        L-C2ST-NF). ``None`` (default): per check, the smallest B ≥ 100 at which the check can
        reach a Holm-adjusted p ≤ ``alpha`` in this report (see Notes); for m = 2 parameters,
        d = 2 (five default evaluation points) and the eight tests of the default report, 1599
        for the local coverage test and 799 for the other two
        (``report.settings["n_resamples_planned"]``). The automatic plan runs in two stages: a
        first stage of max(199, B/8) resamples for every check, and the planned B, on a fresh
        stream, only for a check whose first-stage p-value could still reach ``alpha`` after
        its corrections (see Notes). The B each check ran with is
        ``report.settings["n_resamples"]``, and the seed of its stream
        ``report.settings["check_seeds"]``: ``local_coverage_test(pit_values, x, x_eval,
        n_resamples=B, seed=s)`` with those two gives the report's p-value.
    alpha : float
        The level, fixed in advance, B is planned for: with ``n_resamples=None`` every resampling
        check can reject at ``alpha`` after every correction. ``report.failures(a)`` warns when
        ``a`` is below ``alpha`` and some check cannot reach it
        (``report.settings["pvalue_floors"]``).
    regressor : str or estimator
        Regressor of the local checks: ``"knn"`` (default; the 150 nearest neighbours of x₀),
        ``"hgb"``, or an estimator (see :func:`local_coverage_test` and
        :func:`local_independence_test`). ``"mlp"`` and ``"logistic"`` (one classifier per
        level) serve the local coverage test only; the local independence check is then skipped
        with that reason. The kNN null fits share one neighbour index, so the
        local checks stay fast at the automatic B (see Notes).
    classifier : str
        The classifiers of the C2ST and L-C2ST-NF checks (the names are
        ``modelcompare.twosample.CLASSIFIERS``): ``"logistic"`` (default) screens with a
        logistic C2ST and quadratic logistic L-C2ST-NF classifiers, which see shifts, dispersion
        and correlation of the latent and their linear dependence on x, all B + 1 fitted by
        Newton's method; ``"mlp"`` runs sbibm's MLP C2ST and the paper's MLP L-C2ST-NF,
        which also see non-linear departures, at about 15 times the cost.
    seed : int, Generator or None
        Seeds every check; each check draws from its own stream, keyed by its name, so that
        choosing other checks leaves its result unchanged.
    n_jobs : int or None
        joblib workers for the null fits.
    progress : bool
        Show a progress bar over the checks on stderr.
    compare_with : object, optional
        A second estimator: the report then gets a comparison section,
        :func:`~modelcompare.compare_posteriors` (log rule) of ``flow`` against it on the same
        pairs, at ``x_eval``. It is a section, not a check: it is left out of ``failures()``, of
        Holm's correction across the checks and of the planning of B, and its random stream is
        a separate one, so the checks do not change with it.
    parameter_names : sequence of str, optional
        Names of θ's m coordinates in the figures, the findings and the summary (default
        θ₁, …, θₘ). The flow's latent coordinates are called z only in the L-C2ST-NF panel.

    Returns
    -------
    PosteriorValidationResult
        ``checks`` (a table), ``failures(alpha)`` (Holm across checks; the misspecification
        check first, by its own p-value), ``summary()``, ``scores`` (the per-parameter scores,
        a DataFrame), ``to_dict()``, ``to_json(path)``, ``to_html(path)``.

    Warns
    -----
    TooFewResamplesWarning
        When a given ``n_resamples`` is too few for some resampling check to reach a
        Holm-adjusted p ≤ ``alpha`` in this report (the warning names the checks and the B they
        need), or when the memory limit of the null regressions caps the automatic B.

    Notes
    -----
    Multiplicity: a check's overall p-value is the smallest Holm-adjusted p-value over its
    evaluation points (Holm 1979), after Bonferroni over the covariates (local coverage) or the
    K = m(m − 1)/2 pairs (local independence); :meth:`PosteriorValidationResult.failures` adjusts the
    overall p-values once more by Holm across the C checks that ran. A Monte Carlo p-value
    (1 + #{T⁽ᵇ⁾ ≥ T}) / (1 + B) is at least 1/(B + 1), so the smallest adjusted p-value of the
    local coverage check is m·E·C/(B + 1), and it can reject at 0.05 only if
    B + 1 ≥ 20·m·E·C (20·K·E·C for local independence, 20·E·C for L-C2ST-NF, and 20·m·C for
    the SBC log-gamma test, Holm over the m parameters at no evaluation point); 20 is 1/α.
    ``n_resamples=None`` picks that B per check, at least 100.

    Two stages: the check's p-value is at least its corrections' product k times its smallest
    raw Monte Carlo p-value, so it can reach α only if that raw p-value is ≤ α/k. The first
    stage keeps its own result when its smallest count would be that large with probability
    below 0.001 were the raw p-value α/k; otherwise the check runs again with the planned B
    and reports that p-value. The reported p-value stays valid: for u below the cut c on the
    first stage's p₁, {p ≤ u} ⊂ {p₂ ≤ u}, and for u ≥ c, {p ≤ u} ⊂ {p₁ ≤ u}. A p-value at its
    floor (``report.settings["check_floors"]``) is shown as a bound, "p ≤ …", and
    ``report.effect_sizes`` (the statistic's distance beyond its null, in null standard
    deviations) tells a gross failure from a borderline one. The ``misspecification`` check
    is outside C: a family of its own.

    Cost, measured on one core with m = d = 2 and N = 1000 (five default points, eight tests):
    the default report takes about 1 s cold, half of it L-C2ST-NF's 799 quadratic
    classifiers, and about 5 s at m = d = 10; with ``classifier="mlp"`` about 40 s, nearly all of it the 799 null
    MLPs. L-C2ST-NF's null does not depend on the flow and is recalled for the last eight
    settings in the process, so a second flow against the same calibration set costs under a
    second. Every cost of the local checks and their B grow with the number of evaluation
    points E. The kNN local checks take about a second at B = 1599; ``regressor="hgb"`` needs
    about 0.2 s per null fit of the local coverage test, some 5 minutes at B = 1599.

    Threads: every check runs inside the library's thread limits (one inner thread per worker
    when ``n_jobs`` > 1), so OpenMP regressors do not oversubscribe shared cores.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel, validate_posterior
    >>> model = ConditionalGaussianModel(noise_cov=np.eye(2))
    >>> theta, x = model.simulate(300, seed=0)
    >>> report = validate_posterior(
    ...     model.exact_flow(), theta, x, checks=["sbc", "global_coverage", "pit_independence"],
    ...     n_posterior_samples=50, seed=0)
    >>> report.failures(0.05)
    []
    >>> list(report.checks["name"])
    ['sbc', 'global_coverage', 'pit_independence']

    The local coverage test at the five default evaluation points of a 2-D x, with Holm across
    two checks: B + 1 must reach 20 · 2 · 5 · 2 = 400.

    >>> report = validate_posterior(
    ...     model.exact_flow(), theta, x, checks=["global_coverage", "local_coverage"], seed=0)
    >>> report.settings["n_resamples_planned"]
    {'local_coverage': 399}

    The plan runs in two stages: a first stage of 199 resamples, which sufficed here (its
    p-value is far from any rejection), and the planned 399 only where the first stage leaves
    the decision open.

    >>> report.settings["n_resamples"]
    {'local_coverage': 199}
    >>> report.failures(0.05)
    []
    """
    theta = check_samples(theta, "theta")
    x = check_samples(x, "x")
    check_same_rows([("theta", theta), ("x", x)], what="validate_posterior")
    n_posterior_samples = check_int(n_posterior_samples, "n_posterior_samples", low=2)
    if compare_with is not None:  # refused before the checks run, under its own name
        check_log_density(compare_with, "compare_with")
    if n_resamples is not None:
        n_resamples = check_int(n_resamples, "n_resamples", low=1)
    n_jobs = check_n_jobs(n_jobs)
    alpha = check_alpha(alpha)
    progress = check_bool(progress, "progress")
    regressor = check_regressor(regressor)
    classifier = check_classifier(classifier)
    select(checks)  # refuse bad names before any check runs
    names = list(check_parameter_names(parameter_names, theta.shape[1]))
    if reference is not None:
        reference = check_reference(reference, theta.shape[1], x.shape[1])
    original = flow
    flow = _as_protocol(flow)
    x_eval, x_obs = evaluation_points(x, x_eval, x_obs)
    inputs = _flow_inputs(
        flow,
        theta,
        x,
        x_eval,
        reference,
        x_obs=x_obs,
        n_posterior_samples=n_posterior_samples,
        regressor=regressor,
        classifier=classifier,
        n_jobs=n_jobs,
    )
    settings = {
        "n_posterior_samples": n_posterior_samples,
        "n_resamples": None,  # the plan's B per resampling check, filled in by the builder
        "n_resamples_auto": n_resamples is None,
        "regressor": regressor_name(regressor),
        "classifier": classifier,
        "n_eval_points": int(x_eval.shape[0]),
        "x_eval": x_eval,
        "parameter_names": names,
    }
    ref_arrays = [np.asarray(d, dtype=float) for _, d in reference] if reference else []
    with thread_limits(n_jobs=n_jobs):
        report = build_report(
            inputs,
            checks=checks,
            n_resamples=n_resamples,
            alpha=alpha,
            seed=seed,
            settings=settings,
            input_hash=input_hash(theta, x, x_eval, x_obs, *ref_arrays),
            progress=progress,
        )
    if compare_with is None:
        return report
    from modelcompare.posterior.comparison import compare_posteriors

    # a stream of its own, keyed by the report's seed, so that the checks do not depend on it
    child = None if report.seed_used is None else np.random.SeedSequence([report.seed_used, 1])
    comparison = compare_posteriors(
        original,
        compare_with,
        theta,
        x,
        x_eval=x_eval,
        seed=seed if child is None else np.random.default_rng(child),
        n_jobs=n_jobs,
    )
    return dataclasses.replace(report, comparison=comparison)
