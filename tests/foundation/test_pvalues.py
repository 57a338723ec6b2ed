"""The p-value plumbing shared by every part: Monte Carlo p-values, multiplicity adjustments
(Holm 1979, Bonferroni, Benjamini & Hochberg 1995), the family-wise p-value and the resolution
arithmetic of resampling checks."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import modelcompare
from modelcompare._foundation.pvalues import (
    adjust_pvalues,
    check_correction,
    familywise_pvalue,
    holm_adjust,
    monte_carlo_pvalue,
    resamples_needed,
    smallest_adjusted_pvalue,
)

STATSMODELS = {"holm": "holm", "bonferroni": "bonferroni", "fdr_bh": "fdr_bh"}


def _families() -> list[np.ndarray]:
    rng = np.random.default_rng(20)
    out = [rng.uniform(size=m) ** 2 for m in (1, 2, 5, 13, 40)]
    tied = rng.uniform(size=12) ** 2
    tied[[3, 7, 9]] = tied[0]  # ties
    out.append(tied)
    out.append(np.array([0.01, 0.01, 0.01, 0.5, 0.5]))
    out.append(np.array([0.0, 1.0, 0.3, 0.0]))  # the ends of [0, 1]
    out.append(np.array([0.9, 0.95, 0.99]))  # nothing small: the caps at 1
    return out


# --- the Monte Carlo p-value -----------------------------------------------------------------
def test_monte_carlo_pvalue_counts_ties_as_extreme() -> None:
    null = np.array([1.0, 2.0, 3.0, 0.5, 2.0])
    # T = 2: the values 2, 3, 2 are at least as large (two of them ties): (1 + 3) / (1 + 5)
    assert monte_carlo_pvalue(2.0, null) == 4 / 6
    # just above the tie: only 3 counts
    assert monte_carlo_pvalue(2.0 + 1e-9, null) == 2 / 6
    # a tie computed in another floating-point order is still a tie
    assert monte_carlo_pvalue(0.1 + 0.2, [0.3, 0.0]) == 2 / 3
    # above every null value: the smallest attainable p-value, never 0
    assert monte_carlo_pvalue(10.0, null) == 1 / 6
    # below every null value: 1
    assert monte_carlo_pvalue(-10.0, null) == 1.0


def test_monte_carlo_pvalue_is_vectorised_and_matches_a_loop() -> None:
    rng = np.random.default_rng(3)
    t_obs = rng.normal(size=(3, 4))
    t_null = rng.normal(size=(99, 1, 4))  # one null per column, shared by the rows
    p = monte_carlo_pvalue(t_obs, t_null)
    assert p.shape == (3, 4)
    for i in range(3):
        for e in range(4):
            count = sum(float(v) >= t_obs[i, e] for v in t_null[:, 0, e])
            assert p[i, e] == (1 + count) / 100
    assert isinstance(monte_carlo_pvalue(0.0, rng.normal(size=9)), float)


def test_monte_carlo_pvalue_never_rejects_on_nan() -> None:
    assert monte_carlo_pvalue(np.nan, [0.0, 1.0]) == 1.0
    assert monte_carlo_pvalue(5.0, [np.nan, 0.0, 1.0]) == 2 / 4  # a NaN null value counts
    with pytest.raises(ValueError, match="`null_statistics`"):
        monte_carlo_pvalue(1.0, [])


def test_monte_carlo_pvalue_has_its_size_under_h0() -> None:
    # T and the B null values exchangeable: P(p <= alpha) = floor(alpha (B + 1)) / (B + 1)
    rng = np.random.default_rng(11)
    b, trials = 19, 4000
    draws = rng.normal(size=(trials, b + 1))
    p = np.array([monte_carlo_pvalue(row[0], row[1:]) for row in draws])
    for alpha in (0.05, 0.1, 0.5):
        exact = np.floor(alpha * (b + 1)) / (b + 1)
        assert stats.binomtest(int((p <= alpha).sum()), trials, exact).pvalue > 0.001
    # with discrete statistics (many ties) the rule stays valid: size at most alpha
    ties = rng.integers(0, 3, size=(trials, b + 1)).astype(float)
    p = np.array([monte_carlo_pvalue(row[0], row[1:]) for row in ties])
    assert (p <= 0.05).mean() <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / trials)


# --- adjust_pvalues ----------------------------------------------------------------------------
@pytest.mark.parametrize("correction", ["holm", "bonferroni", "fdr_bh"])
def test_adjust_pvalues_matches_statsmodels(correction: str) -> None:
    for p in _families():
        expected = multipletests(p, method=STATSMODELS[correction])[1]
        np.testing.assert_allclose(adjust_pvalues(p, correction), expected, rtol=1e-14, atol=0)


def test_fdr_bh_matches_scipy() -> None:
    for p in _families():
        np.testing.assert_allclose(
            adjust_pvalues(p, "fdr_bh"), stats.false_discovery_control(p), rtol=1e-14, atol=0
        )


def test_fdr_bh_hand_example() -> None:
    # sorted 0.01, 0.03, 0.04 -> 3·0.01/1, 3·0.03/2, 3·0.04/3 = 0.03, 0.045, 0.04, then the running
    # minimum from the top: 0.03, 0.04, 0.04
    np.testing.assert_allclose(adjust_pvalues([0.01, 0.04, 0.03], "fdr_bh"), [0.03, 0.04, 0.04])


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "fdr_bh", None])
def test_adjust_pvalues_empty_input(correction: str | None) -> None:
    out = adjust_pvalues([], correction)
    assert out.shape == (0,)
    assert out.dtype == np.float64
    if correction is not None:
        np.testing.assert_array_equal(out, multipletests(np.array([]), method=correction)[1])
    np.testing.assert_array_equal(
        adjust_pvalues(np.array([]), "fdr_bh"), stats.false_discovery_control(np.array([]))
    )


def test_adjust_pvalues_none_and_inputs() -> None:
    p = np.array([0.2, 0.01, 0.5])
    out = adjust_pvalues(p, None)
    np.testing.assert_array_equal(out, p)
    assert out is not p
    before = p.copy()
    for correction in ("holm", "bonferroni", "fdr_bh"):
        adjust_pvalues(p, correction)
    np.testing.assert_array_equal(p, before)  # the input is never modified
    with pytest.raises(ValueError, match=r"`correction`.*'hochberg'"):
        adjust_pvalues([0.1], "hochberg")
    with pytest.raises(ValueError, match="`correction`"):
        adjust_pvalues([0.1], True)
    with pytest.raises(ValueError, match=r"`pvalues` must lie in \[0, 1\]; got 1.5"):
        adjust_pvalues([0.1, 1.5])
    with pytest.raises(ValueError, match="`pvalues`"):
        adjust_pvalues([0.1, np.nan])
    with pytest.raises(ValueError, match="`pvalues`"):
        adjust_pvalues([[0.1, 0.2], [0.3, 0.4]])
    assert check_correction(None) is None
    with pytest.raises(ValueError, match="`eval_correction`"):
        check_correction("fdr", "eval_correction")


def test_the_public_adjust_pvalues_is_the_foundation_one() -> None:
    from modelcompare import cv

    assert modelcompare.adjust_pvalues is adjust_pvalues
    assert cv.adjust_pvalues is adjust_pvalues


# --- Holm ----------------------------------------------------------------------------------------
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
    np.testing.assert_array_equal(adjust_pvalues(raw, "holm"), holm_adjust(raw))


def test_holm_edge_cases_and_errors() -> None:
    assert holm_adjust([]).shape == (0,)
    assert holm_adjust(np.array([0.04, 0.01])).dtype == np.float64
    # the smallest adjusted value is k · min p, in the same floating-point product
    p = np.array([0.7, 1 / 480, 0.3])
    assert holm_adjust(p).min() == 3 * (1 / 480)
    with pytest.raises(ValueError, match="`pvalues`"):
        holm_adjust([[0.1, 0.2]])


# --- the family-wise p-value ------------------------------------------------------------------
def test_familywise_pvalue_is_the_smallest_holm_value() -> None:
    for p in _families():
        assert familywise_pvalue(p) == holm_adjust(p).min()
        assert familywise_pvalue(p) == adjust_pvalues(p, "bonferroni").min()
        # never the Benjamini–Hochberg minimum (Simes), which can be smaller
        assert familywise_pvalue(p) >= adjust_pvalues(p, "fdr_bh").min()
    assert familywise_pvalue([0.01, 0.011, 0.012]) == pytest.approx(0.03)
    assert adjust_pvalues([0.01, 0.011, 0.012], "fdr_bh").min() == pytest.approx(0.012)
    assert familywise_pvalue([]) == 1.0
    grid = np.array([[0.01, 0.5, 0.2], [0.2, 0.3, 0.9]])
    np.testing.assert_array_equal(
        familywise_pvalue(grid, axis=0), [familywise_pvalue(c) for c in grid.T]
    )


def test_every_part_uses_the_one_holm() -> None:
    from modelcompare.workflows._report import CheckOutcome, PosteriorValidationResult

    rng = np.random.default_rng(0)
    p = rng.uniform(size=9) ** 3
    reference = holm_adjust(p)

    class Fixed:
        def __init__(self, pvalue: float) -> None:
            self.statistic, self.pvalue = 0.0, pvalue

    outcomes = tuple(CheckOutcome(f"c{i}", "", Fixed(v), None, 0.0) for i, v in enumerate(p))
    report = PosteriorValidationResult(outcomes, 1, 1, 1, None, {}, {}, "")
    np.testing.assert_array_equal(report.checks["pvalue_adjusted"], reference)


# --- resolution: the smallest attainable adjusted p-value ------------------------------------
def test_smallest_adjusted_pvalue_and_resamples_needed() -> None:
    assert smallest_adjusted_pvalue(99, ()) == 0.01
    assert smallest_adjusted_pvalue(99, (2, 3)) == pytest.approx(0.06)
    assert smallest_adjusted_pvalue(9, (20,)) == 1.0  # capped
    for factors in [(1,), (2, 3), (2, 3, 7), (1, 3, 1), (6, 5, 9)]:
        b = resamples_needed(factors)
        assert smallest_adjusted_pvalue(b, factors) <= 0.05
        assert smallest_adjusted_pvalue(b - 1, factors) > 0.05 or b == 1
        # it agrees with the Monte Carlo p-value: a statistic above all B null values, then
        # Bonferroni/Holm over each family
        p = monte_carlo_pvalue(np.inf, np.zeros(b))
        for factor in factors:
            p = familywise_pvalue(np.r_[p, np.ones(factor - 1)])
        assert p == smallest_adjusted_pvalue(b, factors)
    assert resamples_needed((1,), at_least=500) == 500
    assert resamples_needed((4,), alpha=0.01) == 399
