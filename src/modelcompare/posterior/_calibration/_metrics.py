"""Posterior-draw metrics: parameter recovery, contraction and z-scores, calibration error.

All three take posterior draws at the calibration pairs, ``posterior_samples`` of shape (N, S, m),
and the true parameters ``theta`` of shape (N, m), as BayesFlow's ``diagnostics.metrics`` do, and
return scores (no p-value).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.results import ScoreResult, result_class
from modelcompare._foundation.validation import (
    as_numpy,
    check_choice,
    check_positive,
    check_samples,
    check_vector,
)
from modelcompare.posterior._calibration._global import level_grid

__all__ = [
    "CalibrationErrorResult",
    "ParameterRecoveryResult",
    "PosteriorContractionResult",
    "calibration_error",
    "check_posterior_samples",
    "parameter_recovery",
    "posterior_contraction",
]

_NORMALIZE = ("range", "std", "none")
_AGGREGATIONS = ("median", "mean", "max")


def check_posterior_samples(
    posterior_samples: Any, theta: Any, *, min_draws: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """Validate draws of shape (N, S, m) against true parameters of shape (N, m).

    Parameters
    ----------
    posterior_samples : array-like, shape (N, S, m)
        S posterior draws for each of the N calibration pairs.
    theta : array-like, shape (N, m)
        The true parameters of the pairs.
    min_draws : int
        The smallest S accepted (2 where a posterior variance is needed).

    Returns
    -------
    posterior_samples, theta : numpy.ndarray
        float64 arrays.

    Raises
    ------
    ValueError
        For a wrong number of dimensions, mismatched N or m, too few draws, or NaN/inf values.
    TypeError
        For non-numeric data.
    """
    theta = check_samples(theta, "theta", min_samples=2)
    draws = as_numpy(posterior_samples, "posterior_samples")
    if draws.ndim != 3:
        msg = (
            "`posterior_samples` must be 3-D (n_simulations, n_draws, n_params); got shape "
            f"{draws.shape}. Use draws[..., None] for one parameter."
        )
        raise ValueError(msg)
    try:
        if draws.dtype.kind in "USO" and any(isinstance(v, str | bytes) for v in draws.flat):
            raise TypeError
        draws = np.asarray(draws, dtype=float)
    except (TypeError, ValueError):
        msg = f"`posterior_samples` must hold numeric data; got dtype {draws.dtype}."
        raise TypeError(msg) from None
    n, s, m = draws.shape
    if (n, m) != theta.shape:
        msg = (
            f"`posterior_samples` (shape {draws.shape}) and `theta` (shape {theta.shape}) must "
            "agree on the number of simulations (axis 0) and of parameters (last axis)."
        )
        raise ValueError(msg)
    if s < min_draws:
        msg = f"`posterior_samples` needs at least {min_draws} draws per simulation; got {s}."
        raise ValueError(msg)
    bad = ~np.isfinite(draws)
    if bad.any():
        i, k, j = np.argwhere(bad)[0]
        kind = "NaN" if np.isnan(draws[i, k, j]) else "inf"
        msg = f"`posterior_samples` must be finite; found {kind} at simulation {i}, draw {k}, parameter {j}."
        raise ValueError(msg)
    return draws, theta


def _spread(theta: np.ndarray, normalize: str) -> np.ndarray:
    """The normaliser of the RMSE per parameter; NaN (with a warning) where it is 0."""
    if normalize == "none":
        return np.ones(theta.shape[1])
    spread = np.ptp(theta, axis=0) if normalize == "range" else theta.std(axis=0)
    # a constant column's std is rounding error (about eps times its size), not exactly 0
    scale = np.max(np.abs(theta), axis=0) if theta.size else np.zeros(theta.shape[1])
    spread = np.where(spread <= 16 * np.finfo(float).eps * scale, 0.0, spread)
    if np.any(spread == 0):
        cols = np.flatnonzero(spread == 0).tolist()
        warnings.warn(
            f"`theta` is constant in column(s) {cols}: the normalised RMSE is undefined there "
            "(reported as NaN).",
            DegenerateDataWarning,
            stacklevel=3,
        )
    return np.where(spread > 0, spread, np.nan)


def _flag(value: float, what: str) -> bool:
    """True, with a warning, when a score's value is not finite."""
    if np.isfinite(value):
        return False
    warnings.warn(
        f"{what} is {value}: the data are constant or overflow float64 (see the per-parameter "
        "fields).",
        DegenerateDataWarning,
        stacklevel=3,
    )
    return True


def _nanmax(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    return float(finite.max()) if finite.size else float("nan")


@result_class
class ParameterRecoveryResult(ScoreResult):
    """Result of :func:`parameter_recovery`.

    Attributes
    ----------
    value : float
        The largest normalised RMSE over the parameters (the RMSE itself with
        ``normalize="none"``): 0 is perfect recovery.
    rmse : numpy.ndarray, shape (m,)
        √((1/N) Σ_n (θ̄_{n,j} − θ_{n,j})²), with θ̄_{n,j} the posterior mean.
    nrmse : numpy.ndarray, shape (m,)
        ``rmse`` divided by the range (max − min, BayesFlow's ``normalize="range"``) or by the
        standard deviation (ddof = 0) of the true θ_j over the N simulations; equal to ``rmse``
        with ``normalize="none"``.
    r_squared : numpy.ndarray, shape (m,)
        1 − Σ_n (θ̄_{n,j} − θ_{n,j})² / Σ_n (θ_{n,j} − mean_n θ_{n,j})²: the share of the
        variance of θ_j that the posterior mean explains (1 is perfect, 0 no better than the mean
        of the true values, and negative worse than it).
    draw_rmse : numpy.ndarray, shape (m,)
        BayesFlow's ``root_mean_squared_error`` (aggregation by the median, with the same
        ``normalize``): the RMSE of the S draws of each simulation against its true θ_j,
        √((θ̄_{n,j} − θ_{n,j})² + σ̂²_{n,j}) with σ̂² the draws' variance (ddof = 0),
        normalised alike, then the median over the N simulations. It adds the posterior spread
        to the error of the mean.
    posterior_mean : numpy.ndarray, shape (N, m)
        θ̄_{n,j}.
    normalize : str
        ``"range"``, ``"std"`` or ``"none"``.
    n : int
        N, the simulations.
    n_posterior_samples : int
        S, draws per simulation.
    degenerate : bool
        True when ``value`` is not finite, or a parameter's normalised RMSE is undefined (a
        constant true parameter, or values so large that their squares overflow), with a
        ``DegenerateDataWarning``.

    Examples
    --------
    >>> import numpy as np
    >>> theta = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> draws = theta[:, None, :] + np.array([-0.5, 0.5])[None, :, None]  # mean = truth
    >>> res = parameter_recovery(draws, theta)
    >>> float(res.value), float(res.r_squared[0])
    (0.0, 1.0)
    """

    value: float
    rmse: np.ndarray
    nrmse: np.ndarray
    r_squared: np.ndarray
    draw_rmse: np.ndarray
    posterior_mean: np.ndarray
    normalize: str
    n: int
    n_posterior_samples: int
    degenerate: bool

    _repr_fields = ("value", "normalize", "n")


def parameter_recovery(
    posterior_samples: Any, theta: Any, *, normalize: str = "range"
) -> ParameterRecoveryResult:
    """How well the posterior mean recovers the true parameters: RMSE, normalised RMSE and R².

    Parameters
    ----------
    posterior_samples : array-like, shape (N, S, m)
        S draws from the estimated posterior at each of N simulated data sets.
    theta : array-like, shape (N, m)
        The parameters each data set was simulated with (drawn from the prior).
    normalize : {"range", "std", "none"}
        Divide the RMSE by the range (max − min) of the true θ_j (BayesFlow's
        ``normalize="range"``), by their standard deviation (ddof = 0, its ``"std"``), or not
        at all.

    Returns
    -------
    ParameterRecoveryResult

    Raises
    ------
    ValueError
        If the shapes do not match, ``posterior_samples`` is not 3-D or a value is NaN/inf.

    Notes
    -----
    With θ̄_{n,j} = (1/S) Σ_s θ̃_{n,s,j}, RMSE_j = √((1/N) Σ_n (θ̄_{n,j} − θ_{n,j})²) and
    R²_j = 1 − N RMSE_j² / Σ_n (θ_{n,j} − mean θ_j)². The score measures accuracy, not
    calibration: a well-calibrated posterior of a weakly identified parameter has a large RMSE,
    and an overconfident one can recover the mean well. Pair it with :func:`sbc_log_gamma` or
    :func:`calibration_error`.

    BayesFlow's ``root_mean_squared_error`` computes the RMSE of the draws of each simulation
    before taking the median over the simulations (reported here as ``draw_rmse``), which also
    counts the posterior spread; ``rmse`` is the error of the posterior mean alone. BayesFlow's
    default normaliser, ``normalize="prior"``, is a random bootstrap of the true values and has
    no counterpart here.

    References
    ----------
    Radev, S. T., et al. (2023). BayesFlow: amortized Bayesian workflows with neural networks.
    Journal of Open Source Software 8(89), 5702.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(500, seed=0)
    >>> draws = model.exact_flow().sample(x, 100, seed=1)
    >>> res = parameter_recovery(draws, theta)
    >>> res.nrmse.shape, bool(0.6 < res.r_squared.min() < 0.75)  # R² = 1 - 1/3 for this model
    ((2,), True)
    """
    draws, theta = check_posterior_samples(posterior_samples, theta, min_draws=1)
    normalize = check_choice(normalize, "normalize", _NORMALIZE)
    mean = draws.mean(axis=1)
    spread = _spread(theta, normalize)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        rmse = np.sqrt(np.mean((mean - theta) ** 2, axis=0))
        nrmse = rmse / spread
        centred = np.sum((theta - theta.mean(axis=0)) ** 2, axis=0)
        r2 = np.where(centred > 0, 1.0 - draws.shape[0] * rmse**2 / centred, np.nan)
    with np.errstate(over="ignore", invalid="ignore"):
        per_sim = np.sqrt(np.mean((draws - theta[:, None, :]) ** 2, axis=1)) / spread
    value = _nanmax(nrmse)
    return ParameterRecoveryResult(
        value=value,
        rmse=rmse,
        nrmse=nrmse,
        r_squared=r2,
        draw_rmse=np.median(per_sim, axis=0),
        posterior_mean=mean,
        normalize=normalize,
        n=draws.shape[0],
        n_posterior_samples=draws.shape[1],
        # a constant column was warned about in _spread; its NaN is left out of `value`
        degenerate=_flag(value, "the largest normalised RMSE") or bool(np.isnan(spread).any()),
    )


# ----------------------------------------------------------------------------------------------
# contraction and z-scores


@result_class
class PosteriorContractionResult(ScoreResult):
    """Result of :func:`posterior_contraction`.

    Attributes
    ----------
    value : float
        The smallest ``median_contraction`` over the parameters: how much the least-informed
        parameter is learned (1 is a point estimate, 0 nothing learned beyond the prior).
    contraction : numpy.ndarray, shape (N, m)
        1 − Var_post(θ_j | x_n) / Var_prior(θ_j), not clipped: a negative value means a
        posterior wider than the prior.
    z_scores : numpy.ndarray, shape (N, m)
        (θ̄_{n,j} − θ_{n,j}) / sd_post(θ_j | x_n).
    median_contraction : numpy.ndarray, shape (m,)
        The median of ``contraction`` over the simulations (BayesFlow's default aggregation).
    mean_abs_z : numpy.ndarray, shape (m,)
        The mean of |z| over the simulations (≈ 0.80 for Gaussian posteriors that are calibrated).
    outlier_share : numpy.ndarray, shape (m,)
        The share of |z| > 3 (≈ 0.003 when the z-scores are standard normal).
    z_mean, z_sd : numpy.ndarray, shape (m,)
        The mean (a bias, in posterior sds) and standard deviation (ddof = 1) of the z-scores.
    z_rms : numpy.ndarray, shape (m,)
        √(mean z²). Under calibration E[z² | x] = 1 for any posterior shape, so z_rms ≈ 1; > 1
        means errors larger than the posterior sd claims (too narrow), < 1 too wide.
    prior_variance : numpy.ndarray, shape (m,)
        The prior variances used (given, or from ``theta`` with ddof = 1).
    n : int
        N, the simulations.
    n_posterior_samples : int
        S, draws per simulation.
    degenerate : bool
        True when ``value`` is not finite (variances that overflow or underflow float64), with a
        ``DegenerateDataWarning``.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(np.eye(1))  # posterior variance 1/2, prior 1
    >>> theta, x = model.simulate(400, seed=0)
    >>> res = posterior_contraction(model.exact_flow().sample(x, 200, seed=1), theta)
    >>> bool(abs(res.value - 0.5) < 0.1), res.reading()
    (True, ['θ_1: consistent (z-scores spread as N(0, 1): z_rms = 0.97)'])
    """

    value: float
    contraction: np.ndarray
    z_scores: np.ndarray
    median_contraction: np.ndarray
    mean_abs_z: np.ndarray
    outlier_share: np.ndarray
    z_mean: np.ndarray
    z_sd: np.ndarray
    z_rms: np.ndarray
    prior_variance: np.ndarray
    n: int
    n_posterior_samples: int
    degenerate: bool

    _repr_fields = ("value", "n", "n_posterior_samples")

    def reading(self, tolerance: float = 0.2) -> list[str]:
        """The spread of the z-scores in plain words, one line per parameter.

        Parameters
        ----------
        tolerance : float
            z_rms within [1/(1 + tolerance), 1 + tolerance] reads as consistent. The sampling
            error of z_rms is about 1/√(2N) for Gaussian z-scores, so small N needs a wider one.

        Returns
        -------
        list of str
            "too narrow (overconfident)" when z_rms > 1 + tolerance: the errors of the posterior
            mean are larger than the posterior sd says, so credible intervals cover too rarely.
            "too wide (underconfident)" when z_rms < 1/(1 + tolerance): intervals cover too often.
            Otherwise "consistent".
        """
        tol = check_positive(tolerance, "tolerance")
        lines = []
        for j, r in enumerate(self.z_rms, start=1):
            if r > 1 + tol:
                what = (
                    f"too narrow (overconfident): the errors are {r:.2g} posterior sds on "
                    "average, intervals cover too rarely"
                )
            elif r < 1 / (1 + tol):
                what = (
                    f"too wide (underconfident): the errors are {r:.2g} posterior sds on "
                    "average, intervals cover too often"
                )
            else:
                what = f"consistent (z-scores spread as N(0, 1): z_rms = {r:.2g})"
            if not np.isfinite(self.prior_variance[j - 1]):
                # an overflowing prior variance makes both the contraction and the z-scores moot
                what = "not read: the prior variance overflows float64 (the data are degenerate)"
            lines.append(f"θ_{j}: {what}")
        return lines


def posterior_contraction(
    posterior_samples: Any, theta: Any, *, prior_variance: Any = None
) -> PosteriorContractionResult:
    """Posterior contraction and z-scores per parameter (Schad, Betancourt & Vasishth 2021).

    Parameters
    ----------
    posterior_samples : array-like, shape (N, S, m)
        S ≥ 2 draws from the estimated posterior at each of N simulated data sets.
    theta : array-like, shape (N, m)
        The parameters each data set was simulated with (drawn from the prior).
    prior_variance : array-like, shape (m,), optional
        The prior variance of each parameter; by default the variance (ddof = 1) of ``theta``,
        as BayesFlow does.

    Returns
    -------
    PosteriorContractionResult

    Raises
    ------
    ValueError
        If the shapes do not match, a value is NaN/inf, a prior variance is not positive, or the
        draws of one simulation are all equal (a z-score needs a positive posterior variance).

    Notes
    -----
    Per simulation n and parameter j, with the posterior mean θ̄ and variance (ddof = 1) of the
    S draws: contraction = 1 − Var_post / Var_prior and z = (θ̄ − θ) / sd_post. Contraction
    near 1 with |z| small is a well-identified, accurate posterior; contraction near 1 with large
    |z| is an overconfident one (Schad et al. 2021, Figure 7). BayesFlow's
    ``posterior_contraction`` clips the contraction to [0, 1] before the median; here it is left
    unclipped, so a posterior wider than the prior shows as negative.

    Under calibration the z-scores average 0 with E[z²] = 1 whatever the shape of the posterior
    (up to a bias of order 1/S from the estimated sd), which gives the dispersion reading of
    :meth:`PosteriorContractionResult.reading`.

    References
    ----------
    Schad, D. J., Betancourt, M., and Vasishth, S. (2021). Toward a principled Bayesian workflow
    in cognitive science. Psychological Methods 26(1), 103-126.

    Examples
    --------
    An overconfident estimator, with half the exact posterior sd:

    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(np.eye(1))
    >>> theta, x = model.simulate(400, seed=0)
    >>> narrow = model.exact_flow(scale_factor=0.5).sample(x, 200, seed=1)
    >>> res = posterior_contraction(narrow, theta, prior_variance=[1.0])
    >>> res.reading()[0].startswith("θ_1: too narrow")
    True
    """
    draws, theta = check_posterior_samples(posterior_samples, theta, min_draws=2)
    m = theta.shape[1]
    if prior_variance is None:
        with np.errstate(over="ignore", invalid="ignore"):  # overflow is flagged below
            prior_var = theta.var(axis=0, ddof=1)
        if np.any(prior_var == 0):
            msg = "`theta` is constant in a column; pass `prior_variance` explicitly."
            raise ValueError(msg)
    else:
        prior_var = check_vector(prior_variance, "prior_variance")
        if prior_var.shape != (m,) or np.any(prior_var <= 0):
            msg = f"`prior_variance` must hold {m} positive values; got {prior_var.tolist()}."
            raise ValueError(msg)
    post_var = draws.var(axis=1, ddof=1)
    if np.any(post_var == 0):
        i, j = np.argwhere(post_var == 0)[0]
        msg = (
            f"`posterior_samples` are all equal at simulation {i}, parameter {j}: the z-score "
            "needs a positive posterior variance."
        )
        raise ValueError(msg)
    with np.errstate(over="ignore", invalid="ignore"):
        contraction = 1.0 - post_var / prior_var
        # θ so large that its variance overflows: 1 - finite/inf = 1 would read as perfect
        contraction[:, ~np.isfinite(prior_var)] = np.nan
        z = (draws.mean(axis=1) - theta) / np.sqrt(post_var)
        median_c = np.median(contraction, axis=0)
        abs_z = np.abs(z)
        z_stats = (abs_z.mean(axis=0), z.mean(axis=0), z.std(axis=0, ddof=1))
        z_rms = np.sqrt(np.mean(z**2, axis=0))
    value = float(median_c.min())
    return PosteriorContractionResult(
        value=value,
        contraction=contraction,
        z_scores=z,
        median_contraction=median_c,
        mean_abs_z=z_stats[0],
        outlier_share=np.mean(abs_z > 3, axis=0),
        z_mean=z_stats[1],
        z_sd=z_stats[2],
        z_rms=z_rms,
        prior_variance=prior_var,
        n=draws.shape[0],
        n_posterior_samples=draws.shape[1],
        degenerate=_flag(value, "the smallest median contraction"),
    )


# ----------------------------------------------------------------------------------------------
# calibration error


@result_class
class CalibrationErrorResult(ScoreResult):
    """Result of :func:`calibration_error`.

    Attributes
    ----------
    value : float
        The largest per-parameter error, in [0, 1]: 0 is calibrated.
    errors : numpy.ndarray, shape (m,)
        The ``aggregation`` over the levels of |coverage − level| per parameter.
    levels : numpy.ndarray, shape (L,)
        The central credibility levels γ.
    coverage : numpy.ndarray, shape (L, m)
        The share of simulations whose θ_j lies in the central γ-interval of its draws.
    aggregation : str
        ``"median"`` (BayesFlow's default), ``"mean"`` or ``"max"``.
    n : int
        N, the simulations.
    n_posterior_samples : int
        S, draws per simulation.

    Examples
    --------
    >>> import numpy as np
    >>> theta = np.linspace(-1, 1, 5)[:, None]
    >>> draws = np.zeros((5, 10, 1))  # every interval is {0}: only θ = 0 is covered
    >>> res = calibration_error(draws, theta, levels=[0.5])
    >>> float(res.coverage[0, 0]), float(res.value)
    (0.2, 0.3)
    """

    value: float
    errors: np.ndarray
    levels: np.ndarray
    coverage: np.ndarray
    aggregation: str
    n: int
    n_posterior_samples: int

    _repr_fields = ("value", "aggregation", "n")


def calibration_error(
    posterior_samples: Any, theta: Any, *, levels: Any = None, aggregation: str = "median"
) -> CalibrationErrorResult:
    """Marginal calibration error of central credible intervals (BayesFlow's ``calibration_error``).

    Parameters
    ----------
    posterior_samples : array-like, shape (N, S, m)
        S draws from the estimated posterior at each of N simulated data sets.
    theta : array-like, shape (N, m)
        The parameters each data set was simulated with (drawn from the prior).
    levels : int, array-like or None
        Central credibility levels γ in (0, 1): ``None`` gives the 99 levels k/100; an int K
        gives k/(K + 1), k = 1..K. BayesFlow's grid is ``numpy.linspace(0.005, 0.995, 20)``.
    aggregation : {"median", "mean", "max"}
        How the errors over the levels are summarised per parameter; BayesFlow's default is the
        median. ``"max"`` is the worst level.

    Returns
    -------
    CalibrationErrorResult

    Raises
    ------
    ValueError
        If the shapes do not match, a value is NaN/inf or ``levels`` is outside (0, 1).

    Notes
    -----
    For each γ the central interval of θ_j given x_n runs from the (1 − γ)/2 to the (1 + γ)/2
    quantile of the S draws (``numpy.quantile``, linear interpolation), bounds included, and
    coverage_j(γ) is the share of the N true θ_j inside it. The error at γ is
    |coverage_j(γ) − γ|. This is BayesFlow's ``calibration_error`` on the same grid, step for
    step. It is a score, not a test: its size under calibration shrinks as 1/√N. For a test of
    the same question use :func:`sbc_log_gamma` or :func:`sbc_test`.

    References
    ----------
    Radev, S. T., et al. (2023). BayesFlow: amortized Bayesian workflows with neural networks.
    Journal of Open Source Software 8(89), 5702.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel
    >>> model = ConditionalGaussianModel(0.5 * np.eye(2))
    >>> theta, x = model.simulate(1000, seed=0)
    >>> good = calibration_error(model.exact_flow().sample(x, 200, seed=1), theta)
    >>> wide = calibration_error(model.exact_flow(scale_factor=2.0).sample(x, 200, seed=1), theta)
    >>> bool(good.value < 0.05 < wide.value)
    True
    """
    draws, theta = check_posterior_samples(posterior_samples, theta, min_draws=1)
    grid = level_grid(levels)
    aggregation = check_choice(aggregation, "aggregation", _AGGREGATIONS)
    lower, upper = np.quantile(draws, [(1 - grid) / 2, (1 + grid) / 2], axis=1)
    inside = (lower <= theta[None]) & (upper >= theta[None])  # (L, N, m)
    coverage = inside.mean(axis=1)
    err = np.abs(coverage - grid[:, None])
    errors = {"median": np.median, "mean": np.mean, "max": np.max}[aggregation](err, axis=0)
    return CalibrationErrorResult(
        value=float(errors.max()),
        errors=errors,
        levels=grid,
        coverage=coverage,
        aggregation=aggregation,
        n=draws.shape[0],
        n_posterior_samples=draws.shape[1],
    )
