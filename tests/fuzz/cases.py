"""The catalogue: a small valid call of each public function and the role of each argument."""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tests.fuzz.data import (
    _TMP,
    _cat_samples,
    _density,
    _flow_pairs,
    _kfold,
    _logistic,
    _model,
    _normal,
    _out_path,
    _posterior_pair,
    _result,
    _score_table,
    _scores,
    _simulate,
    _square,
    _stairs,
    _ttest,
    _uniform,
)
from tests.fuzz.mutations import (
    BATCH,
    CALLABLE,
    CATEGORICAL,
    CHOICE,
    CLOSED,
    COUNT,
    COUNTS,
    DEVICE,
    DRAWS,
    FLAG,
    HIDDEN,
    JOBS,
    LEVEL,
    LEVELS,
    NONNEG,
    OBJECT,
    OUT,
    PIT,
    POINTS,
    POSITIVE,
    PROBS,
    PVALUES,
    RATIO,
    RESULT,
    SAMPLES,
    SEED,
    SIZE,
    VECTOR,
    Mutation,
    _location_params,
    _multi_metric,
    _opts,
    _params_role,
    _search,
    _search_data,
    _search_roles,
    _with,
)


@dataclasses.dataclass(frozen=True)
class Case:
    """One call of one public function with one bad or unusual argument."""

    function: str
    label: str
    build: Callable[[], dict[str, Any]]
    names: tuple[str, ...]
    must_fail: bool = False
    degenerate: bool = False
    quick: bool = False

    @property
    def id(self) -> str:
        return f"{self.function}:{self.label}"


@dataclasses.dataclass(frozen=True)
class Entry:
    """A public function, a small valid call, and the role of each argument."""

    name: str
    base: Callable[[], dict[str, Any]]
    roles: dict[str, list[Mutation]]
    widths: tuple[str, ...] = ()
    rows: tuple[str, ...] = ()
    extras: tuple[tuple[str, Callable[[dict[str, Any]], dict[str, Any]], dict[str, Any]], ...] = ()
    # options bounded by the number of rows: an error on too few rows may name them instead
    bounded: tuple[str, ...] = ()
    # other arguments set while one is mutated (an option only used in some mode)
    contexts: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class _Later:
    """A context value built when the case runs (a fitted model, say), not with the catalogue."""

    make: Callable[[], Any]

    def __call__(self) -> Any:
        return self.make()


def _set(**changes: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def apply(kw: dict[str, Any]) -> dict[str, Any]:
        return {**kw, **{k: v() if callable(v) else v for k, v in changes.items()}}

    return apply


def _wider(name: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def apply(kw: dict[str, Any]) -> dict[str, Any]:
        v = np.asarray(kw[name])
        return {**kw, name: np.concatenate([v, v[:, :1]], axis=1)}

    return apply


def _shorter(name: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def apply(kw: dict[str, Any]) -> dict[str, Any]:
        v = np.asarray(kw[name])
        return {**kw, name: v[: max(1, v.shape[0] - 3)]}

    return apply


def _xyz(n: int = 40, shifts: tuple[float, ...] = (0.0, 0.5, 0.0)) -> dict[str, np.ndarray]:
    return {k: _normal(n, shift=s, seed=i) for i, (k, s) in enumerate(zip("xyz", shifts))}


def _pqz() -> dict[str, Any]:
    return {"p": _density(0.0), "q": _density(0.5), "z": _normal(seed=2)}


def _pit_call(**kw: Any) -> dict[str, Any]:
    return {
        "pit_values": _uniform(120),
        "x": _normal(120),
        "x_eval": _normal(2, seed=5),
        "regressor": "knn",
        "n_resamples": 10,
        "seed": 0,
        **kw,
    }


_OPTIMIZE_OPTIONS = {
    "n_locations": COUNT,
    "bandwidth": POSITIVE,
    "seed": SEED,
    "optimizer": CHOICE,
}
_UME_OPTIONS = {
    **_OPTIMIZE_OPTIONS,
    "train_fraction": LEVEL,
    "chunk_size": BATCH,
}

_C2ST_OPTIONS = {
    "n_folds": SIZE,
    "seed": SEED,
    "classifier": CHOICE,
    "z_score": FLAG,
    "noise_scale": NONNEG,
    "hidden": HIDDEN,
    "max_epochs": COUNT,
    "device": CHOICE,
    "progress": FLAG,
}

# the device and the hidden widths only matter to the MLP
_MLP_CONTEXTS = {
    "device": {"classifier": "mlp", "max_epochs": 2},
    "hidden": {"classifier": "mlp", "max_epochs": 2},
}

_FLOW_ROLES = {"flow": OBJECT, "theta": SAMPLES, "x": SAMPLES}


def _two_sample() -> list[Entry]:
    """The two-sample tests."""
    return [
        Entry(
            "c2st",
            lambda: {"x": _normal(), "y": _normal(seed=1), "classifier": "logistic", "seed": 0},
            {"x": SAMPLES, "y": SAMPLES, **_C2ST_OPTIONS, "n_jobs": JOBS},
            widths=("x", "y"),
            bounded=("n_folds",),
            contexts=_MLP_CONTEXTS,
            extras=(
                (
                    "hidden=1e9",
                    _set(classifier="mlp", hidden=[10**9], max_epochs=2),
                    {"names": ("hidden",), "must_fail": True, "quick": True},
                ),
                (
                    "x=y=constant",
                    _set(x=lambda: np.ones((40, 2)), y=lambda: np.ones((40, 2))),
                    {"names": ("x", "y")},
                ),
            ),
        ),
        Entry(
            "c2st_many",
            lambda: {
                "pairs": [(_normal(), _normal(seed=1))],
                "classifier": "logistic",
                "seed": 0,
            },
            {
                "pairs": _opts(
                    ("none", None, True),
                    ("empty", [], True),
                    ("int", 3, True),
                    ("single", [(_normal(),)], True),
                    ("nan", [(_normal(), _with(_normal(seed=1), math.nan))], True),
                    ("width", [(_normal(), _normal(d=3))], True),
                    ("nan_mapping", {"a": (_normal(), _with(_normal(seed=1), math.nan))}, True),
                    ("str", "pairs", True),
                ),
                **_C2ST_OPTIONS,
                "n_jobs": JOBS,
                "group_size": COUNT,
            },
            contexts=_MLP_CONTEXTS,
        ),
    ]


# a resample count where 0 is legitimate (no standard error)
_RESAMPLES_OR_NONE = [*(m for m in SIZE if m[0] != "0"), *_opts(("0", 0, False))]


def _relative() -> list[Entry]:
    """The relative fit tests."""
    return [
        Entry(
            "rel_ume",
            lambda: {**_xyz(), "seed": 0},
            {
                "x": SAMPLES,
                "y": SAMPLES,
                "z": SAMPLES,
                **_UME_OPTIONS,
                "subsample": FLAG,
                "params": _params_role("ume"),
            },
            widths=("x", "y", "z"),
            rows=("x", "y", "z"),
            contexts={"params": {"optimizer": None}},
            extras=(
                (
                    "params+optimizer",
                    _set(params=lambda: _location_params("ume"), optimizer=lambda: "demo"),
                    {"names": ("params", "optimizer"), "must_fail": True},
                ),
                (
                    "p=q=r",
                    _set(y=lambda: _normal(seed=0), z=lambda: _normal(seed=0)),
                    {"names": ("x", "y", "z")},
                ),
            ),
        ),
        Entry(
            "rel_fssd",
            lambda: {**_pqz(), "seed": 0},
            {
                "p": OBJECT,
                "q": OBJECT,
                "z": SAMPLES,
                **_UME_OPTIONS,
                "params": _params_role("fssd"),
            },
            contexts={"params": {"optimizer": None}},
            extras=(
                (
                    "params+optimizer",
                    _set(params=lambda: _location_params("fssd"), optimizer=lambda: "demo"),
                    {"names": ("params", "optimizer"), "must_fail": True},
                ),
                ("z_width", _wider("z"), {"names": ("z", "p", "q"), "must_fail": True}),
                ("p=q", _set(q=lambda: _density(0.0)), {"names": ("p", "q")}),
            ),
        ),
        Entry(
            "rel_mmd",
            lambda: {**_xyz(), "seed": 0},
            {
                "x": SAMPLES,
                "y": SAMPLES,
                "z": SAMPLES,
                "bandwidth": POSITIVE,
                "kernel": _opts(("str", "gaussian", True), ("int", 3, True)),
                "bandwidth_method": CHOICE,
                "variance": CHOICE,
                "subsample": FLAG,
                "seed": SEED,
                "chunk_size": BATCH,
            },
            widths=("x", "y", "z"),
            rows=("x", "y", "z"),
            extras=(
                (
                    "p=q=r",
                    _set(y=lambda: _normal(seed=0), z=lambda: _normal(seed=0)),
                    {"names": ("x", "y", "z")},
                ),
            ),
        ),
        Entry(
            "rel_kid",
            lambda: {**_xyz(), "seed": 0},
            {
                "x": SAMPLES,
                "y": SAMPLES,
                "z": SAMPLES,
                "subsample": FLAG,
                "seed": SEED,
                "chunk_size": BATCH,
            },
            widths=("x", "y", "z"),
            rows=("x", "y", "z"),
        ),
        Entry(
            "load_fid_stats",
            lambda: {"path": _fid_stats_file()},
            {
                "path": _opts(
                    ("missing", "no-such-stats.npz", True),
                    ("int", 3, True),
                    ("not_npz", str(Path(__file__)), True),
                )
            },
        ),
        Entry(
            "rel_fid",
            lambda: {**_xyz(), "n_blocks": 4, "seed": 0},
            {
                "x": SAMPLES,
                "y": SAMPLES,
                "z": SAMPLES,
                "n_blocks": SIZE,
                "method": CHOICE,
                "seed": SEED,
            },
            widths=("x", "y", "z"),
        ),
        Entry(
            "fid",
            lambda: {"x": _normal(), "z": _normal(seed=1)},
            {"x": SAMPLES, "z": SAMPLES, "method": CHOICE},
            widths=("x", "z"),
        ),
        Entry(
            "kid",
            lambda: {"x": _normal(), "z": _normal(seed=1), "n_subsets": 5, "subset_size": 20},
            {"x": SAMPLES, "z": SAMPLES, "n_subsets": SIZE, "subset_size": BATCH, "seed": SEED},
            widths=("x", "z"),
        ),
        Entry(
            "fd",
            lambda: {"x": _normal(), "z": _normal(seed=1), "n_resamples": 5, "seed": 0},
            {
                "x": SAMPLES,
                "z": SAMPLES,
                "n_resamples": _RESAMPLES_OR_NONE,
                "method": CHOICE,
                "seed": SEED,
            },
            widths=("x", "z"),
        ),
        Entry(
            "fd_infinity",
            lambda: {
                "x": _normal(),
                "z": _normal(seed=1),
                "sizes": [10, 20, 30],
                "n_resamples": 3,
                "seed": 0,
            },
            {
                "x": SAMPLES,
                "z": SAMPLES,
                "subsample_reference": FLAG,
                "n_resamples": _RESAMPLES_OR_NONE,
                "method": CHOICE,
                "seed": SEED,
            },
            widths=("x", "z"),
            bounded=("sizes",),
        ),
        Entry(
            "cmmd",
            lambda: {"x": _normal(), "z": _normal(seed=1)},
            {
                "x": SAMPLES,
                "z": SAMPLES,
                "bandwidth": POSITIVE,
                "scale": POSITIVE,
                "normalize": FLAG,
                "chunk_size": BATCH,
            },
            widths=("x", "z"),
        ),
        Entry(
            "prdc",
            lambda: {"x": _normal(), "z": _normal(seed=1), "n_subsets": 3, "seed": 0},
            {
                "x": SAMPLES,
                "z": SAMPLES,
                "nearest_k": SIZE,
                "n_subsets": _RESAMPLES_OR_NONE,
                "chunk_size": BATCH,
                "device": DEVICE,
                "seed": SEED,
            },
            widths=("x", "z"),
            bounded=("nearest_k", "n_subsets"),
        ),
        Entry(
            "optimize_ume",
            lambda: {**_xyz(), "n_locations": 2, "seed": 0},
            {"x": SAMPLES, "y": SAMPLES, "z": SAMPLES, **_OPTIMIZE_OPTIONS, "subsample": FLAG},
            widths=("x", "y", "z"),
            rows=("x", "y", "z"),
        ),
        Entry(
            "optimize_fssd",
            lambda: {**_pqz(), "n_locations": 2, "seed": 0},
            {"p": OBJECT, "q": OBJECT, "z": SAMPLES, **_OPTIMIZE_OPTIONS},
        ),
        Entry(
            "power_criterion_map",
            lambda: {**_xyz(), "candidates": _normal(5, seed=7), "seed": 0},
            {
                "x": SAMPLES,
                "y": SAMPLES,
                "z": SAMPLES,
                "candidates": POINTS,
                "bandwidth": POSITIVE,
                "reg": NONNEG,
                "seed": SEED,
                "subsample": FLAG,
            },
            widths=("x", "y", "z", "candidates"),
            rows=("x", "y", "z"),
        ),
        Entry(
            "select_locations",
            lambda: {**_xyz(), "candidates": _normal(8, seed=7), "n_locations": 1, "seed": 0},
            {
                "x": SAMPLES,
                "y": SAMPLES,
                "z": SAMPLES,
                "candidates": POINTS,
                "n_locations": SIZE,
                "bandwidth": POSITIVE,
                "reg": NONNEG,
                "seed": SEED,
                "subsample": FLAG,
            },
            widths=("x", "y", "z", "candidates"),
            rows=("x", "y", "z"),
        ),
        Entry(
            "fssd_power_criterion_map",
            lambda: {**_pqz(), "candidates": _normal(5, seed=7), "seed": 0},
            {
                "p": OBJECT,
                "q": OBJECT,
                "z": SAMPLES,
                "candidates": POINTS,
                "bandwidth": POSITIVE,
                "reg": NONNEG,
                "seed": SEED,
            },
            widths=("z", "candidates"),
        ),
        Entry(
            "plot_power_criterion_map",
            lambda: {"result_or_map": _result("map")},
            {"result_or_map": RESULT},
        ),
    ]


def _draws() -> dict[str, Any]:
    flow, theta, x = _flow_pairs().values()
    return {"posterior_samples": flow.sample(x, 20, seed=1), "theta": theta}


_DRAWS_ROLES = {"posterior_samples": DRAWS, "theta": SAMPLES}
_DRAWS_SHAPES = {"widths": ("posterior_samples", "theta"), "rows": ("posterior_samples", "theta")}


def _draw_metrics() -> list[Entry]:
    """The scores and tests on posterior draws, ranks, log-densities and simulated data."""
    log_q = np.random.default_rng(0).normal(size=(60, 21))
    return [
        Entry(
            "parameter_recovery",
            _draws,
            {**_DRAWS_ROLES, "normalize": CHOICE},
            **_DRAWS_SHAPES,
        ),
        Entry(
            "posterior_contraction",
            lambda: {**_draws(), "prior_variance": np.ones(2)},
            {**_DRAWS_ROLES, "prior_variance": VECTOR},
            **_DRAWS_SHAPES,
        ),
        Entry(
            "calibration_error",
            _draws,
            {**_DRAWS_ROLES, "levels": LEVELS, "aggregation": CHOICE},
            **_DRAWS_SHAPES,
        ),
        Entry(
            "sbc_log_gamma",
            lambda: {
                "ranks": np.random.default_rng(0).integers(0, 21, size=(150, 2)),
                "n_posterior_samples": 20,
                "n_resamples": 99,
                "seed": 0,
            },
            {
                "ranks": [*SAMPLES, ("above_max", lambda v: _with(v, 99), True)],
                "n_posterior_samples": SIZE,
                "n_resamples": SIZE,
                "seed": SEED,
            },
        ),
        Entry(
            "hpd_coverage_test",
            lambda: {"log_q_draws": log_q[:, 1:], "log_q_true": log_q[:, 0], "seed": 0},
            {"log_q_draws": SAMPLES, "log_q_true": VECTOR, "levels": LEVELS, "seed": SEED},
            rows=("log_q_draws", "log_q_true"),
        ),
        Entry(
            "hpd_coverage",
            lambda: {**_flow_pairs(), "n_posterior_samples": 20, "seed": 0},
            {**_FLOW_ROLES, "n_posterior_samples": SIZE, "levels": LEVELS, "seed": SEED},
            widths=("theta",),
            rows=("theta", "x"),
        ),
        Entry(
            "misspecification_test",
            lambda: {"x_obs": _normal(1, seed=3), "x_sim": _normal(200), "seed": 0},
            {
                "x_obs": POINTS,
                "x_sim": SAMPLES,
                "statistic": CHOICE,
                "n_neighbors": COUNT,
                "n_resamples": SIZE,
                "seed": SEED,
            },
            widths=("x_obs", "x_sim"),
            bounded=("n_neighbors",),
            contexts={"n_resamples": {"statistic": "mmd"}},
        ),
    ]


def _fid_stats_file() -> str:
    """An ``.npz`` of FID statistics (keys ``mu``, ``sigma``), as clean-fid and pytorch-fid write."""
    import tempfile

    x = np.random.default_rng(0).normal(size=(50, 3))
    path = Path(tempfile.mkdtemp()) / "stats.npz"
    np.savez(path, mu=x.mean(axis=0), sigma=np.cov(x, rowvar=False))
    return str(path)


def _posterior() -> list[Entry]:
    """The posterior checks."""
    pit_roles = {"pit_values": PIT, "x": SAMPLES, "x_eval": POINTS}
    return [
        *_draw_metrics(),
        Entry(
            "sbc",
            lambda: {**_flow_pairs(), "n_posterior_samples": 20, "seed": 0},
            {**_FLOW_ROLES, "n_posterior_samples": SIZE, "statistic": CHOICE, "seed": SEED},
            widths=("theta",),
            rows=("theta", "x"),
        ),
        Entry(
            "sbc_ranks",
            lambda: {**_flow_pairs(), "n_posterior_samples": 20, "seed": 0},
            {**_FLOW_ROLES, "n_posterior_samples": SIZE, "seed": SEED},
            widths=("theta",),
            rows=("theta", "x"),
        ),
        Entry(
            "sbc_test",
            lambda: {
                "ranks": np.random.default_rng(0).integers(0, 21, size=(150, 2)),
                "n_posterior_samples": 20,
                "seed": 0,
            },
            {
                "ranks": [*SAMPLES, ("above_max", lambda v: _with(v, 99), True)],
                "n_posterior_samples": BATCH,
                "statistic": CHOICE,
                "n_bins": BATCH,
                "seed": SEED,
            },
        ),
        Entry(
            "calibration_findings",
            lambda: {
                "ranks": np.random.default_rng(0).integers(0, 21, size=(150, 2)),
                "n_posterior_samples": 20,
                "pit_values": _uniform(),
                "parameter_names": ["a", "b"],
            },
            {
                "ranks": [*SAMPLES, ("above_max", lambda v: _with(v, 99), True)],
                "n_posterior_samples": BATCH,
                "pit_values": PIT,
                "parameter_names": _opts(
                    ("str", "ab", True), ("short", ["a"], True), ("not_str", ["a", 1], True)
                ),
                "alpha": LEVEL,
                "correction": CHOICE,
            },
        ),
        Entry(
            "tarp",
            lambda: {**_flow_pairs(), "n_posterior_samples": 20, "seed": 0},
            {
                **_FLOW_ROLES,
                "n_posterior_samples": SIZE,
                "n_levels": SIZE,
                "z_score": FLAG,
                "seed": SEED,
                "reference_points": _opts(("str", "refs", True), ("shape", np.zeros((3, 7)), True)),
            },
            widths=("theta",),
            rows=("theta", "x"),
        ),
        Entry(
            "pit",
            _flow_pairs,
            {**_FLOW_ROLES, "chunk_size": BATCH},
            widths=("theta",),
            rows=("theta", "x"),
        ),
        Entry(
            "check_flow",
            lambda: _flow_pairs(20),
            {**_FLOW_ROLES, "atol": POSITIVE},
            widths=("theta",),
            rows=("theta", "x"),
        ),
        Entry(
            "as_flow",
            lambda: {"obj": _model().exact_flow()},
            {"obj": OBJECT},
        ),
        Entry(
            "lc2st_nf",
            lambda: {
                **_flow_pairs(),
                "x_eval": _normal(2, seed=5),
                "n_resamples": 3,
                "n_eval": 30,
                "classifier": "quadratic",
                "seed": 0,
            },
            {
                **_FLOW_ROLES,
                "x_eval": POINTS,
                "n_eval": SIZE,
                "n_resamples": SIZE,
                "classifier": CHOICE,
                "eval_correction": CHOICE,
                "seed": SEED,
                "n_jobs": JOBS,
                "device": DEVICE,
            },
            widths=("x", "x_eval"),
            rows=("theta", "x"),
            contexts={"device": {"classifier": "mlp"}},
        ),
        Entry(
            "global_coverage_test",
            lambda: {"pit_values": _uniform(), "n_resamples": 50, "seed": 0},
            {
                "pit_values": PIT,
                "levels": LEVELS,
                "confidence_level": LEVEL,
                "simultaneous": CHOICE,
                "band_correction": CHOICE,
                "n_bins": SIZE,
                "n_resamples": SIZE,
                "seed": SEED,
            },
        ),
        Entry(
            "pit_independence_test",
            lambda: {"pit_values": _uniform()},
            {
                "pit_values": PIT,
                "statistic": CHOICE,
                "n_bins": BATCH,
                "pairs": _opts(("out_of_range", [(0, 5)], True), ("str", "pairs", True)),
            },
        ),
        Entry(
            "local_coverage_test",
            _pit_call,
            {
                **pit_roles,
                "levels": LEVELS,
                "regressor": CHOICE,
                "n_resamples": SIZE,
                "statistic": CHOICE,
                "combine": CHOICE,
                "eval_correction": CHOICE,
                "confidence_level": LEVEL,
                "band_correction": CHOICE,
                "seed": SEED,
                "n_jobs": JOBS,
                "null": _opts(("str", "null", True), ("int", 3, True)),
            },
            widths=("x", "x_eval"),
            rows=("pit_values", "x"),
        ),
        Entry(
            "local_independence_test",
            _pit_call,
            {
                **pit_roles,
                "regressor": CHOICE,
                "n_resamples": SIZE,
                "eval_correction": CHOICE,
                "seed": SEED,
                "n_jobs": JOBS,
                "pairs": _opts(("out_of_range", [(0, 5)], True), ("str", "pairs", True)),
            },
            widths=("x", "x_eval"),
            rows=("pit_values", "x"),
        ),
        Entry(
            "fit_null_regressors",
            lambda: {"x": _normal(120), "levels": 9, "regressor": "knn", "n_resamples": 5},
            {
                "x": SAMPLES,
                "levels": LEVELS,
                "regressor": CHOICE,
                "n_resamples": SIZE,
                "seed": SEED,
                "n_jobs": JOBS,
            },
        ),
        Entry(
            "validate_posterior",
            lambda: {
                **_flow_pairs(),
                "checks": ["sbc", "global_coverage", "pit_independence"],
                "n_posterior_samples": 20,
                "seed": 0,
            },
            {
                **_FLOW_ROLES,
                "x_eval": POINTS,
                "reference": _opts(
                    ("int", 3, True),
                    ("str", "reference", True),
                    ("not_pairs", [np.zeros((5, 2))], True),
                    ("nan", [(np.zeros(2), _with(_normal(30, seed=1), math.nan))], True),
                    ("width", [(np.zeros(2), _normal(30, d=3, seed=1))], True),
                    ("x_o_nan", [(np.full(2, math.nan), _normal(30, seed=1))], True),
                ),
                "checks": _opts(
                    ("bogus", ["bogus"], True),
                    ("str", "bogus", True),
                    ("empty", [], True),
                    ("int", 3, True),
                ),
                "n_posterior_samples": SIZE,
                "n_resamples": SIZE,
                "regressor": CHOICE,
                "classifier": CHOICE,
                "seed": SEED,
                "n_jobs": JOBS,
                "progress": FLAG,
            },
            widths=("theta",),
            rows=("theta", "x"),
            contexts={
                name: {
                    "checks": ["local_coverage"],
                    "x_eval": _normal(2, seed=5),
                    "regressor": "knn",
                    "n_resamples": 10,
                }
                for name in ("x_eval", "n_resamples", "regressor", "n_jobs")
            }
            | {
                "reference": {"checks": ["c2st"]},
                "classifier": {"checks": ["c2st"], "reference": [(np.zeros(2), _normal(30))]},
            },
        ),
        Entry(
            "plot_sbc",
            lambda: {"result": _result("sbc")},
            {"result": RESULT, "kind": CHOICE, "confidence_level": LEVEL},
        ),
        Entry("plot_tarp", lambda: {"result": _result("tarp")}, {"result": RESULT}),
        Entry(
            "compare_posteriors",
            lambda: dict(zip(("first", "second", "theta", "x"), _posterior_pair(), strict=True)),
            {
                "first": OBJECT,
                "second": OBJECT,
                "theta": SAMPLES,
                "x": SAMPLES,
                "scoring_rule": CHOICE,
                "x_eval": POINTS,
                "n_neighbors": SIZE,
                "alternative": CHOICE,
                "method": CHOICE,
                "n_resamples": SIZE,
                "n_posterior_samples": SIZE,
                "seed": SEED,
                "n_jobs": JOBS,
            },
            rows=("theta", "x"),
            # the where-map's options are mutated with evaluation points in place
            contexts={
                "x_eval": {"x_eval": _normal(3, seed=5)},
                "n_neighbors": {"x_eval": _normal(3, seed=5), "n_neighbors": 10},
            },
            extras=(
                (
                    "x_eval_width",
                    _set(x_eval=lambda: _normal(3, d=3, seed=5)),
                    {"names": ("x", "x_eval"), "must_fail": True},
                ),
                (
                    "x_eval_1d",
                    _set(x_eval=lambda: np.zeros(2)),
                    {"names": ("x_eval",), "must_fail": True},
                ),
            ),
        ),
        Entry(
            "rank_posteriors",
            lambda: {
                "estimators": list(_posterior_pair()[:2]),
                "theta": _posterior_pair()[2],
                "x": _posterior_pair()[3],
                "seed": 0,
            },
            {
                "estimators": OBJECT,
                "theta": SAMPLES,
                "x": SAMPLES,
                "scoring_rule": CHOICE,
                "correction": CHOICE,
                "method": CHOICE,
                "n_resamples": SIZE,
                "n_posterior_samples": SIZE,
                "seed": SEED,
                "n_jobs": JOBS,
            },
            rows=("theta", "x"),
        ),
        Entry(
            "plot_posterior_comparison",
            lambda: {"result": _result("comparison")},
            {"result": RESULT, "alpha": LEVEL},
            extras=(
                (
                    "no_x_eval",
                    _set(result=lambda: _result("comparison_global")),
                    {"names": ("x_eval",), "must_fail": True},
                ),
            ),
        ),
        Entry(
            "plot_posterior_ranking",
            lambda: {"result": _result("ranking")},
            {"result": RESULT, "confidence_level": LEVEL},
        ),
        Entry(
            "plot_pit_correlations",
            lambda: {"result": _result("independence")},
            {"result": RESULT, "labels": _opts(("wrong_length", ["a"], True))},
        ),
        Entry(
            "plot_global_histograms",
            lambda: {"result": _result("global")},
            {"result": RESULT},
        ),
        Entry(
            "plot_global_pp",
            lambda: {"result": _result("global")},
            {"result": RESULT, "band": CHOICE},
        ),
        Entry(
            "plot_local_pp",
            lambda: {"result": _result("local"), "index": 0},
            {"result": RESULT, "index": _opts(("out_of_range", 5, True), ("str", "0", True))},
        ),
        Entry(
            "plot_local_statistics",
            lambda: {"result": _result("local")},
            {
                "result": RESULT,
                "alpha": LEVEL,
                "path": _opts(("wrong_length", [0.0, 1.0, 2.0, 3.0], True)),
            },
        ),
    ]


def _categorical() -> list[Entry]:
    """The categorical closeness tests."""
    return [
        Entry(
            "closeness_test",
            lambda: {
                "p_binned": np.full(4, 0.25),
                "counts": np.array([24, 26, 25, 25]),
                "mode": "asymptotic",
                "seed": 0,
            },
            {
                "p_binned": PROBS,
                "counts": COUNTS,
                "epsilon": POSITIVE,
                "alpha": LEVEL,
                "mode": CHOICE,
                "epsilon0": NONNEG,
                "n_resamples": SIZE,
                "variance_bound": _opts(("bogus", "bogus", True), ("nan", math.nan, True)),
                "seed": SEED,
            },
            contexts={
                "n_resamples": {"mode": "mc"},
                "variance_bound": {"mode": "cantelli"},
                "alpha": {"mode": "cantelli"},  # a p-value mode takes no level
            },
            extras=(
                (
                    "length_mismatch",
                    _set(counts=lambda: np.array([24, 26, 50])),
                    {"names": ("p_binned", "counts"), "must_fail": True},
                ),
            ),
        ),
        Entry(
            "two_sample_closeness_test",
            lambda: {
                "reference_counts": np.array([24, 26, 25, 25]),
                "counts": np.array([25, 25, 26, 24]),
                "n_resamples": 99,
                "seed": 0,
            },
            {
                "reference_counts": COUNTS,
                "counts": COUNTS,
                "epsilon": POSITIVE,
                "alpha": LEVEL,
                "mode": CHOICE,
                "n_resamples": SIZE,
                "seed": SEED,
            },
            contexts={"alpha": {"mode": "threshold"}},  # permutation takes no level
            extras=(
                (
                    "length_mismatch",
                    _set(counts=lambda: np.array([24, 26, 50])),
                    {"names": ("reference_counts", "counts"), "must_fail": True},
                ),
            ),
        ),
        Entry(
            "granularity",
            lambda: {"p": _stairs(), "samples": _cat_samples(), "seed": 0},
            {
                "p": OBJECT,
                "samples": CATEGORICAL,
                "epsilon": POSITIVE,
                "alpha": LEVEL,
                "n_bins_grid": _opts(
                    ("huge", (2, 10**6), True),
                    ("reversed", (5, 2), True),
                    ("str", "k", True),
                    ("zero", (0, 3), True),
                ),
                "mode": CHOICE,
                "split": FLAG,
                "train_fraction": LEVEL,
                "epsilon0": NONNEG,
                "n_resamples": SIZE,
                "seed": SEED,
                "reference_samples": [
                    *(m for m in CATEGORICAL if m[0] not in ("out_of_range", "none")),
                    ("out_of_range", lambda v: _with(v, 99), False),  # a category of its own
                    ("none", lambda v: None, True),  # p is None: the reference is needed
                ],
            },
            contexts={
                "n_resamples": {"mode": "mc"},
                "reference_samples": {"p": None, "reference_samples": _Later(_cat_samples)},
            },
            extras=(
                (
                    "samples_width",
                    _wider("samples"),
                    {"names": ("samples", "p"), "must_fail": True},
                ),
                (
                    "reference_samples_width",
                    _set(p=None, reference_samples=lambda: _wider("x")({"x": _cat_samples()})["x"]),
                    {"names": ("samples", "reference_samples"), "must_fail": True},
                ),
                (
                    "reference_samples=out_of_range_with_p",
                    _set(reference_samples=lambda: _with(_cat_samples(), 99)),
                    {"names": ("reference_samples",), "must_fail": True},
                ),
                (
                    "reference_samples_width_with_p",
                    _set(reference_samples=lambda: _wider("x")({"x": _cat_samples()})["x"]),
                    {"names": ("reference_samples", "p"), "must_fail": True},
                ),
            ),
        ),
        Entry(
            "adaptive_binning",
            lambda: {"p": _stairs(), "samples": _cat_samples(), "n_bins": 3, "seed": 0},
            {"p": OBJECT, "samples": CATEGORICAL, "n_bins": SIZE, "seed": SEED},
        ),
        Entry(
            "random_binning",
            lambda: {"p": _stairs(), "n_bins": 3, "seed": 0},
            {"p": OBJECT, "n_bins": SIZE, "seed": SEED},
        ),
        Entry(
            "perturb",
            lambda: {"p": _stairs(), "tv": 0.05, "seed": 0},
            {
                "p": OBJECT,
                "tv": NONNEG,
                "l1": NONNEG,
                "add_frac": CLOSED,
                "null_frac": CLOSED,
                "seed": SEED,
            },
        ),
        Entry(
            "stair_distribution",
            lambda: {"n_categories": 4, "length": 4, "n_stairs": 2},
            {
                "n_categories": SIZE,
                "length": SIZE,
                "n_stairs": SIZE,
                "ratio": POSITIVE,
                "layout": CHOICE,
                "positive_fraction": CLOSED,
            },
        ),
        Entry(
            "plot_granularity",
            lambda: {"result": _result("granularity")},
            {"result": RESULT},
        ),
    ]


def _cross_validation() -> list[Entry]:
    """The cross-validated comparisons."""
    return [
        Entry(
            "corrected_ttest",
            lambda: dict(zip(("scores_a", "scores_b"), _scores()), n_train=90, n_test=10),
            {
                "scores_a": VECTOR,
                "scores_b": VECTOR,
                "n_train": POSITIVE,
                "n_test": POSITIVE,
                "test_train_ratio": RATIO,
                "alternative": CHOICE,
                "nan_policy": CHOICE,
            },
            rows=("scores_a", "scores_b"),
            contexts={"test_train_ratio": {"n_train": None, "n_test": None}},
            extras=(
                (
                    "a=b",
                    lambda kw: {**kw, "scores_b": np.array(kw["scores_a"])},
                    {"names": ("scores_a", "scores_b"), "degenerate": True, "quick": True},
                ),
                (
                    "test_train_ratio=nan",
                    _set(n_train=None, n_test=None, test_train_ratio=math.nan),
                    {"names": ("test_train_ratio",), "must_fail": True},
                ),
            ),
        ),
        Entry(
            "bayesian_ttest",
            lambda: dict(zip(("scores_a", "scores_b"), _scores()), n_train=90, n_test=10),
            {
                "scores_a": VECTOR,
                "scores_b": VECTOR,
                "n_train": POSITIVE,
                "n_test": POSITIVE,
                "test_train_ratio": RATIO,
                "rope": NONNEG,
                "nan_policy": CHOICE,
            },
            rows=("scores_a", "scores_b"),
            contexts={"test_train_ratio": {"n_train": None, "n_test": None}},
            extras=(
                (
                    "a=b",
                    lambda kw: {**kw, "scores_b": np.array(kw["scores_a"])},
                    {"names": ("scores_a", "scores_b"), "degenerate": True},
                ),
            ),
        ),
        Entry(
            "bayesian_signed_rank",
            lambda: dict(zip(("scores_a", "scores_b"), _scores()), n_draws=2000, seed=0),
            {
                "scores_a": VECTOR,
                "scores_b": VECTOR,
                "rope": NONNEG,
                "prior": POSITIVE,
                "n_draws": SIZE,
                "seed": SEED,
            },
            rows=("scores_a", "scores_b"),
        ),
        Entry(
            "friedman_test",
            lambda: {"scores": _score_table()},
            {
                "scores": SAMPLES,
                "names": _opts(("wrong_length", ["a"], True)),
                "greater_is_better": FLAG,
            },
        ),
        Entry(
            "nemenyi_test",
            lambda: {"scores": _score_table()},
            {
                "scores": SAMPLES,
                "names": _opts(("wrong_length", ["a"], True)),
                "greater_is_better": FLAG,
                "alpha": LEVEL,
            },
        ),
        Entry(
            "wilcoxon_holm_test",
            lambda: {"scores": _score_table()},
            {
                "scores": SAMPLES,
                "names": _opts(("wrong_length", ["a"], True)),
                "greater_is_better": FLAG,
                "correction": CHOICE,
                "zero_method": CHOICE,
            },
        ),
        Entry(
            "adjust_pvalues",
            lambda: {"pvalues": np.array([0.01, 0.04, 0.03])},
            {"pvalues": PVALUES, "correction": CHOICE},
        ),
        Entry(
            "compare_models",
            lambda: {
                "results": dict(zip("ab", _scores(20, shift=0.05))),
                "n_train": 90,
                "n_test": 10,
            },
            {
                "results": _opts(
                    ("none", None, True),
                    ("int", 3, True),
                    ("empty", {}, True),
                    ("one_model", {"a": _scores()[0]}, True),
                    ("nan", {"a": _with(_scores()[0], math.nan), "b": _scores()[1]}, True),
                    ("lengths", {"a": _scores()[0], "b": _scores()[1][:5]}, True),
                    ("str", {"a": ["x"] * 10, "b": _scores()[1]}, True),
                ),
                "names": _opts(("wrong_length", ["a"], True)),
                "n_train": POSITIVE,
                "n_test": POSITIVE,
                "test_train_ratio": RATIO,
                "rope": NONNEG,
                "correction": CHOICE,
                "alternative": CHOICE,
                "greater_is_better": FLAG,
                "order": CHOICE,
                "nan_policy": CHOICE,
            },
            contexts={"test_train_ratio": {"n_train": None, "n_test": None}},
        ),
        # the split sizes read from a fitted search's splitter on the data given to .fit()
        Entry(
            "compare_models",
            lambda: {"results": _search(), "X": _search_data()["X"], "y": _search_data()["y"]},
            _search_roles(),
            contexts={
                "groups": {"results": _Later(lambda: _search("groups"))},
                "n_samples": {
                    "results": _Later(lambda: _search("regressor")),
                    "X": None,
                    "y": None,
                },
                "scoring": {
                    "results": _Later(_multi_metric),
                    "X": None,
                    "y": None,
                    "n_train": 90,
                    "n_test": 10,
                },
            },
            extras=(
                (
                    "scoring=missing_cross_validate",
                    _set(
                        results=lambda: {
                            m: {"test_accuracy": _scores()[i], "test_recall": _scores()[1 - i]}
                            for i, m in enumerate("ab")
                        },
                        X=None,
                        y=None,
                        groups=None,
                        n_train=90,
                        n_test=10,
                        scoring="precision",
                    ),
                    {"names": ("scoring",), "must_fail": True},
                ),
            ),
        ),
        Entry(
            "scores_from_cv_results",
            lambda: {
                "cv_results": {
                    "params": [{"C": 1}, {"C": 10}],
                    "split0_test_score": [0.8, 0.9],
                    "split1_test_score": [0.7, 0.85],
                    "rank_test_score": [2, 1],
                }
            },
            {
                "cv_results": _opts(
                    ("none", None, True),
                    ("empty", {}, True),
                    ("int", 3, True),
                    ("no_splits", {"params": [{"C": 1}]}, True),
                    (
                        "lengths",
                        {"params": [{"C": 1}, {"C": 2}], "split0_test_score": [0.8]},
                        True,
                    ),
                ),
                "scoring": _opts(("missing", "recall", True), ("int", 3, True)),
            },
        ),
        Entry(
            "split_sizes",
            lambda: {"cv": _kfold(), "n_samples": 100},
            {
                "cv": _opts(
                    ("none", None, False),
                    ("str", "kfold", True),
                    ("0", 0, True),
                    ("1", 1, True),
                    ("huge", 10**6, True),
                ),
                "n_samples": SIZE,
                "is_classifier": FLAG,
            },
        ),
        Entry(
            "plot_locations_as_images",
            lambda: {"result_or_criterion": np.linspace(1.0, 0.0, 6), "images": _uniform(6, 4)},
            {
                "result_or_criterion": _opts(("str", "abc", True), ("2d", np.ones((3, 2)), True)),
                "images": _opts(("short", _uniform(2, 4), True), ("str", "images", True)),
                "top": _opts(("zero", 0, True), ("str", "3", True)),
                "ncols": _opts(("zero", 0, True)),
            },
        ),
        Entry(
            "compare_generators",
            lambda: {
                "first": _normal(60, seed=1),
                "second": _normal(60, seed=2),
                "reference": _normal(60, seed=3),
                "n_locations": 2,
                "seed": 0,
            },
            {
                "first": SAMPLES,
                "second": SAMPLES,
                "reference": SAMPLES,
                "n_locations": COUNT,
                "seed": SEED,
            },
            widths=("first", "second", "reference"),
        ),
        Entry(
            "plot_critical_difference",
            lambda: {"result": _result("nemenyi")},
            {"result": RESULT, "alpha": LEVEL},
        ),
        Entry(
            "mcnemar_table",
            lambda: {
                "y_true": np.array([0, 1, 1, 0, 1, 0, 1, 1]),
                "y_pred_a": np.array([0, 1, 0, 0, 1, 1, 1, 1]),
                "y_pred_b": np.array([1, 1, 1, 0, 0, 0, 1, 0]),
            },
            {
                "y_true": _opts(
                    ("none", None, True), ("short", [0], True), ("2d", [[0, 1]] * 8, True)
                ),
                "y_pred_a": _opts(("none", None, True), ("short", [0], True)),
                "y_pred_b": _opts(("none", None, True), ("short", [0], True)),
            },
        ),
        Entry(
            "mcnemar_test",
            lambda: {"table": np.array([[50, 12], [4, 30]])},
            {
                "table": _opts(
                    ("negative", [[1, -1], [2, 3]], True),
                    ("fraction", [[1.5, 1], [2, 3]], True),
                    ("nan", [[math.nan, 1], [2, 3]], True),
                    ("shape", [[1, 2, 3]], True),
                    ("str", [["a", "b"], ["c", "d"]], True),
                    ("zeros", [[5, 0], [0, 5]], False),
                ),
                "exact": FLAG,
                "continuity_correction": FLAG,
            },
        ),
        Entry(
            "paired_ttest_5x2cv",
            lambda: dict(zip(("scores_a", "scores_b"), _scores())),
            {"scores_a": VECTOR, "scores_b": VECTOR, "alternative": CHOICE},
            extras=(
                (
                    "a=b",
                    lambda kw: {**kw, "scores_b": np.array(kw["scores_a"])},
                    {"names": ("scores_a", "scores_b"), "degenerate": True},
                ),
            ),
        ),
        Entry(
            "combined_ftest_5x2cv",
            lambda: dict(zip(("scores_a", "scores_b"), _scores())),
            {"scores_a": VECTOR, "scores_b": VECTOR},
        ),
        Entry(
            "cross_validate_5x2",
            lambda: {
                "estimator_a": _logistic(),
                "estimator_b": _logistic(),
                "X": _normal(60, 2),
                "y": np.arange(60) % 2,
                "seed": 0,
            },
            {
                "estimator_a": OBJECT,
                "X": _opts(("none", None, True), ("short", np.zeros((5, 2)), True)),
                "y": _opts(("short", np.arange(5) % 2, True)),
                "splits": CHOICE,
                "seed": SEED,
                "n_jobs": JOBS,
            },
        ),
        Entry(
            "bayesian_hierarchical_ttest",
            lambda: {
                "scores_a": np.stack([_scores(seed=k)[0] for k in range(3)]),
                "scores_b": np.stack([_scores(seed=k)[1] for k in range(3)]),
                "n_draws": 200,
                "n_warmup": 50,
                "seed": 0,
            },
            {
                "scores_a": SAMPLES,
                "scores_b": SAMPLES,
                "rope": NONNEG,
                "n_folds": _opts(("3", 3, True), ("1", 1, True), ("str", "10", True)),
                "n_draws": _opts(("0", 0, True), ("str", "10", True)),
                "n_chains": _opts(("0", 0, True), ("str", "2", True)),
                "seed": SEED,
            },
        ),
        Entry(
            "compare_models_report",
            lambda: {"results": _score_table(), "seed": 0},
            {
                "results": _opts(
                    ("none", None, True),
                    ("1d", [0.1, 0.2], True),
                    ("nan", _with(_score_table(), math.nan), True),
                    ("str", np.asarray(_score_table()).astype(str), True),
                ),
                "across": CHOICE,
                "posthoc": CHOICE,
                "bayesian": CHOICE,
                "alpha": LEVEL,
                "rope": NONNEG,
                "greater_is_better": FLAG,
                "seed": SEED,
            },
        ),
        Entry(
            "plot_pair_probabilities",
            lambda: {"table": _result("pairs")},
            {"table": RESULT},
        ),
        Entry(
            "plot_posterior",
            lambda: {"result": _result("bayes")},
            {
                "result": RESULT,
                "names": _opts(("wrong_length", ("a",), True), ("int", 3, True)),
            },
        ),
    ]


def _experiments() -> list[Entry]:
    """The experiment runners."""
    return [
        Entry(
            "power_study",
            lambda: {
                "test": _ttest,
                "simulate": _simulate,
                "n_trials": 5,
                "settings": {"shift": [0.0, 1.0]},
                "seed": 0,
            },
            {
                "test": CALLABLE,
                "simulate": CALLABLE,
                "n_trials": SIZE,
                "alpha": LEVEL,
                "settings": _opts(("int", 3, True), ("str", "shift", True)),
                "seed": SEED,
                "n_jobs": JOBS,
                "progress": FLAG,
                "confidence_level": LEVEL,
                "ci_method": CHOICE,
                "out": OUT,
            },
        ),
        Entry(
            "run_many",
            lambda: {"fn": _square, "configs": [{"v": 1.0}, {"v": 2.0}], "seed": 0},
            {
                "fn": CALLABLE,
                "configs": _opts(
                    ("none", None, True),
                    ("int", 3, True),
                    ("str", "configs", True),
                    ("not_mapping", [3], True),
                ),
                "n_jobs": JOBS,
                "seed": SEED,
                "progress": FLAG,
            },
        ),
        Entry(
            "run_sweep",
            lambda: {
                "fn": _square,
                "configs": [{"v": 1.0}, {"v": 2.0}],
                "out": _out_path(),
                "seed": 0,
            },
            {
                "fn": CALLABLE,
                "configs": _opts(
                    ("none", None, True),
                    ("int", 3, True),
                    ("str", "configs", True),
                    ("not_mapping", [3], True),
                ),
                "out": _opts(
                    ("none", None, True),
                    ("int", 3, True),
                    ("bad_suffix", str(Path(_TMP.name) / "out.xyz"), True),
                ),
                "n_jobs": JOBS,
                "seed": SEED,
                "progress": FLAG,
                "retry_failed": FLAG,
            },
        ),
    ]


def _entries() -> list[Entry]:
    return [
        *_two_sample(),
        *_relative(),
        *_posterior(),
        *_categorical(),
        *_cross_validation(),
        *_experiments(),
    ]


def _mutate(entry: Entry, name: str, mutation: Mutation) -> Callable[[], dict[str, Any]]:
    _label, change, _fail = mutation
    context = entry.contexts.get(name, {})

    def build() -> dict[str, Any]:
        kw = {
            **entry.base(),
            **{k: v() if isinstance(v, _Later) else v for k, v in context.items()},
        }
        return {**kw, name: change(kw.get(name))}

    return build


def _extra(entry: Entry, change: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[], Any]:
    return lambda: change(entry.base())


_FEW_ROWS = {"one_row", "two_rows", "1d", "one", "empty"}


def catalogue() -> list[Case]:
    """Every case, in a stable order."""
    import modelcompare as mc

    cases: list[Case] = []
    for entry in _entries():
        parameters = inspect.signature(getattr(mc, entry.name)).parameters
        unknown = set(entry.roles) - set(parameters)
        if unknown:
            msg = f"{entry.name} has no arguments {sorted(unknown)}"
            raise AssertionError(msg)
        for name, mutations in entry.roles.items():
            for mutation in mutations:
                label, _change, fail = mutation
                if label == "none" and parameters[name].default is None:
                    fail = False  # None is the default
                names = (name, *entry.bounded) if label in _FEW_ROWS else (name,)
                cases.append(
                    Case(entry.name, f"{name}={label}", _mutate(entry, name, mutation), names, fail)
                )
        if len(entry.widths) > 1:
            last = entry.widths[-1]
            cases.append(
                Case(entry.name, f"{last}_width", _extra(entry, _wider(last)), entry.widths, True)
            )
        if len(entry.rows) > 1:
            last = entry.rows[-1]
            cases.append(
                Case(entry.name, f"{last}_rows", _extra(entry, _shorter(last)), entry.rows, True)
            )
        for label, change, options in entry.extras:
            cases.append(Case(entry.name, label, _extra(entry, change), **options))
    return cases


def entries_by_name() -> dict[str, Entry]:
    return {entry.name: entry for entry in _entries()}


# Escapes the library does not handle yet (case id -> what happens), written by --update-known;
# tests/test_fuzz.py marks them xfail(strict=True).
KNOWN_PATH = Path(__file__).with_name("known_escapes.json")


def _known() -> tuple[dict[str, str], dict[str, str]]:
    if not KNOWN_PATH.exists():
        return {}, {}
    data = json.loads(KNOWN_PATH.read_text(encoding="utf-8"))
    return dict(data.get("python", {})), dict(data.get("cli", {}))


KNOWN_ESCAPES, KNOWN_CLI_ESCAPES = _known()


def quick_subset(cases: list[Case], per_function: int = 10, seed: int = 2024) -> list[Case]:
    """A seeded subset: ``per_function`` cases of each function, plus the ``quick`` ones."""
    by_function: dict[str, list[Case]] = {}
    for case in cases:
        by_function.setdefault(case.function, []).append(case)
    chosen: list[Case] = []
    for name, group in by_function.items():
        rng = random.Random(f"{seed}-{name}")
        picked = set(rng.sample(range(len(group)), min(per_function, len(group))))
        chosen += [c for i, c in enumerate(group) if i in picked or c.quick]
    return chosen
