"""Corrected and Bayesian correlated t-tests: formulas, invariances, degenerate and bad input."""

from __future__ import annotations

import math
import warnings

import baycomp
import numpy as np
import pytest
from scipy import stats
from sklearn.model_selection import KFold, StratifiedKFold

from modelcompare import (
    CorrectedTTestResult,
    DegenerateDataWarning,
    ModelCompareWarning,
    adjust_pvalues,
    bayesian_ttest,
    compare_models,
    corrected_ttest,
    split_sizes,
)
from modelcompare._foundation.results import TestResult


@pytest.fixture
def scores(rng):
    a = 0.80 + 0.03 * rng.standard_normal(20)
    b = a - 0.01 + 0.02 * rng.standard_normal(20)
    return a, b


def test_formula_counts_splits_not_samples(scores):
    # 20 splits, n_train + n_test = 50: the 1/(k·r) and the old 1/(n_train + n_test) differ here.
    a, b = scores
    d = a - b
    res = corrected_ttest(a, b, n_train=45, n_test=5)
    var = np.sum((d - d.mean()) ** 2) / 19
    se = math.sqrt(var * (1 / 20 + 5 / 45))
    assert res.standard_error == pytest.approx(se, rel=1e-13)
    assert res.statistic == pytest.approx(d.mean() / se, rel=1e-13)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(d.mean() / se), 19), rel=1e-12)
    assert res.standard_error_uncorrected == pytest.approx(math.sqrt(var / 20), rel=1e-13)
    assert res.statistic_uncorrected == pytest.approx(stats.ttest_rel(a, b).statistic, rel=1e-12)
    assert res.pvalue_uncorrected == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-10)
    wrong = math.sqrt(var * (1 / 50 + 5 / 45))
    assert abs(res.standard_error - wrong) > 1e-4
    assert res.test_train_ratio == 5 / 45
    assert res.df == 19


def test_alternatives_and_symmetry(scores):
    a, b = scores
    two = corrected_ttest(a, b, n_train=45, n_test=5)
    gr = corrected_ttest(a, b, n_train=45, n_test=5, alternative="greater")
    ls = corrected_ttest(a, b, n_train=45, n_test=5, alternative="less")
    assert gr.pvalue + ls.pvalue == pytest.approx(1.0, abs=1e-14)
    assert two.pvalue == pytest.approx(2 * min(gr.pvalue, ls.pvalue), rel=1e-12)
    rev = corrected_ttest(b, a, n_train=45, n_test=5, alternative="greater")
    assert rev.statistic == pytest.approx(-gr.statistic, rel=1e-14)
    assert rev.pvalue == pytest.approx(ls.pvalue, rel=1e-12)
    # uncorrected follows the same alternative
    assert gr.pvalue_uncorrected + ls.pvalue_uncorrected == pytest.approx(1.0, abs=1e-14)
    # invariance: common shift of both models and common positive scaling leave t unchanged
    shifted = corrected_ttest(a + 3.0, b + 3.0, n_train=45, n_test=5)
    scaled = corrected_ttest(10 * a, 10 * b, n_train=45, n_test=5)
    assert shifted.statistic == pytest.approx(two.statistic, rel=1e-9)
    assert scaled.statistic == pytest.approx(two.statistic, rel=1e-12)
    # the correction only ever widens: corrected |t| < naive |t|
    assert abs(two.statistic) < abs(two.statistic_uncorrected)


def test_confidence_interval(scores):
    a, b = scores
    res = corrected_ttest(a, b, n_train=45, n_test=5)
    lo, hi = res.confidence_interval(0.95)
    q = stats.t.ppf(0.975, 19)
    assert lo == pytest.approx(res.mean_difference - q * res.standard_error, rel=1e-12)
    assert hi == pytest.approx(res.mean_difference + q * res.standard_error, rel=1e-12)
    # duality: the level-(1 - p) interval has 0 on its edge
    edge = res.confidence_interval(1 - res.pvalue)
    assert min(abs(edge.low), abs(edge.high)) == pytest.approx(0.0, abs=1e-12)
    g = corrected_ttest(a, b, n_train=45, n_test=5, alternative="greater").confidence_interval()
    assert g.high == math.inf
    assert g.low == pytest.approx(res.mean_difference - stats.t.ppf(0.95, 19) * res.standard_error)
    naive = res.confidence_interval(corrected=False)
    assert naive.high - naive.low < hi - lo
    with pytest.raises(ValueError, match="confidence_level"):
        res.confidence_interval(1.5)


def test_result_repr_and_dict(scores):
    res = corrected_ttest(*scores, n_train=45, n_test=5)
    d = res.to_dict()
    assert list(d)[:2] == ["statistic", "pvalue"]
    assert "pvalue_uncorrected" in d
    assert "CorrectedTTestResult(" in repr(res)
    assert isinstance(res, TestResult)
    assert res.decision(0.999) is (res.pvalue <= 0.999)
    assert "decision" not in CorrectedTTestResult.__dict__  # the protocol's, not a local one
    assert "reject" not in d
    assert "alpha" not in d


def test_bayesian_formula_and_baycomp(rng):
    # 5-fold × 4 repeats: baycomp's 1/(k−1) equals n_test/n_train = 20/80.
    a = 0.7 + 0.05 * rng.standard_normal(20)
    b = a + 0.004 + 0.03 * rng.standard_normal(20)
    res = bayesian_ttest(a, b, n_train=80, n_test=20, rope=0.01)
    d = a - b
    scale = math.sqrt(np.var(d, ddof=1) * (1 / 20 + 0.25))
    post = stats.t(19, loc=d.mean(), scale=scale)
    assert res.prob_a_worse == pytest.approx(post.cdf(-0.01), rel=1e-12)
    assert res.prob_a_better == pytest.approx(post.sf(0.01), rel=1e-12)
    assert res.prob_rope == pytest.approx(post.cdf(0.01) - post.cdf(-0.01), rel=1e-12)
    left, rope, right = baycomp.two_on_single(a, b, rope=0.01, runs=4)
    assert (res.prob_a_better, res.prob_rope, res.prob_a_worse) == pytest.approx(
        (left, rope, right), rel=1e-12
    )
    # asymmetric ROPE pair and swapping the models
    pair = bayesian_ttest(a, b, n_train=80, n_test=20, rope=(-0.02, 0.005))
    assert pair.prob_a_worse == pytest.approx(post.cdf(-0.02), rel=1e-12)
    assert pair.prob_a_better == pytest.approx(post.sf(0.005), rel=1e-12)
    swapped = bayesian_ttest(b, a, n_train=80, n_test=20, rope=0.01)
    assert swapped.prob_a_better == pytest.approx(res.prob_a_worse, rel=1e-12)
    assert res.posterior.mean() == pytest.approx(d.mean())
    assert res.decision(0.95) in {"a_better", "rope", "a_worse", "undecided"}
    assert list(res.to_dict())[:3] == ["prob_a_better", "prob_rope", "prob_a_worse"]


def test_bayesian_tails_keep_their_digits():
    a = np.linspace(0.9, 0.95, 50)
    b = a - 0.3 + 0.01 * np.sin(np.arange(50))
    res = bayesian_ttest(a, b, n_train=90, n_test=10, rope=0.01)
    d = a - b
    post = stats.t(49, loc=d.mean(), scale=res.scale)
    assert 0 < res.prob_a_worse < 1e-30
    assert res.prob_a_worse == pytest.approx(post.cdf(-0.01), rel=1e-10)
    assert res.prob_rope == pytest.approx(post.cdf(0.01) - post.cdf(-0.01), rel=1e-8)


def test_decision_rules():
    a = np.full(30, 0.9) + 0.001 * np.sin(np.arange(30))
    b = np.full(30, 0.9) + 0.001 * np.cos(np.arange(30))
    assert bayesian_ttest(a, b, n_train=90, n_test=10).decision() == "rope"
    assert bayesian_ttest(a + 0.2, b, n_train=90, n_test=10).decision() == "a_better"
    assert bayesian_ttest(a, b + 0.2, n_train=90, n_test=10).decision() == "a_worse"
    close = bayesian_ttest(a + 0.01, b, n_train=90, n_test=10)
    assert close.decision(threshold=0.999) == "undecided"
    with pytest.raises(ValueError, match="threshold"):
        close.decision(threshold=1.5)


# --- degenerate input: never NaN, flagged, warned -------------------------------------------
def test_all_zero_differences():
    a = np.array([0.8, 0.9, 0.7, 0.85])
    with pytest.warns(DegenerateDataWarning, match="exactly 0"):
        res = corrected_ttest(a, a.copy(), n_train=30, n_test=10)
    assert res.statistic == 0.0
    assert res.pvalue == 1.0
    assert res.degenerate
    assert res.statistic_uncorrected == 0.0
    assert res.pvalue_uncorrected == 1.0
    for alt in ("greater", "less"):
        with pytest.warns(DegenerateDataWarning):
            r = corrected_ttest(a, a, n_train=30, n_test=10, alternative=alt)
        assert r.pvalue == 1.0
    assert res.confidence_interval() == (0.0, 0.0)
    with pytest.warns(DegenerateDataWarning):
        b0 = bayesian_ttest(a, a, n_train=30, n_test=10, rope=0.01)
    assert (b0.prob_a_worse, b0.prob_rope, b0.prob_a_better) == (0.0, 1.0, 0.0)
    assert b0.degenerate
    assert b0.posterior is None
    with pytest.warns(DegenerateDataWarning):
        b1 = bayesian_ttest(a, a, n_train=30, n_test=10, rope=None)
    assert (b1.prob_a_worse, b1.prob_a_better) == (0.5, 0.5)  # as baycomp
    assert b1.credible_interval(0.9) == (0.0, 0.0)


def test_constant_nonzero_differences():
    a = np.array([0.81, 0.93, 0.72, 0.85, 0.66])
    b = a - 0.1  # float rounding makes var ~1e-34, not 0
    with pytest.warns(DegenerateDataWarning, match="constant"):
        res = corrected_ttest(a, b, n_train=40, n_test=10)
    assert res.statistic == math.inf
    assert res.pvalue == 0.0
    assert res.degenerate
    assert res.statistic_uncorrected == math.inf
    assert res.pvalue_uncorrected == 0.0
    with pytest.warns(DegenerateDataWarning):
        g = corrected_ttest(a, b, n_train=40, n_test=10, alternative="greater")
    with pytest.warns(DegenerateDataWarning):
        ls = corrected_ttest(a, b, n_train=40, n_test=10, alternative="less")
    assert (g.pvalue, ls.pvalue) == (0.0, 1.0)
    with pytest.warns(DegenerateDataWarning):
        neg = corrected_ttest(b, a, n_train=40, n_test=10, alternative="less")
    assert neg.statistic == -math.inf
    assert neg.pvalue == 0.0
    with pytest.warns(DegenerateDataWarning):
        bt = bayesian_ttest(a, b, n_train=40, n_test=10, rope=0.01)
    assert (bt.prob_a_worse, bt.prob_rope, bt.prob_a_better) == (0.0, 0.0, 1.0)
    with pytest.warns(DegenerateDataWarning):
        inside = bayesian_ttest(a, a - 0.005, n_train=40, n_test=10, rope=0.01)
    assert inside.prob_rope == 1.0
    for r in (res, g, ls, neg):
        assert not any(math.isnan(v) for v in (r.statistic, r.pvalue, r.pvalue_uncorrected))


def test_constant_nonzero_difference_is_a_flagged_certain_rejection():
    # zero variance and a non-zero mean: t is its limit +inf and p its limit 0 (the glossary's
    # rule for limits); the rejection rests on zero variance alone, so it is flagged and warned
    a = np.array([0.80, 0.82, 0.79, 0.85, 0.81, 0.83, 0.80, 0.84, 0.82, 0.81])
    with pytest.warns(DegenerateDataWarning, match="rests on zero variance"):
        res = corrected_ttest(a, a - 0.01, n_train=90, n_test=10)
    assert (res.statistic, res.pvalue, res.degenerate) == (math.inf, 0.0, True)
    assert res.decision(0.05)
    assert res.decision(1e-300)
    assert res.mean_difference == pytest.approx(0.01)
    assert res.confidence_interval() == pytest.approx((0.01, 0.01))
    assert res.to_dict()["statistic"] == math.inf  # kept as a float, never NaN
    with pytest.warns(DegenerateDataWarning):
        table = compare_models({"a": a, "b": a - 0.01}, n_train=90, n_test=10).table
    assert table["degenerate"].iloc[0]
    assert (table["t"].iloc[0], table["p"].iloc[0]) == (math.inf, 0.0)


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "fdr_bh", None])
def test_compare_models_corrections_and_the_familywise_pvalue(correction):
    rng = np.random.default_rng(8)
    scores = {
        m: mu + 0.02 * rng.standard_normal(30) for m, mu in zip("abcd", (0.9, 0.89, 0.88, 0.85))
    }
    res = compare_models(scores, n_train=90, n_test=10, correction=correction)
    table = res.table
    np.testing.assert_array_equal(table["p_adjusted"], adjust_pvalues(table["p"], correction))
    # the overall p-value is Holm's, min(1, K · min p), whatever the per-pair correction
    assert res.pvalue == min(1.0, 6 * table["p"].min())
    assert res.correction == correction
    if correction == "fdr_bh":
        assert table["p_adjusted"].min() <= res.pvalue


def test_degenerate_pairs_in_table():
    tab = {"a": [0.8, 0.9, 0.7], "b": [0.8, 0.9, 0.7], "c": [0.5, 0.6, 0.55]}
    with pytest.warns(DegenerateDataWarning, match="a vs b"):
        out = compare_models(tab, n_train=20, n_test=10).table
    row = out[(out.model_a == "a") & (out.model_b == "b")].iloc[0]
    assert row.degenerate
    assert row.t == 0.0
    assert row.p == 1.0
    assert not out.isna().any().any()


# --- bad input -----------------------------------------------------------------------------
def test_bad_input_messages(scores):
    a, b = scores
    with pytest.raises(ValueError, match="20 and 19 splits"):
        corrected_ttest(a, b[:-1], n_train=45, n_test=5)
    with pytest.raises(ValueError, match="at least 2 paired splits; got 1"):
        corrected_ttest(a[:1], b[:1], n_train=45, n_test=5)
    with pytest.raises(ValueError, match="`n_train` and `n_test` must be given"):
        corrected_ttest(a, b)
    with pytest.raises(ValueError, match="`n_test` must be given"):
        bayesian_ttest(a, b, n_train=45)
    with pytest.raises(ValueError, match="not both"):
        corrected_ttest(a, b, n_train=45, n_test=5, test_train_ratio=0.1)
    with pytest.raises(ValueError, match="`n_train` must be a finite positive"):
        corrected_ttest(a, b, n_train=0, n_test=5)
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        corrected_ttest(a, b, n_train=45, n_test=5, alternative="right")
    with pytest.raises(ValueError, match="1-D"):
        corrected_ttest(np.ones((3, 2)), np.ones((3, 2)), n_train=45, n_test=5)
    with pytest.raises(TypeError, match="numeric"):
        corrected_ttest(["x", "y"], ["x", "y"], n_train=45, n_test=5)
    with pytest.raises(ValueError, match="inf at split 2"):
        corrected_ttest([0.1, 0.2, np.inf], [0.1, 0.2, 0.3], n_train=45, n_test=5)
    with pytest.raises(ValueError, match="`rope`"):
        bayesian_ttest(a, b, n_train=45, n_test=5, rope=-0.1)
    with pytest.raises(ValueError, match="`rope`"):
        bayesian_ttest(a, b, n_train=45, n_test=5, rope=(0.1, -0.1))
    with pytest.warns(ModelCompareWarning, match="does not contain 0"):
        bayesian_ttest(a, b, n_train=45, n_test=5, rope=(0.01, 0.02))
    a_copy = a.copy()
    corrected_ttest(a, b, n_train=45, n_test=5)
    np.testing.assert_array_equal(a, a_copy)  # never modified in place


def test_ratio_oddities(scores):
    a, b = scores
    with pytest.warns(ModelCompareWarning, match="swapped"):
        res = corrected_ttest(a, b, n_train=5, n_test=45)
    assert res.test_train_ratio == 9.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        two_fold = corrected_ttest(a, b, n_train=50, n_test=50)  # 2-fold CV: silent
    assert two_fold.test_train_ratio == 1.0
    direct = corrected_ttest(a, b, test_train_ratio=5 / 45)
    ref = corrected_ttest(a, b, n_train=45, n_test=5)
    assert direct.statistic == ref.statistic
    assert direct.n_train is None


def test_nan_scores_from_failed_fits(scores):
    a, b = scores
    a = a.copy()
    a[[3, 7]] = np.nan
    with pytest.raises(ValueError, match=r"`scores_a` at split\(s\) 3, 7.*nan_policy='omit'"):
        corrected_ttest(a, b, n_train=45, n_test=5)
    res = corrected_ttest(a, b, n_train=45, n_test=5, nan_policy="omit")
    keep = ~np.isnan(a)
    ref = corrected_ttest(a[keep], b[keep], n_train=45, n_test=5)
    assert res.statistic == ref.statistic
    assert res.n_splits == 18
    assert res.n_dropped == 2
    table = {"good": b, "broken": a, "other": b + 0.01 * np.sin(np.arange(20))}
    with pytest.raises(ValueError, match="'broken' split 3"):
        compare_models(table, n_train=45, n_test=5)
    out = compare_models(table, n_train=45, n_test=5, nan_policy="omit").table
    assert set(out["n_splits"]) == {18, 20}


def test_unequal_folds_ratio_choices():
    # n = 101, stratified 10-fold: folds of 10 or 11. Three defensible ratios differ slightly.
    y = np.repeat([0, 1], [50, 51])
    X = np.zeros((101, 1))
    sizes = split_sizes(StratifiedKFold(10), X, y)
    first = sizes.first_n_test / sizes.first_n_train
    assert (sizes.first_n_train, sizes.first_n_test) == (90, 11)  # the example's choice: 11/90
    assert first == pytest.approx(0.12222, abs=1e-5)
    assert sizes.test_train_ratio == pytest.approx(np.mean([11 / 90] + [10 / 91] * 9), rel=1e-14)
    assert sizes.test_train_ratio == pytest.approx(0.1111, abs=2e-4)  # our choice: mean ratio
    assert pytest.approx(0.11111, abs=1e-5) == 1 / (10 - 1)  # baycomp's assumption
    plain = split_sizes(KFold(5), n_samples=50)
    assert (plain.n_train, plain.n_test, plain.test_train_ratio) == (40.0, 10.0, 0.25)
    assert plain.to_dict()["n_splits"] == 5
    with pytest.raises(ValueError, match="pass `y`"):
        split_sizes(5, n_samples=50, is_classifier=True)


def test_adjust_pvalues_reference(rng):
    for m in (1, 2, 5, 13):
        p = rng.uniform(size=m) ** 2
        p[rng.integers(m)] = p[0]  # a tie
        holm = adjust_pvalues(p, "holm")
        # brute-force definition: p̃_i = max over j with p_j <= p_i (in sorted order) of (m-rank_j)p_j
        order = np.argsort(p, kind="stable")
        ref = np.empty(m)
        for pos, i in enumerate(order):
            ref[i] = min(1.0, max((m - q) * p[order[q]] for q in range(pos + 1)))
        np.testing.assert_allclose(holm, ref, rtol=1e-15)
        np.testing.assert_allclose(adjust_pvalues(p, "bonferroni"), np.minimum(1, m * p))
        np.testing.assert_array_equal(adjust_pvalues(p, None), p)
    with pytest.raises(ValueError, match="correction"):
        adjust_pvalues([0.1], "hochberg")


def test_compare_models_losses_and_order():
    rng = np.random.default_rng(3)
    loss = {
        "big": 1.0 + 0.05 * rng.standard_normal(30),
        "small": 0.8 + 0.05 * rng.standard_normal(30),
    }
    res = compare_models(loss, n_train=27, n_test=3, greater_is_better=False)
    assert res.greater_is_better is False
    assert res.mean_scores["small"] < res.mean_scores["big"]  # losses stay losses
    row = res.table.iloc[0]
    assert (row.model_a, row.model_b) == ("small", "big")  # best (smallest loss) first
    assert row.t > 0
    assert row.mean_difference > 0
    assert row.prob_a_better > 0.9
    given = compare_models(loss, n_train=27, n_test=3, greater_is_better=False, order="given").table
    assert given.iloc[0].model_a == "big"
    assert given.iloc[0].t == pytest.approx(-row.t)
    with pytest.raises(ValueError, match="same splits"):
        compare_models({"a": [1.0, 2.0, 3.0], "b": [1.0, 2.0]}, n_train=2, n_test=1)
    with pytest.raises(ValueError, match="at least 2 models"):
        compare_models({"a": [1.0, 2.0, 3.0]}, n_train=2, n_test=1)
    with pytest.raises(ValueError, match=r"n_train.*test_train_ratio"):
        compare_models(loss)
    with pytest.raises(ValueError, match="correction"):
        compare_models(loss, n_train=27, n_test=3, correction="fdr")


def test_compare_models_lists_and_tensors():
    torch = pytest.importorskip("torch")
    rows = [[0.80, 0.82, 0.79, 0.85], [0.78, 0.80, 0.80, 0.82], [0.70, 0.71, 0.69, 0.72]]
    ref = compare_models(np.array(rows), n_train=30, n_test=10).table
    for table in (rows, torch.tensor(rows, dtype=torch.float64)):
        out = compare_models(table, n_train=30, n_test=10).table
        assert list(out["model_a"]) == list(ref["model_a"])
        np.testing.assert_array_equal(out["t"], ref["t"])
    assert set(ref["model_a"]) | set(ref["model_b"]) == {"model_0", "model_1", "model_2"}
