"""The posterior validation report: a table of checks, a verdict, and a self-contained HTML page.

The page comes from a packaged template (:mod:`modelcompare.workflows._report_page`).
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from modelcompare._foundation.errors import TooFewResamplesWarning
from modelcompare._foundation.pvalues import holm_adjust
from modelcompare._foundation.results import Result, check_alpha, result_class, to_builtin
from modelcompare._foundation.validation import check_bool, check_output_path
from modelcompare.workflows._checks._figures import observation_label
from modelcompare.workflows._report_text import comparison_sentence, nan_to_none

__all__ = ["CheckOutcome", "PosteriorValidationResult"]


@result_class
class CheckOutcome(Result):
    """One check of a :class:`PosteriorValidationResult`: its result, or the reason it was skipped.

    ``score`` marks a score rather than a test: it is shown, but never enters
    :meth:`PosteriorValidationResult.failures`, the verdict or the correction across checks. ``family``
    is ``"posterior"`` (Holm across the posterior's checks) or ``"simulator"`` (a family of its
    own: whether the observed data are typical of the simulator).
    """

    name: str
    tests: str
    result: Any
    skipped: str | None
    runtime_s: float
    score: bool = False
    family: str = "posterior"

    @property
    def statistic(self) -> float:
        return math.nan if self.result is None else float(self.result.statistic)

    @property
    def pvalue(self) -> float:
        return math.nan if self.result is None else float(self.result.pvalue)


@result_class
class PosteriorValidationResult(Result):
    """The checks of a posterior estimator, with one verdict (the report protocol).

    Attributes
    ----------
    outcomes : tuple of CheckOutcome
        One per check, in the order they ran; skipped checks say why.
    n : int
        Calibration pairs.
    n_params, n_features : int
        Widths of θ and x.
    seed_used : int or None
        The seed every random choice derives from (``None`` for a Generator).
    settings : dict
        The options the checks ran with; ``settings["n_resamples"]`` maps each resampling check
        to the B it ran with.
    versions : dict
        Library versions.
    input_hash : str
        SHA-256 of the inputs (θ, x, evaluation points and reference draws).
    comparison : object or None
        The :func:`compare_posteriors` result of ``compare_with``.
    warnings : tuple of (str, str)
        (category, message) of every warning raised while the report was built; they are also
        raised to the caller, and listed by :meth:`summary` and the HTML page.
    pit_values : numpy.ndarray or None
        The PIT values the checks read, for the dependence findings (:attr:`findings`).

    Notes
    -----
    :meth:`failures` corrects across checks with Holm's method: each check's overall p-value
    (itself Holm-corrected across its parameters or evaluation points) is adjusted over the checks
    that ran (:attr:`pvalues_adjusted`), so that the family-wise error rate of the whole report is
    at most ``alpha``. A resampling check with B null resamples can reach an adjusted p-value no
    smaller than its number of corrected tests times the number of checks, over B + 1.
    """

    outcomes: tuple[CheckOutcome, ...]
    n: int
    n_params: int
    n_features: int
    seed_used: int | None
    settings: dict[str, Any]
    versions: dict[str, str]
    input_hash: str
    comparison: Any = None
    warnings: tuple[tuple[str, str], ...] = ()
    pit_values: Any = None

    _repr_fields = ("n", "n_params", "seed_used")

    @property
    def results(self) -> dict[str, Any]:
        """The library result of every check that ran, by name."""
        return {o.name: o.result for o in self.outcomes if o.result is not None}

    @property
    def pvalues_adjusted(self) -> dict[str, float]:
        """The overall p-value of every test that ran, Holm-adjusted across the posterior's tests.

        A check of the simulator's family keeps its own p-value (already Holm-adjusted across
        the observations): it is outside the posterior's correction.
        """
        adjusted = {name: float(p) for name, p in zip(self._ran(), self._adjusted())}
        return {o.name: o.pvalue for o in self._simulator()} | adjusted

    @property
    def pvalues_bound(self) -> dict[str, bool]:
        """Whether each check's own p-value (:attr:`CheckOutcome.pvalue`) is only a bound.

        A Monte Carlo p-value at its floor, (tests per point)·E/(B + 1) after the check's own
        corrections (``settings["check_floors"]``), says only p ≤ floor: more resamples could
        show a smaller one.
        """
        from modelcompare.workflows._evidence import at_floor

        floors = self.settings.get("check_floors") or {}
        return {
            o.name: at_floor(o.pvalue, floors.get(o.name))
            for o in self.outcomes
            if o.result is not None
        }

    @property
    def pvalues_adjusted_bound(self) -> dict[str, bool]:
        """Whether each value of :attr:`pvalues_adjusted` is only a bound ("p ≤ …").

        Holm's adjusted value is a bound when the term its running maximum takes came from a
        p-value at its floor (:attr:`pvalues_bound`).
        """
        from modelcompare.workflows._evidence import bound_flags

        own = self.pvalues_bound
        ran = self._ran()
        flags = bound_flags(
            np.array([o.pvalue for o in self.outcomes if o.name in set(ran)]),
            np.array([own[name] for name in ran], dtype=bool),
        )
        return {o.name: own[o.name] for o in self._simulator()} | dict(zip(ran, map(bool, flags)))

    @property
    def effect_sizes(self) -> dict[str, float]:
        """How far each resampling check's statistic lies beyond its null, in null SDs.

        The largest (T − mean T⁽ᵇ⁾)/sd T⁽ᵇ⁾ over the check's tests and evaluation points, read
        off the null draws the check computed (:func:`effect_size`); NaN for a check without
        null draws, whose p-value is exact and has no floor. Two p-values at the same floor
        say "p ≤ floor" alike; the effect size tells a gross failure from a borderline one.
        """
        from modelcompare.workflows._evidence import effect_size

        return {o.name: effect_size(o.result) for o in self.outcomes if o.result is not None}

    @property
    def scores(self) -> Any:
        """The per-parameter scores (pandas DataFrame), or None when no score was computed."""
        result = self.results.get("scores")
        return None if result is None else result.table

    @property
    def checks(self) -> Any:
        """A table (pandas DataFrame), one row per check.

        Columns ``name, statistic, pvalue, pvalue_adjusted`` (Holm across the checks),
        ``pvalue_bound`` (the adjusted p-value is a bound, p ≤ …: see
        :attr:`pvalues_adjusted_bound`), ``effect_size`` (in null SDs: :attr:`effect_sizes`),
        ``tests`` and ``skipped``.
        """
        import pandas as pd

        adjusted, bound = self.pvalues_adjusted, self.pvalues_adjusted_bound
        effects = self.effect_sizes
        rows = [
            {
                "name": o.name,
                "statistic": o.statistic,
                "pvalue": o.pvalue,
                "pvalue_adjusted": adjusted.get(o.name, math.nan),
                "pvalue_bound": bound.get(o.name, False),
                "effect_size": effects.get(o.name, math.nan),
                "tests": o.tests,
                "skipped": o.skipped,
            }
            for o in self.outcomes
        ]
        table = pd.DataFrame(rows)
        # object dtype keeps None for the checks that ran (a string column would show NaN)
        table["skipped"] = pd.Series([o.skipped for o in self.outcomes], dtype=object)
        return table

    def _ran(self) -> list[str]:
        """The posterior's tests that ran (the scores aside): the family of the correction."""
        return [
            o.name
            for o in self.outcomes
            if o.result is not None and not o.score and o.family == "posterior"
        ]

    def _simulator(self) -> list[CheckOutcome]:
        """The simulator's tests that ran (misspecification): a family of their own."""
        return [o for o in self.outcomes if o.result is not None and o.family == "simulator"]

    def _warn_floors(self, alpha: float) -> None:
        """Warn when ``alpha`` is below the level B was planned for and a check cannot reach it."""
        planned = self.settings.get("alpha", alpha)
        floors = self.settings.get("pvalue_floors") or {}
        short = {name: f for name, f in floors.items() if f > alpha and alpha < planned}
        if short:
            listed = ", ".join(f"{name} (smallest p {f:.3g})" for name, f in short.items())
            warnings.warn(
                f"alpha = {alpha:g} is below the level B was planned for ({planned:g}): "
                f"{listed} cannot reject at {alpha:g} after the corrections. Plan for it with "
                f"validate_posterior(..., alpha={alpha:g}).",
                TooFewResamplesWarning,
                stacklevel=3,
            )

    def _adjusted(self) -> np.ndarray:
        ran = set(self._ran())
        return holm_adjust(np.array([o.pvalue for o in self.outcomes if o.name in ran]))

    @property
    def parameter_names(self) -> tuple[str, ...]:
        """The names of θ's coordinates (``settings["parameter_names"]``; θ₁ … θₘ by default)."""
        from modelcompare.workflows._checks._figures import default_parameter_names

        names = self.settings.get("parameter_names")
        return tuple(names) if names else default_parameter_names(self.n_params)

    @property
    def alpha(self) -> float:
        """The report's level (``settings["alpha"]``; 0.05 by default)."""
        return float(self.settings.get("alpha") or 0.05)

    @property
    def findings(self) -> Any:
        """What is wrong, at the report's level: a table (see :meth:`findings_at`)."""
        return self.findings_at(self.alpha)

    def findings_at(self, alpha: float | None = None) -> Any:
        """The findings at level ``alpha``: what is wrong and where (a pandas DataFrame).

        Columns ``check, kind, parameter, where, direction, size, evidence``, as in
        :func:`~modelcompare.posterior.calibration_findings`, run at ``alpha`` on the SBC ranks
        (shift, too_wide, too_narrow) and the PIT values (dependence), plus one row of kind
        ``"local"`` per local check naming the evaluation points where it rejects. A finding is
        listed only where the check behind it rejects at ``alpha`` after Holm's correction
        across the checks (:meth:`failures`): the findings never contradict the table.
        """
        from modelcompare.workflows._findings import report_findings

        return report_findings(self, self._level(alpha)).table

    def _level(self, alpha: float | None) -> float:
        """``alpha``, checked, or the report's own level (:attr:`alpha`) when None."""
        return self.alpha if alpha is None else check_alpha(alpha)

    def failures(self, alpha: float | None = None) -> list[str]:
        """The checks that reject at ``alpha`` after Holm's correction across the checks.

        ``alpha=None`` (default) reads the report's own level (:attr:`alpha`, the level B was
        planned for).

        A check of the simulator's family (``misspecification``) is listed first when it rejects
        at ``alpha`` by its own p-value: it is outside the posterior checks' correction. Warns
        (:class:`TooFewResamplesWarning`, naming the checks) when ``alpha`` is below the level
        the report planned B for and some check's smallest attainable p-value exceeds it.
        """
        alpha = self._level(alpha)
        self._warn_floors(alpha)
        simulator = [o.name for o in self._simulator() if o.pvalue <= alpha]
        return simulator + [name for name, p in zip(self._ran(), self._adjusted()) if p <= alpha]

    def summary(self, alpha: float | None = None) -> str:
        """A short plain-language verdict at level ``alpha``, with the findings and warnings.

        ``alpha=None`` (default) reads the report's own level (:attr:`alpha`); another level
        is stated as such in the verdict.

        When some check rejects, the findings (:meth:`findings_at`) follow with a next step per
        kind; every warning raised while the report was built is listed last.
        """
        return self._verdict(self._level(alpha), details=True)

    def _verdict(self, alpha: float, *, details: bool) -> str:
        """The verdict; with ``details``, the findings and warnings too (the HTML shows those
        in sections of their own)."""
        ran = self._ran()
        failed = [name for name in self.failures(alpha) if name in ran]
        skipped = [o.name for o in self.outcomes if o.result is None]
        scored = [o.name for o in self.outcomes if o.result is not None and o.score]
        if not ran and not self._simulator():
            verdict = "No test ran; scores only." if scored else "No check could run."
        elif not ran:
            verdict = "No posterior check ran."
        elif failed:
            listed = ", ".join(self.evidence(name) for name in failed)
            verdict = (
                f"Do not trust this posterior yet: {len(failed)} of {len(ran)} checks reject "
                f"calibration at alpha = {alpha:g} (Holm across checks): {listed}."
            )
        else:
            verdict = (
                f"No evidence against this posterior: none of {len(ran)} checks rejects at "
                f"alpha = {alpha:g} (Holm across checks). Absence of evidence is not proof: "
                "more calibration pairs give more power."
            )
        if failed and details:
            from modelcompare.workflows._findings import findings_paragraph

            verdict += " " + findings_paragraph(self, alpha)
        elif failed:
            verdict += " What is wrong, and what to do: see the findings below."
        verdict = _simulator_sentence(self._simulator(), alpha) + verdict
        if not math.isclose(alpha, self.alpha):
            verdict = (
                f"Read at alpha = {alpha:g}, not at the level the report was planned for "
                f"({self.alpha:g}). " + verdict
            )
        if skipped:
            verdict += " " + self.not_run() + "."
        if self.comparison is not None:
            verdict += " " + comparison_sentence(self.comparison, alpha)
        if self.warnings and details:
            listed = "; ".join(f"{category}: {message}" for category, message in self.warnings)
            verdict += f" Warnings while building the report: {listed}"
        elif self.warnings:
            verdict += f" {len(self.warnings)} warning(s) while building the report: see below."
        return verdict

    def _result_dict(self, outcome: CheckOutcome, include_arrays: bool) -> dict[str, Any]:
        """A check's result as JSON, its ``seed_used`` the seed of the check's own stream."""
        out = to_builtin(outcome.result, include_arrays=include_arrays)
        seed = (self.settings.get("check_seeds") or {}).get(outcome.name)
        if isinstance(out, dict) and out.get("seed_used") is None and seed is not None:
            out["seed_used"] = seed
        return out

    def evidence(self, name: str) -> str:
        """The check ``name`` with its p-value (Holm across checks) and, where it has one, its
        effect size: ``"lc2st_nf (p ≤ 0.0312, the floor of its resamples; 9.1 null SDs)"``."""
        from modelcompare.workflows._evidence import format_p

        p = self.pvalues_adjusted.get(name, math.nan)
        bound = self.pvalues_adjusted_bound.get(name, False)
        text = format_p(p, bound) + (", the floor of its resamples" if bound else "")
        effect = self.effect_sizes.get(name, math.nan)
        if math.isfinite(effect):
            text += f"; statistic {effect:.3g} null SDs beyond its null"
        return f"{name} ({text})"

    def not_run(self) -> str:
        """One line: the checks that did not run, grouped by the input that would run them."""
        reasons: dict[str, list[str]] = {}
        for o in self.outcomes:
            if o.result is None:
                reasons.setdefault(o.skipped or "not selected", []).append(o.name)
        if not reasons:
            return ""
        return "Not run: " + "; ".join(
            f"{', '.join(names)} ({reason})" for reason, names in reasons.items()
        )

    def to_dict(self, *, include_arrays: bool = True, alpha: float | None = None) -> dict[str, Any]:
        """The report as JSON-safe Python objects: the table, each result, and the footer.

        ``failures``, ``summary`` and ``findings`` are read at ``alpha`` (default: the report's
        own level, :attr:`alpha`), which is stored as ``"alpha"``.
        """
        include_arrays = check_bool(include_arrays, "include_arrays")
        alpha = self._level(alpha)
        adjusted, bound = self.pvalues_adjusted, self.pvalues_adjusted_bound
        own, effects = self.pvalues_bound, self.effect_sizes
        return {
            "checks": [
                {
                    "name": o.name,
                    "tests": o.tests,
                    "statistic": o.statistic,
                    "pvalue": o.pvalue,
                    "pvalue_is_bound": own.get(o.name, False),
                    "pvalue_adjusted": adjusted.get(o.name, math.nan),
                    "pvalue_adjusted_is_bound": bound.get(o.name, False),
                    "effect_size": effects.get(o.name, math.nan),
                    "skipped": o.skipped,
                    "score": o.score,
                    "family": o.family,
                    "runtime_s": o.runtime_s,
                    "result": None if o.result is None else self._result_dict(o, include_arrays),
                }
                for o in self.outcomes
            ],
            "alpha": alpha,
            "planned_alpha": self.alpha,
            "failures": self.failures(alpha),
            "summary": self.summary(alpha),
            "n": self.n,
            "n_params": self.n_params,
            "n_features": self.n_features,
            "seed_used": self.seed_used,
            "settings": to_builtin(self.settings),
            "versions": dict(self.versions),
            "input_hash": self.input_hash,
            "comparison": None
            if self.comparison is None
            else to_builtin(self.comparison, include_arrays=include_arrays),
            "warnings": [{"category": c, "message": m} for c, m in self.warnings],
            "findings": to_builtin(self.findings_at(alpha).to_dict("records")),
        }

    def to_json(self, path: str | Path, *, include_arrays: bool = False) -> Path:
        """Write :meth:`to_dict` as JSON (NaN and inf as ``null``); return the path."""
        path = check_output_path(path, "path")
        include_arrays = check_bool(include_arrays, "include_arrays")
        text = json.dumps(
            nan_to_none(self.to_dict(include_arrays=include_arrays)), indent=1, ensure_ascii=False
        )
        path.write_text(text + "\n", encoding="utf-8")
        return path

    def to_html(self, path: str | Path, *, alpha: float | None = None) -> Path:
        """Write one self-contained HTML page (figures inline, no network resources).

        ``alpha`` defaults to the report's own level (:attr:`alpha`); another level is stated
        on the page. The page comes from a template packaged with the library; rendering it
        needs Jinja2 (the ``html`` extra), and raises ``MissingDependencyError`` without it.
        """
        from modelcompare.workflows._report_page import render_html

        path = check_output_path(path, "path")
        path.write_text(render_html(self, alpha=self._level(alpha)), encoding="utf-8")
        return path


def _simulator_sentence(outcomes: list[CheckOutcome], alpha: float) -> str:
    """The sentence that opens the verdict when an observation is atypical of the simulator."""
    flagged = [
        observation_label(o.result.x_obs[i], i)
        for o in outcomes
        for i in o.result.flagged_at(alpha)
    ]
    if not flagged:
        return ""
    return (
        f"The simulator rarely produces data like {'; '.join(flagged)} (misspecification, "
        f"alpha = {alpha:g}, Holm across observations): the posterior checks say nothing there. "
    )
