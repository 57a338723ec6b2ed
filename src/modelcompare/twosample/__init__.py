"""Classifier two-sample test (C2ST), sbibm's recipe, one pair at a time or many together."""

from __future__ import annotations

from typing import TYPE_CHECKING

from modelcompare._lazy import attach

# Each name is imported from its module on first use (scientific-python SPEC 1), so that reading
# a constant (the command line's choices) loads none of the heavy dependencies.
if TYPE_CHECKING:
    from modelcompare.twosample._api import C2STResult, c2st
    from modelcompare.twosample._many import C2STManyResult, c2st_many
    from modelcompare.twosample._names import CLASSIFIERS

__getattr__, __dir__, _public = attach(__name__, __file__)

__all__ = ["CLASSIFIERS", "C2STManyResult", "C2STResult", "c2st", "c2st_many"]
