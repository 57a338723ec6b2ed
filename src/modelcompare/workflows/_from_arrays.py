"""``report_from_arrays``: the posterior report from precomputed inputs (the command line's)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from modelcompare._foundation.deprecation import renamed_parameters
from modelcompare._foundation.results import check_alpha
from modelcompare._foundation.seeds import SeedLike
from modelcompare._foundation.threads import thread_limits
from modelcompare._foundation.validation import (
    as_numpy,
    check_int,
    check_n_jobs,
    check_same_rows,
    check_samples,
)
from modelcompare.posterior import level_grid
from modelcompare.workflows._build import build_report
from modelcompare.workflows._checks import ReportInputs
from modelcompare.workflows._checks._figures import check_parameter_names
from modelcompare.workflows._inputs import (
    StoredDraws,
    check_classifier,
    check_regressor,
    evaluation_points,
    input_hash,
    regressor_name,
)
from modelcompare.workflows._report import PosteriorValidationResult

__all__ = ["report_from_arrays"]

# Why each need of a check goes unmet when the report is built from arrays.
_MISSING = {
    "pit": "needs PIT values",
    "x": "needs x with the PIT values",
    "two_parameters": "needs PIT values of two or more parameters",
    "ranks": "needs SBC ranks (with n_posterior_samples) or posterior draws with theta",
    "draws": "needs posterior draws with theta",
    "latent": "needs the flow itself, not arrays",
    "reference": "needs reference draws and the posterior's draws at the same observations",
    "log_prob": "needs the flow itself, with log_prob and sample, not arrays",
    "x_obs": "needs observed data (x_obs) and the flow's calibration x's",
}


@renamed_parameters(draws="posterior_samples", reference_samples="posterior_samples_at_reference")
def report_from_arrays(
    *,
    pit_values: Any = None,
    x: Any = None,
    x_eval: Any = None,
    x_obs: Any = None,
    ranks: Any = None,
    n_posterior_samples: int | None = None,
    posterior_samples: Any = None,
    theta: Any = None,
    reference: Sequence[tuple[Any, Any]] | None = None,
    posterior_samples_at_reference: Sequence[Any] | None = None,
    checks: Any = "all",
    n_resamples: int | None = None,
    alpha: float = 0.05,
    regressor: Any = "knn",
    levels: Any = None,
    statistic: str = "mse",
    eval_correction: str = "holm",
    classifier: str = "logistic",
    seed: SeedLike = None,
    n_jobs: int | None = None,
    parameter_names: Sequence[str] | None = None,
) -> PosteriorValidationResult:
    """A :class:`PosteriorValidationResult` from precomputed inputs (the command line's ``report``).

    PIT values (with ``x``) feed the PIT checks; SBC ranks (with ``n_posterior_samples``) feed
    SBC; ``posterior_samples``, the posterior's draws of shape (N, S, m) with their ``theta``,
    feed TARP (and SBC when no ranks are given); ``reference`` draws with the posterior's
    ``posterior_samples_at_reference`` at the same observations feed C2ST. L-C2ST-NF needs the
    flow itself and is skipped.

    ``n_resamples``, ``alpha`` (the report's level, B is planned for) and ``regressor`` work as
    in :func:`validate_posterior`. ``levels`` is the
    credibility grid of the global and local coverage checks (:func:`level_grid`; default 99
    levels), ``statistic`` the local coverage statistic and ``eval_correction`` the local checks'
    correction across evaluation points (see :func:`local_coverage_test`). ``parameter_names``
    names θ's coordinates in the figures, findings and summary (default θ₁, …, θₘ).

    ``x_obs``, the observed data sets (rows, with ``x``), works as in :func:`validate_posterior`:
    the local checks run at its rows too (after ``x_eval``), and the ``misspecification`` check
    asks whether each row is typical of the calibration ``x``.
    """
    n_jobs = check_n_jobs(n_jobs)
    alpha = check_alpha(alpha)
    regressor = check_regressor(regressor)
    classifier = check_classifier(classifier)
    if n_resamples is not None:
        n_resamples = check_int(n_resamples, "n_resamples", low=1)
    grid = level_grid(levels)
    missing = dict(_MISSING)
    fields: dict[str, Any] = {}
    if pit_values is not None:
        fields |= _pit_fields(pit_values, x, x_eval, x_obs, missing)
    elif x is not None:  # x with x_obs alone feeds the misspecification check
        fields |= _x_fields(x, x_eval, x_obs, missing)
    elif x_obs is not None:
        msg = "`x_obs` needs `x`, the calibration x's it is compared with."
        raise ValueError(msg)
    draws = None
    if posterior_samples is not None:
        draws, theta = _check_draws(posterior_samples, theta)
        fields |= {
            "theta": theta,
            "sampler": StoredDraws(draws),
            "sample_x": np.zeros((draws.shape[0], 1)),  # the stored draws need no x
            "n_draws": draws.shape[1],
            "n_params": draws.shape[2],
        }
        fields.setdefault("n", draws.shape[0])
        del missing["draws"]
        if ranks is None:
            ranks = (draws < theta[:, None, :]).sum(axis=1)
            n_posterior_samples = draws.shape[1]
    if ranks is not None:
        if n_posterior_samples is None:
            msg = "`n_posterior_samples` is needed with `ranks` (ranks lie in 0..S)."
            raise ValueError(msg)
        ranks = check_samples(ranks, "ranks", min_samples=2)
        n_posterior_samples = check_int(n_posterior_samples, "n_posterior_samples", low=1)
        fields |= {"ranks": ranks, "n_posterior_samples": n_posterior_samples}
        del missing["ranks"]
    _same_n(pit_values=fields.get("pit_values"), ranks=ranks, posterior_samples=draws)
    if reference is not None:
        fields |= _reference_fields(reference, posterior_samples_at_reference)
        del missing["reference"]
    inputs = ReportInputs(
        regressor=regressor,
        classifier=classifier,
        levels=grid,
        statistic=statistic,
        eval_correction=eval_correction,
        n_jobs=n_jobs,
        missing=missing,
        **fields,
    )
    n_eval = 0 if inputs.x_eval is None else int(inputs.x_eval.shape[0])
    settings: dict[str, Any] = {
        "n_resamples": None,  # the plan's B per resampling check, filled in by the builder
        "n_resamples_auto": n_resamples is None,
        "regressor": regressor_name(regressor),
        "n_levels": int(grid.size),
        "statistic": statistic,
        "eval_correction": eval_correction,
        "classifier": classifier,
        "from": "arrays",
        "parameter_names": list(check_parameter_names(parameter_names, inputs.n_params)),
    }
    if n_eval:
        settings.update(n_eval_points=n_eval, x_eval=inputs.x_eval)
    # the arrays as given where no check validated them, so that the hash covers every input
    arrays = [
        inputs.pit_values,
        x if inputs.x is None else inputs.x,
        x_eval if inputs.x_eval is None else inputs.x_eval,
        inputs.x_obs,
        inputs.ranks,
        draws,
        theta if inputs.theta is None else inputs.theta,
    ]
    with thread_limits(n_jobs=n_jobs):  # one scan of the thread pools for all the null fits
        return build_report(
            inputs,
            checks=checks,
            n_resamples=n_resamples,
            alpha=alpha,
            seed=seed,
            settings=settings,
            input_hash=input_hash(*arrays),
        )


def _pit_fields(
    pit_values: Any, x: Any, x_eval: Any, x_obs: Any, missing: dict[str, str]
) -> dict[str, Any]:
    """The inputs PIT values (and their x's) supply; the needs they meet leave ``missing``."""
    pit_values = check_samples(pit_values, "pit_values")
    out: dict[str, Any] = {"pit_values": pit_values}
    out |= {"n": pit_values.shape[0], "n_params": pit_values.shape[1]}
    del missing["pit"]
    if pit_values.shape[1] >= 2:
        del missing["two_parameters"]
    if x is not None:
        x = check_samples(x, "x")
        check_same_rows([("pit_values", pit_values), ("x", x)], what="the report")
        x_eval, x_obs = evaluation_points(x, x_eval, x_obs)
        out |= {"x": x, "x_eval": x_eval, "n_features": x.shape[1]}
        del missing["x"]
        if x_obs is not None:
            out["x_obs"] = x_obs
            del missing["x_obs"]
    elif x_obs is not None:
        msg = "`x_obs` needs `x`, the calibration x's it is compared with."
        raise ValueError(msg)
    return out


def _x_fields(x: Any, x_eval: Any, x_obs: Any, missing: dict[str, str]) -> dict[str, Any]:
    """The calibration x's and observed data given without PIT values (the misspecification
    check needs only these two)."""
    x = check_samples(x, "x")
    x_eval, x_obs = evaluation_points(x, x_eval, x_obs)
    out: dict[str, Any] = {"x": x, "x_eval": x_eval, "n_features": x.shape[1], "n": x.shape[0]}
    if x_obs is not None:
        out["x_obs"] = x_obs
        del missing["x_obs"]
    return out


def _check_draws(posterior_samples: Any, theta: Any) -> tuple[np.ndarray, np.ndarray]:
    """The stored draws (N, S, m) and their θ (N, m), refused under the user's own names."""
    # the shared reader: tensors (with grad too), complex and strings are handled there
    draws = as_numpy(posterior_samples, "posterior_samples")
    if draws.ndim != 3:
        msg = f"`posterior_samples` must have shape (N, S, m); got {draws.shape}."
        raise ValueError(msg)
    try:
        draws = np.asarray(draws, dtype=float)
    except (TypeError, ValueError):
        msg = f"`posterior_samples` must hold numeric data; got dtype {draws.dtype}."
        raise TypeError(msg) from None
    bad = ~np.isfinite(draws)
    if bad.any():  # the user's stored draws: no flow sampled them
        i, k, j = np.argwhere(bad)[0]
        msg = f"`posterior_samples` must be finite; found {draws[i, k, j]} at simulation {i}, draw {k}, parameter {j}."
        raise ValueError(msg)
    theta = check_samples(theta, "theta")
    if draws.shape[0] != theta.shape[0] or draws.shape[2] != theta.shape[1]:
        msg = (
            f"`posterior_samples` of shape {draws.shape} (N, S, m) must match `theta` of "
            f"shape {theta.shape} (N, m) in N and m."
        )
        raise ValueError(msg)
    return draws, theta


def _same_n(**arrays: Any) -> None:
    """Refuse per-simulation inputs of different N: the report states one N for all checks."""
    given = [(name, np.asarray(a)) for name, a in arrays.items() if a is not None]
    if len(given) > 1:
        check_same_rows(given, what="the report (one N for every check)")


def _reference_fields(reference: Sequence[tuple[Any, Any]], at_reference: Any) -> dict[str, Any]:
    """The reference draws, and the posterior's stored draws at the same observations."""
    if at_reference is None or len(at_reference) != len(reference):
        msg = (
            "`posterior_samples_at_reference` must give the posterior's draws at every "
            "reference observation."
        )
        raise ValueError(msg)
    samples = []
    for i, ((_x_o, ref), at) in enumerate(zip(reference, at_reference, strict=True)):
        # named here as the user's arguments, not as the x and y of the C2ST run on them
        name = f"posterior_samples_at_reference[{i}]"
        at = check_samples(at, name)
        ref = check_samples(ref, f"reference[{i}] draws")
        if at.shape[1] != ref.shape[1] or at.shape[0] < ref.shape[0]:
            msg = (
                f"`{name}` must hold at least as many draws as `reference[{i}]`, with as many "
                f"parameters; got shapes {at.shape} and {ref.shape}."
            )
            raise ValueError(msg)
        samples.append(at)

    def draws_at(i: int, x_o: Any, n_draws: int, rng: Any) -> np.ndarray:
        return samples[i][:n_draws]

    return {"reference": reference, "draws_at_reference": draws_at}
