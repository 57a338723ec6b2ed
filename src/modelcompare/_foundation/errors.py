"""Warning and exception classes shared by every test in the package."""

from __future__ import annotations

__all__ = [
    "ConvergenceWarning",
    "DegenerateDataWarning",
    "MissingDependencyError",
    "ModelCompareError",
    "ModelCompareWarning",
    "NotFittedError",
    "ResourceLimitError",
    "TooFewResamplesWarning",
]


class ModelCompareWarning(UserWarning):
    """Base class of the warnings issued by modelcompare."""


class DegenerateDataWarning(ModelCompareWarning, RuntimeWarning):
    """Non-positive variance, a constant column, a zero median distance or similar."""


class ConvergenceWarning(ModelCompareWarning):
    """An optimiser or classifier stopped at its iteration cap."""


class TooFewResamplesWarning(ModelCompareWarning):
    """A Monte Carlo p-value rests on too few resamples to be resolved finely."""


class ModelCompareError(Exception):
    """Base class of the errors raised by modelcompare (besides ValueError/TypeError)."""


class NotFittedError(ModelCompareError, ValueError):
    """A parameter object was used before it was fitted, or with data it does not fit."""


class MissingDependencyError(ModelCompareError, ImportError):
    """An optional dependency needed by the requested feature is not installed."""


class ResourceLimitError(ModelCompareError, ValueError):
    """An allocation that grows with a chosen size would pass the memory limit.

    The limit is 4 GiB unless the environment variable ``MODELCOMPARE_MAX_MEMORY`` says otherwise
    (see :func:`modelcompare._foundation.resources.memory_limit`).
    """
