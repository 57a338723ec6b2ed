"""Holm's step-down adjustment: one implementation, used by every part and the report."""

from __future__ import annotations

import numpy as np
import pytest

from modelcompare._foundation.stats import holm_adjust


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # sorted 0.005, 0.01, 0.03, 0.04 -> 4·0.005, 3·0.01, 2·0.03, max(0.06, 1·0.04)
        ([0.01, 0.04, 0.03, 0.005], [0.03, 0.06, 0.06, 0.02]),
        # the cap at 1 and the running maximum: 3·0.2 = 0.6, 2·0.6 = 1.2 -> 1, 1·0.7 -> 1
        ([0.6, 0.2, 0.7], [1.0, 0.6, 1.0]),
        # ties share one adjusted value: 3·0.02, max(0.06, 2·0.02), 1·0.5
        ([0.02, 0.5, 0.02], [0.06, 0.5, 0.06]),
        ([0.3], [0.3]),
        # 5·0.01, 4·0.02, 3·0.03, max(0.09, 2·0.04), max(0.09, 1·0.05)
        ([0.01, 0.02, 0.03, 0.04, 0.05], [0.05, 0.08, 0.09, 0.09, 0.09]),
    ],
)
def test_holm_matches_hand_computed_values(raw: list[float], expected: list[float]) -> None:
    np.testing.assert_allclose(holm_adjust(raw), expected, rtol=1e-12)


def test_holm_edge_cases_and_errors() -> None:
    assert holm_adjust([]).shape == (0,)
    assert holm_adjust(np.array([0.04, 0.01])).dtype == np.float64
    # the smallest adjusted value is k · min p, in the same floating-point product
    p = np.array([0.7, 1 / 480, 0.3])
    assert holm_adjust(p).min() == 3 * (1 / 480)
    with pytest.raises(ValueError, match="`pvalues`"):
        holm_adjust([[0.1, 0.2]])


def test_every_part_uses_the_one_holm() -> None:
    from modelcompare.cv._pairwise import adjust_pvalues as cv_adjust
    from modelcompare.posterior._multiple import adjust_pvalues as posterior_adjust
    from modelcompare.posterior._multiple import overall_pvalue
    from modelcompare.workflows._report import CheckOutcome, PosteriorReport

    rng = np.random.default_rng(0)
    p = rng.uniform(size=9) ** 3
    reference = holm_adjust(p)
    np.testing.assert_array_equal(cv_adjust(p, "holm"), reference)
    np.testing.assert_array_equal(posterior_adjust(p, "holm"), reference)
    assert overall_pvalue(p) == reference.min()

    class Fixed:
        def __init__(self, pvalue: float) -> None:
            self.statistic, self.pvalue = 0.0, pvalue

    outcomes = tuple(CheckOutcome(f"c{i}", "", Fixed(v), None, 0.0) for i, v in enumerate(p))
    report = PosteriorReport(outcomes, 1, 1, 1, None, {}, {}, "")
    np.testing.assert_array_equal(report.checks["pvalue_adjusted"], reference)
