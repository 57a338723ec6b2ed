"""Names of the classifiers of C2ST (light: the command line reads them for its help)."""

from __future__ import annotations

__all__ = ["CLASSIFIERS"]

#: Names of the classifiers of :func:`c2st` (and of the report's reference C2ST).
CLASSIFIERS = ("mlp", "logistic")
