"""``validate_posterior``: every calibration check of a posterior estimator in one call."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.threads import thread_limits
from modelcompare._foundation.validation import (
    as_numpy,
    check_bool,
    check_int,
    check_n_jobs,
    check_nonempty,
    check_same_rows,
    check_samples,
)
from modelcompare.posterior import (
    global_coverage_test,
    lc2st_nf,
    local_coverage_test,
    local_independence_test,
    pit,
    pit_independence_test,
    sbc,
    sbc_test,
    tarp,
)
from modelcompare.posterior._adapters import adapt_flow
from modelcompare.twosample import c2st
from modelcompare.workflows._report import ABOUT, CheckOutcome, PosteriorReport, holm

__all__ = ["CHECKS", "ReferenceC2STResult", "build_report", "default_x_eval", "validate_posterior"]

CHECKS = tuple(ABOUT)


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
    adjusted = holm(pvalues)
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
    n_resamples: int = 100,
    regressor: Any = "hgb",
    classifier: str = "logistic",
    seed: SeedLike = None,
    n_jobs: int | None = None,
    progress: bool = False,
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
    n_resamples : int
        Null resamples of the local checks and L-C2ST-NF.
    regressor : str or estimator
        Regressor of the local checks (``"hgb"``, ``"knn"``, ...; see
        :func:`local_coverage_test`).
    classifier : str
        Classifier of the C2ST check (``"logistic"`` or sbibm's ``"mlp"``).
    seed : int, Generator or None
        Seeds every check; each check draws from its own child stream.
    n_jobs : int or None
        joblib workers for the null fits.
    progress : bool
        Show a progress bar over the checks on stderr.

    Returns
    -------
    PosteriorReport
        ``checks`` (a table), ``failures(alpha)`` (Holm across checks), ``summary()``,
        ``to_dict()``, ``to_json(path)``, ``to_html(path)``.

    Notes
    -----
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
    """
    theta = check_samples(theta, "theta")
    x = check_samples(x, "x")
    check_same_rows([("theta", theta), ("x", x)], what="validate_posterior")
    n_posterior_samples = check_int(n_posterior_samples, "n_posterior_samples", low=2)
    n_resamples = check_int(n_resamples, "n_resamples", low=1)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_bool(progress, "progress")
    _select(checks)  # refuse bad names before any check runs
    if reference is not None:
        reference = _check_reference(reference, theta.shape[1], x.shape[1])
    flow = flow if hasattr(flow, "to_latent") or hasattr(flow, "sample") else adapt_flow(flow)
    x_eval = default_x_eval(x) if x_eval is None else check_samples(x_eval, "x_eval", min_samples=1)
    has_latent, has_sample = hasattr(flow, "to_latent"), hasattr(flow, "sample")
    no_latent = "the flow has no to_latent(theta, x), so no PIT values"
    no_sample = "the flow has no sample(x, n, seed)"
    pit_values = pit(flow, theta, x) if has_latent else None
    local = {"regressor": regressor, "n_resamples": n_resamples, "n_jobs": n_jobs}

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
            "local_coverage": lambda r: local_coverage_test(pit_values, x, x_eval, seed=r, **local),
            "local_independence": lambda r: local_independence_test(
                pit_values, x, x_eval, seed=r, **local
            ),
            "lc2st_nf": lambda r: lc2st_nf(
                flow, theta, x, x_eval, n_resamples=n_resamples, n_jobs=n_jobs, seed=r
            ),
        }
    else:
        for name in ("global_coverage", "pit_independence", "local_coverage"):
            runners[name] = no_latent
        runners["local_independence"] = runners["lc2st_nf"] = no_latent
    if pit_values is not None and theta.shape[1] < 2:
        runners["pit_independence"] = runners["local_independence"] = "θ has one parameter"
    if reference is None:
        runners["c2st"] = "no reference draws were given"
    elif not has_sample:
        runners["c2st"] = no_sample
    else:
        runners["c2st"] = lambda r: _reference_c2st(flow.sample, reference, r, classifier)

    settings = {
        "n_posterior_samples": n_posterior_samples,
        "n_resamples": n_resamples,
        "regressor": regressor if isinstance(regressor, str) else type(regressor).__name__,
        "classifier": classifier,
        "n_eval_points": int(x_eval.shape[0]),
        "x_eval": x_eval,
    }
    ref_arrays = [np.asarray(d, dtype=float) for _, d in reference] if reference else []
    with thread_limits(n_jobs=n_jobs):
        return build_report(
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


def report_from_arrays(
    *,
    pit_values: Any = None,
    x: Any = None,
    x_eval: Any = None,
    ranks: Any = None,
    n_posterior_samples: int | None = None,
    draws: Any = None,
    theta: Any = None,
    reference: Sequence[tuple[Any, Any]] | None = None,
    reference_samples: Sequence[Any] | None = None,
    checks: Any = "all",
    n_resamples: int = 100,
    regressor: Any = "hgb",
    classifier: str = "logistic",
    seed: SeedLike = None,
    n_jobs: int | None = None,
) -> PosteriorReport:
    """A :class:`PosteriorReport` from precomputed inputs (the command line's ``report``).

    PIT values (with ``x``) feed the PIT checks; SBC ranks (with ``n_posterior_samples``) feed
    SBC; posterior draws of shape (N, S, m) with their ``theta`` feed TARP (and SBC when no ranks
    are given); ``reference`` draws with the posterior's ``reference_samples`` at the same
    observations feed C2ST. L-C2ST-NF needs the flow itself and is skipped.
    """
    n_jobs = check_n_jobs(n_jobs)
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
    if pit_values is not None:
        pit_values = check_samples(pit_values, "pit_values")
        sizes.update(n=pit_values.shape[0], n_params=pit_values.shape[1])
        runners["global_coverage"] = lambda r: global_coverage_test(pit_values, seed=r)
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
            local = {"regressor": regressor, "n_resamples": n_resamples, "n_jobs": n_jobs}
            runners["local_coverage"] = lambda r: local_coverage_test(
                pit_values, x, x_eval, seed=r, **local
            )
            if pit_values.shape[1] >= 2:
                runners["local_independence"] = lambda r: local_independence_test(
                    pit_values, x, x_eval, seed=r, **local
                )
    if draws is not None:
        draws = np.asarray(draws, dtype=float)
        if draws.ndim != 3:
            msg = f"`draws` must have shape (N, S, m); got {draws.shape}."
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
        if reference_samples is None or len(reference_samples) != len(reference):
            msg = "`reference_samples` must give the posterior's draws at every reference observation."
            raise ValueError(msg)
        samples = [np.asarray(s, dtype=float) for s in reference_samples]
        lookup = dict(enumerate(samples))
        calls = iter(range(len(samples)))

        def sample(x_o: Any, n_draws: int, seed: Any) -> np.ndarray:
            return lookup[next(calls)][:n_draws]

        runners["c2st"] = lambda r: _reference_c2st(sample, reference, r, classifier)
    arrays = [pit_values, x, x_eval, ranks, draws, theta]
    return build_report(
        **sizes,
        runners=runners,
        checks=checks,
        seed=seed,
        settings={"n_resamples": n_resamples, "classifier": classifier, "from": "arrays"},
        input_hash=_hash(*[a for a in arrays if a is not None]),
    )
