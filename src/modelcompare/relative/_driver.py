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

It is the one place that reads the ``n_locations``/``locations`` and ``optimizer=`` options
(:class:`~modelcompare.OptimizerOptions` or a preset name).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.resources import check_memory
from modelcompare._foundation.results import TestResult, result_class
from modelcompare._foundation.validation import check_bandwidth, check_fraction
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
from modelcompare.relative._presets import (
    OptimizerOptions,
    OptimOptions,
    resolve_optimizer,
)

#: The defaults of ``n_locations`` and ``optimizer`` in every function of the driver.
DEFAULT_N_LOCATIONS = 5
DEFAULT_OPTIMIZER = "default"

__all__ = [
    "DEFAULT_N_LOCATIONS",
    "DEFAULT_OPTIMIZER",
    "FeatureMap",
    "LocationTestResult",
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

        ``locations_from`` is the option the locations come from (``"n_locations"``,
        ``"locations"`` or ``"params"``), named when there are too many of them for the memory limit.
        """

    @abstractmethod
    def result_fields(self, stats: PairedStats, locations: np.ndarray) -> dict[str, Any]:
        """The test's own result fields: its witnesses and its named Û² estimates."""


@dataclass(frozen=True)
class RunSettings:
    """The options a caller passed to ``rel_*`` or ``optimize_*``, unchecked."""

    n_locations: Any
    locations: Any
    bandwidth: Any
    optimizer: Any
    train_fraction: Any = 0.2
    params: Any = None
    chunk_size: Any = None


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
        "locations" if fixed else "n_locations",
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
    features: FeatureMap, n_locations: Any, locations: Any, bandwidth: Any
) -> tuple[int | np.ndarray, float | None]:
    """An int J (``n_locations``) or the given (J, d) ``locations``, and the width."""
    if locations is None:
        if isinstance(n_locations, bool | np.bool_) or not isinstance(
            n_locations, int | np.integer
        ):
            msg = f"`n_locations` must be an int J >= 1; got {n_locations!r}."
            raise TypeError(msg)
        locs: int | np.ndarray = check_locations(int(n_locations), features.dim)
    else:
        if isinstance(locations, int | np.integer) and not isinstance(locations, bool):
            msg = (
                f"`locations` is an array of test locations; got the int {locations!r} "
                "(a number of locations is `n_locations`)."
            )
            raise TypeError(msg)
        locs = check_locations(locations, features.dim)
        if n_locations != DEFAULT_N_LOCATIONS and n_locations != locs.shape[0]:
            msg = (
                f"`n_locations`={n_locations!r} disagrees with the {locs.shape[0]} rows of "
                "`locations`: pass one of them."
            )
            raise ValueError(msg)
    bw = None if bandwidth is None else check_bandwidth(bandwidth, "bandwidth")
    return locs, bw


def optimize_locations(
    features: FeatureMap, rng: np.random.Generator, settings: RunSettings
) -> GaussianLocationParams:
    """The flow of ``optimize_ume`` and ``optimize_fssd`` after the data are prepared."""
    loc_rng, med_rng = rng.spawn(2)
    optimizer = resolve_optimizer(settings.optimizer, allow_none=False)
    assert optimizer is not None
    locs, bw = _check_width_and_locations(
        features, settings.n_locations, settings.locations, settings.bandwidth
    )
    return fit_parameters(features, locs, bw, optimizer.resolve(features.test), loc_rng, med_rng)


def _check_params(features: FeatureMap, params: Any, settings: RunSettings) -> None:
    cls = features.params_type
    if not isinstance(params, cls):
        msg = f"`params` must be a {cls.__name__} instance; got {type(params).__name__}."
        raise TypeError(msg)
    untouched = (
        settings.bandwidth is None
        and settings.locations is None
        and settings.n_locations == DEFAULT_N_LOCATIONS
        and (settings.optimizer is None or settings.optimizer == DEFAULT_OPTIMIZER)
    )
    if not untouched:
        msg = (
            "with `params`, leave `n_locations`, `locations`, `bandwidth` and `optimizer` at "
            "their defaults (or pass `optimizer=None`): the parameters are used as given on all "
            "the data."
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
) -> LocationTestResult:
    """The flow of ``rel_ume`` and ``rel_fssd`` after the data are prepared.

    Three random streams are spawned from ``rng``: the split, the random locations and the median
    heuristic.
    """
    params = settings.params
    split_rng, loc_rng, med_rng = rng.spawn(3)
    optimizer = resolve_optimizer(settings.optimizer, allow_none=True)
    opts = (OptimizerOptions() if optimizer is None else optimizer).resolve(features.test)
    locs, bw = _check_width_and_locations(
        features, settings.n_locations, settings.locations, settings.bandwidth
    )
    n_train, train_crit, n_iter, optimized, converged = 0, None, None, False, None
    tested = features
    if params is not None:
        _check_params(features, params, settings)
        v, sigma = params.locations, params.bandwidth
    elif optimizer is not None:
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
        locations_from=(
            "params"
            if params is not None
            else "n_locations"
            if settings.locations is None
            else "locations"
        ),
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
        preset="default" if optimizer is None else optimizer.preset,
        n_iter=n_iter,
        converged=converged,
        seed_used=seed_used,
    )
