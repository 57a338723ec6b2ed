"""ℓ2 closeness tests on binned counts: known p (BFRSW-style, paper form and calibrated forms) and
two-sample (Chan–Diakonikolas–Valiant–Valiant).

Notation: p = p^B (length k, known), n = bin counts of m samples from q. The statistic

    T = Σ_i n_i(n_i − 1)/(m(m − 1)) − (2/m) Σ_i p_i n_i + ‖p‖²₂

is the U-statistic with kernel ⟨e_x − p, e_y − p⟩, so E[T] = ‖q − p‖²₂ exactly.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, ClassVar

import numpy as np
from scipy import stats

from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.pvalues import monte_carlo_pvalue
from modelcompare._foundation.resources import check_memory, estimate_array_bytes
from modelcompare._foundation.results import (
    TestResult,
    check_alpha,
    result_class,
)
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import check_choice, check_int, check_positive
from modelcompare.categorical._space import check_counts, check_probabilities

__all__ = [
    "P_VALUE_MODES",
    "ClosenessResult",
    "closeness_test",
    "l2_statistic",
    "l2_statistic_variance",
    "two_sample_closeness_test",
]

MODES = ("paper", "amplified", "cantelli", "asymptotic", "mc", "tv-bound")
TWO_SAMPLE_MODES = ("permutation", "threshold")
P_VALUE_MODES = ("asymptotic", "mc", "permutation")


@result_class
class ClosenessResult(TestResult):
    """Result of an ℓ2 closeness test on binned counts, in every mode.

    Returned by :func:`closeness_test` and :func:`two_sample_closeness_test`. One protocol for
    every mode: :meth:`decision` takes a level and :meth:`critical_value` gives the threshold on
    the statistic that the decision amounts to.

    * The **p-value modes** (``"mc"``, ``"asymptotic"`` and the two-sample ``"permutation"``)
      store no level (``alpha`` and ``threshold`` are None): ``decision(alpha)`` rejects iff
      ``pvalue <= alpha``, at any level.
    * The **threshold modes** (``"paper"``, ``"amplified"``, ``"cantelli"``, ``"tv-bound"`` and
      the two-sample ``"threshold"``) have no p-value (``pvalue`` is None): they decide at the
      level ``alpha`` fixed before they ran, which sets ``threshold`` (and the number of batches
      in the batch modes). ``decision()`` and ``decision(alpha)`` at that level give the
      decision; another level raises a ``ValueError``, since deciding there means running the
      test again.

    Attributes
    ----------
    statistic : float
        T over all samples (known p) or the normalised CDVV statistic Z (two-sample); both estimate
        ‖q^B − p^B‖²₂. For ``mode="tv-bound"`` the binned empirical TV.
    pvalue : float or None
        P-value modes: in [0, 1], (1 + #{T_b ≥ T})/(1 + B) in ``"mc"`` and ``"permutation"``, the
        normal tail 1 − Φ((T − ε₀²)/√V̂) in ``"asymptotic"``; 1 when the statistic is not finite.
        None in the threshold modes.
    threshold : float or None
        Threshold modes: the critical value at level ``alpha``; a batch (batch modes) or the test
        rejects iff its statistic exceeds it. None in the p-value modes (see
        :meth:`critical_value`).
    alpha : float or None
        Threshold modes: the level fixed before the test ran (the two-sample ``"threshold"`` rule
        records it only). None in the p-value modes, which store no level; a level given to one
        anyway (deprecated) is kept here, with ``threshold`` and ``n_batches_rejecting`` at it, and
        is the default level of :meth:`decision`.
    epsilon : float
        Tolerance, a bound on the ℓ2 *norm* ‖q^B − p^B‖₂.
    epsilon0 : float or None
        Null radius (H0: ‖q^B − p^B‖₂ ≤ ε₀) of ``"cantelli"`` and ``"asymptotic"``; 0 for ``"mc"``
        and ``"permutation"``; None for the heuristic modes.
    mode : str
        The decision rule (see :func:`closeness_test`).
    n_batches, batch_size : int
        K and m′ of the batch-majority modes (1 and m otherwise).
    batch_statistics : numpy.ndarray
        T of each batch (batch modes); the statistic alone otherwise.
    n_batches_rejecting : int or None
        Threshold modes: how many batches exceeded the threshold (0 or 1 outside the batch
        modes). None in the p-value modes (without a level).
    tv : float
        Binned empirical TV, ½ Σ |p^B − q̂^B|.
    n_samples, n_bins : int
        m and k.
    n_resamples : int or None
        B, the Monte Carlo draws or permutations of ``"mc"`` and ``"permutation"``; None
        otherwise.
    n_reference : int or None
        Size of the reference sample (two-sample tests).
    degenerate : bool
        True when the plug-in variance of ``"asymptotic"`` is 0 (the p-value is then 0 or 1,
        from T > ε₀²), or when the statistic is not finite: then no decision is made
        (``decision`` is False at every level, the p-value 1) and a ``DegenerateDataWarning``
        says so.
    seed_used : int or None
        The seed that reproduces the run.

    Examples
    --------
    >>> res = closeness_test([0.5, 0.5], [480, 520], epsilon=0.1, seed=0)
    >>> res.n_batches, res.pvalue, res.decision(alpha=0.05), res.decision()
    (4, None, False, False)
    >>> mc = closeness_test([0.5, 0.5], [430, 570], mode="mc", n_resamples=199, seed=0)
    >>> type(mc).__name__, mc.decision(alpha=0.05), mc.decision(alpha=0.001)
    ('ClosenessResult', True, False)
    """

    statistic: float
    pvalue: float | None
    threshold: float | None
    alpha: float | None
    epsilon: float
    epsilon0: float | None
    mode: str
    n_batches: int
    batch_size: int
    batch_statistics: np.ndarray
    n_batches_rejecting: int | None
    tv: float
    n_samples: int
    n_bins: int
    n_resamples: int | None = None
    n_reference: int | None = None
    degenerate: bool = False
    seed_used: int | None = None
    _null: np.ndarray | None = dataclasses.field(default=None)
    _variance: float = dataclasses.field(default=math.nan)

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "threshold", "alpha", "mode")

    @property
    def _undecidable(self) -> bool:
        """True when the statistic (or a batch statistic) is not finite: no decision is made."""
        return not (
            math.isfinite(self.statistic) and bool(np.isfinite(self.batch_statistics).all())
        )

    def _level(self, alpha: float | None) -> float:
        """The level to decide at: ``alpha``, by default the run's level (0.05 for a p-value).

        A threshold mode decides only at the level it ran at; another level raises.
        """
        if alpha is None:
            return 0.05 if self.alpha is None else self.alpha
        alpha = check_alpha(alpha)
        if self.pvalue is None and alpha != self.alpha:
            msg = (
                f"mode {self.mode!r} has no p-value: it decides only at the level it ran at "
                f"(alpha={self.alpha}); got alpha={alpha}. Run the test again with "
                f"alpha={alpha}, or use a mode with a p-value ('mc', 'asymptotic', "
                "'permutation')."
            )
            raise ValueError(msg)
        return alpha

    def decision(self, alpha: float | None = None) -> bool:
        """Return True when H0 (q^B is close to p^B) is rejected at level ``alpha``.

        Parameters
        ----------
        alpha : float, optional
            The level, in (0, 1). Default: the level a threshold mode ran at (``alpha``), 0.05
            for a p-value mode. A threshold mode decides only at its own level: another one
            raises a ``ValueError``.

        Returns
        -------
        bool
            P-value modes: ``pvalue <= alpha``. Batch modes (``"paper"``, ``"amplified"``):
            strictly more than half of the batches have a statistic above ``threshold``. Other
            threshold modes: ``statistic > threshold``. False at every level when the statistic
            is not finite (``degenerate``).

        Examples
        --------
        >>> res = closeness_test([0.5, 0.5], [300, 700], mode="cantelli")
        >>> res.decision(), res.decision(alpha=0.05)
        (True, True)
        """
        alpha = self._level(alpha)
        if self._undecidable:
            return False
        if self.pvalue is not None:
            return bool(self.pvalue <= alpha)
        return bool(self.n_batches_rejecting > self.n_batches / 2)  # type: ignore[operator]

    def critical_value(self, alpha: float | None = None) -> float:
        """The threshold on the statistic of the decision at ``alpha``.

        Parameters
        ----------
        alpha : float, optional
            The level, in (0, 1); the same default and the same restriction as :meth:`decision`.

        Returns
        -------
        float
            Threshold modes: ``threshold`` (a batch's threshold in the batch modes).
            ``"mc"``/``"permutation"``: the smallest t such that every statistic above t has a
            Monte Carlo p-value ≤ ``alpha`` (inf when no statistic can reach ``alpha`` with B
            draws). ``"asymptotic"``: ε₀² + z_{1−α}√V̂ (ε₀² when V̂ = 0).

        Examples
        --------
        >>> far = closeness_test([0.5, 0.5], [300, 700], mode="asymptotic")
        >>> bool(far.statistic > far.critical_value(alpha=0.05))
        True
        """
        alpha = self._level(alpha)
        if self.pvalue is None:
            return float(self.threshold)  # type: ignore[arg-type]
        if self._null is not None:
            return _critical_value(self._null, alpha)
        radius = 0.0 if self.epsilon0 is None else self.epsilon0
        if not self._variance > 0:
            return float(radius**2)
        return float(radius**2 + stats.norm.ppf(1 - alpha) * math.sqrt(self._variance))


# ---------------------------------------------------------------------- the statistic and its moments
def l2_statistic(p: Any, counts: Any) -> np.ndarray:
    """The unbiased ℓ2 statistic T for known p (rows of ``counts`` are independent batches).

    Parameters
    ----------
    p : array-like, shape (k,)
        Binned reference probabilities.
    counts : array-like of int, shape (k,) or (B, k)
        Bin counts of one or several batches of m ≥ 2 samples.

    Returns
    -------
    numpy.ndarray or float
        T = Σ n(n−1)/(m(m−1)) − (2/m) Σ p n + ‖p‖²; E[T] = ‖q − p‖²₂.

    References
    ----------
    .. [1] F. Regol, A. Kroon and M. Coates (2023). Evaluation of Categorical Generative Models --
       Bridging the Gap Between Real and Synthetic Data. IEEE International Conference on Acoustics,
       Speech and Signal Processing (ICASSP). arXiv:2210.16405.

    Examples
    --------
    >>> round(float(l2_statistic([0.5, 0.5], [6, 4])), 4)
    -0.0333
    >>> l2_statistic([0.5, 0.5], [[6, 4], [10, 0]]).round(4).tolist()
    [-0.0333, 0.5]
    """
    p = check_probabilities(p, "p")
    n = check_counts(counts, "counts", ndims=(1, 2)).astype(float)
    if n.shape[-1] != p.shape[0]:
        msg = f"`counts` must have one entry per bin ({p.shape[0]}); got shape {n.shape}."
        raise ValueError(msg)
    m = n.sum(axis=-1)
    if np.any(m < 2):
        msg = "the ℓ2 statistic needs at least 2 samples per batch."
        raise ValueError(msg)
    coll = (n * (n - 1)).sum(axis=-1) / (m * (m - 1))
    return coll - 2.0 * (n @ p) / m + float(p @ p)


def l2_statistic_variance(p: Any, q: Any, m: int) -> float:
    """Exact variance of T for m samples from q (the paper's known-p statistic).

    ``Var T = 4(m−2)/(m(m−1))·ζ₁ + 2/(m(m−1))·ζ₂`` with d = q − p, ζ₁ = Σ q d² − (Σ q d)² and
    ζ₂ = tr(M²) − ‖d‖⁴, M = diag(q) − qqᵀ + ddᵀ. Under q = p it is
    2(‖p‖² − 2‖p‖³₃ + ‖p‖⁴)/(m(m−1)).

    Parameters
    ----------
    p : array-like, shape (k,)
        Binned reference probabilities.
    q : array-like, shape (k,)
        Binned probabilities of the tested model.
    m : int
        Number of samples from q.

    Returns
    -------
    float
        Var T.

    References
    ----------
    .. [1] F. Regol, A. Kroon and M. Coates (2023). Evaluation of Categorical Generative Models --
       Bridging the Gap Between Real and Synthetic Data. IEEE International Conference on Acoustics,
       Speech and Signal Processing (ICASSP). arXiv:2210.16405.

    Examples
    --------
    >>> p = [0.25, 0.25, 0.25, 0.25]
    >>> v = l2_statistic_variance(p, p, 100)
    >>> bool(abs(v - 2 * (0.25 - 2 / 16 + 1 / 16) / (100 * 99)) < 1e-15)
    True
    """
    p = check_probabilities(p, "p")
    q = check_probabilities(q, "q")
    if q.shape != p.shape:
        msg = f"`p` and `q` must have the same length; got {p.shape[0]} and {q.shape[0]}."
        raise ValueError(msg)
    m = check_int(m, "m", low=2)
    d = q - p
    qd = float(q @ d)
    zeta1 = float(q @ (d * d)) - qd**2
    q2, q3, d2 = float(q @ q), float(np.sum(q**3)), float(d @ d)
    tr_m2 = q2 + q2**2 + d2**2 - 2 * q3 + 2 * float(q @ (d * d)) - 2 * qd**2
    zeta2 = tr_m2 - d2**2
    return 4 * (m - 2) / (m * (m - 1)) * zeta1 + 2 / (m * (m - 1)) * zeta2


# ---------------------------------------------------------------------- helpers
def _check_binned(p: Any, counts: Any) -> tuple[np.ndarray, np.ndarray]:
    p = check_probabilities(p, "p_binned")
    n = check_counts(counts, "counts")
    if n.shape[0] != p.shape[0]:
        msg = f"`counts` must be a 1-D array with one entry per bin ({p.shape[0]}); got shape {n.shape}."
        raise ValueError(msg)
    if n.sum() < 2:
        msg = f"`counts` must total at least 2 samples; got {int(n.sum())}."
        raise ValueError(msg)
    return p, n


def _split_batches(counts: np.ndarray, n_batches: int, rng: np.random.Generator) -> np.ndarray:
    """Shuffle the samples and cut them into K disjoint batches of ⌊m/K⌋ (leftover dropped).

    Drawn as successive multivariate hypergeometric samples, which has exactly the distribution of
    expanding the counts into labels, shuffling and cutting, in O(K·k) memory instead of O(m).
    """
    size = int(counts.sum()) // n_batches
    remaining = counts.copy()
    out = np.empty((n_batches, counts.shape[0]), dtype=np.int64)
    for b in range(n_batches):
        out[b] = rng.multivariate_hypergeometric(remaining, size)
        remaining -= out[b]
    return out


def _critical_value(null: np.ndarray, alpha: float) -> float:
    """Smallest t with (1 + #{null >= T})/(1 + B) <= α for every T > t (``inf`` if none)."""
    allowed = math.floor(alpha * (null.shape[0] + 1) + 1e-9) - 1  # null values allowed >= T
    if allowed < 0:
        return math.inf
    return float(np.sort(null)[::-1][allowed])


def _finalise(res: ClosenessResult) -> ClosenessResult:
    """Flag a result whose statistic is not finite: degenerate, never a decision (p-value 1)."""
    if not res._undecidable:
        return res
    warnings.warn(
        f"the closeness statistic is not finite ({res.statistic!r}); no decision is made "
        "(degenerate=True, decision is False).",
        DegenerateDataWarning,
        stacklevel=3,
    )
    if res.pvalue is not None:
        return dataclasses.replace(res, pvalue=1.0, degenerate=True)
    return dataclasses.replace(res, n_batches_rejecting=0, degenerate=True)


def _check_level(alpha: Any, mode: str) -> float | None:
    """The level of a threshold mode (0.05 by default); a p-value mode takes none.

    A level given to a p-value mode is kept, as 0.1 kept it, with a ``FutureWarning``: see
    :func:`_keep_level`.
    """
    if mode in P_VALUE_MODES:
        if alpha is None:
            return None
        alpha = check_alpha(alpha)
        warnings.warn(
            f"`alpha` = {alpha!r} is the level of the threshold modes; mode {mode!r} gives a "
            "p-value and decides at any level: leave `alpha` out and decide with "
            "`result.decision(alpha)`. The level is kept as the result's `alpha` for now, and "
            "will be refused in a later release.",
            FutureWarning,
            stacklevel=3,
        )
        return alpha
    return check_alpha(0.05 if alpha is None else alpha)


def _keep_level(res: ClosenessResult, level: float | None) -> ClosenessResult:
    """A p-value result with the level given when it ran (deprecated): as in 0.1, its ``alpha``,
    the ``threshold`` of the decision at that level, and ``n_batches_rejecting`` (that decision)."""
    if level is None:
        return res
    decided = dataclasses.replace(res, alpha=level)
    return dataclasses.replace(
        decided,
        threshold=decided.critical_value(level),
        n_batches_rejecting=int(decided.decision(level)),
    )


# ---------------------------------------------------------------------- known p
def batch_count(mode: str, alpha: float) -> int:
    """Number of batches K of the ``"paper"`` (⌊log₂ 1/α⌋) and ``"amplified"`` (⌈8 ln 1/α⌉) modes."""
    if mode == "paper":
        n_batches = math.floor(math.log2(1 / alpha))
    else:
        n_batches = math.ceil(8 * math.log(1 / alpha))
    if n_batches < 1:
        msg = f"`alpha` = {alpha}: mode 'paper' needs alpha <= 0.5 (K = floor(log2(1/alpha)) >= 1)."
        raise ValueError(msg)
    return n_batches


def closeness_test(
    p_binned: Any,
    counts: Any,
    *,
    epsilon: float = 0.1,
    alpha: float | None = None,
    mode: str = "paper",
    epsilon0: float | None = None,
    n_resamples: int = 999,
    variance_bound: float | str = 1.0,
    seed: SeedLike = None,
) -> ClosenessResult:
    """ℓ2 closeness test of binned counts against a known binned p.

    Parameters
    ----------
    p_binned : array-like, shape (k,)
        p^B.
    counts : array-like of int, shape (k,)
        Bin counts of the m tested samples.
    epsilon : float
        Tolerance ε, a bound on the ℓ2 **norm** ‖q^B − p^B‖₂ (not its square).
    alpha : float, optional
        Level α in (0, 1) of the threshold modes, fixed before the test runs: it sets the
        threshold (and the number of batches in the batch modes). Default 0.05. The p-value modes
        (``"asymptotic"``, ``"mc"``) take none: decide with ``result.decision(alpha)`` (a level
        given to them is kept as the result's ``alpha``, with a ``FutureWarning``).
    mode : {"paper", "amplified", "cantelli", "asymptotic", "mc", "tv-bound"}
        * ``"paper"`` (the authors' v1 code): K = ⌊log₂ 1/α⌋ disjoint batches of ⌊m/K⌋ samples
          (leftovers dropped); a batch rejects iff T > ¾ε²; reject iff strictly more than K/2 batches
          reject. Heuristic: no level is guaranteed at fixed K. No p-value.
        * ``"amplified"``: the same rule with K = ⌈8 ln 1/α⌉ batches (Hoeffding over batches whose
          error is ≤ ¼ once m′ ≳ 256 b/ε²). No p-value.
        * ``"cantelli"``: a finite-sample level-α test of H0: ‖q^B − p^B‖₂ ≤ ε₀ on all m samples:
          reject iff T > ε₀² + √((1−α)/α · V̄), with V̄ = 4bε₀²/m + 2b(1 + 2ε₀²)/(m(m−1)).
          No p-value.
        * ``"asymptotic"``: reject iff T > ε₀² + z_{1−α}√V̂ (V̂ the plug-in exact variance); the
          p-value is the normal tail 1 − Φ((T − ε₀²)/√V̂).
        * ``"mc"``: exact Monte Carlo test of q^B = p^B (ε₀ = 0), p = (1 + #{T_b ≥ T})/(1 + B).
        * ``"tv-bound"``: the authors' later rule, reject iff d_TV(p^B, q̂^B) > max(√(k/m),
          √((2/m) log₂(2/α))). No p-value.
    epsilon0 : float, optional
        Null radius for ``"cantelli"``/``"asymptotic"``; default ε/2 (the BFRSW acceptance radius).
    n_resamples : int
        B for ``"mc"``.
    variance_bound : float or "plugin"
        b ≥ max q in V̄ (``"cantelli"``); 1 is always valid, ``"plugin"`` uses max q̂.
    seed : int, Generator or None
        Batch shuffling (batch modes) and Monte Carlo draws (``"mc"``).

    Returns
    -------
    ClosenessResult
        The same kind in every mode, decided with ``decision(alpha)``. The threshold modes
        (``"paper"``, ``"amplified"``, ``"cantelli"``, ``"tv-bound"``) have a ``threshold`` and
        no ``pvalue``, and decide at the ``alpha`` they ran at. The p-value modes
        (``"asymptotic"``, ``"mc"``) have a ``pvalue`` and no stored level, and decide at any
        level.

    Notes
    -----
    The calibrated modes hold their level only when the bins were chosen independently of the
    tested counts (e.g. ``granularity(..., split=True)``). With bins chosen on the tested samples
    (the paper's B*_k), no level can hold: the binning over-fits the sampling noise and samples of p
    itself are rejected.

    References
    ----------
    T. Batu, L. Fortnow, R. Rubinfeld, W. D. Smith, P. White. Testing closeness of discrete
    distributions. J. ACM 60(1), 2013.

    Examples
    --------
    >>> res = closeness_test([0.5, 0.5], [480, 520], epsilon=0.1, seed=0)
    >>> res.n_batches, res.n_batches_rejecting, res.decision()
    (4, 0, False)
    >>> far = closeness_test([0.5, 0.5], [300, 700], mode="asymptotic")
    >>> far.decision(alpha=0.05), far.pvalue < 1e-6
    (True, True)
    """
    p, n = _check_binned(p_binned, counts)
    mode = check_choice(mode, "mode", MODES)
    epsilon = check_positive(epsilon, "epsilon")
    alpha = _check_level(alpha, mode)
    eps0 = (
        epsilon / 2 if epsilon0 is None else check_positive(epsilon0, "epsilon0", allow_zero=True)
    )
    rng, seed_used = check_seed(seed)
    m = int(n.sum())
    k = p.shape[0]
    t_all = float(l2_statistic(p, n))
    tv = 0.5 * float(np.abs(p - n / m).sum())
    common: dict[str, Any] = {
        "epsilon": float(epsilon),
        "mode": mode,
        "tv": tv,
        "n_samples": m,
        "n_bins": k,
        "seed_used": seed_used,
    }
    threshold_common = {**common, "alpha": alpha, "pvalue": None}

    if mode in ("paper", "amplified"):
        n_batches = batch_count(mode, alpha)
        if m // n_batches < 2:
            msg = (
                f"`counts` hold m={m} samples; mode {mode!r} needs at least 2 samples per batch "
                f"({n_batches} batches)."
            )
            raise ValueError(msg)
        batches = _split_batches(n, n_batches, rng)
        t_b = np.atleast_1d(l2_statistic(p, batches))
        thr = 0.75 * epsilon**2
        n_rej = int((t_b > thr).sum())
        return _finalise(
            ClosenessResult(
                statistic=t_all,
                threshold=thr,
                epsilon0=None,
                n_batches=n_batches,
                batch_size=m // n_batches,
                batch_statistics=t_b,
                n_batches_rejecting=n_rej,
                **threshold_common,
            )
        )

    if mode in ("tv-bound", "cantelli"):
        if mode == "tv-bound":
            stat = tv
            thr = max(math.sqrt(k / m), math.sqrt((2 / m) * math.log2(2 / alpha)))
            eps_used: float | None = None
        else:
            stat, thr, eps_used = (
                t_all,
                _cantelli_threshold(n, m, eps0, alpha, variance_bound),
                eps0,
            )
        return _finalise(
            ClosenessResult(
                statistic=float(stat),
                threshold=float(thr),
                epsilon0=eps_used,
                n_batches=1,
                batch_size=m,
                batch_statistics=np.array([t_all]),
                n_batches_rejecting=int(stat > thr),
                **threshold_common,
            )
        )

    degenerate = False
    null = None
    var = math.nan
    if mode == "asymptotic":
        var = l2_statistic_variance(p, n / m, m)
        stat, radius = t_all, eps0
        if var <= 0:
            degenerate = True
            warnings.warn(
                "plug-in variance of T is 0 (all samples in one bin?); the p-value is 0 or 1, "
                "from T > ε₀² only.",
                DegenerateDataWarning,
                stacklevel=2,
            )
            pvalue = 0.0 if stat > eps0**2 else 1.0
        else:
            pvalue = float(stats.norm.sf((stat - eps0**2) / math.sqrt(var)))
    else:  # mc
        n_resamples = check_int(n_resamples, "n_resamples", low=1)
        check_memory(
            estimate_array_bytes((n_resamples, p.size), np.int64), "the null draws", "n_resamples"
        )
        null = np.atleast_1d(l2_statistic(p, rng.multinomial(m, p / p.sum(), size=n_resamples)))
        stat, radius = t_all, 0.0
        pvalue = monte_carlo_pvalue(stat, null)
    result = _finalise(
        ClosenessResult(
            statistic=float(stat),
            threshold=None,
            alpha=None,
            pvalue=pvalue,
            epsilon0=float(radius),
            n_batches=1,
            batch_size=m,
            batch_statistics=np.array([float(stat)]),
            n_batches_rejecting=None,
            n_resamples=None if null is None else int(n_resamples),
            degenerate=degenerate,
            _null=null,
            _variance=float(var),
            **common,
        )
    )
    return _keep_level(result, alpha)


def _cantelli_threshold(
    n: np.ndarray, m: int, eps0: float, alpha: float, variance_bound: Any
) -> float:
    """ε₀² + √((1−α)/α · V̄), V̄ = 4bε₀²/m + 2b(1 + 2ε₀²)/(m(m−1)) (Cantelli's inequality)."""
    if variance_bound == "plugin":
        b = float(n.max() / m)
    elif isinstance(variance_bound, int | float) and 0 < variance_bound <= 1:
        b = float(variance_bound)
    else:
        msg = f"`variance_bound` must be in (0, 1] or 'plugin'; got {variance_bound!r}."
        raise ValueError(msg)
    vbar = 4 * b * eps0**2 / m + 2 * b * (1 + 2 * eps0**2) / (m * (m - 1))
    return eps0**2 + math.sqrt((1 - alpha) / alpha * vbar)


# ---------------------------------------------------------------------- two-sample (CDVV)
def _cdvv(x: np.ndarray, y: np.ndarray, m1: int, m2: int) -> np.ndarray:
    x = x.astype(float)
    y = y.astype(float)
    z = ((m2 * x - m1 * y) ** 2 - m2**2 * x - m1**2 * y).sum(axis=-1)
    return z / (float(m1) ** 2 * float(m2) ** 2)


def two_sample_closeness_test(
    reference_counts: Any,
    counts: Any,
    *,
    epsilon: float = 0.1,
    alpha: float | None = None,
    mode: str = "permutation",
    n_resamples: int = 999,
    seed: SeedLike = None,
) -> ClosenessResult:
    """ℓ2 closeness test when the reference is known only by samples (Chan et al., 2014).

    Parameters
    ----------
    reference_counts, counts : array-like of int, shape (k,)
        Bin counts X (reference, m₁ samples) and Y (model, m₂ samples).
    epsilon : float
        Tolerance, a bound on the ℓ2 norm ‖p^B − q^B‖₂ (the ``"threshold"`` rule's ¾ε²).
    alpha : float, optional
        Level in (0, 1) of the ``"threshold"`` mode, fixed before the test runs (default 0.05).
        The rule itself does not depend on it: it is recorded in the result as the level the
        caller asked for. The ``"permutation"`` mode takes none: decide with
        ``result.decision(alpha)`` (a level given to it is kept as the result's ``alpha``, with a
        ``FutureWarning``).
    mode : {"permutation", "threshold"}
        ``"permutation"``: p-value (1 + #{Z_b ≥ Z})/(1 + B) from B relabellings of the pooled sample
        (exact level α for H0: p^B = q^B with data-independent bins); ``"threshold"``: reject iff
        Z > ¾ε², the analogue of the paper's per-batch rule (heuristic, no p-value).
    n_resamples : int
        B, the permutations of the ``"permutation"`` mode.
    seed : int, Generator or None
        Permutations.

    Returns
    -------
    ClosenessResult
        The same kind in both modes, decided with ``decision(alpha)``: ``"permutation"`` has a
        ``pvalue`` and decides at any level; ``"threshold"`` has a ``threshold`` and no
        ``pvalue``, and decides at the ``alpha`` it ran at.
        ``statistic`` is Z = Σ[(m₂X − m₁Y)² − m₂²X − m₁²Y]/(m₁²m₂²), which has expectation
        ‖p^B − q^B‖²₂ under Poissonised sampling (for fixed sizes the bias is
        −‖p^B‖²/m₁ − ‖q^B‖²/m₂).

    References
    ----------
    S.-O. Chan, I. Diakonikolas, G. Valiant, P. Valiant. Optimal algorithms for testing closeness of
    discrete distributions. SODA 2014.

    Examples
    --------
    >>> res = two_sample_closeness_test([50, 30, 20], [20, 30, 50], n_resamples=199, seed=0)
    >>> res.decision(alpha=0.05), res.pvalue <= 0.01
    (True, True)
    >>> two_sample_closeness_test([50, 30, 20], [48, 31, 21], mode="threshold").decision()
    False
    """
    x = check_counts(reference_counts, "reference_counts")
    y = check_counts(counts, "counts")
    if y.shape != x.shape:
        msg = f"`reference_counts` and `counts` must be 1-D with equal length; got {x.shape}, {y.shape}."
        raise ValueError(msg)
    m1, m2 = int(x.sum()), int(y.sum())
    if m1 < 2 or m2 < 2:
        msg = (
            f"`reference_counts` and `counts` must each count at least 2 samples; got {m1} and "
            f"{m2}."
        )
        raise ValueError(msg)
    mode = check_choice(mode, "mode", TWO_SAMPLE_MODES)
    alpha = _check_level(alpha, mode)
    epsilon = check_positive(epsilon, "epsilon")
    rng, seed_used = check_seed(seed)
    z = float(_cdvv(x, y, m1, m2))
    tv = 0.5 * float(np.abs(x / m1 - y / m2).sum())
    common: dict[str, Any] = {
        "statistic": z,
        "epsilon": float(epsilon),
        "mode": mode,
        "n_batches": 1,
        "batch_size": m2,
        "batch_statistics": np.array([z]),
        "tv": tv,
        "n_samples": m2,
        "n_bins": int(x.shape[0]),
        "n_reference": m1,
        "seed_used": seed_used,
    }
    if mode == "permutation":
        b = check_int(n_resamples, "n_resamples", low=1)
        check_memory(
            3 * estimate_array_bytes((b, x.size), np.int64), "the permutation draws", "n_resamples"
        )
        xb = rng.multivariate_hypergeometric(x + y, m1, size=b)
        null = _cdvv(xb, x + y - xb, m1, m2)
        pvalue = monte_carlo_pvalue(z, null)
        result = _finalise(
            ClosenessResult(
                threshold=None,
                alpha=None,
                pvalue=pvalue,
                epsilon0=0.0,
                n_batches_rejecting=None,
                n_resamples=b,
                _null=null,
                **common,
            )
        )
        return _keep_level(result, alpha)
    thr = 0.75 * epsilon**2
    return _finalise(
        ClosenessResult(
            threshold=float(thr),
            alpha=alpha,
            pvalue=None,
            epsilon0=None,
            n_batches_rejecting=int(z > thr),
            **common,
        )
    )
