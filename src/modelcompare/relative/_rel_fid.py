"""The relative FID test: is FID(P, R) larger than FID(Q, R) at the sample size used?

Two schemes share one result: a delete-a-group jackknife of the full-sample difference (the
default; every row counts) and the older t-test over disjoint blocks (the block-size FID).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import numpy as np
from scipy import stats

from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.resources import check_time
from modelcompare._foundation.results import (
    ConfidenceInterval,
    TestResult,
    check_alpha,
    result_class,
)
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    check_choice,
    check_int,
    check_same_width,
    check_samples,
)
from modelcompare.relative._image_metrics import (
    FID_METHODS,
    Moments,
    fid_flops,
    fid_of,
    refuse_overflow,
)

__all__ = ["SCHEMES", "RelFIDResult", "rel_fid"]

#: How the relative FID gets its standard error.
SCHEMES = ("jackknife", "blocks")

F = TypeVar("F", bound=Callable[..., Any])


def _renamed_keywords(**renames: str) -> Callable[[F], F]:
    """Accept each old keyword ``old=new`` with a :class:`FutureWarning` naming the new one."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        msg = f"{fn.__name__}() got both `{old}` and `{new}`; pass `{new}` only."
                        raise TypeError(msg)
                    warnings.warn(
                        f"`{old}` of {fn.__name__}() is renamed `{new}`; the old name will be "
                        "removed in a future release.",
                        FutureWarning,
                        stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return inner  # type: ignore[return-value]

    return wrap


@result_class
class RelFIDResult(TestResult):
    """Result of :func:`rel_fid`: a test with a p-value, and a t interval.

    Attributes
    ----------
    statistic : float
        ``"jackknife"``: the full-sample difference FID(P, R) − FID(Q, R). ``"blocks"``: the mean
        over the K blocks of FID(P_k, R_k) − FID(Q_k, R_k). Positive favours Q.
    pvalue : float
        One-sided t p-value (K − 1 degrees of freedom) of the null in ``hypothesis``;
        ``decision(alpha)`` rejects when ``pvalue <= alpha``: Q fits R better than P. 1.0 when
        the result is degenerate.
    t : float
        The t statistic, ``statistic / std_error``.
    std_error : float
        Standard error of ``statistic``: the delete-a-group jackknife's, or the standard
        deviation (ddof = 1) of the block differences over √K.
    replicates : numpy.ndarray
        The K leave-one-group-out differences (``"jackknife"``) or block differences
        (``"blocks"``).
    hypothesis : str
        The null hypothesis tested, with the sample (or block) sizes it refers to.
    scheme : str
        ``"jackknife"`` or ``"blocks"``.
    fid_p, fid_q : float
        FID(P, R) and FID(Q, R) on the full samples.
    n_blocks : int
        The number K of groups (jackknife) or disjoint blocks.
    block_size : int
        ``"blocks"``: rows of x and of y in each block; ``"jackknife"``: the rows of x in the
        smallest deleted group.
    reference_block_size : int
        The same for z.
    method : str
        Route to the matrix square root (see :func:`fid`).
    degenerate : bool
        True when the replicates have no spread (e.g. constant data) or one is not finite
        (features near the float64 overflow limit); ``pvalue`` is then 1.
    seed_used : int or None
        Seed reproducing the split into groups or blocks.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import rel_fid
    >>> rng = np.random.default_rng(0)
    >>> x, y, z = (rng.normal(size=(1000, 2)) + [s, 0.0] for s in (1.0, 0.0, 0.0))
    >>> res = rel_fid(x, y, z, seed=0)
    >>> res.decision(alpha=0.05), res.scheme, res.replicates.shape
    (True, 'jackknife', (10,))
    >>> low, high = res.confidence_interval(confidence_level=0.9)
    >>> bool(low > 0)
    True
    """

    statistic: float
    pvalue: float
    t: float
    std_error: float
    replicates: np.ndarray
    hypothesis: str
    scheme: str
    fid_p: float
    fid_q: float
    n_blocks: int
    block_size: int
    reference_block_size: int
    method: str
    degenerate: bool
    seed_used: int | None

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "scheme", "n_blocks")

    @property
    def block_differences(self) -> np.ndarray:
        """The replicates under their earlier name (the block differences of ``"blocks"``)."""
        return self.replicates

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Two-sided t interval for the difference named in ``hypothesis``.

        Parameters
        ----------
        confidence_level : float
            Coverage c in (0, 1): ``statistic`` ± t_{K−1, (1 + c)/2} · ``std_error``. With
            c = 1 − 2α the lower end is above 0 exactly when ``decision(alpha)`` rejects.

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``; ``(nan, nan)`` when the result is degenerate with a non-finite
            difference.
        """
        level = check_alpha(confidence_level, "confidence_level")
        half = float(stats.t.ppf(0.5 + level / 2.0, self.n_blocks - 1)) * self.std_error
        return ConfidenceInterval(self.statistic - half, self.statistic + half)


def _blocks(n: int, size: int, n_blocks: int, rng: np.random.Generator) -> np.ndarray:
    """Row indices of ``n_blocks`` disjoint random blocks of ``size`` rows, shape (K, size)."""
    return rng.permutation(n)[: n_blocks * size].reshape(n_blocks, size)


def jackknife_groups(n: int, n_blocks: int, rng: np.random.Generator) -> list[np.ndarray]:
    """All n rows, shuffled and cut into ``n_blocks`` groups whose sizes differ by at most 1."""
    return np.array_split(rng.permutation(n), n_blocks)


def _flops(nx: int, ny: int, nz: int, d: int, k: int, method: str, scheme: str) -> float:
    full = fid_flops(nx, nz, d, method) + fid_flops(ny, nz, d, method, ref_ready=True)
    if scheme == "jackknife":  # K leave-one-group-out pairs of nearly full size
        keep = (k - 1) / k
        sizes = (int(nx * keep), int(ny * keep), int(nz * keep))
        return full + k * (
            fid_flops(sizes[0], sizes[2], d, method)
            + fid_flops(sizes[1], sizes[2], d, method, ref_ready=True)
        )
    m, mz = min(nx, ny) // k, nz // k
    block = fid_flops(m, mz, d, method) + fid_flops(m, mz, d, method, ref_ready=True)
    return full + k * block


def _rel_fid_iv(
    x: Any, y: Any, z: Any, n_blocks: Any, method: Any, scheme: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, str, str]:
    x = check_samples(x, "x")
    y = check_samples(y, "y")
    z = check_samples(z, "z")
    check_same_width([("x", x), ("y", y), ("z", z)], what="relative FID")
    n_blocks = check_int(n_blocks, "n_blocks", low=2)
    method = check_choice(method, "method", FID_METHODS)
    scheme = check_choice(scheme, "scheme", SCHEMES)
    nx, ny, nz = x.shape[0], y.shape[0], z.shape[0]
    sizes = {"x": nx, "y": ny, "z": nz}
    if scheme == "blocks":
        per = {name: n // n_blocks for name, n in sizes.items()}
        need = "each block needs at least 2 rows of each sample"
    else:  # every group holds a row, and deleting the largest one leaves at least 2
        per = {name: (n - -(-n // n_blocks) if n >= n_blocks else 0) for name, n in sizes.items()}
        need = "each group needs a row and each sample less one group at least 2 rows"
    short = [name for name, rows in per.items() if rows < 2]
    if short:
        msg = (
            f"`n_blocks` = {n_blocks} leaves fewer than 2 rows of `{short[0]}` with "
            f'scheme="{scheme}" (n_x = {nx}, n_y = {ny}, n_z = {nz}); {need}: lower '
            "`n_blocks` or pass more rows."
        )
        raise ValueError(msg)
    return x, y, z, n_blocks, method, scheme


@_renamed_keywords(n_resamples="n_blocks", n_bootstrap="n_blocks")
def rel_fid(
    x: Any,
    y: Any,
    z: Any,
    *,
    n_blocks: int = 10,
    scheme: str = "jackknife",
    method: str = "eigh",
    seed: SeedLike = None,
) -> RelFIDResult:
    r"""Relative FID test of H0: E[FID_n(P, R)] ≤ E[FID_n(Q, R)] at the sample sizes used.

    Parameters
    ----------
    x, y : array-like, shape (n_x, d) and (n_y, d)
        Features of the samples of the models P and Q.
    z : array-like, shape (n_z, d)
        Features of the reference sample. Sample sizes may differ; give x and y the same size
        for the hypothesis to compare the two models on an equal footing (FID's bias depends on
        the size).
    n_blocks : int
        The number K ≥ 2 of groups deleted one at a time (``"jackknife"``) or of disjoint
        blocks (``"blocks"``); the t reference has K − 1 degrees of freedom. Default 10, the
        number of subsamples of Bińkowski et al. (2018) and Jitkrittum et al. (2018).
    scheme : {"jackknife", "blocks"}
        ``"jackknife"`` (default): the full-sample difference FID(P, R) − FID(Q, R) with a
        delete-a-group jackknife standard error; H0 is about FIDs at the sizes used.
        ``"blocks"``: the earlier t-test over K disjoint blocks of ⌊min(n_x, n_y)/K⌋ rows;
        H0 is about FIDs at the block size, and the left-over rows are not used.
    method : {"eigh", "sqrtm", "eigvals"}
        Route to the matrix square root, as in :func:`fid`.
    seed : int, Generator or None
        Random source of the split into groups or blocks (rows are shuffled first, so ordered
        data are fine).

    Returns
    -------
    RelFIDResult
        The difference, its t p-value and standard error, the K replicates, the full-sample FIDs
        and the ``hypothesis`` tested; ``confidence_interval(confidence_level)`` gives the t
        interval.

    Raises
    ------
    ValueError
        For mismatched widths, NaN/inf or complex input, an unknown ``scheme`` or ``method``,
        too few rows for ``n_blocks``, or when FID(P, R) or FID(Q, R) overflows float64 on the
        full samples (FID is not scale-invariant: rescale all three samples by one common factor
        yourself). A replicate whose FID overflows instead gives p = 1 and ``degenerate=True``
        with a :class:`~modelcompare.DegenerateDataWarning`.
    ResourceLimitError
        When the estimated cost passes the time limit (``MODELCOMPARE_MAX_SECONDS``, one hour by
        default): the message says how to make the call cheaper.

    Notes
    -----
    **What is tested.** An FID estimated from n rows is biased upward by a term of order d/n
    that depends on the covariances (Bińkowski et al. 2018; Chong & Forsyth 2020), so two
    models of equal population FID can differ at any finite n, and the difference of the biases,
    O(d/n), shrinks more slowly relative to the noise than a test needs. No test of the
    *population* FID holds its level at every n; this one states its null at the sample sizes
    used, ``hypothesis`` records them, and its size for that null is measured below.

    **The jackknife** (default). The rows of x, y and z are shuffled (seeded) and cut into K
    groups each; Δ_(g) = FID(P_{−g}, R_{−g}) − FID(Q_{−g}, R_{−g}) deletes group g of all three
    samples (the shared reference enters both terms, which cancels much of its noise). The
    delete-a-group jackknife variance of the full-sample difference Δ is

    .. math::

        \hat v = \frac{K-1}{K}\sum_{g=1}^{K} \bigl(\Delta_{(g)} - \bar\Delta\bigr)^2,

    (Quenouille 1956; Tukey 1958; Efron & Stein 1981 show it is conservative on average), and
    t = Δ/√v̂ is referred to Student's t with K − 1 degrees of freedom, the usual reference for a
    jackknife with few groups (Rust & Rao 1996). The cost is 2K + 2 FIDs of nearly full size:
    O(K) covariance eigenproblems, none per row.

    **The blocks** (``scheme="blocks"``). D_k = FID(P_k, R_k) − FID(Q_k, R_k) over K disjoint
    blocks are independent, and the one-sided t-test on them tests H0: E[D_k] ≤ 0 for FIDs of
    m-row blocks, whose bias is K times larger than at the full size. It uses fewer rows in each
    FID and has less power.

    **Calibration.** At P = Q both schemes are symmetric about 0 and hold their level up to the
    t approximation. Measured size and power (α = 0.05; BENCHMARKS.md,
    ``benchmarks/rel_fid_study.py``) are reported there for both schemes, including two models
    of equal population FID that differ in kind, where the FIDs at the sizes used differ and a
    rejection is correct for the stated null.

    References
    ----------
    .. [1] M. Bińkowski, D. J. Sutherland, M. Arbel, A. Gretton. Demystifying MMD GANs. ICLR 2018
       (FID's bias; 10 subsamples). arXiv:1801.01401.
    .. [2] M. J. Chong, D. Forsyth. Effectively Unbiased FID and Inception Score and Where to Find
       Them. CVPR 2020.
    .. [3] B. Efron, C. Stein. The Jackknife Estimate of Variance. Annals of Statistics 9 (1981),
       586–596.
    .. [4] K. F. Rust, J. N. K. Rao. Variance Estimation for Complex Surveys Using Replication
       Techniques. Statistical Methods in Medical Research 5 (1996), 283–310.
    .. [5] M. Heusel et al. GANs Trained by a Two Time-Scale Update Rule Converge to a Local Nash
       Equilibrium. NeurIPS 2017. arXiv:1706.08500.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import rel_fid
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(1000, 3))
    >>> x = rng.normal(size=(1000, 3)) + [0.5, 0.0, 0.0]
    >>> y = rng.normal(size=(1000, 3))
    >>> res = rel_fid(x, y, z, seed=0)
    >>> res.decision(alpha=0.05), res.hypothesis.startswith("H0: E[FID_n(P, R)]")
    (True, True)
    """
    x, y, z, n_blocks, method, scheme = _rel_fid_iv(x, y, z, n_blocks, method, scheme)
    nx, ny, nz = x.shape[0], y.shape[0], z.shape[0]
    check_time(
        _flops(nx, ny, nz, x.shape[1], n_blocks, method, scheme),
        "the relative FID",
        "lower `n_blocks`, subsample the rows, or reduce the feature dimension",
    )
    rng, seed_used = check_seed(seed)
    mom_z = Moments(z)
    fid_p = fid_of(Moments(x), mom_z, method)
    fid_q = fid_of(Moments(y), mom_z, method)
    refuse_overflow(fid_p, "`x` and `z`", (x, z))
    refuse_overflow(fid_q, "`y` and `z`", (y, z))
    if scheme == "blocks":
        m, mz = min(nx, ny) // n_blocks, nz // n_blocks
        ix, iy, iz = (
            _blocks(nx, m, n_blocks, rng),
            _blocks(ny, m, n_blocks, rng),
            _blocks(nz, mz, n_blocks, rng),
        )
        diffs = np.empty(n_blocks)
        for k in range(n_blocks):
            ref = Moments(z[iz[k]])
            diffs[k] = fid_of(Moments(x[ix[k]]), ref, method) - fid_of(
                Moments(y[iy[k]]), ref, method
            )
        estimate = float(diffs.mean()) if np.isfinite(diffs).all() else float("nan")
        scale = float(diffs.std(ddof=1) / np.sqrt(n_blocks))
        hypothesis = (
            f"H0: E[FID_m(P, R)] <= E[FID_m(Q, R)] at the block size (m = {m} rows of x and y, "
            f"{mz} of z)"
        )
        sizes = (m, mz)
    else:
        gx, gy, gz = (jackknife_groups(n, n_blocks, rng) for n in (nx, ny, nz))
        diffs = np.empty(n_blocks)
        for g in range(n_blocks):
            ref = Moments(np.delete(z, gz[g], axis=0))
            diffs[g] = fid_of(Moments(np.delete(x, gx[g], axis=0)), ref, method) - fid_of(
                Moments(np.delete(y, gy[g], axis=0)), ref, method
            )
        estimate = float(fid_p - fid_q)
        with np.errstate(over="ignore", invalid="ignore"):
            scale = float(np.sqrt((n_blocks - 1) / n_blocks * np.sum((diffs - diffs.mean()) ** 2)))
        hypothesis = (
            f"H0: E[FID_n(P, R)] <= E[FID_n(Q, R)] at the sample sizes used (n_x = {nx}, "
            f"n_y = {ny}, n_z = {nz})"
        )
        sizes = (min(len(g) for g in gx), min(len(g) for g in gz))
    return _t_result(
        estimate, scale, diffs, scheme, hypothesis, (fid_p, fid_q), sizes, method, seed_used
    )


def _t_result(
    estimate: float,
    se: float,
    diffs: np.ndarray,
    scheme: str,
    hypothesis: str,
    fids: tuple[float, float],
    sizes: tuple[int, int],
    method: str,
    seed_used: int | None,
) -> RelFIDResult:
    k = diffs.size
    if not np.isfinite(diffs).all():
        se = float("nan")
    degenerate = not (np.isfinite(se) and se > 0.0)
    if not np.isfinite(se):
        # A replicate whose FID overflows float64 leaves no usable spread: no decision.
        warnings.warn(
            f"{int(np.count_nonzero(~np.isfinite(diffs)))} of {k} replicates are not finite: "
            "the features are near the float64 overflow limit. Returning p = 1 with "
            "degenerate=True; divide all three samples by one common factor and rerun.",
            DegenerateDataWarning,
            stacklevel=3,
        )
    elif degenerate:
        warnings.warn(
            "Every replicate difference is identical (constant data?); they have no spread. "
            "Returning p = 1 with degenerate=True.",
            DegenerateDataWarning,
            stacklevel=3,
        )
    t = estimate / se if not degenerate else float("nan")
    pvalue = 1.0 if degenerate else float(np.clip(stats.t.sf(t, k - 1), 0.0, 1.0))
    return RelFIDResult(
        statistic=float(estimate),
        pvalue=pvalue,
        t=float(t),
        std_error=float(se),
        replicates=diffs,
        hypothesis=hypothesis,
        scheme=scheme,
        fid_p=float(fids[0]),
        fid_q=float(fids[1]),
        n_blocks=k,
        block_size=int(sizes[0]),
        reference_block_size=int(sizes[1]),
        method=method,
        degenerate=bool(degenerate),
        seed_used=seed_used,
    )
