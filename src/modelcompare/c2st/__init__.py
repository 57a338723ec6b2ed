"""Classifier two-sample test (C2ST), sbibm's recipe."""

from ._api import C2STResult, c2st

__all__ = ["C2STResult", "c2st"]
