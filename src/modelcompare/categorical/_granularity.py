"""Granularity evaluation (Regol, Kroon & Coates 2023, Algorithm 1): bin Ω ever more finely and
report the finest level at which the model still passes a closeness test against the reference."""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.deprecation import renamed_parameters
from modelcompare._foundation.errors import ModelCompareWarning
from modelcompare._foundation.results import ScoreResult, check_alpha, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed, spawn
from modelcompare._foundation.validation import check_bool, check_choice, check_fraction
from modelcompare.categorical._binning import draw_cuts, limit_message, make_engine, max_bins
from modelcompare.categorical._closeness import (
    MODES,
    P_VALUE_MODES,
    TWO_SAMPLE_MODES,
    ClosenessResult,
    batch_count,
    closeness_test,
    two_sample_closeness_test,
)
from modelcompare.categorical._space import check_rows
from modelcompare.categorical._stairs import CategoricalReference

__all__ = ["GranularityResult", "granularity"]

_CALIBRATED = ("cantelli", "asymptotic", "mc", "permutation")


@result_class
class GranularityResult(ScoreResult):
    """Granularity reached by a model (a score: higher is better), with the test at every level k.

    Attributes
    ----------
    value : int
        The granularity: the largest accepted k, that is the last level of ``k_values`` before the
        first rejecting one (``first_rejected_k − 1`` for the default consecutive levels). When
        every level accepts it is the last k (``all_accepted`` is then True); when even the first
        level rejects it is one below it, ``k_values[0] − 1`` (s − 1 by default: even k = s fails).
    first_rejected_k : int
        The first k whose test rejects, or the last k if none does. This is what the authors'
        figures encode ("return this k as the highest granularity level reached").
    all_accepted : bool
        True when no level rejected (``first_rejected_k`` is then the last k, not a rejection).
    k_values : numpy.ndarray
        The levels evaluated (all of them; the paper stops at the first rejection, which gives
        the same scores).
    decisions : numpy.ndarray of bool
        Per level, the closeness test's ``decision(alpha)`` (True: H0 rejected at that k).
    tv, statistics, thresholds : numpy.ndarray
        Per level: binned empirical TV ½ Σ|p^B − q̂^B|, test statistic and its threshold at
        ``alpha``, the test's ``critical_value(alpha)``.
    pvalues : numpy.ndarray or None
        Per-level p-values for the modes that have one (``"mc"``, ``"asymptotic"``,
        ``"permutation"``); None for the threshold modes.
    n_bins : numpy.ndarray
        Bins actually used per level (below k when a stair has zero splitting gain).
    tests : tuple of ClosenessResult
        The full closeness-test result per level: with a ``pvalue`` for ``"mc"``,
        ``"asymptotic"`` and ``"permutation"``, with a ``threshold`` at ``alpha`` for the other
        modes.
    epsilon : float
        Tolerance, a bound on the ℓ2 norm ‖p^B − q^B‖₂.
    alpha : float
        The level of each closeness test.
    mode : str
        Closeness-test mode.
    split : bool
        Whether bins were chosen on a separate split of the samples.
    two_sample : bool
        Whether the reference was given by samples.
    n_samples, n_test_samples : int
        m, and the samples the tests used (m minus the selection half when ``split``).
    n_stairs : int
        S (positive stairs); s = S + 1.
    seed_used : int or None
        The seed that reproduces the run.

    Examples
    --------
    >>> from modelcompare import granularity, perturb, stair_distribution
    >>> p = stair_distribution(6, 6, 3, 2.0)
    >>> res = granularity(p, perturb(p, l1=0.2, seed=3).sample(4000, seed=1), seed=0)
    >>> res.value, res.first_rejected_k, res.all_accepted
    (4, 5, False)
    """

    value: int
    first_rejected_k: int
    all_accepted: bool
    k_values: np.ndarray
    decisions: np.ndarray
    tv: np.ndarray
    statistics: np.ndarray
    thresholds: np.ndarray
    pvalues: np.ndarray | None
    n_bins: np.ndarray
    tests: tuple[ClosenessResult, ...]
    epsilon: float
    alpha: float
    mode: str
    split: bool
    two_sample: bool
    n_samples: int
    n_test_samples: int
    n_stairs: int
    seed_used: int | None

    _repr_fields: ClassVar[tuple[str, ...]] = (
        "value",
        "first_rejected_k",
        "all_accepted",
        "mode",
    )

    def table(self) -> str:
        """Per-level table as plain text.

        Returns
        -------
        str
            One line per level: k, bins, binned TV, statistic, threshold and the decision.

        Examples
        --------
        >>> from modelcompare import granularity, stair_distribution
        >>> p = stair_distribution(6, 6, 3, 2.0)
        >>> print(granularity(p, p.sample(2000, seed=1), epsilon=0.5, seed=0).table().splitlines()[0])
          k  bins  binned TV   statistic   threshold  decision
        """
        lines = [
            f"{'k':>3} {'bins':>5} {'binned TV':>10} {'statistic':>11} {'threshold':>11}  decision"
        ]
        for i, k in enumerate(self.k_values):
            lines.append(
                f"{int(k):>3} {int(self.n_bins[i]):>5} {self.tv[i]:>10.4f} {self.statistics[i]:>11.3e}"
                f" {self.thresholds[i]:>11.3e}  {'reject' if self.decisions[i] else 'accept'}"
            )
        return "\n".join(lines)


def _check_k_range(n_bins_grid: Any, s: int, limit: int, why: str) -> list[int]:
    """Sorted distinct levels, each an int in [s, limit]; checked before anything is computed."""
    if isinstance(n_bins_grid, range) and n_bins_grid:  # bounded up front, never materialised first
        top = max(n_bins_grid[0], n_bins_grid[-1])
        if top > limit:
            raise ValueError(limit_message("n_bins_grid", top, limit, why))
    if isinstance(n_bins_grid, str | bytes) or not isinstance(n_bins_grid, Iterable):
        msg = f"`n_bins_grid` must be an iterable of ints; got {n_bins_grid!r}."
        raise TypeError(msg)
    ks: set[int] = set()
    for k in n_bins_grid:
        if isinstance(k, bool | np.bool_) or not isinstance(k, numbers.Integral):
            msg = f"`n_bins_grid` must be an iterable of ints; got the element {k!r}."
            raise TypeError(msg)
        if int(k) > limit:
            raise ValueError(limit_message("n_bins_grid", int(k), limit, why))
        ks.add(int(k))
    out = sorted(ks)
    if not out or out[0] < s:
        msg = f"`n_bins_grid` must be non-empty with every k >= s={s}; got {n_bins_grid!r}."
        raise ValueError(msg)
    return out


def _granularity_iv(
    p: Any,
    samples: Any,
    reference_samples: Any,
    n_bins_grid: Any,
    mode: str | None,
    train_fraction: float,
) -> tuple[CategoricalReference | None, np.ndarray, np.ndarray | None, list[int], str]:
    if p is not None and not isinstance(p, CategoricalReference):
        msg = (
            "`p` must be a CategoricalReference (stair_distribution, CategoricalReference.from_table"
            f" or .from_function), or None with `reference_samples`; got {type(p).__name__}."
        )
        raise TypeError(msg)
    two_sample = reference_samples is not None
    if p is None and not two_sample:
        msg = "`p` is None: give the reference as a CategoricalReference or as `reference_samples`."
        raise ValueError(msg)
    if p is not None:
        rows = p.check(samples, "samples")
        ref_rows = p.check(reference_samples, "reference_samples") if two_sample else None
    else:
        ref_rows = check_rows(reference_samples, "reference_samples", min_samples=2)
        rows = check_rows(samples, "samples", length=ref_rows.shape[1])
        common = np.promote_types(ref_rows.dtype, rows.dtype)  # equal rows must hash equally
        ref_rows, rows = ref_rows.astype(common, copy=False), rows.astype(common, copy=False)
    if rows.shape[0] < 2:
        msg = f"`samples` needs at least 2 rows; got {rows.shape[0]}."
        raise ValueError(msg)
    if two_sample:
        mode = check_choice("threshold" if mode is None else mode, "mode", TWO_SAMPLE_MODES)
    else:
        mode = check_choice("paper" if mode is None else mode, "mode", MODES)
    n_st = p.n_stairs if p is not None else 1
    s = n_st + 1 if p is not None else 1
    n_pooled = rows.shape[0] + (ref_rows.shape[0] if ref_rows is not None else 0)
    limit, why = max_bins(p, adaptive=True, n_rows=n_pooled)
    if n_bins_grid is None:
        ks = list(range(s, 2 * s + 1)) if p is not None else [2, 3, 4]
        ks = [k for k in ks if k <= limit]  # tiny spaces: the default stops at the finest level
    else:
        ks = _check_k_range(n_bins_grid, s, limit, why)
    check_fraction(train_fraction, "train_fraction")
    return p, rows, ref_rows, ks, mode


@renamed_parameters(k_range="n_bins_grid", split_fraction="train_fraction")
def granularity(
    p: CategoricalReference | None,
    samples: Any,
    *,
    epsilon: float = 0.1,
    alpha: float = 0.05,
    n_bins_grid: Any = None,
    mode: str | None = None,
    split: bool = False,
    train_fraction: float = 0.5,
    reference_samples: Any = None,
    epsilon0: float | None = None,
    n_resamples: int = 999,
    seed: SeedLike = None,
) -> GranularityResult:
    """Granularity of a categorical generative model against a reference (Algorithm 1).

    For k = s, …, 2s (s = S + 1 with S positive stairs of p): build B*_k from (p, q̂), bin p and the
    counts, run the closeness test at tolerance ε and level α. The score ``value`` is the finest
    level the model passes before the first rejection (the authors' figures report
    ``first_rejected_k``, the level at which it first fails).

    Parameters
    ----------
    p : CategoricalReference or None
        The known reference with its stairs (level sets). In the two-sample mode p may be None
        (the whole Ω is then one stair, levels k = 2, 3, 4) or a reference whose stairs are used
        and whose probabilities are ignored.
    samples : array-like, shape (m, L), or DataFrame of categoricals
        Draws from the model q (0-based categories). Integer indices are accepted for table
        references.
    epsilon : float
        ε_test, a bound on the ℓ2 norm ‖p^B − q^B‖₂ (default 0.1, the paper's).
    alpha : float
        The level α of each closeness test, in (0, 1) (default 0.05).
    n_bins_grid : iterable of int, optional
        The granularities k (numbers of bins) to evaluate (default s..2s), each at most the finest partition: |Ω⁺| + 1 with a
        reference, the number of pooled rows without one. A ``range`` is bounded before it is
        iterated.
    mode : str, optional
        Closeness test (see :func:`closeness_test`): ``"paper"`` (default, the authors'
        batch-majority rule), ``"amplified"``, ``"cantelli"``, ``"asymptotic"``, ``"mc"`` or
        ``"tv-bound"``. Two-sample: ``"threshold"`` (default) or ``"permutation"``.
    split : bool
        If True, choose B*_k on a random ``train_fraction`` of the samples and test on the rest.
        This removes the selection bias (calibrated modes then hold their level α per k under
        q = p) at the price of fewer tested samples and a B*_k fitted to a noisier q̂.
    train_fraction : float
        Share of the samples used to choose the bins when ``split``.
    reference_samples : array-like, optional
        Draws from the reference, for the two-sample mode (CDVV statistic on the binned counts).
        The sign split uses p̂ − q̂.
    epsilon0 : float, optional
        Null radius of the ``"cantelli"``/``"asymptotic"`` modes (default ε/2).
    n_resamples : int
        Monte Carlo draws (``"mc"``) or permutations (``"permutation"``).
    seed : int, Generator or None
        Split, extra cuts and test randomness.

    Returns
    -------
    GranularityResult
        ``value`` is the granularity; ``decisions`` and ``tests`` hold the test at every level.

    Raises
    ------
    TypeError
        If ``p`` is neither a :class:`CategoricalReference` nor None, or ``n_bins_grid`` is not an
        iterable of ints.
    ValueError
        For invalid samples, a level below s or above the finest partition, or a bad option.

    Notes
    -----
    **Selection bias.** Without ``split``, B*_k is chosen from the same q̂ it tests, so the binned TV
    and T over-fit sampling noise; at k = 2s − 1 the binned TV equals the full empirical
    d_TV(p, q̂). No level can hold in that mode: at m = 10⁴ samples of p itself are rejected at
    ε = 0.1. The default keeps the paper's method; use ``split=True`` with a calibrated mode
    (``"cantelli"`` or ``"mc"``) for a decision with a level. With ``split`` the per-level
    false-rejection rate under q = p is ≤ α; the chance that q = p scores below the last level is
    at most (number of levels)·α.

    References
    ----------
    .. [1] F. Regol, A. Kroon, M. Coates. Evaluation of Categorical Generative Models - Bridging the
       Gap Between Real and Synthetic Data. ICASSP 2023 (arXiv:2210.16405).

    Examples
    --------
    >>> from modelcompare import granularity, stair_distribution
    >>> p = stair_distribution(6, 6, 3, 2.0)
    >>> res = granularity(p, p.sample(2000, seed=1), epsilon=0.18, seed=0)
    >>> res.k_values.tolist()
    [4, 5, 6, 7, 8]
    >>> res.value, res.first_rejected_k, res.decisions.tolist()
    (6, 7, [False, False, False, True, True])
    >>> calibrated = granularity(p, p.sample(4000, seed=1), split=True, mode="cantelli", seed=0)
    >>> calibrated.value, calibrated.all_accepted
    (8, True)
    """
    p, rows, ref_rows, ks, mode = _granularity_iv(
        p, samples, reference_samples, n_bins_grid, mode, train_fraction
    )
    two_sample = ref_rows is not None
    split = check_bool(split, "split")
    if not split and mode in _CALIBRATED:
        warnings.warn(
            f"mode={mode!r} with split=False: the bins B*_k are chosen on the tested samples, so the "
            "level alpha does not hold (selection bias). Use split=True for a calibrated decision.",
            ModelCompareWarning,
            stacklevel=2,
        )
    alpha = check_alpha(alpha)
    rng, seed_used = check_seed(seed)
    r_split, r_cuts, r_tests = spawn(rng, 3)
    fit_rows, test_rows, fit_ref, test_ref = rows, rows, ref_rows, ref_rows
    if split:

        def halves(x: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
            n_fit = math.floor(train_fraction * x.shape[0])
            if n_fit < 1 or x.shape[0] - n_fit < 2:
                msg = f"`{name}` has too few rows ({x.shape[0]}) to split at {train_fraction}."
                raise ValueError(msg)
            perm = r_split.permutation(x.shape[0])
            return x[perm[:n_fit]], x[perm[n_fit:]]

        fit_rows, test_rows = halves(rows, "samples")
        if ref_rows is not None:
            fit_ref, test_ref = halves(ref_rows, "reference_samples")
    if mode in ("paper", "amplified") and test_rows.shape[0] // batch_count(mode, alpha) < 2:
        msg = (
            f"`samples` has {test_rows.shape[0]} rows to test; mode {mode!r} needs at least 2 per "
            f"batch ({batch_count(mode, alpha)} batches)."
        )
        raise ValueError(msg)
    n_st = p.n_stairs if p is not None else 1
    chunk_seed = int(r_cuts.integers(2**62))
    cuts = draw_cuts(r_cuts, n_st, max(ks) - (2 * n_st + int(p is not None)))
    engine = make_engine(p, fit_rows, ref_rows=fit_ref, chunk_seed=chunk_seed)
    feats = engine.features(test_rows)
    ref_feats = engine.features(test_ref) if test_ref is not None else None
    level = None if mode in P_VALUE_MODES else alpha  # a p-value mode stores no level
    tests: list[ClosenessResult] = []
    for k, r_k in zip(ks, spawn(r_tests, len(ks))):
        binning = engine.binning(k, cuts)
        counts = binning._counts_from_features(feats)
        if two_sample:
            ref_counts = binning._counts_from_features(ref_feats)
            res = two_sample_closeness_test(
                ref_counts,
                counts,
                epsilon=epsilon,
                alpha=level,
                mode=mode,
                n_resamples=n_resamples,
                seed=r_k,
            )
        else:
            res = closeness_test(
                binning.p_binned,
                counts,
                epsilon=epsilon,
                alpha=level,
                mode=mode,
                epsilon0=epsilon0,
                n_resamples=n_resamples,
                seed=r_k,
            )
        tests.append(res)
    # every level decides at `alpha`: a threshold mode ran at it, a p-value mode compares with it
    decisions = np.array([t.decision(alpha) for t in tests], dtype=bool)
    thresholds = np.array([t.critical_value(alpha) for t in tests])
    pvalues: np.ndarray | None = (
        None if mode not in P_VALUE_MODES else np.array([t.pvalue for t in tests], dtype=float)
    )
    hit = np.flatnonzero(decisions)
    if not hit.size:  # every level accepts
        value = first = ks[-1]
    else:
        i = int(hit[0])
        first = ks[i]
        value = ks[i - 1] if i > 0 else ks[0] - 1
    return GranularityResult(
        value=int(value),
        first_rejected_k=int(first),
        all_accepted=not bool(hit.size),
        k_values=np.array(ks),
        decisions=decisions,
        tv=np.array([t.tv for t in tests]),
        statistics=np.array([t.statistic for t in tests]),
        thresholds=thresholds,
        pvalues=pvalues,
        n_bins=np.array([t.n_bins for t in tests]),
        tests=tuple(tests),
        epsilon=float(epsilon),
        alpha=alpha,
        mode=mode,
        split=bool(split),
        two_sample=two_sample,
        n_samples=int(rows.shape[0]),
        n_test_samples=int(test_rows.shape[0]),
        n_stairs=n_st,
        seed_used=seed_used,
    )
