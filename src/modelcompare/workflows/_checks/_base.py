"""What a check of the posterior report is, and the one inputs object every check reads."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from modelcompare._foundation.errors import TooFewResamplesWarning

__all__ = [
    "FAMILIES",
    "FINDING_COLUMNS",
    "NEEDS",
    "Check",
    "CheckFindings",
    "FindingsContext",
    "ReportInputs",
    "quiet_resolution",
]

#: What a check can need from the inputs of a report. A front door that cannot supply one names
#: why in :attr:`ReportInputs.missing`, and the checks needing it are skipped with that reason.
NEEDS = {
    "pit": "PIT values of the calibration pairs (from the flow's to_latent, or given)",
    "x": "the calibration x's, for the checks local in x",
    "two_parameters": "θ with two parameters or more",
    "ranks": "SBC ranks, given or from posterior draws at the calibration x's",
    "draws": "posterior draws at the calibration x's",
    "latent": "the flow itself, with to_latent(theta, x)",
    "reference": "reference draws with the posterior's draws at the same observations",
    "log_prob": "the flow itself, with log_prob(theta, x) and sample(x, n, seed)",
    "x_obs": "observed data sets x_obs, with the calibration x's as the simulator's data",
}

#: The families of tests a report corrects separately: the posterior estimator's checks, and the
#: simulator's (whether the observed data are typical of the simulator), whose null concerns the
#: simulator, not the estimator.
FAMILIES = ("posterior", "simulator")


@dataclass(frozen=True, eq=False)
class ReportInputs:
    """Everything the checks of one report read; each check takes what its ``needs`` name.

    Attributes
    ----------
    n, n_params, n_features : int
        Calibration pairs and the widths of θ and x (0 where unknown).
    pit_values : numpy.ndarray or None
        PIT values, shape (N, m).
    x, x_eval : numpy.ndarray or None
        Calibration x's (N, d) and evaluation points (E, d) of the local checks.
    x_obs : numpy.ndarray or None
        The observed data sets (one per row) of the misspecification check.
    theta : numpy.ndarray or None
        Calibration parameters (N, m).
    flow : object or None
        The flow, with ``to_latent`` (L-C2ST-NF).
    sampler : object or None
        An object with ``sample(x, n, seed)`` returning (N, n, m) draws at the rows of
        ``sample_x`` (SBC by sampling, TARP).
    sample_x : numpy.ndarray or None
        The x's ``sampler`` is called with.
    n_draws : int
        Draws per calibration pair for TARP (and for SBC by sampling).
    ranks : numpy.ndarray or None
        SBC ranks in 0..``n_posterior_samples``; when None, SBC samples through ``sampler``.
    n_posterior_samples : int or None
        S behind ``ranks``.
    reference : list of (x_o, draws) or None
        Reference draws at observations.
    draws_at_reference : callable or None
        ``draws_at_reference(i, x_o, n, rng)``: the posterior's n draws at the i-th observation.
    regressor, classifier, levels, statistic, eval_correction, n_jobs
        Options of the checks (see :func:`validate_posterior`).
    n_resamples : dict
        B of each resampling check, filled in by the plan before any check runs.
    missing : dict
        For each need in :data:`NEEDS` these inputs cannot meet, why (the skip reason).
    """

    n: int = 0
    n_params: int = 0
    n_features: int = 0
    pit_values: np.ndarray | None = None
    x: np.ndarray | None = None
    x_eval: np.ndarray | None = None
    x_obs: np.ndarray | None = None
    theta: np.ndarray | None = None
    flow: Any = None
    sampler: Any = None
    sample_x: np.ndarray | None = None
    n_draws: int = 0
    ranks: np.ndarray | None = None
    n_posterior_samples: int | None = None
    reference: Sequence[tuple[np.ndarray, np.ndarray]] | None = None
    draws_at_reference: Callable[[int, np.ndarray, int, Any], np.ndarray] | None = None
    regressor: Any = "knn"
    classifier: str = "logistic"
    levels: Any = None
    statistic: str = "mse"
    eval_correction: str = "holm"
    n_jobs: int | None = None
    n_resamples: Mapping[str, int] = field(default_factory=dict)
    missing: Mapping[str, str] = field(default_factory=dict)

    def with_resamples(self, n_resamples: Mapping[str, int]) -> ReportInputs:
        """These inputs with the planned B of each resampling check."""
        return dataclasses.replace(self, n_resamples=dict(n_resamples))


#: The columns of the report's findings table, those of ``calibration_findings(...).table``.
FINDING_COLUMNS = ("check", "kind", "parameter", "where", "direction", "size", "evidence")


@dataclass(frozen=True, eq=False)
class FindingsContext:
    """What a check's findings hook reads: the report, the check's outcome and the table's verdict.

    Attributes
    ----------
    report : PosteriorValidationResult
        The whole report (its other checks, PIT values, settings and adjusted p-values).
    outcome : CheckOutcome
        The check's own outcome; its ``result`` is never None (a check that did not run has
        no findings).
    alpha : float
        The level the findings are read at.
    failed : frozenset of str
        The checks the table rejects at ``alpha`` (``report.failures(alpha)``): a finding is
        kept only where the check behind it is among them.
    """

    report: Any
    outcome: Any
    alpha: float
    failed: frozenset[str]


@dataclass(frozen=True)
class CheckFindings:
    """A check's findings: rows of the findings table and their sentences, one a row.

    Attributes
    ----------
    rows : pandas.DataFrame or list of dict
        The rows, with the columns :data:`FINDING_COLUMNS`.
    lines : tuple of str
        The findings in plain language, in the order of ``rows``, each with its next step
        where one applies.
    """

    rows: Any
    lines: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Check:
    """One check of the posterior report.

    Attributes
    ----------
    name : str
        The check's name in the report, its JSON and HTML, and the command line's ``--checks``;
        also the key of its random stream, so it must never change once released.
    tests : str
        What it tests, in one line (the report's ``tests`` column).
    reading : str
        How to read its figure (the HTML page).
    needs : tuple of str
        Keys of :data:`NEEDS`; the check is skipped when the inputs miss one.
    run : callable
        ``run(inputs, rng) -> result``: the check on a :class:`ReportInputs` with its own
        generator. A result has ``statistic`` and ``pvalue``.
    tests_per_point : callable or None
        For a resampling check (Monte Carlo p-values (1 + #{T⁽ᵇ⁾ ≥ T}) / (1 + B)): the number of
        tests corrected at each evaluation point, as a function of m. None otherwise.
    refuse : callable or None
        ``refuse(inputs) -> str | None``: why the options rule the check out (None when they
        do not).
    resample_limit : callable or None
        ``resample_limit(inputs) -> int``: the largest B the memory guard allows.
    draw : callable or None
        ``draw(fig, result)``: the figure of the HTML page.
    score : bool
        A score rather than a test: shown in the report, never in :meth:`failures`, the
        verdict, the correction across checks or the plan of B.
    local : bool
        Whether a resampling check is corrected across the E evaluation points (the plan's
        factor E); a global resampling check has factor 1 there.
    default : bool
        Whether ``checks="all"`` runs it. An opt-in check (False) runs only when named: each
        test that runs raises C, and with it the B of every resampling check.
    family : str
        Among :data:`FAMILIES`: the family whose correction the check enters. Only
        ``"posterior"`` checks enter Holm across checks and the plan of B; a ``"simulator"``
        check is a family of its own.
    findings : callable or None
        ``findings(context) -> CheckFindings | None``: what is wrong and where, read off the
        check's result (a :class:`FindingsContext`) for the report's findings, which list the
        checks' findings in the report's order. Called only for a check that ran; it keeps a
        finding only where the check behind it is in ``context.failed`` (or, for a check of
        the simulator's family, where its own correction rejects). None: no findings.
    """

    name: str
    tests: str
    reading: str
    needs: tuple[str, ...]
    run: Callable[[ReportInputs, np.random.Generator], Any]
    tests_per_point: Callable[[int], int] | None = None
    refuse: Callable[[ReportInputs], str | None] | None = None
    resample_limit: Callable[[ReportInputs], int] | None = None
    draw: Callable[[Any, Any], None] | None = None
    score: bool = False
    local: bool = True
    default: bool = True
    family: str = "posterior"
    findings: Callable[[FindingsContext], CheckFindings | None] | None = None

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            msg = f"`family` of check {self.name!r} must be among {list(FAMILIES)}; got {self.family!r}."
            raise ValueError(msg)
        unknown = [need for need in self.needs if need not in NEEDS]
        if unknown:
            msg = f"`needs` of check {self.name!r} must be among {list(NEEDS)}; got {unknown}."
            raise ValueError(msg)
        if self.score and self.tests_per_point is not None:
            msg = f"check {self.name!r}: a score has no resamples to plan."
            raise ValueError(msg)

    @property
    def resampling(self) -> bool:
        """Whether the check's p-value is a Monte Carlo p-value whose B the report plans."""
        return self.tests_per_point is not None

    def skip_reason(self, inputs: ReportInputs) -> str | None:
        """Why the check cannot run on ``inputs`` (None when it can)."""
        for need in self.needs:
            if need in inputs.missing:
                return inputs.missing[need]
        return None if self.refuse is None else self.refuse(inputs)


def quiet_resolution(call: Callable[[], Any]) -> Any:
    """Run ``call`` without the tests' own resolution warnings (the report issues its own)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TooFewResamplesWarning)
        return call()
