"""Fuzz catalogue: every public function of modelcompare fed bad and unusual inputs.

Each case calls one public function with one argument replaced by a bad or unusual value (NaN,
inf, empty, wrong shape, strings, complex, huge, read-only, lists, DataFrames, torch tensors,
invalid options, ...). A case passes when the call ends in one of:

* a ``ValueError`` or ``TypeError`` whose message names the argument in backticks;
* a result whose p-values are finite and in [0, 1], whose non-finite statistic (if any) is
  flagged ``degenerate=True``, and that is flagged ``degenerate=True`` where the case says so;
* ``modelcompare.MissingDependencyError`` (an optional extra is not installed);

and the inputs are left as they were. Anything else is an *escape*. ``tests/test_fuzz.py`` runs a
seeded subset of the cases in the default suite and the whole catalogue under ``slow``; this
script runs the whole catalogue and prints a table of outcomes::

    python benchmarks/fuzz_catalogue.py            # the Python cases
    python benchmarks/fuzz_catalogue.py --cli      # the command-line cases too
    python benchmarks/fuzz_catalogue.py -k c2st    # cases whose id contains "c2st"
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import dataclasses
import functools
import inspect
import json
import math
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("MPLBACKEND", "Agg")

# ----------------------------------------------------------------------------------------------
# data


def _normal(n: int = 40, d: int = 2, shift: float = 0.0, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(shift, 1.0, size=(n, d))


def _uniform(n: int = 80, d: int = 2, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random((n, d))


def _scores(n: int = 10, shift: float = 0.01, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = 0.8 + 0.02 * rng.normal(size=n)
    return a, a - shift + 0.01 * rng.normal(size=n)


def _score_table() -> np.ndarray:
    rng = np.random.default_rng(0)
    return 0.7 + 0.05 * rng.random((8, 3)) + np.array([0.0, 0.02, 0.04])


def _density(mean: float, d: int = 2) -> Any:
    from modelcompare.densities import IsotropicNormal

    return IsotropicNormal(np.full(d, mean), 1.0)


def _model() -> Any:
    import modelcompare as mc

    return mc.ConditionalGaussianModel(noise_cov=np.eye(2))


def _flow_pairs(n: int = 60) -> dict[str, Any]:
    model = _model()
    theta, x = model.simulate(n, seed=0)
    return {"flow": model.exact_flow(), "theta": theta, "x": x}


def _stairs() -> Any:
    import modelcompare as mc

    return mc.stair_distribution(4, 4, 2)


def _cat_samples(n: int = 300) -> np.ndarray:
    return _stairs().sample(n, seed=0)


def _result(name: str) -> Any:
    """A small valid result of ``name``, for the plotting functions."""
    import modelcompare as mc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "global":
            return mc.global_coverage_test(_uniform(), n_resamples=50, seed=0)
        if name == "local":
            return mc.local_coverage_test(
                _uniform(120, 1),
                _normal(120, 1),
                [[0.0], [1.0]],
                regressor="knn",
                n_resamples=10,
                levels=9,
                seed=0,
            )
        if name == "nemenyi":
            return mc.nemenyi_test(_score_table())
        if name == "bayes":
            return mc.bayesian_ttest(*_scores(), n_train=90, n_test=10)
        if name == "granularity":
            return mc.granularity(_stairs(), _cat_samples(), seed=0)
        if name == "sbc":
            ranks = np.random.default_rng(0).integers(0, 21, size=(100, 2))
            return mc.sbc_test(ranks, 20, seed=0)
        if name == "tarp":
            return mc.tarp(**_flow_pairs(), n_posterior_samples=20, seed=0)
        if name == "independence":
            return mc.pit_independence_test(_uniform(80, 3))
        if name == "map":
            z = _normal(60, 1)
            return mc.power_criterion_map(
                z + 1.0, _normal(60, 1, seed=1), z, np.linspace(-2, 2, 5)[:, None], seed=0
            )
    raise KeyError(name)


def _kfold() -> Any:
    from sklearn.model_selection import KFold

    return KFold(5)


def _ttest(x: np.ndarray, seed: Any) -> Any:
    from scipy import stats

    return stats.ttest_1samp(x, 0.0)


def _simulate(shift: float, seed: Any) -> np.ndarray:
    return seed.normal(shift, 1.0, size=20)


def _square(v: float, seed: Any) -> dict[str, float]:
    return {"square": v * v}


_TMP = tempfile.TemporaryDirectory(prefix="modelcompare-fuzz-")


def _out_path() -> str:
    return str(Path(tempfile.mkdtemp(dir=_TMP.name)) / "results.csv")


# ----------------------------------------------------------------------------------------------
# mutations: (label, value -> bad value, the call must fail)

Mutation = tuple[str, Callable[[Any], Any], bool]


def _with(v: np.ndarray, value: float) -> np.ndarray:
    out = np.array(v, dtype=float, copy=True)
    out.flat[0] = value
    return out


def _readonly(v: Any) -> np.ndarray:
    out = np.array(v, copy=True)
    out.flags.writeable = False
    return out


def _strided(v: Any) -> np.ndarray:
    v = np.asarray(v)
    return np.repeat(v, 2, axis=-1)[..., ::2]


def _torch(v: Any) -> Any:
    import torch

    return torch.tensor(np.asarray(v, dtype=float), requires_grad=True)


def _frame(v: Any) -> Any:
    import pandas as pd

    v = np.asarray(v)
    return pd.DataFrame(v) if v.ndim == 2 else pd.Series(v)


def _object_none(v: Any) -> np.ndarray:
    out = np.asarray(v).astype(object)
    out.flat[0] = None
    return out


def _ragged(v: Any) -> list[Any]:
    rows = np.asarray(v).tolist()
    return [rows[0][:1], *rows[1:]]


def _column(v: Any, value: float) -> np.ndarray:
    out = np.array(v, dtype=float, copy=True)
    out[:, 0] = value
    return out


def _scale(factor: float) -> Callable[[Any], Any]:
    return lambda v: np.asarray(v, dtype=float) * factor


def _const(v: Any) -> np.ndarray:
    return np.ones_like(np.asarray(v, dtype=float))


COMMON_ARRAY: list[Mutation] = [
    ("nan", lambda v: _with(v, math.nan), True),
    ("inf", lambda v: _with(v, math.inf), True),
    ("-inf", lambda v: _with(v, -math.inf), True),
    ("none", lambda v: None, True),
    ("scalar", lambda v: 1.5, True),
    ("str", lambda v: np.asarray(v).astype(str), True),
    ("str_scalar", lambda v: "data.npy", True),
    ("object_none", _object_none, True),
    ("complex", lambda v: np.asarray(v) + 1j, True),
    ("object", lambda v: np.asarray(v).astype(object), False),
    ("bool", lambda v: np.asarray(v) > np.median(v), False),
    ("int", lambda v: np.round(np.asarray(v) * 3).astype(int), False),
    ("float32", lambda v: np.asarray(v, dtype=np.float32), False),
    ("huge", _scale(1e300), False),
    ("tiny", _scale(1e-300), False),
    ("constant", _const, False),
    ("ties", lambda v: np.round(np.asarray(v)), False),
    ("readonly", _readonly, False),
    ("noncontig", _strided, False),
    ("list", lambda v: np.asarray(v).tolist(), False),
    ("pandas", _frame, False),
    ("torch_grad", _torch, False),
]

SAMPLES: list[Mutation] = [
    *COMMON_ARRAY,
    ("empty", lambda v: np.asarray(v)[:0], True),
    ("no_columns", lambda v: np.asarray(v)[:, :0], True),
    ("one_row", lambda v: np.asarray(v)[:1], False),
    ("two_rows", lambda v: np.asarray(v)[:2], False),
    ("1d", lambda v: np.asarray(v)[:, 0], False),
    ("3d", lambda v: np.asarray(v)[None], True),
    ("fortran", lambda v: np.asfortranarray(v), False),
    ("ragged", _ragged, True),
    ("constant_column", lambda v: _column(v, 1.0), False),
]

# evaluation points and candidates: one row is a legitimate input
POINTS = SAMPLES

PIT = [
    *SAMPLES,
    ("above_one", lambda v: _with(v, 1.5), True),
    ("negative", lambda v: _with(v, -0.5), True),
]

CATEGORICAL = [
    *SAMPLES,
    ("out_of_range", lambda v: _with(v, 99), True),
    ("negative", lambda v: _with(v, -1), True),
    ("fractional", lambda v: _with(v, 0.5), True),
]

VECTOR: list[Mutation] = [
    *COMMON_ARRAY,
    ("empty", lambda v: np.asarray(v)[:0], True),
    ("one", lambda v: np.asarray(v)[:1], False),
    ("2d", lambda v: np.stack([v, v], axis=1), True),
    ("3d", lambda v: np.asarray(v)[None, None, :, None].repeat(2, axis=3), True),
]

PVALUES = [
    *(m for m in VECTOR if m[0] != "empty"),
    ("empty", lambda v: np.asarray(v)[:0], False),  # no p-values to adjust
    ("above_one", lambda v: _with(v, 1.5), True),
    ("negative", lambda v: _with(v, -0.5), True),
]

COUNTS = [
    *VECTOR,
    ("negative", lambda v: _with(v, -1), True),
    ("fractional", lambda v: _with(v, 0.5), True),
    ("all_zero", lambda v: np.zeros_like(np.asarray(v)), False),
]

PROBS = [
    *VECTOR,
    ("negative", lambda v: _with(v, -0.5), True),
    ("not_normalised", lambda v: np.asarray(v, dtype=float) * 3, True),
]


def _opts(*values: tuple[str, Any, bool]) -> list[Mutation]:
    return [
        (label, (lambda _v, value=value: copy.deepcopy(value)), fail)
        for label, value, fail in values
    ]


COUNT = _opts(
    ("0", 0, True),
    ("-1", -1, True),
    ("nan", math.nan, True),
    ("1.5", 1.5, True),
    ("str", "10", True),
    ("bool", True, True),
    ("numpy_bool", np.bool_(True), True),
)
COUNT = [*COUNT, ("numpy_int", lambda v: np.int64(v if isinstance(v, int) else 3), False)]
# a count the memory use grows with: a huge one must be refused at once
SIZE = [*COUNT, *_opts(("huge", 10**12, True))]
# a count that caps or batches work (chunk and batch sizes): a huge one is legitimate
BATCH = [*COUNT, *_opts(("huge", 10**12, False))]
LEVEL = _opts(
    ("nan", math.nan, True),
    ("0", 0.0, True),
    ("1", 1.0, True),
    ("-0.1", -0.1, True),
    ("1.5", 1.5, True),
    ("str", "0.05", True),
    ("bool", True, True),
    ("inf", math.inf, True),
)
POSITIVE = _opts(
    ("nan", math.nan, True),
    ("inf", math.inf, True),
    ("-1", -1.0, True),
    ("0", 0.0, True),
    ("str", "1", True),
    ("bool", True, True),
)
NONNEG = _opts(
    ("nan", math.nan, True),
    ("inf", math.inf, True),
    ("-1", -1.0, True),
    ("str", "1", True),
    ("bool", True, True),
)
# a fraction where 0 and 1 are legitimate
CLOSED = _opts(
    ("nan", math.nan, True),
    ("-0.1", -0.1, True),
    ("1.5", 1.5, True),
    ("str", "0.05", True),
    ("bool", True, True),
    ("inf", math.inf, True),
    ("0", 0.0, False),
    ("1", 1.0, False),
)
CHOICE = _opts(("bogus", "bogus", True), ("int", 3, True))
FLAG = _opts(("str", "yes", True), ("int", 2, True), ("numpy_bool", np.bool_(True), False))
SEED = _opts(
    ("RandomState", np.random.RandomState(0), True),
    ("-1", -1, True),
    ("str", "abc", True),
    ("1.5", 1.5, True),
    ("Generator", np.random.default_rng(3), False),
    ("numpy_int", np.int64(3), False),
)
JOBS = _opts(("0", 0, True), ("str", "2", True), ("1.5", 1.5, True), ("bool", True, True))
CALLABLE = _opts(("none", None, True), ("int", 3, True), ("str", "c2st", True))
OBJECT = _opts(("none", None, True), ("int", 3, True), ("str", "model", True))
RESULT = _opts(("none", None, True), ("int", 3, True), ("dict", {"pvalue": 0.5}, True))
LEVELS = _opts(
    ("0", 0, True),
    ("nan", math.nan, True),
    ("outside", [0.5, 1.5], True),
    ("nan_in", [0.5, math.nan], True),
    ("empty", [], True),
    ("huge", 10**10, True),
    ("str", "levels", True),
)
HIDDEN = _opts(
    ("zero", [0], True),
    ("negative", [-4], True),
    ("str", ["a"], True),
    ("float", [1.5], True),
    ("int", 8, False),
)

# a (low, high) pair of Gaussian widths
BOUNDS = _opts(
    ("none", None, False),
    ("nan", (math.nan, 1.0), True),
    ("inf", (0.1, math.inf), True),
    ("zero", (0.0, 1.0), True),
    ("negative", (-1.0, 1.0), True),
    ("reversed", (5.0, 0.1), True),
    ("tiny", (1e-200, 1.0), True),
    ("huge", (1.0, 1e200), True),
    ("scalar", 1.0, True),
    ("str", "0.1, 10", True),
    ("str_pair", "ab", True),
    ("str_items", ("0.1", "10"), True),
    ("bool_item", (True, 10.0), True),
    ("triple", (0.1, 1.0, 10.0), True),
    ("empty", (), True),
    ("dict", {"low": 0.1, "high": 10.0}, True),
    ("nested", ((0.1,), (10.0,)), True),
    ("equal", (1.0, 1.0), False),
    ("list", [0.1, 10.0], False),
    ("array", np.array([0.1, 10.0]), False),
    ("numpy_items", (np.float32(0.1), np.int64(10)), False),
)
# n_test / n_train, given directly
RATIO = [
    *POSITIVE,
    *_opts(
        ("array", np.array([0.1]), True),
        ("complex", 0.1 + 0j, True),
        ("above_one", 2.0, False),
        ("numpy", np.float64(0.25), False),
        ("tiny", 1e-300, False),
        ("huge", 1e300, False),
    ),
]
# an output file of a sweep
OUT = _opts(
    ("int", 3, True),
    ("bytes", b"results.csv", True),
    ("empty", "", True),
    ("bad_suffix", str(Path(_TMP.name) / "out.xyz"), True),
    ("folder", _TMP.name, True),
    ("list", [str(Path(_TMP.name) / "a.csv")], True),
)
OUT = [
    *OUT,
    ("none", lambda v: None, False),
    ("path", lambda v: Path(_out_path()), False),
    ("new_folder", lambda v: str(Path(_out_path()).parent / "sub" / "results.csv"), False),
    ("folder_named_csv", lambda v: tempfile.mkdtemp(suffix=".csv", dir=_TMP.name), True),
]
DEVICE = _opts(
    ("bogus", "bogus", True),
    ("int", 3, True),
    ("none", None, True),
    ("bytes", b"cpu", True),
    ("upper", "CPU", True),
    ("cuda", "cuda", False),
    ("cuda_bad_index", "cuda:abc", False),
    ("cuda_no_such_index", "cuda:99", False),
    ("gpu", "gpu", False),
    ("auto", "auto", False),
    ("mps", "mps", False),
)
DEVICE = [*DEVICE, ("torch_device", lambda v: _torch_device("cpu"), False)]


def _torch_device(name: str) -> Any:
    import torch

    return torch.device(name)


def _location_params(
    kind: str, j: int = 2, d: int = 2, bandwidth: float = 1.0, at: float = 0.0
) -> Any:
    import modelcompare as mc

    cls = mc.UMEParams if kind == "ume" else mc.FSSDParams
    return cls(bandwidth, np.full((j, d), at))


def _params_role(kind: str) -> list[Mutation]:
    other = "fssd" if kind == "ume" else "ume"
    return [
        *_opts(
            ("int", 3, True),
            ("str", "params", True),
            ("dict", {"bandwidth": 1.0, "locations": [[0.0, 0.0]]}, True),
            ("tuple", (1.0, np.zeros((2, 2))), True),
        ),
        ("none", lambda v: None, False),
        ("other_test", lambda v: _location_params(other), True),
        ("width", lambda v: _location_params(kind, d=3), True),
        ("one_location", lambda v: _location_params(kind, j=1), False),
        ("many_locations", lambda v: _location_params(kind, j=10**5), False),
        ("far_locations", lambda v: _location_params(kind, at=1e300), False),
        ("narrow", lambda v: _location_params(kind, bandwidth=1e-150), False),
        ("wide", lambda v: _location_params(kind, bandwidth=1e150), False),
    ]


@functools.cache
def _search(kind: str = "classifier") -> Any:
    """A small fitted GridSearchCV: a classifier on 5 stratified folds (``"classifier"``), a
    regressor on 5 folds (``"regressor"``) or a classifier on 3 group folds (``"groups"``)."""
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.model_selection import GridSearchCV, GroupKFold

    data = _search_data()
    if kind == "regressor":
        search = GridSearchCV(Ridge(), {"alpha": [0.1, 10.0]}, cv=5)
        return search.fit(data["X"], data["X"][:, 0])
    cv = GroupKFold(3) if kind == "groups" else 5
    search = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, cv=cv)
    groups = data["groups"] if kind == "groups" else None
    return search.fit(data["X"], data["y"], groups=groups)


def _search_data() -> dict[str, np.ndarray]:
    x = _normal(60, seed=4)
    return {"X": x, "y": (x[:, 0] > 0).astype(int), "groups": np.repeat(np.arange(6), 10)}


def _search_roles() -> dict[str, list[Mutation]]:
    """The roles of the data given to a search's ``.fit()`` (only their sizes matter)."""
    d = _search_data()
    x, y, groups = d["X"], d["y"], d["groups"]
    return {
        "X": [
            *_opts(
                ("scalar", 1.5, True),
                ("str_scalar", "data.npy", True),
                ("dict", {"a": 1}, True),
                ("empty", x[:0], True),
                ("one_row", x[:1], True),
                ("short", x[:-3], True),
                ("none", None, False),
                ("nan", _with(x, math.nan), False),  # a pipeline may impute
                ("str", x.astype(str), False),  # or encode
                ("1d", x[:, 0], False),
                ("3d", x[:, :, None], False),
                ("list", x.tolist(), False),
            ),
            ("pandas", lambda v: _frame(_search_data()["X"]), False),
            ("torch_grad", lambda v: _torch(_search_data()["X"]), False),
        ],
        "y": _opts(
            ("none", None, False),
            ("nan", _with(y, math.nan), True),
            ("continuous", y + 0.5 * _normal(60, 1)[:, 0], False),  # plain k-fold
            ("short", y[:-3], True),
            ("scalar", 1.5, True),
            ("str_scalar", "y", True),
            ("2d", np.stack([y, y], axis=1), False),  # multi-label: plain k-fold
            ("one_class", np.zeros(60, dtype=int), False),
            ("str", y.astype(str), False),
            ("list", y.tolist(), False),
        ),
        "groups": _opts(
            ("none", None, False),
            ("short", groups[:-3], True),
            ("scalar", 1.5, True),
            ("str_scalar", "groups", True),
            ("one_group", np.zeros(60, dtype=int), True),
            ("nan", _with(groups, math.nan), False),
            ("str", groups.astype(str), False),
            ("list", groups.tolist(), False),
        ),
        "n_samples": [*SIZE, *_opts(("too_few", 3, True), ("other", 100, False))],
        "scoring": _opts(
            ("none", None, False),
            ("missing", "precision", True),
            ("int", 3, True),
            ("list", ["accuracy"], True),
            ("bytes", b"accuracy", True),
            ("valid", "recall", False),
        ),
    }


def _multi_metric() -> dict[str, Any]:
    return {
        "params": [{"C": 1}, {"C": 10}],
        **{f"split{j}_test_accuracy": [0.8 + 0.01 * j, 0.85] for j in range(3)},
        **{f"split{j}_test_recall": [0.7, 0.75 - 0.01 * j] for j in range(3)},
    }


# ----------------------------------------------------------------------------------------------
# the catalogue


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
    "locations": COUNT,
    "bandwidth": POSITIVE,
    "seed": SEED,
    "preset": CHOICE,
    "reg": NONNEG,
    "max_iter": COUNT,
    "tol_fun": POSITIVE,
    "locs_bounds_frac": NONNEG,
    "bandwidth_bounds": BOUNDS,
}
_UME_OPTIONS = {
    **_OPTIMIZE_OPTIONS,
    "optimize": FLAG,
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


def _entries() -> list[Entry]:
    pit_roles = {"pit_values": PIT, "x": SAMPLES, "x_eval": POINTS}
    return [
        # two-sample
        Entry(
            "c2st",
            lambda: {"x": _normal(), "y": _normal(seed=1), "classifier": "logistic", "seed": 0},
            {"x": SAMPLES, "y": SAMPLES, **_C2ST_OPTIONS},
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
        # relative fit
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
            contexts={"params": {"optimize": False}},
            extras=(
                (
                    "params+optimize",
                    _set(params=lambda: _location_params("ume")),
                    {"names": ("params", "optimize"), "must_fail": True},
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
            contexts={"params": {"optimize": False}},
            extras=(
                (
                    "params+optimize",
                    _set(params=lambda: _location_params("fssd")),
                    {"names": ("params", "optimize"), "must_fail": True},
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
                "method": CHOICE,
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
            "relative_kid",
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
            "relative_fid",
            lambda: {**_xyz(), "n_resamples": 20, "seed": 0},
            {
                "x": SAMPLES,
                "y": SAMPLES,
                "z": SAMPLES,
                "n_resamples": SIZE,
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
            "optimize_ume",
            lambda: {**_xyz(), "locations": 2, "seed": 0},
            {"x": SAMPLES, "y": SAMPLES, "z": SAMPLES, **_OPTIMIZE_OPTIONS, "subsample": FLAG},
            widths=("x", "y", "z"),
            rows=("x", "y", "z"),
        ),
        Entry(
            "optimize_fssd",
            lambda: {**_pqz(), "locations": 2, "seed": 0},
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
        # posterior
        Entry(
            "sbc",
            lambda: {**_flow_pairs(), "n_posterior_samples": 20, "seed": 0},
            {**_FLOW_ROLES, "n_posterior_samples": SIZE, "method": CHOICE, "seed": SEED},
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
                "method": CHOICE,
                "n_bins": BATCH,
                "seed": SEED,
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
                "references": _opts(("str", "refs", True), ("shape", np.zeros((3, 7)), True)),
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
                "method": CHOICE,
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
                "correction": CHOICE,
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
        # categorical
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
                "k_range": _opts(
                    ("huge", (2, 10**6), True),
                    ("reversed", (5, 2), True),
                    ("str", "k", True),
                    ("zero", (0, 3), True),
                ),
                "mode": CHOICE,
                "split": FLAG,
                "split_fraction": LEVEL,
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
            lambda: {"p": _stairs(), "samples": _cat_samples(), "k": 3, "seed": 0},
            {"p": OBJECT, "samples": CATEGORICAL, "k": SIZE, "seed": SEED},
        ),
        Entry(
            "random_binning",
            lambda: {"p": _stairs(), "k": 3, "seed": 0},
            {"p": OBJECT, "k": SIZE, "seed": SEED},
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
        # cross-validated comparison
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
            "wilcoxon_holm",
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
                "classifier": FLAG,
            },
        ),
        Entry(
            "plot_critical_difference",
            lambda: {"result": _result("nemenyi")},
            {"result": RESULT, "alpha": LEVEL},
        ),
        Entry(
            "plot_posterior",
            lambda: {"result": _result("bayes")},
            {
                "result": RESULT,
                "names": _opts(("wrong_length", ("a",), True), ("int", 3, True)),
            },
        ),
        # experiments
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
KNOWN_PATH = Path(__file__).with_name("fuzz_known_escapes.json")


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


# ----------------------------------------------------------------------------------------------
# running a case


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What a case ended in: ``kind`` is error, result, missing-dependency or escape."""

    kind: str
    detail: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.kind != "escape"


class CaseTimeout(BaseException):
    """A case ran past its time limit (a BaseException, so no ``except Exception`` hides it)."""


@contextlib.contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    if not seconds or not hasattr(signal, "setitimer"):
        yield
        return

    def _raise(_signum: int, _frame: Any) -> None:
        raise CaseTimeout

    previous = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _snapshot(value: Any) -> Any:
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        return ("tensor", value.detach().cpu().numpy().copy(), bool(value.requires_grad))
    if isinstance(value, np.ndarray):
        return ("array", value.copy(), value.flags.writeable)
    if hasattr(value, "to_numpy") and hasattr(value, "copy"):
        return ("pandas", value.copy(deep=True))
    if isinstance(value, list | tuple | dict):
        try:
            return ("plain", copy.deepcopy(value))
        except Exception:  # noqa: BLE001 - an uncopyable container is not compared
            return None
    return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind in "fc":
            return bool(np.array_equal(a, b, equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001
        return a is b


def _unchanged(snapshot: Any, value: Any) -> bool:
    kind = snapshot[0]
    if kind == "tensor":
        now = value.detach().cpu().numpy()
        return _same(snapshot[1], now) and bool(value.requires_grad) == snapshot[2]
    if kind == "array":
        return _same(snapshot[1], value) and value.flags.writeable == snapshot[2]
    if kind == "pandas":
        return bool(snapshot[1].equals(value))
    return _same(snapshot[1], value)


_PVALUE_COLUMNS = {"p", "p_adjusted", "pvalue", "pvalues"}


def _is_pvalue(name: str) -> bool:
    return "pvalue" in name or name in _PVALUE_COLUMNS


def _bad_pvalues(values: Any) -> bool:
    arr = np.asarray(values, dtype=float)
    return not (np.isfinite(arr).all() and (arr >= 0).all() and (arr <= 1).all())


def _check_result(result: Any, case: Case) -> str | None:
    """Why ``result`` breaks the protocol, or None."""
    from modelcompare._foundation.results import Result

    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}
        for name, value in fields.items():
            if "pvalue" in name and _looks_numeric(value) and _bad_pvalues(value):
                return f"`{name}` not finite in [0, 1]: {np.asarray(value).ravel()[:4]}"
        degenerate = fields.get("degenerate")
        for name in ("statistic", "value"):
            value = fields.get(name)
            if isinstance(value, float | np.floating) and not math.isfinite(value):
                if degenerate is not True:
                    return f"`{name}` = {value} but not flagged degenerate=True"
                if "pvalue" in fields and fields["pvalue"] != 1.0:
                    return f"degenerate with pvalue {fields['pvalue']} (expected 1.0)"
        if case.degenerate and degenerate is not True:
            return f"expected degenerate=True, got {degenerate!r}"
        table = fields.get("table")
        if hasattr(table, "columns") and hasattr(table, "to_numpy"):  # a collection's table
            problem = _check_table(table)
            if problem is not None:
                return problem
        if isinstance(result, Result):
            try:
                json.dumps(result.to_dict())
            except Exception as exc:  # noqa: BLE001
                return f"to_dict() failed: {type(exc).__name__}: {exc}"
        return None
    if case.degenerate:
        return f"expected a degenerate result, got {type(result).__name__}"
    if hasattr(result, "columns") and hasattr(result, "to_numpy"):  # a pandas table
        return _check_table(result)
    if (
        isinstance(result, np.ndarray)
        and result.dtype.kind == "f"
        and not np.isfinite(result).all()
    ):
        return "returned array holds NaN or inf"
    return None


def _check_table(table: Any) -> str | None:
    """Why the p-value columns of a pandas table break the protocol, or None."""
    for column in table.columns:
        if _is_pvalue(str(column)):
            values = table[column]
            if "error" in table.columns:
                values = values[table["error"].isna()]
            if _bad_pvalues(values.to_numpy(dtype=float)):
                return f"column `{column}` not finite in [0, 1]"
    return None


def _looks_numeric(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float | np.number):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"


def _named(message: str, names: tuple[str, ...]) -> bool:
    """Whether ``message`` names one of ``names`` in backticks (``x``, or a part ``x[0] ...``)."""
    return any(re.search(rf"`{re.escape(name)}(\[[^`]*)?`", message) for name in names)


def _address_space() -> int | None:
    """Bytes of virtual memory this process maps now (Linux), or None."""
    try:
        pages = int(Path("/proc/self/statm").read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


@contextlib.contextmanager
def memory_cap(headroom: int | None) -> Iterator[None]:
    """Cap the address space at what is mapped now plus ``headroom`` bytes, then restore it.

    An allocation past the cap fails with ``MemoryError`` (an escape) instead of swapping.
    """
    now = _address_space()
    if headroom is None or now is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = now + headroom
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


CASE_MEMORY = 3 * 1024**3  # headroom of one case; MODELCOMPARE_MAX_MEMORY stays below it


def run_case(
    case: Case, *, timeout: float | None = 30.0, memory: int | None = CASE_MEMORY
) -> Outcome:
    """Run one case and classify how it ended."""
    import modelcompare as mc
    from modelcompare import MissingDependencyError

    fn = getattr(mc, case.function)
    start = time.perf_counter()
    try:
        kwargs = case.build()
    except MissingDependencyError as exc:
        return Outcome("missing-dependency", str(exc), 0.0)
    snapshots = {k: _snapshot(v) for k, v in kwargs.items()}
    kind, detail = "escape", ""
    try:
        with memory_cap(memory), _time_limit(timeout), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                result = fn(**kwargs)
    except CaseTimeout:
        kind, detail = "escape", f"timeout after {timeout:g} s"
    except MissingDependencyError as exc:
        kind, detail = "missing-dependency", _first_line(exc)
    except (ValueError, TypeError) as exc:
        message = str(exc)
        if _named(message, case.names):
            kind, detail = "error", f"{type(exc).__name__}: {_first_line(exc)}"
        else:
            names = ", ".join(f"`{n}`" for n in case.names)
            kind = "escape"
            detail = f"{type(exc).__name__} not naming {names}: {_first_line(exc)}"
    except Exception as exc:  # noqa: BLE001 - every other exception is an escape
        kind, detail = "escape", f"{type(exc).__name__}: {_first_line(exc)}"
    else:
        problem = _check_result(result, case)
        if case.must_fail:
            kind, detail = "escape", f"accepted ({type(result).__name__})"
        elif problem is not None:
            kind, detail = "escape", problem
        else:
            kind, detail = "result", type(result).__name__
    finally:
        _close_figures()
    seconds = time.perf_counter() - start
    for name, snap in snapshots.items():
        if snap is not None and not _unchanged(snap, kwargs[name]):
            return Outcome("escape", f"mutated `{name}`; {detail}", seconds)
    return Outcome(kind, detail, seconds)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else repr(exc))[:160]


def _close_figures() -> None:
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


# ----------------------------------------------------------------------------------------------
# command-line cases


@dataclasses.dataclass(frozen=True)
class CliCase:
    """``modelcompare <argv>`` on bad input: must exit 2 or 3 with one ``Error:`` line."""

    id: str
    argv: tuple[str, ...]
    quick: bool = False


def cli_files(folder: Path) -> dict[str, str]:
    """Write the data files the command-line cases read; returns name -> path."""
    rng = np.random.default_rng(0)
    files: dict[str, Any] = {
        "good": rng.normal(size=(40, 2)),
        "good3": rng.normal(size=(40, 3)),
        "nan": _with(rng.normal(size=(40, 2)), math.nan),
        "empty": np.zeros((0, 2)),
        "one_d": rng.normal(size=40),
        "three_d": rng.normal(size=(4, 5, 2)),
        "complex": rng.normal(size=(40, 2)) + 1j,
        "strings": np.array([["a", "b"]] * 10),
        "pit": rng.random((80, 2)),
        "pit_bad": rng.random((80, 2)) * 3,
        "x": rng.normal(size=(80, 2)),
        "cat": _cat_samples(200),
        "cat_bad": np.full((20, 4), 99),
        "scores_nan": np.vstack([_scores()[0], _with(_scores()[1], math.nan)]),
        "huge": rng.normal(size=(40, 2)) * 1e300,
    }
    out: dict[str, str] = {}
    for name, value in files.items():
        path = folder / f"{name}.npy"
        np.save(path, value)
        out[name] = str(path)
    corrupt = folder / "corrupt.npy"
    corrupt.write_bytes(b"\x93NUMPY garbage that is not an array")
    out["corrupt"] = str(corrupt)
    out["missing"] = str(folder / "missing.npy")
    scores = folder / "scores.csv"
    scores.write_text("model,s1,s2,s3\na,0.8,0.9,0.85\nb,0.7,zz,0.75\n", encoding="utf-8")
    out["scores_bad"] = str(scores)
    one = folder / "scores_one.csv"
    one.write_text("model,s1\na,0.8\n", encoding="utf-8")
    out["scores_one"] = str(one)
    config = folder / "sweep.json"
    config.write_text('{"tests": [{"test": "nope", "x": "ref"}]}', encoding="utf-8")
    out["sweep_bad"] = str(config)
    not_json = folder / "sweep_broken.json"
    not_json.write_text("{not json", encoding="utf-8")
    out["sweep_broken"] = str(not_json)
    huge_folds = folder / "sweep_huge.json"
    huge_folds.write_text(
        json.dumps(
            {
                "data": {"ref": out["good"], "alt": out["good"]},
                "tests": [{"test": "c2st", "x": "ref", "y": "alt", "options": {"hidden": [10**9]}}],
            }
        ),
        encoding="utf-8",
    )
    out["sweep_huge"] = str(huge_folds)
    return out


def cli_catalogue(f: dict[str, str]) -> list[CliCase]:
    """The command-line cases, on the files of :func:`cli_files`."""
    good, pit, x = f["good"], f["pit"], f["x"]
    cases = [
        CliCase("cli c2st:hidden=1e9", ("c2st", good, good, "--hidden", "1000000000"), quick=True),
        CliCase("cli c2st:nan", ("c2st", good, f["nan"], "--classifier", "logistic")),
        CliCase("cli c2st:width", ("c2st", good, f["good3"], "--classifier", "logistic")),
        CliCase("cli c2st:empty", ("c2st", good, f["empty"])),
        CliCase("cli c2st:one_d", ("c2st", f["one_d"], good)),
        CliCase("cli c2st:three_d", ("c2st", f["three_d"], good)),
        CliCase("cli c2st:complex", ("c2st", f["complex"], good)),
        CliCase("cli c2st:strings", ("c2st", f["strings"], good)),
        CliCase("cli c2st:corrupt", ("c2st", f["corrupt"], good)),
        CliCase("cli c2st:missing", ("c2st", f["missing"], good)),
        CliCase("cli c2st:hidden=abc", ("c2st", good, good, "--hidden", "abc")),
        CliCase("cli c2st:hidden=0", ("c2st", good, good, "--hidden", "0")),
        CliCase("cli c2st:n_folds=1e6", ("c2st", good, good, "--n-folds", "1000000")),
        CliCase("cli c2st:seed=-1", ("c2st", good, good, "--seed", "-1")),
        CliCase("cli c2st:alpha=nan", ("c2st", good, good, "--alpha", "nan")),
        CliCase(
            "cli relative:nan", ("relative", good, good, f["nan"], "--test", "mmd"), quick=True
        ),
        CliCase("cli relative:width", ("relative", good, good, f["good3"], "--test", "mmd")),
        CliCase(
            "cli relative:locations=1e9", ("relative", good, good, good, "--locations", "10**9")
        ),
        CliCase(
            "cli relative:locations=1000000",
            ("relative", good, good, good, "--locations", "1000000", "--no-optimize"),
        ),
        CliCase(
            "cli relative:n_resamples=1e12",
            ("relative", good, good, good, "--test", "fid", "--n-resamples", "1000000000000"),
        ),
        CliCase("cli relative:bandwidth=nan", ("relative", good, good, good, "--bandwidth", "nan")),
        CliCase(
            "cli coverage:n_levels=1e6", ("coverage", pit, x, "--n-levels", "1000000"), quick=True
        ),
        CliCase(
            "cli coverage:n_resamples=1e12",
            ("coverage", pit, x, "--x-eval", x, "--n-resamples", "1000000000000"),
        ),
        CliCase("cli coverage:pit_out_of_range", ("coverage", f["pit_bad"], x)),
        CliCase("cli coverage:rows", ("coverage", pit, good)),
        CliCase("cli coverage:x_eval_width", ("coverage", pit, x, "--x-eval", f["good3"])),
        CliCase("cli coverage:nan", ("coverage", f["nan"], good)),
        CliCase(
            "cli granularity:k_max=1e6",
            (
                "granularity",
                f["cat"],
                "--reference",
                "stairs:c=4,L=4,stairs=2",
                "--k-max",
                "1000000",
            ),
            quick=True,
        ),
        CliCase(
            "cli granularity:bad_categories",
            ("granularity", f["cat_bad"], "--reference", "stairs:c=4,L=4,stairs=2"),
        ),
        CliCase(
            "cli granularity:bad_reference",
            ("granularity", f["cat"], "--reference", "stairs:c=x"),
        ),
        CliCase(
            "cli granularity:huge_reference",
            ("granularity", f["cat"], "--reference", "stairs:c=1000000,L=1000000,stairs=2"),
        ),
        CliCase(
            "cli granularity:n_resamples=1e12",
            (
                "granularity",
                f["cat"],
                "--reference",
                "stairs:c=4,L=4,stairs=2",
                "--mode",
                "mc",
                "--n-resamples",
                "1000000000000",
            ),
        ),
        CliCase(
            "cli cv:bad_cell",
            ("cv", f["scores_bad"], "--n-train", "90", "--n-test", "10"),
            quick=True,
        ),
        CliCase("cli cv:one_split", ("cv", f["scores_one"], "--n-train", "90", "--n-test", "10")),
        CliCase("cli cv:missing", ("cv", f["missing"], "--n-train", "90", "--n-test", "10")),
        CliCase(
            "cli cv:n_train=nan", ("cv", f["scores_bad"], "--n-train", "nan", "--n-test", "10")
        ),
        CliCase("cli sweep:bad_test", ("sweep", f["sweep_bad"]), quick=True),
        CliCase("cli sweep:broken", ("sweep", f["sweep_broken"])),
        CliCase("cli sweep:n_jobs=0", ("sweep", f["sweep_bad"], "--n-jobs", "0")),
        CliCase("cli sweep:missing", ("sweep", f["missing"])),
        CliCase("cli report:missing", ("report", "--pit", f["missing"]), quick=True),
        CliCase("cli report:corrupt", ("report", "--pit", f["corrupt"])),
        CliCase("cli report:pit_out_of_range", ("report", "--pit", f["pit_bad"])),
        CliCase("cli report:nan", ("report", "--pit", f["nan"])),
        CliCase("cli report:checks=bogus", ("report", "--pit", pit, "--checks", "bogus")),
        CliCase("cli report:rows", ("report", "--pit", pit, "--x", good)),
        CliCase(
            "cli report:n_resamples=1e12",
            ("report", "--pit", pit, "--x", x, "--x-eval", x, "--n-resamples", "1000000000000"),
        ),
        CliCase("cli report:ranks_no_s", ("report", "--ranks", f["cat"])),
    ]
    return cases


class _Names(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> str:
        return key


def cli_case_ids() -> list[tuple[str, bool]]:
    """The ids of the command-line cases and whether each is in the quick set."""
    return [(c.id, c.quick) for c in cli_catalogue(_Names())]


CLI_MEMORY = 4 * 1024**3
CLI_TIMEOUT = 60.0


def _limit_memory() -> None:  # runs in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (CLI_MEMORY, CLI_MEMORY))


def cli_commands() -> list[str]:
    from modelcompare.cli import app

    return list(app.list_commands(None))  # type: ignore[arg-type]


def run_cli_case(case: CliCase, *, timeout: float = CLI_TIMEOUT) -> Outcome:
    """Run one command-line case in a subprocess under a memory cap and a timeout."""
    import modelcompare

    src = str(Path(modelcompare.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": src, "OMP_NUM_THREADS": "1", "MODELCOMPARE_DEBUG": "0"}
    command = [sys.executable, "-c", "from modelcompare.cli import app; app()", *case.argv]
    start = time.perf_counter()
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            preexec_fn=_limit_memory,  # the child caps its own address space
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Outcome("escape", f"timeout after {timeout:g} s", time.perf_counter() - start)
    seconds = time.perf_counter() - start
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error")]
    if done.returncode not in (2, 3):
        tail = (done.stderr.strip().splitlines() or [""])[-1][:160]
        return Outcome("escape", f"exit {done.returncode}: {tail}", seconds)
    if "Traceback" in done.stderr:
        tail = done.stderr.strip().splitlines()[-1][:160]
        return Outcome("escape", f"traceback: {tail}", seconds)
    if len(errors) != 1:
        return Outcome("escape", f"{len(errors)} Error lines: {done.stderr[:160]!r}", seconds)
    return Outcome("error", f"exit {done.returncode}: {errors[0][:160]}", seconds)


# ----------------------------------------------------------------------------------------------
# the table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="run only cases whose id contains this")
    parser.add_argument("--quick", action="store_true", help="the seeded subset of the tests")
    parser.add_argument("--cli", action="store_true", help="also run the command-line cases")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per case")
    parser.add_argument("--escapes", action="store_true", help="print only the escapes")
    parser.add_argument(
        "--update-known",
        action="store_true",
        help=f"write the escapes found to {KNOWN_PATH.name} (with --cli: the CLI ones too)",
    )
    args = parser.parse_args(argv)
    found: dict[str, str] = {}
    found_cli: dict[str, str] = {}
    os.environ.setdefault("MODELCOMPARE_MAX_MEMORY", "1G")
    cases = catalogue()
    if args.quick:
        cases = quick_subset(cases)
    cases = [c for c in cases if args.k in c.id]
    counts: dict[str, int] = {}
    width = max((len(c.id) for c in cases), default=10)
    total = time.perf_counter()
    for case in cases:
        outcome = run_case(case, timeout=args.timeout)
        counts[outcome.kind] = counts.get(outcome.kind, 0) + 1
        if not outcome.ok:
            found[case.id] = outcome.detail
        if not args.escapes or not outcome.ok:
            known = " (known)" if case.id in KNOWN_ESCAPES else ""
            print(
                f"{case.id:{width}s}  {outcome.kind:18s} {outcome.seconds:6.2f}s  "
                f"{outcome.detail}{known}",
                flush=True,
            )
    if args.cli:
        with tempfile.TemporaryDirectory() as folder:
            files = cli_files(Path(folder))
            commands = set(cli_commands())
            for case in cli_catalogue(files):
                if args.k not in case.id or (args.quick and not case.quick):
                    continue
                if case.argv[0] not in commands:
                    print(f"{case.id:{width}s}  {'skipped':18s}          no such subcommand")
                    continue
                outcome = run_cli_case(case)
                counts[f"cli {outcome.kind}"] = counts.get(f"cli {outcome.kind}", 0) + 1
                if not outcome.ok:
                    found_cli[case.id] = outcome.detail
                if not args.escapes or not outcome.ok:
                    print(
                        f"{case.id:{width}s}  {outcome.kind:18s} {outcome.seconds:6.2f}s  "
                        f"{outcome.detail}",
                        flush=True,
                    )
    if args.update_known:
        python = {**KNOWN_ESCAPES, **found} if args.k or args.quick else found
        python = {k: v for k, v in python.items() if k in found or k not in {c.id for c in cases}}
        cli = found_cli if args.cli else KNOWN_CLI_ESCAPES
        payload = {"python": dict(sorted(python.items())), "cli": dict(sorted(cli.items()))}
        KNOWN_PATH.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", "utf-8")
        print(f"wrote {len(python)} + {len(cli)} known escapes to {KNOWN_PATH}")
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
    print(f"\n{len(cases)} cases in {time.perf_counter() - total:.1f} s; {summary}")
    return 1 if any("escape" in k for k in counts) else 0


if __name__ == "__main__":
    sys.exit(main())
