"""Shared fixtures: seeded generators (never global seeding) and device markers."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

HAS_TORCH = importlib.util.find_spec("torch") is not None


def _cuda_available() -> bool:
    if not HAS_TORCH:
        return False
    import torch

    return bool(torch.cuda.is_available())


#: Scripts the tests run as data (``tests/data/compat_0_1.py`` is written against old spellings and
#: warns on import): not test modules, and not to be imported by ``--doctest-modules``.
collect_ignore_glob = ["data/*.py"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_gpu = pytest.mark.skip(reason="needs a CUDA device")
    skip_torch = pytest.mark.skip(reason="needs torch")
    cuda = None
    for item in items:
        if "torch" in item.keywords and not HAS_TORCH:
            item.add_marker(skip_torch)
        if "gpu" in item.keywords:
            if cuda is None:
                cuda = _cuda_available()
            if not cuda:
                item.add_marker(skip_gpu)


@pytest.fixture
def rng() -> np.random.Generator:
    """A fresh seeded generator per test."""
    return np.random.default_rng(12345)
