"""The relative KID test: Rel-MMD with the KID kernel, with a variance that cannot go negative."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.resources import check_time
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    check_bool,
    check_choice,
    check_int,
    check_same_width,
    check_samples,
)
from modelcompare.kernels import PolynomialKernel
from modelcompare.relative._mmd import VARIANCES, equal_rows, mmd_difference_test, subsample_equal

__all__ = ["RelKIDResult", "rel_kid"]


@result_class
class RelKIDResult(TestResult):
    """Result of :func:`rel_kid`: a test with a p-value.

    Attributes
    ----------
    statistic : float
        √n (MMD²_u(P, R) − MMD²_u(Q, R)) with the KID kernel; positive favours Q. Can be negative.
    pvalue : float
        One-sided p-value ``norm.sf(statistic, scale=√variance)`` of H0 "P is at least as close to
        R as Q" (in the KID kernel's MMD); 1.0 when the data are degenerate. ``decision(alpha)``
        rejects when ``pvalue <= alpha``: Q fits R better than P.
    variance : float
        Estimate ν̂ of the variance of the √n-scaled statistic, by ``variance_method``.
    variance_method : str
        ``"ustat"`` (never negative) or ``"bounliphone"`` (the Rel-MMD plug-in); see
        :func:`rel_kid`.
    mmd2_p, mmd2_q : float
        The unbiased estimates MMD²_u(X, Z) and MMD²_u(Y, Z).
    var_p, var_q, cov_pq : float
        Bounliphone et al.'s variance estimates of ``mmd2_p`` and ``mmd2_q`` and their covariance
        (each with its 1/n factor), reported whichever ``variance_method`` was used.
    n : int
        Sample size (of each of X, Y and Z).
    degenerate : bool
        True when ν̂ is not finite or √ν̂ ≤ 1e-6 (the data have no spread, e.g. x = y); ``pvalue``
        is then 1.
    subsampled : bool
        True when unequal samples were subsampled to the smallest size.
    seed_used : int or None
        Seed reproducing ``subsample``.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import rel_kid
    >>> rng = np.random.default_rng(1)
    >>> x, y, z = (rng.normal(size=(200, 3)) * s for s in (2.0, 1.0, 1.0))
    >>> res = rel_kid(x, y, z)
    >>> res.decision(alpha=0.05), res.variance_method, res.variance >= 0
    (True, 'ustat', True)
    """

    statistic: float
    pvalue: float
    variance: float
    variance_method: str
    mmd2_p: float
    mmd2_q: float
    var_p: float
    var_q: float
    cov_pq: float
    n: int
    degenerate: bool
    subsampled: bool
    seed_used: int | None

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "variance", "n")


def _shape(a: Any) -> tuple[int, ...]:
    """The shape of an array-like for a cost estimate; () for what validation refuses anyway."""
    try:
        return np.shape(a)
    except ValueError:  # ragged
        return ()


def rel_kid(
    x: Any,
    y: Any,
    z: Any,
    *,
    variance: str = "ustat",
    subsample: bool = False,
    seed: SeedLike = None,
    chunk_size: int | None = None,
) -> RelKIDResult:
    r"""Relative KID test: is Q closer to R than P is, in the KID kernel's MMD?

    Tests H0: MMD_k(P, R) ≤ MMD_k(Q, R) ("P is at least as close to R") against
    H1: MMD_k(P, R) > MMD_k(Q, R) with the KID kernel k(a, b) = (aᵀb/d + 1)³ (Bińkowski et al.
    2018) on the full samples, as the KID comparator of Jitkrittum et al. (2018), but by default
    with a variance estimate that cannot be negative.

    Parameters
    ----------
    x, y : array-like, shape (n, d)
        Features of the samples of the models P and Q.
    z : array-like, shape (n, d)
        Features of the reference sample.
    variance : {"ustat", "bounliphone"}
        Estimator of the variance of the √n-scaled statistic. ``"ustat"`` (default): 4 × the
        sample variance of the row means of the difference U-statistic's kernel (Notes), never
        negative. ``"bounliphone"``: the Rel-MMD plug-in n (var_p − 2 cov_pq + var_q) of
        Bounliphone et al. (2016), as Jitkrittum et al. (2018) used it; it goes negative when the
        shared reference dominates both MMD² estimates, and the test then answers p = 1.
    subsample : bool
        Subsample unequal samples to the smallest size (seeded); otherwise unequal sizes raise.
    seed : int, Generator or None
        Random source of ``subsample``.
    chunk_size : int, optional
        Rows per chunk (the edge of the square Gram-matrix tiles).

    Returns
    -------
    RelKIDResult
        The statistic, the p-value, the variance estimate and the parts they are made of.

    Raises
    ------
    ValueError
        As :func:`rel_mmd` (unequal sizes without ``subsample=True``, mismatched widths, fewer
        than 3 rows, NaN/inf), an unknown ``variance``, or features on which the cubic kernel
        overflows float64.
    ResourceLimitError
        When the estimated time (six n × n Gram matrices) passes ``MODELCOMPARE_MAX_SECONDS``
        (one hour by default).

    Notes
    -----
    With w_i = (x_i, y_i, z_i), the difference of the one-sample U-statistics
    MMD²_u(X, Z) − MMD²_u(Y, Z) is a U-statistic of order 2 with the symmetric kernel

    .. math::

        h(i, j) = k(x_i,x_j) - k(y_i,y_j) - k(x_i,z_j) - k(x_j,z_i) + k(y_i,z_j) + k(y_j,z_i),

    the z–z terms cancelling. Its √n-scaled variance tends to 4ζ₁, ζ₁ = Var(E[h(w_1, w_2) | w_1])
    (Hoeffding 1948, Theorem 5.2), and Sen (1960) estimates ζ₁ by the sample variance of the row
    means g_i = Σ_{j≠i} h(i, j)/(n − 1), so ν̂ = 4 Σ(g_i − ḡ)²/(n − 1) ≥ 0. The Rel-MMD plug-in
    instead adds two variances and subtracts twice a covariance estimated separately; when P and
    Q are close to each other and far from R, the shared z's make the two MMD² nearly perfectly
    correlated and the covariance estimate can exceed √(var_p·var_q), so ν̂ < 0.

    ``degenerate`` flags data without spread (ν̂ ≤ 1e-12, e.g. x = y row for row), not an
    estimate that crossed zero. At P = Q = R, ζ₁ = 0: the statistic is then a degenerate
    U-statistic whose limit is not normal, and the size of the normal test there is measured in
    BENCHMARKS.md rather than promised. At P = Q ≠ R, ζ₁ > 0 and the test is asymptotically
    exact at the boundary.

    The MMD² inside is the one-sample U-statistic of Rel-MMD (the x_i–z_i diagonal is removed
    from the cross term), which differs from the subset KID of :func:`kid` by O(1/n).

    References
    ----------
    .. [1] W. Bounliphone et al. A Test of Relative Similarity for Model Selection in Generative
       Models. ICLR 2016. arXiv:1511.04581.
    .. [2] M. Bińkowski, D. J. Sutherland, M. Arbel, A. Gretton. Demystifying MMD GANs. ICLR 2018.
       arXiv:1801.01401.
    .. [3] W. Hoeffding. A Class of Statistics with Asymptotically Normal Distribution. Annals of
       Mathematical Statistics 19 (1948), 293–325.
    .. [4] P. K. Sen. On Some Convergence Properties of U-Statistics. Calcutta Statistical
       Association Bulletin 10 (1960), 1–18.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import rel_kid
    >>> rng = np.random.default_rng(1)
    >>> z = rng.normal(size=(300, 4))
    >>> x = 2.0 * rng.normal(size=(300, 4))   # P: too spread out
    >>> y = rng.normal(size=(300, 4))         # Q: matches R
    >>> rel_kid(x, y, z).pvalue < 0.05
    True
    """
    # estimated before validation, so a malformed input counts as no rows and reaches its check
    rows = [(_shape(a) or (0,))[0] for a in (x, y, z)]
    n_rows = min(rows) if subsample else rows[2]
    width = _shape(z)[1] if len(_shape(z)) == 2 else 1
    # six n × n Gram matrices (xx, yy, zz, xy, xz, yz) of 2·n²·d operations each
    check_time(
        12.0 * float(n_rows) ** 2 * width,
        "the relative KID",
        "subsample the rows (the cost grows as n²·d)",
    )
    x = check_samples(x, "x", min_samples=3)
    y = check_samples(y, "y", min_samples=3)
    z = check_samples(z, "z", min_samples=3)
    check_same_width([("x", x), ("y", y), ("z", z)], what="the relative KID")
    variance = check_choice(variance, "variance", VARIANCES)
    subsample = check_bool(subsample, "subsample")
    if chunk_size is not None:
        chunk_size = check_int(chunk_size, "chunk_size", low=1)
    rng, seed_used = check_seed(seed)
    subsampled = False
    if subsample:
        (x, y, z), subsampled = subsample_equal([x, y, z], rng)
    n = equal_rows(x, y, z, what="the relative KID")
    statistic, nu, pvalue, degenerate, moments = mmd_difference_test(
        x, y, z, PolynomialKernel(degree=3), variance=variance, chunk_size=chunk_size
    )
    return RelKIDResult(
        statistic=statistic,
        pvalue=pvalue,
        variance=nu,
        variance_method=variance,
        n=n,
        degenerate=degenerate,
        subsampled=subsampled,
        seed_used=seed_used,
        **moments,
    )
