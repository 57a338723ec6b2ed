"""Workflows that combine parts: the posterior validation report (posterior checks beside C2ST)."""

from modelcompare.workflows._report import CheckOutcome, PosteriorReport
from modelcompare.workflows._validate import ReferenceC2STResult, validate_posterior

__all__ = ["CheckOutcome", "PosteriorReport", "ReferenceC2STResult", "validate_posterior"]
