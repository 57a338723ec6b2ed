"""Stable task keys and config-keyed child seeds for ``run_many``, sweeps and ``c2st_many``.

A task's child seed depends on the base seed and a *stable key* of the task (a hash of its config's
canonical JSON), never on its position in a list. Results therefore do not change with ``n_jobs``,
the joblib backend, the order of the configs, or a resumed run.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from modelcompare._foundation.results import to_builtin
from modelcompare._foundation.seeds import SeedLike, check_seed

__all__ = ["base_seed", "canonical_json", "config_key", "task_seed"]

_RESERVED = ("seed",)


def _plain(value: Any, where: str) -> Any:
    """Turn a config value into plain JSON types, or raise naming where the bad value sits."""
    value = to_builtin(value)
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value) and abs(value) < 2**53:
            # 1.0 and 1 are the same setting: hash them alike.
            return int(value)
        return value
    if isinstance(value, list):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {str(k): _plain(v, f"{where}.{k}") for k, v in value.items()}
    msg = (
        f"config value {where} must be JSON-like (str, number, bool, None, or lists/dicts of "
        f"these); got {type(value).__name__}. Refer to data by name or path, not by object."
    )
    raise TypeError(msg)


def canonical_json(config: Mapping[str, Any]) -> str:
    """Return the canonical JSON text of a task config (sorted keys, no spaces).

    Numpy scalars and arrays become Python numbers and lists, tuples become lists, and integral
    floats become ints, so ``{"n": 100}`` and ``{"n": np.float64(100.0)}`` are the same task.
    """
    if not isinstance(config, Mapping):
        msg = f"each config must be a mapping (dict) of option names to values; got {type(config).__name__}."
        raise TypeError(msg)
    plain = {str(k): _plain(v, f"`{k}`") for k, v in config.items()}
    return json.dumps(plain, sort_keys=True, separators=(",", ":"), allow_nan=True)


def config_key(config: Mapping[str, Any]) -> str:
    """Stable key of a task config: the first 16 hex digits of the SHA-256 of its canonical JSON.

    Examples
    --------
    >>> config_key({"n": 100, "shift": 0.5}) == config_key({"shift": 0.5, "n": 100})
    True
    """
    return hashlib.sha256(canonical_json(config).encode()).hexdigest()[:16]


def base_seed(seed: SeedLike) -> int:
    """Normalise a ``seed`` argument into the int from which every task's seed is derived.

    An int is used as is, ``None`` draws fresh entropy (stored by callers as ``seed_used``), and a
    Generator is advanced once to draw a 63-bit int.
    """
    rng, seed_used = check_seed(seed)
    if seed_used is not None:
        return int(seed_used)
    return int(rng.integers(2**63))


def task_seed(base: int, key: str) -> int:
    """Child seed (a non-negative 63-bit int) of the task with stable ``key`` under base seed ``base``.

    The key's SHA-256 digest becomes the ``spawn_key`` of a :class:`numpy.random.SeedSequence`
    with entropy ``base``: numpy's own construction for independent child streams, addressed by
    content instead of by position.

    Examples
    --------
    >>> task_seed(0, "a") == task_seed(0, "a") != task_seed(0, "b")
    True
    """
    digest = hashlib.sha256(str(key).encode()).digest()
    words = tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 32, 4))
    seq = np.random.SeedSequence(entropy=int(base), spawn_key=words)
    return int(seq.generate_state(1, np.uint64)[0] >> np.uint64(1))
