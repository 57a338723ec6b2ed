"""The one builder of the posterior report: run the registered checks on one inputs object."""

from __future__ import annotations

import dataclasses
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.task_seeds import task_seed
from modelcompare.workflows._checks import Check, ReportInputs, select
from modelcompare.workflows._checks._figures import check_parameter_names
from modelcompare.workflows._planning import (
    AUTO_ALPHA,
    check_floors,
    correction_factors,
    first_stages,
    plan_resamples,
    pvalue_floors,
    stage_decides,
)
from modelcompare.workflows._report import CheckOutcome, PosteriorValidationResult

__all__ = ["build_report", "check_stream"]


def check_stream(base: int, name: str) -> np.random.Generator:
    """The random stream of the check called ``name`` under the report's base seed ``base``.

    Keyed by the name (a SHA-256 ``spawn_key`` of a :class:`numpy.random.SeedSequence`), not by
    the check's position, so that adding, removing or reordering checks leaves every other
    check's seeded result unchanged.

    Examples
    --------
    >>> a, b = check_stream(0, "sbc"), check_stream(0, "sbc")
    >>> bool(a.integers(2**32) == b.integers(2**32))
    True
    """
    return np.random.default_rng(task_seed(base, f"report check {name}"))


def build_report(
    inputs: ReportInputs,
    *,
    checks: Any = "all",
    n_resamples: int | None = None,
    alpha: float = AUTO_ALPHA,
    seed: SeedLike = None,
    settings: dict[str, Any] | None = None,
    input_hash: str = "",
    progress: bool = False,
    registry: Sequence[Check] | None = None,
) -> PosteriorValidationResult:
    """Run the selected checks of ``registry`` on ``inputs``; one :class:`PosteriorValidationResult`.

    Each check is skipped with its reason when ``inputs`` miss one of its needs; the resampling
    checks that run get the B :func:`plan_resamples` chooses at level ``alpha``
    (``settings["n_resamples"]``, with the smallest adjusted p-value each can then reach in
    ``settings["pvalue_floors"]``); then each check runs on its own stream, keyed by its name
    (:func:`check_stream`).

    Every warning raised meanwhile is recorded in the report (``report.warnings``, listed by its
    summary and HTML page) and raised again to the caller, with its category and origin.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = _build(
            inputs, checks, n_resamples, alpha, seed, settings, input_hash, progress, registry
        )
    # once each: a warning repeated by every null fit is one warning to the caller
    seen: dict[tuple[Any, ...], Any] = {}
    for w in caught:
        seen.setdefault((w.category, str(w.message), w.filename, w.lineno), w)
    for w in seen.values():
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    recorded = tuple(dict.fromkeys((w.category.__name__, str(w.message)) for w in caught))
    return dataclasses.replace(report, warnings=recorded)


def _build(
    inputs: ReportInputs,
    checks: Any,
    n_resamples: int | None,
    alpha: float,
    seed: SeedLike,
    settings: dict[str, Any] | None,
    input_hash: str,
    progress: bool,
    registry: Sequence[Check] | None,
) -> PosteriorValidationResult:
    selected = select(checks, registry)
    reasons = {c.name: c.skip_reason(inputs) for c in selected}
    running = [c for c in selected if reasons[c.name] is None]
    limits = {c.name: c.resample_limit(inputs) for c in running if c.resample_limit is not None}
    m, e = inputs.n_params, 0 if inputs.x_eval is None else int(inputs.x_eval.shape[0])
    resamples = plan_resamples(
        running,
        n_resamples,
        m=m,
        e=e,
        limits=limits,
        alpha=alpha,
        stacklevel=5,  # the caller of the front door that called this builder
    )
    # the two-stage plan: a first stage of a few hundred resamples for every check whose
    # planned B is larger, the planned B only where the first stage leaves the decision open
    stages = first_stages(resamples) if n_resamples is None else {}
    inputs = inputs.with_resamples(resamples)
    ran_with: dict[str, int] = {}
    check_seeds: dict[str, int] = {}
    rng, seed_used = check_seed(seed)
    base = seed_used if seed_used is not None else int(rng.integers(2**63))
    from tqdm.auto import tqdm

    outcomes = []
    for check in tqdm(selected, desc="checks", disable=not progress, leave=False):
        reason = reasons[check.name]
        if reason is not None:
            outcomes.append(
                CheckOutcome(check.name, check.tests, None, reason, 0.0, check.score, check.family)
            )
            continue
        started = time.perf_counter()
        result, stage = _run_staged(check, inputs, base, stages.get(check.name), alpha, m, e)
        elapsed = time.perf_counter() - started
        check_seeds[check.name] = task_seed(base, _stream_key(check.name, stage))
        if check.name in resamples:
            ran_with[check.name] = int(getattr(result, "n_resamples", resamples[check.name]))
        outcomes.append(
            CheckOutcome(check.name, check.tests, result, None, elapsed, check.score, check.family)
        )
    settings = dict(settings or {})
    settings["n_resamples"] = ran_with
    settings["n_resamples_planned"] = dict(resamples)
    settings["check_seeds"] = check_seeds
    settings["alpha"] = alpha
    settings["pvalue_floors"] = pvalue_floors(running, resamples, m=m, e=e)
    settings["check_floors"] = check_floors(running, ran_with, m=m, e=e)
    settings["parameter_names"] = list(
        check_parameter_names(settings.get("parameter_names"), inputs.n_params)
    )
    return PosteriorValidationResult(
        outcomes=tuple(outcomes),
        n=inputs.n,
        n_params=inputs.n_params,
        n_features=inputs.n_features,
        seed_used=seed_used,
        settings=settings,
        versions=_versions(),
        input_hash=input_hash,
        pit_values=inputs.pit_values,
    )


def _stream_key(name: str, stage: int) -> str:
    """The key of a check's random stream: its name, and the stage of a two-stage plan."""
    return f"report check {name}" if stage == 1 else f"report check {name} stage {stage}"


def _run_staged(
    check: Check,
    inputs: ReportInputs,
    base: int,
    first: int | None,
    alpha: float,
    m: int,
    e: int,
) -> tuple[Any, int]:
    """Run ``check``; with a first stage of ``first`` resamples, the planned B only if needed.

    The second stage draws afresh, on a stream of its own, and its p-value replaces the first
    stage's. Reporting p₂ only when the first stage leaves the decision open keeps the p-value
    valid: for u below the first stage's cut c, {p ≤ u} ⊂ {p₂ ≤ u}; for u ≥ c,
    {p ≤ u} ⊂ {p₁ ≤ u}.
    """
    if first is None:
        return check.run(inputs, check_stream(base, check.name)), 1
    staged = inputs.with_resamples({**inputs.n_resamples, check.name: first})
    result = check.run(staged, check_stream(base, check.name))
    tests = int(np.prod(correction_factors(check, m, e, 1)))
    if stage_decides(float(result.pvalue), tests, first, alpha):
        return result, 1
    stream = np.random.default_rng(task_seed(base, _stream_key(check.name, 2)))
    return check.run(inputs, stream), 2


def _versions() -> dict[str, str]:
    """The versions of the library and its numerical dependencies, read from the modules.

    ``__version__`` works without an installed distribution (a source tree on ``PYTHONPATH``);
    the distribution's metadata is the fallback for a module without one.
    """
    import sys
    from importlib import metadata

    from modelcompare._foundation.version import __version__

    out = {"modelcompare": __version__}
    for name in ("numpy", "scipy", "scikit-learn", "torch"):
        module = {"scikit-learn": "sklearn"}.get(name, name)
        if name == "torch" and "torch" not in sys.modules:
            continue
        version = getattr(sys.modules.get(module), "__version__", None)
        if version is None:
            try:
                version = metadata.version(name)
            except metadata.PackageNotFoundError:  # pragma: no cover - neither module nor dist
                version = "?"
        out[name] = str(version)
    return out
