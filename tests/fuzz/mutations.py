"""Mutations, by role: (label, value -> bad or unusual value, the call must fail)."""

from __future__ import annotations

import copy
import functools
import math
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tests.fuzz.data import _TMP, _normal, _out_path

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

# posterior draws, shape (N, S, m)
DRAWS: list[Mutation] = [
    *(m for m in COMMON_ARRAY if m[0] != "pandas"),  # a frame holds 2-D data only
    ("empty", lambda v: np.asarray(v)[:0], True),
    ("no_draws", lambda v: np.asarray(v)[:, :0], True),
    ("one_draw", lambda v: np.asarray(v)[:, :1], False),
    ("2d", lambda v: np.asarray(v)[..., 0], True),
    ("4d", lambda v: np.asarray(v)[None], True),
    ("ragged", _ragged, True),
]

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
