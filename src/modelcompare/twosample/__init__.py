"""Classifier two-sample test (C2ST), sbibm's recipe, one pair at a time or many together."""

from modelcompare.twosample._api import CLASSIFIERS, C2STResult, c2st
from modelcompare.twosample._many import C2STManyResult, c2st_many

__all__ = ["CLASSIFIERS", "C2STManyResult", "C2STResult", "c2st", "c2st_many"]
