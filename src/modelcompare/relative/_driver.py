"""One driver for the linear-time relative tests: Rel-UME and Rel-FSSD differ in the feature map.

As in kgof, a test is a driver over a feature map. A :class:`FeatureMap` turns the rows of the data
into two paired feature matrices ``F_P`` and ``F_Q`` at test locations V and a Gaussian width σ
(Jitkrittum et al. 2018): Rel-UME uses mean-embedding features
``k(x, V) − k(z, V)`` and ``k(y, V) − k(z, V)``, Rel-FSSD the Stein features of the two models'
scores at the reference draws. The driver owns everything else, once:

- the ``train_fraction`` split;
- the choice of σ and V by maximising the power criterion (L-BFGS-B, presets, bounds);
- the paired statistic ``√n (Û²_P − Û²_Q)``, its variance and its one-sided p-value;
- the reuse of fitted parameters (``params=``) and the chunked pass over the test rows.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.resources import check_memory
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.validation import check_bandwidth, check_bool, check_fraction
from modelcompare.relative._core import PairedStats, guarded_pvalue
from modelcompare.relative._optimize import (
    Bounds,
    CritGrad,
    GaussianLocationParams,
    check_locations,
    location_bounds,
    maximise_criterion,
    pooled_meddistance,
    pooled_random_rows,
    split_indices,
)
from modelcompare.relative._presets import OptimOptions, resolve_options

__all__ = [
    "FeatureMap",
    "LocationTestResult",
    "OptimRequest",
    "RunSettings",
    "fit_parameters",
    "optimize_locations",
    "relative_test",
]


@result_class
class LocationTestResult(TestResult):
    """The fields shared by the Rel-UME and Rel-FSSD results.

    :class:`~modelcompare.RelUMEResult` and :class:`~modelcompare.RelFSSDResult` document them
    and add their own Û² estimates (``u2_p``/``u2_q`` or ``fssd2_p``/``fssd2_q``). The result
    stores no level: ``decision(alpha)`` rejects H0 "P is at least as close to R as Q" when
    ``pvalue <= alpha``.
    """

    statistic: float
    pvalue: float
    variance: float
    locations: np.ndarray
    bandwidth: float
    sigma2: float
    criterion: float
    train_criterion: float | None
    relative_witness: np.ndarray
    witness_p: np.ndarray
    witness_q: np.ndarray
    zeta2_p: float
    zeta2_q: float
    zeta_pq: float
    degenerate: bool
    n: int
    n_train: int
    optimized: bool
    preset: str
    n_iter: int | None
    converged: bool | None
    seed_used: int | None

    _repr_fields: ClassVar[tuple[str, ...]] = ("statistic", "pvalue", "bandwidth", "n")


class FeatureMap(ABC):
    """Paired features ``F_P``, ``F_Q`` of one relative test on n rows.

    Subclasses hold the rows (samples, or reference draws and the models' scores at them) and say
    how to form the features' statistics, the criterion and its gradient, the starting width and
    the result.

    Attributes
    ----------
    test : str
        The key of the test in :data:`~modelcompare.relative.PRESETS` (``"ume"`` or ``"fssd"``).
    params_type : type
        The parameter class fitted for this test.
    data_has : str
        How error messages name the data and their width ("the data have", "`z` has").
    pool : tuple of numpy.ndarray
        The arrays whose stacked rows give random locations, the median heuristic of the width and
        the box of the locations.
    pool_names : tuple of str
        The arguments the arrays of ``pool`` came from (for error messages).
    """

    test: ClassVar[str]
    params_type: ClassVar[type[GaussianLocationParams]]
    result_type: ClassVar[type[LocationTestResult]]
    data_has: ClassVar[str] = "the data have"
    pool_names: ClassVar[tuple[str, ...]] = ()

    @property
    @abstractmethod
    def pool(self) -> tuple[np.ndarray, ...]:
        """The arrays of the location pool (see the class docstring)."""

    @property
    def n_rows(self) -> int:
        """Number of paired rows."""
        return int(self.pool[0].shape[0])

    @property
    def dim(self) -> int:
        """Number of columns d of the data."""
        return int(self.pool[0].shape[1])

    @abstractmethod
    def rows(self, idx: np.ndarray) -> FeatureMap:
        """The same feature map on rows ``idx``."""

    @abstractmethod
    def initial_width(
        self, bandwidth: float | None, sigma2_bounds: Bounds | None, rng: np.random.Generator
    ) -> tuple[float, Bounds]:
        """The optimiser's starting σ and its σ² bounds (``None``: the test's defaults)."""

    @abstractmethod
    def fit_bytes(self, j: int) -> int:
        """Rough peak bytes of one criterion-and-gradient evaluation with ``j`` locations."""

    @abstractmethod
    def criterion_and_grad(self, reg: float) -> CritGrad:
        """``f(sigma, V) -> (crit, ∂crit/∂σ, ∂crit/∂V)`` on these rows, held in memory."""

    @abstractmethod
    def stats(
        self,
        locations: np.ndarray,
        sigma2: float,
        *,
        chunk_size: int | None = None,
        locations_from: str = "locations",
    ) -> PairedStats:
        """Û², ζ̂ and ν̂ at fixed locations and σ², in chunked passes over the rows.

        ``locations_from`` is the option the locations come from (``"locations"`` or
        ``"params"``), named when there are too many of them for the memory limit.
        """

    @abstractmethod
    def result_fields(self, stats: PairedStats, locations: np.ndarray) -> dict[str, Any]:
        """The test's own result fields: its witnesses and its named Û² estimates."""


@dataclass(frozen=True)
class OptimRequest:
    """The optimiser options a caller asked for (``None``: from ``preset``, else the defaults)."""

    preset: str | None = None
    reg: float | None = None
    max_iter: int | None = None
    tol_fun: float | None = None
    locs_bounds_frac: float | None = None
    bandwidth_bounds: tuple[float, float] | None = None

    def resolve(self, test: str) -> OptimOptions:
        """The options of ``test`` (``"ume"`` or ``"fssd"``), checked."""
        return resolve_options(
            test,
            self.preset,
            max_iter=self.max_iter,
            reg=self.reg,
            tol_fun=self.tol_fun,
            locs_bounds_frac=self.locs_bounds_frac,
            bandwidth_bounds=self.bandwidth_bounds,
        )


@dataclass(frozen=True)
class RunSettings:
    """The test options a caller passed to ``rel_ume`` or ``rel_fssd``, unchecked."""

    locations: Any
    bandwidth: Any
    optimize: Any
    train_fraction: Any
    params: Any
    chunk_size: Any


def fit_parameters(
    features: FeatureMap,
    locations: int | np.ndarray,
    bandwidth: float | None,
    opts: OptimOptions,
    loc_rng: np.random.Generator,
    med_rng: np.random.Generator,
) -> GaussianLocationParams:
    """Maximise the power criterion over σ and V on all rows of ``features``.

    An int ``locations`` J starts from J random rows of the pool; an array is kept fixed and only
    the width is optimised.
    """
    fixed = not isinstance(locations, int)
    j = locations.shape[0] if fixed else locations
    check_memory(
        features.fit_bytes(j),
        f"optimising {j} test locations on {features.n_rows} training rows",
        "locations",
    )
    v0 = locations if fixed else pooled_random_rows(features.pool, locations, loc_rng)
    sigma0, s2b = features.initial_width(bandwidth, opts.sigma2_bounds, med_rng)
    sigma, v, crit, nit, ok = maximise_criterion(
        features.criterion_and_grad(opts.reg),
        sigma0,
        np.asarray(v0, dtype=float),
        s2b,
        location_bounds(features.pool, opts.locs_bounds_frac),
        opts,
        fix_locations=fixed,
    )
    return features.params_type(sigma, v, criterion=crit, n_iter=nit, converged=ok)


def _check_width_and_locations(
    features: FeatureMap, locations: Any, bandwidth: Any
) -> tuple[int | np.ndarray, float | None]:
    locs = check_locations(locations, features.dim)
    bw = None if bandwidth is None else check_bandwidth(bandwidth, "bandwidth")
    return locs, bw


def optimize_locations(
    features: FeatureMap,
    rng: np.random.Generator,
    locations: Any,
    bandwidth: Any,
    optim: OptimRequest,
) -> GaussianLocationParams:
    """The flow of ``optimize_ume`` and ``optimize_fssd`` after the data are prepared."""
    loc_rng, med_rng = rng.spawn(2)
    locs, bw = _check_width_and_locations(features, locations, bandwidth)
    return fit_parameters(features, locs, bw, optim.resolve(features.test), loc_rng, med_rng)


def _check_params(
    features: FeatureMap, params: Any, locations: Any, bandwidth: Any, optimize: bool
) -> None:
    cls = features.params_type
    if not isinstance(params, cls):
        msg = f"`params` must be a {cls.__name__} instance; got {type(params).__name__}."
        raise TypeError(msg)
    if bandwidth is not None or not isinstance(locations, int) or locations != 5 or optimize:
        msg = (
            "with `params`, leave `locations` and `bandwidth` at their defaults and pass "
            "`optimize=False`: the parameters are used as given on all the data."
        )
        raise ValueError(msg)
    d = features.dim
    if params.locations.shape[1] != d:
        msg = (
            f"`params` holds locations of {params.locations.shape[1]} columns "
            f"(`params.locations`); {features.data_has} {d}."
        )
        raise ValueError(msg)


def relative_test(
    features: FeatureMap,
    rng: np.random.Generator,
    seed_used: int | None,
    settings: RunSettings,
    optim: OptimRequest,
) -> LocationTestResult:
    """The flow of ``rel_ume`` and ``rel_fssd`` after the data are prepared.

    Three random streams are spawned from ``rng``: the split, the random locations and the median
    heuristic.
    """
    locations, bandwidth, optimize = settings.locations, settings.bandwidth, settings.optimize
    params = settings.params
    split_rng, loc_rng, med_rng = rng.spawn(3)
    optimize = check_bool(optimize, "optimize")
    opts = optim.resolve(features.test)
    locs, bw = _check_width_and_locations(features, locations, bandwidth)
    n_train, train_crit, n_iter, optimized, converged = 0, None, None, False, None
    tested = features
    if params is not None:
        _check_params(features, params, locations, bandwidth, optimize)
        v, sigma = params.locations, params.bandwidth
    elif optimize:
        train_fraction = check_fraction(settings.train_fraction, "train_fraction")
        tr, te = split_indices(features.n_rows, train_fraction, split_rng)
        fitted = fit_parameters(features.rows(tr), locs, bw, opts, loc_rng, med_rng)
        v, sigma = fitted.locations, fitted.bandwidth
        n_train, train_crit, n_iter, optimized = len(tr), fitted.criterion, fitted.n_iter, True
        converged = fitted.converged
        tested = features.rows(te)
    else:
        v = pooled_random_rows(features.pool, locs, loc_rng) if isinstance(locs, int) else locs
        sigma = (
            pooled_meddistance(features.pool, med_rng, features.pool_names) if bw is None else bw
        )
    sigma2 = sigma * sigma
    stats = tested.stats(
        v,
        sigma2,
        chunk_size=settings.chunk_size,
        locations_from="locations" if params is None else "params",
    )
    pvalue, degenerate = guarded_pvalue(stats.statistic, stats.variance, stacklevel=4)
    return features.result_type(
        statistic=stats.statistic,
        pvalue=pvalue,
        variance=stats.variance,
        locations=np.array(v, dtype=float),
        bandwidth=float(sigma),
        sigma2=float(sigma2),
        criterion=stats.criterion(opts.reg),
        train_criterion=train_crit,
        **features.result_fields(stats, v),
        zeta2_p=stats.zeta2_p,
        zeta2_q=stats.zeta2_q,
        zeta_pq=stats.zeta_pq,
        degenerate=degenerate,
        n=stats.n,
        n_train=n_train,
        optimized=optimized,
        preset="default" if optim.preset is None else optim.preset,
        n_iter=n_iter,
        converged=converged,
        seed_used=seed_used,
    )
