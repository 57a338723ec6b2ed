"""TARP coverage (Lemos et al. 2023): coverage values, their ECP curve and a one-sample KS test.

Two conventions: ours (z-scored θ, a fixed level grid in [0, 1]) and sbi's (min–max scaled θ, the
edges of a histogram of the coverage values), with the same valid KS test in both.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from modelcompare._foundation.deprecation import renamed_parameters
from modelcompare._foundation.resources import check_memory, estimate_array_bytes
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import check_bool, check_choice, check_int, check_samples
from modelcompare.posterior._calibration._sbc import draw_posterior
from modelcompare.posterior._flows._flows import check_pairs

__all__ = ["TARPResult", "area_to_curve", "tarp"]

_CONVENTIONS = ("modelcompare", "sbi")
#: sbi adds this to max − min when it rescales θ (``z_score_theta=True``).
_SBI_RANGE_EPS = 1e-10


@result_class
class TARPResult(TestResult):
    """Result of :func:`tarp`.

    Attributes
    ----------
    statistic : float
        KS distance of the randomised coverage values from U(0, 1).
    pvalue : float
        Its one-sample KS p-value (exact under calibration).
    atc : float
        ∫₀¹ (ECP(γ) − γ) dγ by the trapezoid rule on ``levels`` (the curve taken as 0 below the
        grid and 1 above it): > 0 when the credible regions cover too often (over-dispersed
        posterior), < 0 when too rarely (under-dispersed or biased).
    levels, ecp : numpy.ndarray
        The expected coverage probability ECP(γ) on a grid of credibility levels γ: by default
        ECP(γ) = (1/N) Σ_n 1{f_n < γ} on a fixed grid in [0, 1]; with ``convention="sbi"``, sbi's
        curve on the edges of a histogram of the f_n (see :func:`tarp`).
    coverage_values : numpy.ndarray, shape (N,)
        f_n = (1/S) #{s : d(θ̃_{n,s}, θ_r) < d(θ_n, θ_r)}.
    n : int
        Number of pairs.
    n_posterior_samples : int
        S, posterior draws per pair.
    convention : {"modelcompare", "sbi"}
        The rescaling and level grid the curve was computed with (see :func:`tarp`).
    seed_used : int or None
        The seed of the draws, the references and the KS jitter.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(200, seed=0)
    >>> res = tarp(model.exact_flow(), theta, x, n_posterior_samples=50, seed=1)
    >>> res.decision(0.01)
    False
    """

    statistic: float
    pvalue: float
    atc: float
    levels: np.ndarray
    ecp: np.ndarray
    coverage_values: np.ndarray
    n: int
    n_posterior_samples: int
    convention: str
    seed_used: int | None

    _repr_fields = ("statistic", "pvalue", "atc", "n")


def _sbi_edges(values: np.ndarray, n_bins: int) -> np.ndarray:
    """The edges ``torch.histogram(values, bins=n_bins)`` returns for float32 ``values``.

    torch spans [min, max] (widened by ±0.5 when they are equal) and fills the edges in single
    precision from both ends, ``lo + step·i`` on the first half and ``hi − step·(n_bins − i)`` on
    the second, each rounded once (a fused multiply–add): here computed in double precision, where
    the product is exact, and rounded once to float32.
    """
    lo, hi = float(values.min()), float(values.max())
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    a, b = np.float32(lo), np.float32(hi)
    step = np.float64((b - a) / np.float32(n_bins))
    i = np.arange(n_bins + 1, dtype=np.float64)
    first = (np.float64(a) + step * i).astype(np.float32)
    second = (np.float64(b) - step * (n_bins - i)).astype(np.float32)
    return np.where(i < (n_bins + 1) // 2, first, second)


def _sbi_curve(counts: np.ndarray, s: int, n_levels: int) -> tuple[np.ndarray, np.ndarray]:
    """sbi's TARP curve: ECP at the edges of a histogram of the single-precision f_n.

    Bins are [e_k, e_{k+1}), the last one closed, so ECP(e_k) = (1/N) #{n : f_n < e_k} for
    k < K and ECP(e_K) = 1.
    """
    f32 = counts.astype(np.float32) / np.float32(s)
    edges = _sbi_edges(f32, n_levels - 1)
    bins = np.clip(np.searchsorted(edges, f32, side="right") - 1, 0, n_levels - 2)
    hist = np.bincount(bins, minlength=n_levels - 1)
    ecp = np.concatenate([[0], np.cumsum(hist)]) / counts.size
    return edges.astype(np.float64), ecp


def area_to_curve(levels: np.ndarray, ecp: np.ndarray) -> float:
    """∫₀¹ (ECP(γ) − γ) dγ, trapezoid on ``levels`` ∪ {0, 1}, ECP = 0 below the grid, 1 above."""
    inside = levels[(levels > 0) & (levels < 1)]
    grid = np.concatenate([[0.0], inside, [1.0]])
    curve = np.interp(grid, levels, ecp, left=0.0, right=1.0)
    return float(np.trapezoid(curve - grid, grid))


@renamed_parameters(references="reference_points")
def tarp(
    flow: Any,
    theta: Any,
    x: Any,
    *,
    n_posterior_samples: int = 100,
    reference_points: Any = None,
    n_levels: int | None = None,
    z_score: bool = True,
    convention: str = "modelcompare",
    seed: SeedLike = None,
) -> TARPResult:
    """Tests of Accuracy with Random Points (TARP), from draws of ``flow.sample``.

    Parameters
    ----------
    flow : object with ``sample(x, n, seed)``
        The estimated posterior.
    theta, x : array-like, shapes (N, m) and (N, d)
        Pairs drawn from the prior and the simulator.
    n_posterior_samples : int
        S posterior draws per pair.
    reference_points : array-like, shape (N, m), optional
        θ_r per pair; default uniform over the bounding box of ``theta`` (as sbi does).
    n_levels : int, optional
        Points of the level grid. ``"modelcompare"``: the grid linspace(0, 1, n_levels), 101
        points by default. ``"sbi"``: the edges of a histogram with ``n_levels − 1`` bins (sbi's
        ``num_bins``), by default N // 10 bins (at least one) as in sbi.
    z_score : bool
        Rescale each coordinate of θ (with the calibration ``theta``) before measuring distances:
        by its mean and standard deviation (``"modelcompare"``), or, as sbi's ``z_score_theta``
        does, by its minimum and maximum (``"sbi"``).
    convention : {"modelcompare", "sbi"}
        Whose rescaling and level grid to use; see Notes. ``"sbi"`` reproduces the coverage values
        and the ECP curve of sbi's ``run_tarp`` given the same posterior draws and references.
    seed : int, Generator or None
        Seeds the draws, the references and the KS jitter.

    Returns
    -------
    TARPResult

    Raises
    ------
    ValueError
        If ``convention`` is not ``"modelcompare"`` or ``"sbi"``, or ``reference_points`` does not have
        the shape of ``theta``.

    Notes
    -----
    TARP (Lemos et al. 2023) draws a reference point θ_r per pair and computes the coverage value
    f_n = (1/S) #{s : ‖θ̃_{n,s} − θ_r‖ < ‖θ_n − θ_r‖}, the SBC rank (divided by S) of the reduce
    function ‖· − θ_r‖. The posterior is calibrated iff ECP(γ) = P(f < γ) = γ for every γ.

    The two conventions differ in two places, and only there:

    * **Rescaling** (with ``z_score=True``). ``"modelcompare"`` maps θ_j to (θ_j − mean_j)/sd_j,
      with the mean and standard deviation of the calibration ``theta`` (a constant coordinate is
      left unscaled). ``"sbi"`` maps θ_j to (θ_j − min_j)/(max_j − min_j + 10⁻¹⁰), as sbi's
      ``z_score_theta`` does. The posterior draws and the references are mapped alike. The
      Euclidean distances, hence the f_n, differ between the two unless ``z_score=False``.
    * **Level grid and ECP curve.** ``"modelcompare"``: ECP(γ) = (1/N) Σ_n 1{f_n < γ} on the
      fixed grid linspace(0, 1, n_levels). ``"sbi"``: sbi's curve, the cumulative histogram of
      the f_n over [min f, max f] with K = ``n_levels − 1`` equal bins, read at the K + 1 edges
      e_k; ECP(e_k) = (1/N) #{n : f_n < e_k} for k < K and ECP(e_K) = 1. The binning uses the
      f_n and the edges in single precision, as sbi and torch compute them, so a coverage value
      lying exactly on an edge falls in the same bin as in sbi. (The distances are computed in
      double precision, sbi's in single: a count can differ only where two distances agree to
      about 10⁻⁷ relative.)

    In both, ``atc`` integrates ECP(γ) − γ over [0, 1] by the trapezoid rule on ``levels`` (ECP is
    0 below the sbi grid and 1 above it), and the p-value is a one-sample KS test of the
    randomised coverage values (S f_n + V)/(S + 1), V ~ U(0, 1), which are exactly U(0, 1) under
    calibration for a fixed reduce function; the rescaling and the default references use the
    calibration ``theta``, a dependence on each θ_n of order 1/N. sbi's ``check_tarp`` instead
    compares the ECP values and the levels as two samples in a KS test, and sums ECP − α over the
    upper half of its grid for its ATC; neither is reported here.

    References
    ----------
    .. [1] Lemos, Coogan, Hezaveh, Perreault-Levasseur (2023). Sampling-based accuracy testing of
       posterior estimators for general inference. ICML. arXiv:2302.03026.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(200, seed=0)
    >>> res = tarp(model.exact_flow(), theta, x, n_posterior_samples=50, n_levels=11, seed=1)
    >>> res.levels.size, bool(abs(res.atc) < 0.1)
    (11, True)

    sbi's convention: min–max rescaling and the edges of N // 10 = 20 histogram bins, over the
    range of the coverage values.

    >>> sbi_style = tarp(model.exact_flow(), theta, x, n_posterior_samples=50, convention="sbi",
    ...                  seed=1)
    >>> sbi_style.levels.size, float(sbi_style.ecp[0]), float(sbi_style.ecp[-1])
    (21, 0.0, 1.0)
    """
    theta, x = check_pairs(theta, x)
    s = check_int(n_posterior_samples, "n_posterior_samples", low=1)
    convention = check_choice(convention, "convention", _CONVENTIONS)
    if n_levels is None:
        n_levels = 101 if convention == "modelcompare" else max(theta.shape[0] // 10, 1) + 1
    n_levels = check_int(n_levels, "n_levels", low=2)
    z_score = check_bool(z_score, "z_score")
    rng, seed_used = check_seed(seed)
    s_draws, s_ref, s_jit = rng.spawn(3)
    grid_shape = (theta.shape[0], n_levels) if convention == "modelcompare" else (n_levels,)
    check_memory(estimate_array_bytes(grid_shape, bool), "the ECP curve", "n_levels")
    draws = draw_posterior(flow, x, s, s_draws, theta.shape[1])
    if reference_points is None:
        lo, hi = theta.min(axis=0), theta.max(axis=0)
        refs = lo + (hi - lo) * s_ref.uniform(size=theta.shape)
    else:
        refs = check_samples(reference_points, "reference_points", min_samples=1)
        if refs.shape != theta.shape:
            msg = f"`reference_points` must have shape {theta.shape}; got {refs.shape}."
            raise ValueError(msg)
    if z_score:
        if convention == "modelcompare":
            shift, sd = theta.mean(axis=0), theta.std(axis=0)
            scale = np.where(sd > 0, sd, 1.0)
        else:
            shift = theta.min(axis=0)
            scale = theta.max(axis=0) - shift + _SBI_RANGE_EPS
        theta, refs, draws = (
            (theta - shift) / scale,
            (refs - shift) / scale,
            (draws - shift) / scale,
        )
    d_true = np.linalg.norm(theta - refs, axis=1)
    d_draw = np.linalg.norm(draws - refs[:, None, :], axis=2)
    counts = np.sum(d_draw < d_true[:, None], axis=1)
    f = counts / s
    if convention == "modelcompare":
        levels = np.linspace(0, 1, n_levels)
        ecp = (f[:, None] < levels[None, :]).mean(axis=0)
    else:
        levels, ecp = _sbi_curve(counts, s, n_levels)
    u = (counts + s_jit.uniform(size=counts.shape)) / (s + 1)
    ks = stats.kstest(u, "uniform")
    return TARPResult(
        statistic=float(ks.statistic),
        pvalue=float(ks.pvalue),
        atc=area_to_curve(levels, ecp),
        levels=levels,
        ecp=ecp,
        coverage_values=f,
        n=theta.shape[0],
        n_posterior_samples=s,
        convention=convention,
        seed_used=seed_used,
    )
