"""``validate_posterior``: every calibration check of a posterior estimator in one call."""

from __future__ import annotations

import dataclasses
import hashlib
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from modelcompare._foundation.errors import TooFewResamplesWarning
from modelcompare._foundation.pvalues import (
    holm_adjust,
    resamples_needed,
    smallest_adjusted_pvalue,
)
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.threads import thread_limits
from modelcompare._foundation.validation import (
    as_numpy,
    check_bool,
    check_choice,
    check_int,
    check_n_jobs,
    check_nonempty,
    check_same_rows,
    check_samples,
)
from modelcompare.posterior import (
    adapt_flow,
    global_coverage_test,
    is_estimator,
    lc2st_nf,
    level_grid,
    local_coverage_test,
    local_independence_test,
    max_null_resamples,
    pit,
    pit_independence_test,
    sbc,
    sbc_test,
    tarp,
)
from modelcompare.twosample import c2st
from modelcompare.workflows._report import ABOUT, CheckOutcome, PosteriorReport

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

CHECKS = tuple(ABOUT)

#: The checks whose p-values are Monte Carlo p-values (1 + #{T⁽ᵇ⁾ ≥ T}) / (1 + B).
RESAMPLING_CHECKS = ("local_coverage", "local_independence", "lc2st_nf")

#: The fewest null resamples the report uses when it chooses B itself.
MIN_RESAMPLES = 100

#: The level at which the automatic B lets every resampling check reject.
AUTO_ALPHA = 0.05


@result_class
class ReferenceC2STResult(TestResult):
    """C2ST of posterior draws against reference draws at several observations.

    Attributes
    ----------
    statistic : float
        The largest held-out accuracy over the observations.
    pvalue : float
        The smallest Holm-adjusted p-value over the observations.
    statistics, pvalues, pvalues_adjusted : numpy.ndarray, shape (n_observations,)
        Per-observation accuracies, p-values and Holm-adjusted p-values.
    results : tuple of C2STResult
        The per-observation results.
    seed_used : int or None
        Seed of the draws and classifiers.
    """

    statistic: float
    pvalue: float
    statistics: np.ndarray
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    results: tuple[Any, ...]
    seed_used: int | None


def default_x_eval(x: np.ndarray, n_points: int = 3) -> np.ndarray:
    """Evaluation points spread over the calibration x's.

    The rows of ``x`` nearest the 10 %, 50 % and 90 % quantiles (for ``n_points=3``; evenly spaced
    quantiles in general) of the projection of the standardised x's on their first principal
    direction, so that the points cover the bulk and both flanks of the data.
    """
    z = (x - x.mean(axis=0)) / np.where(x.std(axis=0) > 0, x.std(axis=0), 1.0)
    direction = np.linalg.svd(z, full_matrices=False)[2][0]
    projection = z @ direction
    targets = np.quantile(projection, np.linspace(0.1, 0.9, n_points))
    rows = [int(np.argmin(np.abs(projection - t))) for t in targets]
    return x[rows]


def _correction_factors(name: str, m: int, e: int, n_checks: int) -> tuple[int, int, int]:
    """(tests per evaluation point, evaluation points, checks) of a resampling check."""
    per_point = {"local_coverage": m, "local_independence": m * (m - 1) // 2, "lc2st_nf": 1}
    return (max(per_point[name], 1), e, n_checks)


def _plan_resamples(
    runners: Mapping[str, Any],
    checks: Any,
    n_resamples: int | None,
    *,
    m: int,
    e: int,
    limits: Mapping[str, int],
) -> dict[str, int]:
    """The B of each resampling check that will run; warn when one cannot reach ``AUTO_ALPHA``.

    With ``n_resamples=None`` each check gets the smallest B (at least :data:`MIN_RESAMPLES`) at
    which it can reach a Holm-adjusted p ≤ 0.05 in this report, unless ``limits`` (the memory
    guard) caps it.
    """
    running = [name for name in _select(checks) if callable(runners.get(name))]
    factors = {
        name: _correction_factors(name, m, e, len(running))
        for name in running
        if name in RESAMPLING_CHECKS
    }
    needed = {name: resamples_needed(f) for name, f in factors.items()}
    if n_resamples is None:
        chosen = {name: max(b, MIN_RESAMPLES) for name, b in needed.items()}
        chosen |= {
            name: max(limits[name], 1)
            for name, b in chosen.items()
            if name in limits and limits[name] < b
        }
    else:
        chosen = dict.fromkeys(needed, n_resamples)
    short = [name for name, b in needed.items() if chosen[name] < b]
    if short:
        lacking = "; ".join(
            f"{name} runs with B={chosen[name]} (smallest attainable p "
            f"{smallest_adjusted_pvalue(chosen[name], factors[name]):.3g}) and needs "
            f"n_resamples >= {needed[name]}"
            for name in short
        )
        cause, remedy = (
            (
                "The memory limit of the null regressions caps B",
                "Raise the limit with the environment variable MODELCOMPARE_MAX_MEMORY.",
            )
            if n_resamples is None
            else (
                f"`n_resamples`={n_resamples} is too few",
                "Pass `n_resamples=None` to choose B per check.",
            )
        )
        warnings.warn(
            f"{cause}: some resampling checks cannot reach a Holm-adjusted p <= {AUTO_ALPHA:g} "
            f"in this report of {len(running)} checks: {lacking}. {remedy}",
            TooFewResamplesWarning,
            stacklevel=3,
        )
    return chosen


def _quiet_resolution(call: Callable[[], Any]) -> Any:
    """Run ``call`` without the tests' own resolution warnings (the report issues its own)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TooFewResamplesWarning)
        return call()


def _hash(*arrays: Any) -> str:
    digest = hashlib.sha256()
    for a in arrays:
        if a is not None:
            a = np.ascontiguousarray(np.asarray(a, dtype=float))
            digest.update(str(a.shape).encode())
            digest.update(a.tobytes())
    return digest.hexdigest()


def _versions() -> dict[str, str]:
    import sys
    from importlib import metadata

    out = {"modelcompare": metadata.version("modelcompare")}
    for name in ("numpy", "scipy", "scikit-learn", "torch"):
        module = {"scikit-learn": "sklearn"}.get(name, name)
        if name == "torch" and "torch" not in sys.modules:
            continue
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:  # pragma: no cover - installed from source
            out[name] = getattr(sys.modules.get(module), "__version__", "?")
    return out


class _Draws:
    """A flow-like object whose ``sample`` returns stored posterior draws (shape (N, S, m))."""

    def __init__(self, draws: np.ndarray) -> None:
        self.draws = draws

    def sample(self, x: Any, n: int, seed: SeedLike = None) -> np.ndarray:
        return self.draws[:, :n]


#: Regressor names of the local coverage test; the local independence test regresses products of
#: Gaussianised PIT values and has a counterpart for the first two only.
LOCAL_REGRESSORS = ("knn", "hgb", "mlp", "logistic")
INDEPENDENCE_REGRESSORS = ("knn", "hgb")


def _check_regressor(regressor: Any) -> Any:
    if isinstance(regressor, str):
        return check_choice(regressor, "regressor", LOCAL_REGRESSORS)
    return regressor


def _no_independence_regressor(regressor: Any) -> str | None:
    """Why the local independence check cannot use ``regressor`` (None when it can)."""
    if isinstance(regressor, str) and regressor not in INDEPENDENCE_REGRESSORS:
        return (
            f"regressor {regressor!r} classifies; the local independence test regresses "
            f"and takes {' or '.join(map(repr, INDEPENDENCE_REGRESSORS))}"
        )
    return None


def _as_protocol(flow: Any) -> Any:
    """The flow protocol for ``flow``: estimators (sbi, zuko, nflows) through :func:`as_flow`.

    An object with ``to_latent`` is used as it is, and one that only offers ``sample(x, n, seed)``
    is kept for the sampling checks. sbi's posteriors have a ``sample`` of their own with another
    signature, so estimators are always adapted (and refused when their base is not N(0, I)).
    """
    if hasattr(flow, "to_latent") or (hasattr(flow, "sample") and not is_estimator(flow)):
        return flow
    return adapt_flow(flow, "flow")


def _reference_c2st(
    sample: Callable[[np.ndarray, int, Any], np.ndarray],
    reference: Sequence[tuple[Any, Any]],
    rng: np.random.Generator,
    classifier: str,
) -> ReferenceC2STResult:
    results = []
    for i, (x_o, draws) in enumerate(reference):
        draws = check_samples(draws, f"reference[{i}] draws")
        x_o = np.asarray(x_o, dtype=float).reshape(1, -1)
        posterior = np.asarray(sample(x_o, draws.shape[0], rng), dtype=float).reshape(
            draws.shape[0], -1
        )
        results.append(c2st(draws, posterior, classifier=classifier, seed=rng))
    statistics = np.array([r.statistic for r in results])
    pvalues = np.array([r.pvalue for r in results])
    adjusted = holm_adjust(pvalues)
    return ReferenceC2STResult(
        statistic=float(statistics.max()),
        pvalue=float(adjusted.min()),
        statistics=statistics,
        pvalues=pvalues,
        pvalues_adjusted=adjusted,
        results=tuple(results),
        seed_used=None,
    )


def build_report(
    *,
    n: int,
    n_params: int,
    n_features: int,
    runners: dict[str, Callable[[np.random.Generator], Any] | str],
    checks: Any,
    seed: SeedLike,
    settings: dict[str, Any],
    input_hash: str,
    progress: bool = False,
) -> PosteriorReport:
    """Run the checks and assemble a :class:`PosteriorReport` (one implementation for all callers).

    ``runners`` maps a check name to a function of a child generator that returns its result, or
    to a string saying why the check cannot run. Each check gets its own child of ``seed``, so
    selecting fewer checks leaves the others' results unchanged.
    """
    selected = _select(checks)
    rng, seed_used = check_seed(seed)
    children = dict(zip(CHECKS, rng.spawn(len(CHECKS))))
    outcomes = []
    from tqdm.auto import tqdm

    for name in tqdm(selected, desc="checks", disable=not progress, leave=False):
        runner = runners.get(name, "no input for this check")
        started = time.perf_counter()
        if isinstance(runner, str):
            outcomes.append(CheckOutcome(name, ABOUT[name][0], None, runner, 0.0))
            continue
        result = runner(children[name])
        outcomes.append(
            CheckOutcome(name, ABOUT[name][0], result, None, time.perf_counter() - started)
        )
    return PosteriorReport(
        outcomes=tuple(outcomes),
        n=n,
        n_params=n_params,
        n_features=n_features,
        seed_used=seed_used,
        settings=settings,
        versions=_versions(),
        input_hash=input_hash,
    )


def _select(checks: Any) -> list[str]:
    if isinstance(checks, str) and checks == "all":
        return list(CHECKS)
    if not isinstance(checks, str) and not hasattr(checks, "__iter__"):
        msg = f"`checks` must be 'all', a check name or a list of names; got {checks!r}."
        raise TypeError(msg)
    names = [checks] if isinstance(checks, str) else list(checks)
    unknown = [c for c in names if c not in CHECKS]
    if unknown or not names:
        msg = f"`checks` must be 'all' or names among {list(CHECKS)}; got {checks!r}."
        raise ValueError(msg)
    return [c for c in CHECKS if c in names]


def _check_reference(
    reference: Any, n_params: int, n_features: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Validated ``(x_o, draws)`` pairs: x_o of shape (1, d) like ``x``, draws (n, m) like ``theta``."""
    out = []
    for i, pair in enumerate(check_nonempty(reference, "reference")):
        if isinstance(pair, str | bytes) or not hasattr(pair, "__len__") or len(pair) != 2:
            msg = f"`reference[{i}]` must be a pair (x_o, draws); got {type(pair).__name__}."
            raise TypeError(msg)
        x_o, draws = pair
        name = f"reference[{i}] x_o"
        x_o = check_samples(as_numpy(x_o, name).reshape(1, -1), name, min_samples=1)
        if x_o.shape[1] != n_features:
            msg = f"`{name}` must have {n_features} values like a row of `x`; got {x_o.shape[1]}."
            raise ValueError(msg)
        name = f"reference[{i}] draws"
        draws = check_samples(draws, name)
        if draws.shape[1] != n_params:
            msg = f"`{name}` must have {n_params} columns like `theta`; got {draws.shape[1]}."
            raise ValueError(msg)
        out.append((x_o, draws))
    return out


def validate_posterior(
    flow: Any,
    theta: Any,
    x: Any,
    *,
    x_eval: Any = None,
    reference: Sequence[tuple[Any, Any]] | None = None,
    checks: Any = "all",
    n_posterior_samples: int = 100,
    n_resamples: int | None = None,
    regressor: Any = "knn",
    classifier: str = "logistic",
    seed: SeedLike = None,
    n_jobs: int | None = None,
    progress: bool = False,
    compare_with: Any = None,
) -> PosteriorReport:
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
        Evaluation points of the local checks. Default: three rows of ``x`` spread along its first
        principal direction (see :func:`default_x_eval`).
    reference : sequence of (x_o, draws), optional
        Exact posterior draws (shape (n, m)) at observations x_o, for the C2ST check.
    checks : "all", str or sequence of str
        Which checks to run, among ``"sbc"``, ``"tarp"``, ``"global_coverage"``,
        ``"pit_independence"``, ``"local_coverage"``, ``"local_independence"``, ``"lc2st_nf"``,
        ``"c2st"``.
    n_posterior_samples : int
        Posterior draws per calibration pair for SBC and TARP.
    n_resamples : int or None
        B, the null resamples of each resampling check (local coverage, local independence,
        L-C2ST-NF). ``None`` (default): per check, the smallest B ≥ 100 at which the check can
        reach a Holm-adjusted p ≤ 0.05 in this report (see Notes); for m = 2 parameters, three
        evaluation points and seven checks, 839 for the local coverage test and 419 for the other
        two. The B each check ran with is ``report.settings["n_resamples"]``.
    regressor : str or estimator
        Regressor of the local checks: ``"knn"`` (default; the 150 nearest neighbours of x₀),
        ``"hgb"``, or an estimator (see :func:`local_coverage_test` and
        :func:`local_independence_test`). ``"mlp"`` and ``"logistic"`` (one classifier per
        level) serve the local coverage test only; the local independence check is then skipped
        with that reason. The kNN null fits share one neighbour index, so the
        local checks stay fast at the automatic B (see Notes).
    classifier : str
        Classifier of the C2ST check (``"logistic"`` or sbibm's ``"mlp"``).
    seed : int, Generator or None
        Seeds every check; each check draws from its own child stream.
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

    Returns
    -------
    PosteriorReport
        ``checks`` (a table), ``failures(alpha)`` (Holm across checks), ``summary()``,
        ``to_dict()``, ``to_json(path)``, ``to_html(path)``.

    Warns
    -----
    TooFewResamplesWarning
        When a given ``n_resamples`` is too few for some resampling check to reach a
        Holm-adjusted p ≤ 0.05 in this report (the warning names the checks and the B they need),
        or when the memory limit of the null regressions caps the automatic B.

    Notes
    -----
    Multiplicity: a check's overall p-value is the smallest Holm-adjusted p-value over its
    evaluation points (Holm 1979), after Bonferroni over the covariates (local coverage) or the
    K = m(m − 1)/2 pairs (local independence); :meth:`PosteriorReport.failures` adjusts the
    overall p-values once more by Holm across the C checks that ran. A Monte Carlo p-value
    (1 + #{T⁽ᵇ⁾ ≥ T}) / (1 + B) is at least 1/(B + 1), so the smallest adjusted p-value of the
    local coverage check is m·E·C/(B + 1), and it can reject at 0.05 only if
    B + 1 ≥ 20·m·E·C (20·K·E·C for local independence, 20·E·C for L-C2ST-NF).
    ``n_resamples=None`` picks that B per check, at least 100.

    Cost, measured on two shared cores with m = 2: the default report takes about 17 s at
    N = 500 and 28 s at N = 1000, nearly all of it L-C2ST-NF's 419 null classifiers (4 to 6 s at
    B = 100); leave it out with ``checks`` when that matters. The kNN local checks take 0.3 to
    0.5 s at B = 839; ``regressor="hgb"`` needs about 0.2 s per null fit of the local coverage
    test, some 3 minutes at B = 839.

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

    The local coverage test at three evaluation points, with Holm across two checks: B + 1 must
    reach 20 · 2 · 3 · 2 = 240.

    >>> report = validate_posterior(
    ...     model.exact_flow(), theta, x, checks=["global_coverage", "local_coverage"], seed=0)
    >>> report.settings["n_resamples"]
    {'local_coverage': 239}
    >>> report.failures(0.05)
    []
    """
    theta = check_samples(theta, "theta")
    x = check_samples(x, "x")
    check_same_rows([("theta", theta), ("x", x)], what="validate_posterior")
    n_posterior_samples = check_int(n_posterior_samples, "n_posterior_samples", low=2)
    if n_resamples is not None:
        n_resamples = check_int(n_resamples, "n_resamples", low=1)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_bool(progress, "progress")
    regressor = _check_regressor(regressor)
    _select(checks)  # refuse bad names before any check runs
    if reference is not None:
        reference = _check_reference(reference, theta.shape[1], x.shape[1])
    original = flow
    flow = _as_protocol(flow)
    x_eval = default_x_eval(x) if x_eval is None else check_samples(x_eval, "x_eval", min_samples=1)
    has_latent, has_sample = hasattr(flow, "to_latent"), hasattr(flow, "sample")
    no_latent = "the flow has no to_latent(theta, x), so no PIT values"
    no_sample = "the flow has no sample(x, n, seed)"
    pit_values = pit(flow, theta, x) if has_latent else None
    resamples: dict[str, int] = {}  # B per resampling check, planned once the runners are known
    local = {"regressor": regressor, "n_jobs": n_jobs}

    runners: dict[str, Any] = {
        "sbc": (lambda r: sbc(flow, theta, x, n_posterior_samples=n_posterior_samples, seed=r))
        if has_sample
        else no_sample,
        "tarp": (lambda r: tarp(flow, theta, x, n_posterior_samples=n_posterior_samples, seed=r))
        if has_sample
        else no_sample,
    }
    if pit_values is not None:
        runners |= {
            "global_coverage": lambda r: global_coverage_test(pit_values, seed=r),
            "pit_independence": lambda r: pit_independence_test(pit_values),
            "local_coverage": lambda r: _quiet_resolution(
                lambda: local_coverage_test(
                    pit_values, x, x_eval, n_resamples=resamples["local_coverage"], seed=r, **local
                )
            ),
            "local_independence": lambda r: _quiet_resolution(
                lambda: local_independence_test(
                    pit_values,
                    x,
                    x_eval,
                    n_resamples=resamples["local_independence"],
                    seed=r,
                    **local,
                )
            ),
            "lc2st_nf": lambda r: _quiet_resolution(
                lambda: lc2st_nf(
                    flow,
                    theta,
                    x,
                    x_eval,
                    n_resamples=resamples["lc2st_nf"],
                    n_jobs=n_jobs,
                    seed=r,
                )
            ),
        }
    else:
        for name in ("global_coverage", "pit_independence", "local_coverage"):
            runners[name] = no_latent
        runners["local_independence"] = runners["lc2st_nf"] = no_latent
    if pit_values is not None and theta.shape[1] < 2:
        runners["pit_independence"] = runners["local_independence"] = "θ has one parameter"
    elif pit_values is not None and (why := _no_independence_regressor(regressor)):
        runners["local_independence"] = why
    if reference is None:
        runners["c2st"] = "no reference draws were given"
    elif not has_sample:
        runners["c2st"] = no_sample
    else:
        runners["c2st"] = lambda r: _reference_c2st(flow.sample, reference, r, classifier)

    resamples |= _plan_resamples(
        runners,
        checks,
        n_resamples,
        m=theta.shape[1],
        e=x_eval.shape[0],
        limits={"local_coverage": max_null_resamples(*x.shape, level_grid(None).size)},
    )
    settings = {
        "n_posterior_samples": n_posterior_samples,
        "n_resamples": dict(resamples),
        "n_resamples_auto": n_resamples is None,
        "regressor": regressor if isinstance(regressor, str) else type(regressor).__name__,
        "classifier": classifier,
        "n_eval_points": int(x_eval.shape[0]),
        "x_eval": x_eval,
    }
    ref_arrays = [np.asarray(d, dtype=float) for _, d in reference] if reference else []
    with thread_limits(n_jobs=n_jobs):
        report = build_report(
            n=theta.shape[0],
            n_params=theta.shape[1],
            n_features=x.shape[1],
            runners=runners,
            checks=checks,
            seed=seed,
            settings=settings,
            input_hash=_hash(theta, x, x_eval, *ref_arrays),
            progress=progress,
        )
    if compare_with is None:
        return report
    from modelcompare.workflows._compare_posteriors import compare_posteriors

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


def report_from_arrays(
    *,
    pit_values: Any = None,
    x: Any = None,
    x_eval: Any = None,
    ranks: Any = None,
    n_posterior_samples: int | None = None,
    posterior_samples: Any = None,
    theta: Any = None,
    reference: Sequence[tuple[Any, Any]] | None = None,
    posterior_samples_at_reference: Sequence[Any] | None = None,
    checks: Any = "all",
    n_resamples: int | None = None,
    regressor: Any = "knn",
    levels: Any = None,
    statistic: str = "mse",
    eval_correction: str = "holm",
    classifier: str = "logistic",
    seed: SeedLike = None,
    n_jobs: int | None = None,
) -> PosteriorReport:
    """A :class:`PosteriorReport` from precomputed inputs (the command line's ``report``).

    PIT values (with ``x``) feed the PIT checks; SBC ranks (with ``n_posterior_samples``) feed
    SBC; ``posterior_samples``, the posterior's draws of shape (N, S, m) with their ``theta``,
    feed TARP (and SBC when no ranks are given); ``reference`` draws with the posterior's
    ``posterior_samples_at_reference`` at the same observations feed C2ST. L-C2ST-NF needs the flow itself and is skipped.

    ``n_resamples`` and ``regressor`` work as in :func:`validate_posterior`. ``levels`` is the
    credibility grid of the global and local coverage checks (:func:`level_grid`; default 99
    levels), ``statistic`` the local coverage statistic and ``eval_correction`` the local checks'
    correction across evaluation points (see :func:`local_coverage_test`).
    """
    n_jobs = check_n_jobs(n_jobs)
    regressor = _check_regressor(regressor)
    if n_resamples is not None:
        n_resamples = check_int(n_resamples, "n_resamples", low=1)
    grid = level_grid(levels)
    runners: dict[str, Any] = {
        "sbc": "needs SBC ranks (with n_posterior_samples) or posterior draws with theta",
        "tarp": "needs posterior draws with theta",
        "global_coverage": "needs PIT values",
        "pit_independence": "needs PIT values of two or more parameters",
        "local_coverage": "needs PIT values and x",
        "local_independence": "needs PIT values of two or more parameters and x",
        "lc2st_nf": "needs the flow itself, not arrays",
        "c2st": "needs reference draws and the posterior's draws at the same observations",
    }
    sizes = {"n": 0, "n_params": 0, "n_features": 0}
    resamples: dict[str, int] = {}  # B per resampling check, planned once the runners are known
    n_eval = 0
    if pit_values is not None:
        pit_values = check_samples(pit_values, "pit_values")
        sizes.update(n=pit_values.shape[0], n_params=pit_values.shape[1])
        runners["global_coverage"] = lambda r: global_coverage_test(pit_values, levels=grid, seed=r)
        if pit_values.shape[1] >= 2:
            runners["pit_independence"] = lambda r: pit_independence_test(pit_values)
        if x is not None:
            x = check_samples(x, "x")
            check_same_rows([("pit_values", pit_values), ("x", x)], what="the report")
            sizes["n_features"] = x.shape[1]
            x_eval = (
                default_x_eval(x)
                if x_eval is None
                else check_samples(x_eval, "x_eval", min_samples=1)
            )
            n_eval = int(x_eval.shape[0])
            local = {"regressor": regressor, "eval_correction": eval_correction, "n_jobs": n_jobs}
            runners["local_coverage"] = lambda r: _quiet_resolution(
                lambda: local_coverage_test(
                    pit_values,
                    x,
                    x_eval,
                    levels=grid,
                    statistic=statistic,
                    n_resamples=resamples["local_coverage"],
                    seed=r,
                    **local,
                )
            )
            if pit_values.shape[1] >= 2:
                runners["local_independence"] = lambda r: _quiet_resolution(
                    lambda: local_independence_test(
                        pit_values,
                        x,
                        x_eval,
                        n_resamples=resamples["local_independence"],
                        seed=r,
                        **local,
                    )
                )
                if why := _no_independence_regressor(regressor):
                    runners["local_independence"] = why
    draws = None if posterior_samples is None else np.asarray(posterior_samples, dtype=float)
    if draws is not None:
        if draws.ndim != 3:
            msg = f"`posterior_samples` must have shape (N, S, m); got {draws.shape}."
            raise ValueError(msg)
        theta = check_samples(theta, "theta")
        stand_in = _Draws(draws)
        s = draws.shape[1]
        dummy_x = np.zeros((draws.shape[0], 1))
        runners["tarp"] = lambda r: tarp(stand_in, theta, dummy_x, n_posterior_samples=s, seed=r)
        if ranks is None:
            ranks = (draws < theta[:, None, :]).sum(axis=1)
            n_posterior_samples = s
        sizes.update(n=sizes["n"] or draws.shape[0], n_params=draws.shape[2])
    if ranks is not None:
        if n_posterior_samples is None:
            msg = "`n_posterior_samples` is needed with `ranks` (ranks lie in 0..S)."
            raise ValueError(msg)
        runners["sbc"] = lambda r: sbc_test(ranks, n_posterior_samples, seed=r)
    if reference is not None:
        at_reference = posterior_samples_at_reference
        if at_reference is None or len(at_reference) != len(reference):
            msg = (
                "`posterior_samples_at_reference` must give the posterior's draws at every "
                "reference observation."
            )
            raise ValueError(msg)
        samples = [np.asarray(s, dtype=float) for s in at_reference]
        lookup = dict(enumerate(samples))
        calls = iter(range(len(samples)))

        def sample(x_o: Any, n_draws: int, seed: Any) -> np.ndarray:
            return lookup[next(calls)][:n_draws]

        runners["c2st"] = lambda r: _reference_c2st(sample, reference, r, classifier)
    resamples |= _plan_resamples(
        runners,
        checks,
        n_resamples,
        m=sizes["n_params"],
        e=n_eval,
        limits={"local_coverage": max_null_resamples(sizes["n"], sizes["n_features"], grid.size)},
    )
    settings: dict[str, Any] = {
        "n_resamples": dict(resamples),
        "n_resamples_auto": n_resamples is None,
        "regressor": regressor if isinstance(regressor, str) else type(regressor).__name__,
        "n_levels": int(grid.size),
        "statistic": statistic,
        "eval_correction": eval_correction,
        "classifier": classifier,
        "from": "arrays",
    }
    if n_eval:
        settings.update(n_eval_points=n_eval, x_eval=x_eval)
    arrays = [pit_values, x, x_eval, ranks, draws, theta]
    with thread_limits(n_jobs=n_jobs):  # one scan of the thread pools for all the null fits
        return build_report(
            **sizes,
            runners=runners,
            checks=checks,
            seed=seed,
            settings=settings,
            input_hash=_hash(*[a for a in arrays if a is not None]),
        )
