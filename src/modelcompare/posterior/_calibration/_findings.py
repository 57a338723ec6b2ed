"""Calibration findings: what is wrong with a posterior estimator, per parameter and per pair.

SBC ranks (Talts et al. 2018) say *whether* each marginal of θ is calibrated; this module says
*how* it is not. Each parameter's ranks are mapped to q = Φ⁻¹((r + 1/2)/(S + 1)); a location test
on the mean of q and a dispersion test on its variance give a shift or a too-wide/too-narrow
posterior, each with its own p-value, and the latent PIT's pairwise dependence (Linhart et al.
2022) gives a wrong joint shape. One family-wise correction covers all the tests.
"""

from __future__ import annotations

import functools
import types
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from scipy import optimize, stats
from scipy.special import gammaln, log_ndtr, ndtri

from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.pvalues import adjust_pvalues, check_correction, familywise_pvalue
from modelcompare._foundation.results import CollectionTestResult, check_alpha, result_class
from modelcompare._foundation.validation import check_int, check_samples
from modelcompare.posterior._calibration._pit import check_pit_values
from modelcompare.posterior._calibration._pit_independence import pit_independence_test

__all__ = [
    "FINDING_COLUMNS",
    "FINDING_KINDS",
    "NEXT_STEPS",
    "CalibrationFindingsResult",
    "calibration_findings",
]

#: The kinds of finding, in the order a report lists them, with what each one means.
FINDING_KINDS: Mapping[str, str] = types.MappingProxyType(
    {
        "shift": "the posterior's mass sits above or below the true parameter (a biased location)",
        "too_wide": "the posterior is over-dispersed: the truth ranks too often in the middle",
        "too_narrow": "the posterior is under-dispersed (over-confident): the truth ranks too often "
        "at the extremes",
        "dependence": "two latent coordinates of the flow are dependent: the joint shape is wrong "
        "even where the marginals look right",
        "local": "the posterior is miscalibrated at some observations x, not on average",
        "misspecified_observation": "the observation x_obs lies outside what the simulator produces",
    }
)

#: kind -> the plain-language next step for a finding of that kind.
NEXT_STEPS: Mapping[str, str] = types.MappingProxyType(
    {
        "shift": "run more simulations or train longer; if the bias stays, give the estimator an "
        "embedding of x that keeps the information about this parameter.",
        "too_wide": "run more simulations or train longer (an under-fitted estimator is often "
        "over-dispersed), or use a narrower base distribution; check the posterior's dispersion.",
        "too_narrow": "use more simulations, stop training earlier or regularise, or use a wider "
        "base distribution; check the posterior's dispersion.",
        "dependence": "use a more flexible estimator (more flow transforms or layers) so that it can "
        "learn the joint shape, not only the marginals.",
        "local": "evaluate at more points around the flagged observations and inspect the posterior "
        "there (local coverage, L-C2ST).",
        "misspecified_observation": "check the simulator at x_obs: no estimator trained on "
        "simulations can be trusted where the simulator does not reach.",
    }
)

#: The columns of :attr:`CalibrationFindingsResult.table`.
FINDING_COLUMNS = ("check", "kind", "parameter", "where", "direction", "size", "evidence")

#: The columns of :attr:`CalibrationFindingsResult.tests` (every test, reported or not).
TEST_COLUMNS = (
    "check",
    "parameter",
    "where",
    "statistic",
    "size",
    "pvalue",
    "pvalue_adjusted",
    "kind",
    "direction",
)

_PHRASES = {
    "shift": "the posterior is shifted {direction} the true parameter",
    "too_wide": "the posterior is too wide",
    "too_narrow": "the posterior is too narrow",
    "dependence": "the latent coordinates are dependent ({direction} correlation)",
    "local": "the posterior is miscalibrated locally",
    "misspecified_observation": "the observation is misspecified",
}

_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "fdr_bh": "BH", None: "raw"}
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
# the rank model's grid of ζ (in standard deviations) and the largest shift it estimates: at
# |a| = 6 every rank is 0 or S for any S a user would draw
_GRID = np.linspace(-14.0, 14.0, 4001)
_MAX_SHIFT = 6.0


def _subscript(i: int) -> str:
    return str(i).translate(_SUBSCRIPTS)


# --------------------------------------------------------------------------------- rank model
class _RankMoments:
    """Moments of q = Φ⁻¹((r + ½)/(S + 1)) when the truth sits ``a`` posterior sds off-centre.

    With a Gaussian posterior of the right width whose mean is off by −a posterior standard
    deviations, U = F_q(θ) = Φ(ζ + a) with ζ ~ N(0, 1) and r | U ~ Binomial(S, U), so
    P_a(r = k) = ∫ Binom(k; S, Φ(ζ)) φ(ζ − a) dζ. The binomial matrix is computed once on a grid;
    a only reweights it. At a = 0 the law is the discrete uniform on 0..S, SBC's null.
    """

    def __init__(self, s: int, *, exact_max: int = 10_000) -> None:
        self.s = s
        if s > exact_max:
            # beyond 10,000 draws the binomial noise of a rank is about 0.01 sd in ζ, and q is
            # taken as its limit Φ⁻¹(U) = ζ + a, clipped to the extreme values of q (measured
            # against the exact law at S = 2000: var q off by 0.03 % at a = 0 and by 1.8 % at a
            # 2.5-sd shift; the error shrinks as S grows)
            edge = float(-ndtri(0.5 / (s + 1)))
            q = np.clip(_GRID, -edge, edge)
            self._raw = np.stack([q**p for p in (1, 2, 3, 4)])
        else:
            k = np.arange(s + 1, dtype=float)
            values = self.values(k)
            log_u, log_1mu = log_ndtr(_GRID), log_ndtr(-_GRID)
            log_c = gammaln(s + 1) - gammaln(k + 1) - gammaln(s - k + 1)
            raw = np.zeros((4, _GRID.size))
            # Binom(k; S, u) is below e^-70 beyond 12 sds (≤ 6/√S) of k/S: each block of ranks
            # needs only the grid points whose u = Φ(ζ) lies within that reach
            reach = 6.0 / np.sqrt(s) + 1.0 / s
            u_grid = np.exp(log_u)
            for rows in np.array_split(np.arange(s + 1), max(1, (s + 1) // 256)):
                lo, hi = k[rows[0]] / s - reach, k[rows[-1]] / s + reach
                cols = np.flatnonzero((u_grid >= lo) & (u_grid <= hi))
                log_pmf = log_c[rows, None] + np.outer(k[rows], log_u[cols])
                pmf = np.exp(log_pmf + np.outer(s - k[rows], log_1mu[cols]))
                raw[:, cols] += np.stack([values[rows] ** p for p in (1, 2, 3, 4)]) @ pmf
            self._raw = raw  # (4, G): E[q^p | ζ] on the grid
        self._dz = float(_GRID[1] - _GRID[0])

    def values(self, ranks: np.ndarray) -> np.ndarray:
        """q = Φ⁻¹((r + ½)/(S + 1))."""
        return ndtri((np.asarray(ranks, dtype=float) + 0.5) / (self.s + 1))

    def _weights(self, a: float) -> tuple[np.ndarray, np.ndarray]:
        w = np.exp(-0.5 * (_GRID - a) ** 2) * (self._dz / np.sqrt(2.0 * np.pi))
        return w, (_GRID - a) * w  # the weights and their derivative in a

    def mean(self, a: float) -> float:
        return float(self._raw[0] @ self._weights(a)[0])

    def dispersion_null(self, a: float) -> tuple[float, float]:
        """E[var] and the per-draw variance of the influence of s² − σ²(â) at shift ``a``."""
        w, dw = self._weights(a)
        m1, m2, m3, m4 = self._raw @ w
        d1, d2 = self._raw[:2] @ dw
        var = m2 - m1**2
        c3 = m3 - 3 * m1 * m2 + 2 * m1**3
        c4 = m4 - 4 * m1 * m3 + 6 * m1**2 * m2 - 3 * m1**4
        # s² is compared with σ²(â), â solving mean(a) = q̄: the delta method adds −c (q − μ)
        c = (d2 - 2 * m1 * d1) / d1 if d1 > 1e-12 else 0.0
        return float(var), float(max(c4 - var**2 - 2 * c * c3 + c**2 * var, 0.0))

    def shift_for_mean(self, qbar: float) -> float:
        lo, hi = self.mean(-_MAX_SHIFT), self.mean(_MAX_SHIFT)
        if qbar <= lo:
            return -_MAX_SHIFT
        if qbar >= hi:
            return _MAX_SHIFT
        return float(optimize.brentq(lambda a: self.mean(a) - qbar, -_MAX_SHIFT, _MAX_SHIFT))


def _location_test(q: np.ndarray) -> tuple[float, float, bool]:
    """One-sample t-test of E[q] = 0: (t, two-sided p, degenerate)."""
    n = q.size
    mean, sd = float(q.mean()), float(q.std(ddof=1))
    if sd <= 1e-12 * max(1.0, abs(mean)):
        # every rank equal: no spread to scale by; a non-zero mean is a certain shift
        return (0.0, 1.0, True) if mean == 0.0 else (float(np.sign(mean) * np.inf), 0.0, True)
    t = mean / (sd / np.sqrt(n))
    return float(t), float(2.0 * stats.t.sf(abs(t), n - 1)), False


def _dispersion_test(q: np.ndarray, model: _RankMoments) -> tuple[float, float, float]:
    """z-test of var(q) against a calibrated width at the estimated shift: (z, p, ratio)."""
    a_hat = model.shift_for_mean(float(q.mean()))
    expected, influence_var = model.dispersion_null(a_hat)
    s2 = float(q.var(ddof=1))
    se = np.sqrt(influence_var / q.size)
    ratio = s2 / expected if expected > 1e-12 else 1.0
    if se <= 1e-12:  # all mass at one rank under the fitted shift: no information on the width
        return 0.0, 1.0, ratio
    z = (s2 - expected) / se
    return float(z), float(2.0 * stats.norm.sf(abs(z))), ratio


# ------------------------------------------------------------------------------------- result
@result_class
class CalibrationFindingsResult(CollectionTestResult):
    """Result of :func:`calibration_findings`: what is wrong with the posterior, one row a finding.

    A collection with a family-wise test: ``table`` lists the findings (the tests whose adjusted
    p-value is ≤ ``alpha``), ``tests`` every test of the family, and ``pvalue`` /
    ``decision(alpha)`` test H0 "the posterior is calibrated" over the whole family.

    Attributes
    ----------
    pvalue : float
        Holm's family-wise p-value over all the tests, min(1, K · min p), whatever
        ``correction`` shaped the per-test values.
    table : pandas.DataFrame
        One row per finding, columns ``check, kind, parameter, where, direction, size,
        evidence`` (see :func:`calibration_findings`); empty when nothing is found.
    tests : pandas.DataFrame
        Every test, columns ``check, parameter, where, statistic, size, pvalue,
        pvalue_adjusted, kind, direction``; ``kind`` is the finding the test would report.
    alpha : float
        The level of the findings: a test is a finding iff its adjusted p-value is ≤ ``alpha``.
    correction : str or None
        The correction of ``pvalue_adjusted`` over the family.
    parameter_names : list of str
        The names of θ's coordinates.
    n : int
        Number of SBC ranks (pairs).
    n_posterior_samples : int
        S, so that the ranks lie in 0..S.
    degenerate : bool
        Some parameter's ranks are all equal (its location test is then its limit), or a
        dependence pair held a constant column.

    Examples
    --------
    >>> import numpy as np
    >>> ranks = np.random.default_rng(0).integers(0, 101, size=(500, 2))
    >>> res = calibration_findings(ranks, 100)
    >>> len(res.table), res.sentences()
    (0, [])
    """

    pvalue: float
    table: Any
    tests: Any
    alpha: float
    correction: str | None
    parameter_names: list[str]
    n: int
    n_posterior_samples: int
    degenerate: bool

    _repr_fields: ClassVar[tuple[str, ...]] = ("pvalue", "alpha", "correction", "n")

    def sentences(self) -> list[str]:
        """The findings in plain language, one sentence each, with the next step.

        Returns
        -------
        list of str
            ``"<parameter>: <what is wrong>; <evidence>. Next: <next step>"`` per row of
            ``table``, in its order; empty when nothing is found.
        """
        out = []
        for row in self.table.itertuples(index=False):
            phrase = _PHRASES.get(row.kind, row.kind).format(direction=row.direction)
            step = NEXT_STEPS.get(row.kind, "")
            out.append(f"{row.parameter}: {phrase}; {row.evidence}. Next: {step}")
        return out


# -------------------------------------------------------------------------------------- input
def _names_iv(parameter_names: Any, m: int) -> list[str]:
    if parameter_names is None:
        return [f"θ{_subscript(i + 1)}" for i in range(m)]
    if isinstance(parameter_names, str | bytes) or not isinstance(parameter_names, Sequence):
        msg = f"`parameter_names` must be a sequence of {m} strings; got {parameter_names!r}."
        raise TypeError(msg)
    names = list(parameter_names)
    if len(names) != m:
        msg = f"`parameter_names` must hold {m} names, one per column of `ranks`; got {len(names)}."
        raise ValueError(msg)
    bad = [v for v in names if not isinstance(v, str)]
    if bad:
        msg = f"`parameter_names` must hold strings; got {bad[0]!r}."
        raise TypeError(msg)
    if len(set(names)) != m:
        msg = f"`parameter_names` must be distinct; got {names!r}."
        raise ValueError(msg)
    return names


def _ranks_iv(ranks: Any, n_posterior_samples: Any) -> tuple[np.ndarray, int]:
    r = check_samples(ranks, "ranks", min_samples=3)
    s = check_int(n_posterior_samples, "n_posterior_samples", low=1)
    if r.min() < 0 or r.max() > s or np.any(r != np.round(r)):
        msg = (
            f"`ranks` must be integers in [0, {s}] (`n_posterior_samples` = {s}); got values in "
            f"[{r.min():.4g}, {r.max():.4g}]."
        )
        raise ValueError(msg)
    return r, s


# ------------------------------------------------------------------------------------ the tests
@functools.lru_cache(maxsize=8)
def _rank_moments(s: int) -> _RankMoments:
    # one O(S · grid) table per S, shared by the parameters and by repeated calls (a report)
    return _RankMoments(s)


def _marginal_rows(r: np.ndarray, s: int, names: list[str]) -> tuple[list[dict[str, Any]], bool]:
    model = _rank_moments(s)
    rows, degenerate = [], False
    for j, name in enumerate(names):
        q = model.values(r[:, j])
        t, p_loc, flat = _location_test(q)
        degenerate |= flat
        mean = float(q.mean())
        rows.append(
            {
                "check": "sbc_location",
                "parameter": name,
                "where": "marginal",
                "statistic": t,
                "size": mean,
                "pvalue": p_loc,
                "kind": "shift",
                "direction": "above" if mean < 0 else "below",
            }
        )
        z, p_disp, ratio = _dispersion_test(q, model)
        rows.append(
            {
                "check": "sbc_dispersion",
                "parameter": name,
                "where": "marginal",
                "statistic": z,
                "size": ratio,
                "pvalue": p_disp,
                "kind": "too_wide" if ratio < 1 else "too_narrow",
                "direction": "over-dispersed" if ratio < 1 else "under-dispersed",
            }
        )
    return rows, degenerate


def _dependence_rows(pit_values: Any) -> tuple[list[dict[str, Any]], bool]:
    p = check_pit_values(pit_values, min_samples=3)
    if p.shape[1] < 2:
        return [], False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateDataWarning)
        res = pit_independence_test(p)
    for w in caught:  # re-issue under this function's name and the caller's frame
        warnings.warn(f"calibration_findings: {w.message}", w.category, stacklevel=3)
    rows = [
        {
            "check": "pit_independence",
            "parameter": f"z{_subscript(i + 1)}, z{_subscript(j + 1)}",
            "where": "latent",
            "statistic": float(rho),
            "size": float(rho),
            "pvalue": float(pv),
            "kind": "dependence",
            "direction": "positive" if rho >= 0 else "negative",
        }
        for (i, j), rho, pv in zip(res.pairs, res.statistics, res.pvalues)
    ]
    return rows, res.degenerate


def _evidence(row: dict[str, Any], correction: str | None) -> str:
    how = _CORRECTION_NAMES[correction]
    p = f"p = {row['pvalue_adjusted']:.2g} ({how})"
    if row["check"] == "sbc_location":
        return f"{p}, mean Φ⁻¹(rank) = {row['size']:.2f}"
    if row["check"] == "sbc_dispersion":
        return f"{p}, variance of Φ⁻¹(rank) {row['size']:.2f}× a calibrated posterior's"
    return f"{p}, Spearman ρ = {row['size']:.2f}"


def calibration_findings(
    ranks: Any,
    n_posterior_samples: int,
    *,
    pit_values: Any = None,
    parameter_names: Sequence[str] | None = None,
    alpha: float = 0.05,
    correction: str | None = "holm",
) -> CalibrationFindingsResult:
    """Say what is wrong with a posterior estimator: shifts, wrong widths, dependent latents.

    Each parameter θ_j is judged from its own marginal, the SBC ranks of θ_j among posterior
    draws, never from the flow's latent coordinates (a flow with permuted or rotated layers, as
    sbi's MAF and NSF, mixes the parameters in its latent). Its ranks r ∈ 0..S become
    u = (r + ½)/(S + 1) and q = Φ⁻¹(u), and two tests run on q, each with its own p-value:

    - **location** (``check="sbc_location"``): the one-sample t-test of E[q] = 0, with the
      sample standard deviation, so that a pure width error (which leaves E[q] = 0 by symmetry)
      is not read as a shift. A finding is a ``"shift"``; ``direction`` is ``"above"`` when the
      posterior's mass sits above the truth (the truth ranks low, mean q < 0), ``"below"``
      otherwise; ``size`` is mean q, roughly (θ − posterior mean) / posterior sd averaged over
      the pairs (negative when the posterior is above), shrunk towards 0 beyond about 1.5
      posterior sds as the ranks reach 0 or S.
    - **dispersion** (``check="sbc_dispersion"``): the variance s² of q about its mean against
      σ²(â), the variance a posterior of the right width would give at the shift â that matches
      mean q, in a z-test whose standard error comes from the same law (see Notes). A ratio
      s²/σ²(â) below 1 is ``"too_wide"`` (ranks crowd the middle: over-dispersed), above 1
      ``"too_narrow"`` (ranks pile at the ends: over-confident); ``size`` is the ratio, roughly
      (true posterior sd / estimated sd)².

    With ``pit_values``, the latent PIT of the flow, each pair of latent coordinates is tested
    for dependence with :func:`pit_independence_test` (Spearman's ρ): a ``"dependence"`` finding
    names the pair, ``"z₁, z₂"``, with ``where="latent"``, ``direction`` the sign of ρ and
    ``size`` ρ. All 2m (+ pairs) p-values form one family, adjusted by ``correction``; a test is
    a finding iff its adjusted p-value is ≤ ``alpha``.

    Parameters
    ----------
    ranks : array-like, shape (N, m)
        SBC ranks from :func:`sbc_ranks` (or ``sbc(...).ranks``), integers in 0..S.
    n_posterior_samples : int
        S, the posterior draws behind each rank.
    pit_values : array-like, shape (N', m'), optional
        The flow's latent PIT values (:func:`pit`), for the dependence tests; they need not
        come from the same pairs as ``ranks``. Without them no dependence is tested.
    parameter_names : sequence of str, optional
        Names of θ's m coordinates (default θ₁, …, θₘ).
    alpha : float
        The level of the findings, in (0, 1).
    correction : {"holm", "bonferroni", "fdr_bh", None}
        The multiplicity correction of the family (see :func:`~modelcompare.adjust_pvalues`).

    Returns
    -------
    CalibrationFindingsResult
        ``table`` has one row per finding, with columns ``check``, ``kind`` (one of
        :data:`FINDING_KINDS`), ``parameter``, ``where`` (``"marginal"`` or ``"latent"``),
        ``direction``, ``size`` and ``evidence`` (a short text with the adjusted p-value);
        ``sentences()`` reads them out with the next step of :data:`NEXT_STEPS`.

    Raises
    ------
    ValueError
        If ``ranks`` is not (N, m) with integers in 0..S and N ≥ 3, ``parameter_names`` has not
        m distinct names, or ``alpha`` or ``correction`` is invalid.
    TypeError
        If ``parameter_names`` is not a sequence of strings.

    Warns
    -----
    DegenerateDataWarning
        When a parameter's ranks are all equal (its location test is then its limit: p = 0 for
        a non-central rank, 1 for the central one), or a latent PIT column is constant.

    Notes
    -----
    Under calibration r is uniform on 0..S, so q takes the S + 1 values Φ⁻¹((k + ½)/(S + 1))
    with equal probability: E[q] = 0 exactly and var q slightly below 1 (0.94 at S = 20, 0.99 at
    S = 100). The t-test is then valid for N in the tens (q is bounded and symmetric).

    The dispersion test compares s² with the law of the ranks of a Gaussian posterior of the
    right width that is off by −a posterior sds: U = Φ(ζ + a), ζ ~ N(0, 1), r | U ~ Binomial(S, U),
    whose moments are computed by quadrature. At a = 0 that is the uniform null. A pure shift
    leaves the variance of the continuous Φ⁻¹(U) at 1, but it piles ranks at 0 or S, where q is
    bounded, and that lowers s² (to 0.6 of the null at a 2-sd shift with S = 100): comparing s²
    with σ²(â) rather than with the null's variance keeps a large pure shift from being reported
    as too wide. The standard error is the delta-method one of s² − σ²(â) under that law, which
    at â = 0 is √((μ₄ − σ⁴)/N) of the exact null moments. The chi-square test of a normal
    variance is not used: q is discrete and bounded, its kurtosis below 3 at small S.

    The location and dispersion tests read each marginal over the prior predictive, as SBC does;
    they can pass while the posterior is wrong at some x (Linhart et al. 2022, Figure 1), which
    the local tests address. A shift confined to part of x-space mixes calibrated ranks with
    ranks near 0 or S, and so reads as a shift and a too-narrow posterior at once.

    References
    ----------
    .. [1] S. Talts, M. Betancourt, D. Simpson, A. Vehtari and A. Gelman (2018). Validating Bayesian
       inference algorithms with simulation-based calibration. arXiv:1804.06788.
    .. [2] J. Linhart, A. Gramfort and P. L. C. Rodrigues (2022). Validation diagnostics for SBI
       algorithms based on normalizing flows. arXiv:2211.09602.

    Examples
    --------
    An over-confident posterior for θ₂ (half the right width) and an exact one for θ₁:

    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel, AffineGaussianFlow, sbc_ranks
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(1000, seed=0)
    >>> scale = np.linalg.cholesky(model.posterior_cov) * np.array([1.0, 0.5])
    >>> flow = AffineGaussianFlow(model.posterior_mean_matrix, scale)
    >>> ranks = sbc_ranks(flow, theta, x, n_posterior_samples=100, seed=1)
    >>> res = calibration_findings(ranks, 100)
    >>> res.table[["kind", "parameter"]].values.tolist()
    [['too_narrow', 'θ₂']]
    >>> res.sentences()[0][:37]
    'θ₂: the posterior is too narrow; p = '
    """
    r, s = _ranks_iv(ranks, n_posterior_samples)
    names = _names_iv(parameter_names, r.shape[1])
    alpha = check_alpha(alpha)
    correction = check_correction(correction)
    rows, degenerate = _marginal_rows(r, s, names)
    if degenerate:
        warnings.warn(
            "calibration_findings: the ranks of some parameter are all equal; its location test "
            "is the limit (p = 0 for a non-central rank) and rests on zero spread.",
            DegenerateDataWarning,
            stacklevel=2,
        )
    if pit_values is not None:
        dep_rows, dep_degenerate = _dependence_rows(pit_values)
        rows += dep_rows
        degenerate |= dep_degenerate
    raw = np.array([row["pvalue"] for row in rows])
    for row, adjusted in zip(rows, adjust_pvalues(raw, correction)):
        row["pvalue_adjusted"] = float(adjusted)
        row["evidence"] = _evidence(row, correction)
    return _result(rows, raw, alpha, correction, names, r.shape[0], s, degenerate)


def _result(
    rows: list[dict[str, Any]],
    raw: np.ndarray,
    alpha: float,
    correction: str | None,
    names: list[str],
    n: int,
    s: int,
    degenerate: bool,
) -> CalibrationFindingsResult:
    import pandas as pd

    tests = pd.DataFrame([{c: row[c] for c in TEST_COLUMNS} for row in rows], columns=TEST_COLUMNS)
    found = [row for row in rows if row["pvalue_adjusted"] <= alpha]
    table = pd.DataFrame(
        [{c: row[c] for c in FINDING_COLUMNS} for row in found], columns=FINDING_COLUMNS
    )
    return CalibrationFindingsResult(
        pvalue=familywise_pvalue(raw),
        table=table,
        tests=tests,
        alpha=alpha,
        correction=correction,
        parameter_names=names,
        n=n,
        n_posterior_samples=s,
        degenerate=degenerate,
    )
