"""McNemar, the 5×2cv t-test and the combined 5×2cv F-test: known values, mlxtend parity, edges."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import load_iris, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from modelcompare import (
    DegenerateDataWarning,
    combined_ftest_5x2cv,
    cross_validate_5x2,
    mcnemar_table,
    mcnemar_test,
    paired_ttest_5x2cv,
)

# A hand-computed table of differences (in units of 0.01): s² = 2, 0, 2, 0, 0 (sum 4e-4),
# p11 = 0.02, so t = 0.02 / sqrt(4e-4 / 5) = sqrt(5); Σp² = 14e-4, so f = 14 / 8 = 1.75.
DIFF = 0.01 * np.array([[2, 0], [1, 1], [0, 2], [1, 1], [1, 1]])


# -- McNemar ------------------------------------------------------------------------------------


def test_mcnemar_known_values_from_mlxtend_docs():
    # mlxtend's user guide: [[9959, 11], [1, 29]] gives chi² = 6.75, p = 0.009374768...
    res = mcnemar_test([[9959, 11], [1, 29]])
    assert res.statistic == pytest.approx(6.75, abs=1e-12)
    assert res.pvalue == pytest.approx(0.009374768459434897, rel=1e-9)
    assert (res.n01, res.n10) == (11, 1)
    # uncorrected: (11 - 1)² / 12
    assert mcnemar_test([[9959, 11], [1, 29]], continuity_correction=False).statistic == (
        pytest.approx(100 / 12)
    )
    # exact: 2 · P(Binom(12, 1/2) <= 1) = 2 · 13 / 4096
    assert mcnemar_test([[9959, 11], [1, 29]], exact=True).pvalue == pytest.approx(26 / 4096)


def test_mcnemar_exact_binomial_sum_form():
    b, c = 25, 15
    direct = 2 * sum(math.comb(b + c, i) * 0.5 ** (b + c) for i in range(max(b, c), b + c + 1))
    assert mcnemar_test([[9945, b], [c, 15]], exact=True).pvalue == pytest.approx(direct)


def test_mcnemar_table_layout_and_predictions_route():
    y = np.array([0, 1, 1, 0, 1, 1, 0, 0])
    a = np.array([0, 1, 0, 0, 1, 1, 1, 0])
    b = np.array([0, 0, 1, 1, 1, 0, 1, 0])
    tb = mcnemar_table(y, a, b)
    ok_a, ok_b = a == y, b == y
    assert tb.tolist() == [
        [np.sum(ok_a & ok_b), np.sum(ok_a & ~ok_b)],
        [np.sum(~ok_a & ok_b), np.sum(~ok_a & ~ok_b)],
    ]
    assert tb.sum() == len(y)
    r1 = mcnemar_test(tb, exact=True)
    r2 = mcnemar_test(y_true=y, y_pred_a=a, y_pred_b=b, exact=True)
    assert (r1.statistic, r1.pvalue) == (r2.statistic, r2.pvalue)


def test_mcnemar_swapping_models_keeps_p():
    r1 = mcnemar_test([[10, 7], [2, 3]])
    r2 = mcnemar_test([[10, 2], [7, 3]])
    assert r1.pvalue == r2.pvalue
    assert (r1.n01, r1.n10) == (r2.n10, r2.n01)


def test_mcnemar_equal_discordant_counts_give_zero_not_mlxtends_value():
    # The deliberate difference: max(|b - c| - 1, 0)² / (b + c) = 0, where mlxtend gives 1/(b + c).
    res = mcnemar_test([[5, 4], [4, 5]])
    assert res.statistic == 0.0
    assert res.pvalue == 1.0


def test_mcnemar_no_discordant_pairs_is_degenerate():
    with pytest.warns(DegenerateDataWarning, match="no discordant"):
        res = mcnemar_test([[5, 0], [0, 5]])
    assert res.degenerate
    assert res.statistic == 0.0
    assert res.pvalue == 1.0


@pytest.mark.parametrize(
    ("table", "match"),
    [([[1, 2, 3]], "2 × 2"), ([[1, -1], [2, 3]], "non-negative"), ([[1.5, 1], [2, 3]], "whole")],
)
def test_mcnemar_bad_table(table, match):
    with pytest.raises(ValueError, match=match):
        mcnemar_test(table)


def test_mcnemar_needs_one_input_form():
    with pytest.raises(ValueError, match="pass `table`"):
        mcnemar_test(y_true=[0, 1])
    with pytest.raises(ValueError, match="either"):
        mcnemar_test([[1, 2], [3, 4]], y_true=[0], y_pred_a=[0], y_pred_b=[0])
    with pytest.raises(ValueError, match="same length"):
        mcnemar_table([0, 1], [0], [1, 1])
    with pytest.raises(TypeError, match="exact"):
        mcnemar_test([[1, 2], [3, 4]], exact="yes")


def test_mcnemar_does_not_modify_input():
    tb = np.array([[3, 4], [5, 6]])
    mcnemar_test(tb)
    assert tb.tolist() == [[3, 4], [5, 6]]


def test_mcnemar_size_under_h0_is_at_most_alpha():
    # Under H0 the discordant pairs split 50:50; the exact test's size never exceeds alpha.
    rng = np.random.default_rng(0)
    n = rng.binomial(40, 0.5, size=2000)
    ps = np.array([mcnemar_test([[50, k], [40 - k, 50]], exact=True).pvalue for k in n])
    assert np.mean(ps <= 0.05) <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 2000)


# -- 5×2cv tests --------------------------------------------------------------------------------


def test_5x2cv_t_known_value():
    res = paired_ttest_5x2cv(0.8 + DIFF, np.full((5, 2), 0.8))
    assert res.statistic == pytest.approx(math.sqrt(5), rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(math.sqrt(5), 5), rel=1e-12)
    assert res.df == 5
    assert res.variances == pytest.approx([2e-4, 0, 2e-4, 0, 0])


def test_5x2cv_f_known_value():
    res = combined_ftest_5x2cv(0.8 + DIFF, np.full((5, 2), 0.8))
    assert res.statistic == pytest.approx(1.75, rel=1e-12)
    assert res.pvalue == pytest.approx(stats.f.sf(1.75, 10, 5), rel=1e-12)
    assert (res.dfn, res.dfd) == (10, 5)


def test_5x2cv_t_alternatives_and_swap():
    a, b = 0.8 + DIFF, np.full((5, 2), 0.8)
    two = paired_ttest_5x2cv(a, b)
    g = paired_ttest_5x2cv(a, b, alternative="greater")
    le = paired_ttest_5x2cv(a, b, alternative="less")
    assert g.pvalue + le.pvalue == pytest.approx(1.0)
    assert two.pvalue == pytest.approx(2 * min(g.pvalue, le.pvalue))
    swapped = paired_ttest_5x2cv(b, a)
    assert swapped.statistic == pytest.approx(-two.statistic)
    assert combined_ftest_5x2cv(b, a).statistic == pytest.approx(
        combined_ftest_5x2cv(a, b).statistic
    )


def test_5x2cv_flat_input_in_replication_fold_order():
    a, b = 0.8 + DIFF, np.full((5, 2), 0.8)
    assert paired_ttest_5x2cv(a.ravel(), b.ravel()).statistic == paired_ttest_5x2cv(a, b).statistic


def test_5x2cv_degenerate_cases_never_nan():
    b = np.full((5, 2), 0.8)
    with pytest.warns(DegenerateDataWarning):
        zero = paired_ttest_5x2cv(b, b)
    assert (zero.statistic, zero.pvalue, zero.degenerate) == (0.0, 1.0, True)
    with pytest.warns(DegenerateDataWarning):
        const = paired_ttest_5x2cv(b + 0.01, b)
    assert const.statistic == math.inf
    assert const.pvalue == 0.0
    with pytest.warns(DegenerateDataWarning):
        f = combined_ftest_5x2cv(b + 0.01, b)
    assert f.statistic == math.inf
    assert f.pvalue == 0.0


@pytest.mark.parametrize("shape", [(4, 2), (2, 5), (10, 1), (11,)])
def test_5x2cv_refuses_other_shapes(shape):
    with pytest.raises(ValueError, match="5 × 2"):
        paired_ttest_5x2cv(np.zeros(shape), np.zeros(shape))


def test_5x2cv_size_on_exchangeable_scores():
    # With i.i.d. normal differences (the model's H0), both tests keep their level.
    rng = np.random.default_rng(1)
    draws = rng.normal(size=(4000, 5, 2))
    pt = np.array([paired_ttest_5x2cv(d, np.zeros((5, 2))).pvalue for d in draws])
    pf = np.array([combined_ftest_5x2cv(d, np.zeros((5, 2))).pvalue for d in draws])
    band = 3 * math.sqrt(0.05 * 0.95 / 4000)
    # p11 is not independent of s1² (both hold p11 − p12), so t is only approximately t_5
    # (Dietterich 1998, §3.5) and f only approximately F(10, 5) (Alpaydın 1999): both are
    # conservative here (about 0.03 and 0.02 at alpha = 0.05), never liberal.
    assert 0.01 < np.mean(pt <= 0.05) <= 0.05 + band
    assert 0.005 < np.mean(pf <= 0.05) <= 0.05 + band


# -- the 5×2 cross-validation and mlxtend parity --------------------------------------------------


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def test_cross_validate_5x2_seeded_and_parallel(iris):
    X, y = iris
    lr, dt = LogisticRegression(max_iter=500), DecisionTreeClassifier(random_state=0)
    r1 = cross_validate_5x2(lr, dt, X, y, seed=3)
    r2 = cross_validate_5x2(lr, dt, X, y, seed=3, n_jobs=2)
    assert np.array_equal(r1.scores_a, r2.scores_a)
    assert np.array_equal(r1.scores_b, r2.scores_b)
    assert r1.seed_used == 3
    assert r1.scores_a.shape == (5, 2)
    strat = cross_validate_5x2(lr, dt, X, y, seed=3, splits="stratified")
    assert strat.splits == "stratified"
    assert r1.ttest().statistic == paired_ttest_5x2cv(r1.scores_a, r1.scores_b).statistic


def test_cross_validate_5x2_needs_int_seed_for_mlxtend(iris):
    X, y = iris
    with pytest.raises(ValueError, match="int `seed`"):
        cross_validate_5x2(LogisticRegression(), LogisticRegression(), X, y, splits="mlxtend")
    with pytest.raises(ValueError, match="splits"):
        cross_validate_5x2(LogisticRegression(), LogisticRegression(), X, y, splits="kfold")


@pytest.mark.parametrize("seed", [1, 7])
def test_equal_to_mlxtend_5x2cv(seed):
    evaluate = pytest.importorskip("mlxtend.evaluate")
    X, y = make_classification(n_samples=120, n_features=6, random_state=seed)
    lr, dt = LogisticRegression(max_iter=500), DecisionTreeClassifier(random_state=0)
    cv = cross_validate_5x2(lr, dt, X, y, seed=seed, splits="mlxtend")
    t, p = evaluate.paired_ttest_5x2cv(lr, dt, X, y, random_seed=seed)
    f, pf = evaluate.combined_ftest_5x2cv(lr, dt, X, y, random_seed=seed)
    assert cv.ttest().statistic == pytest.approx(t, rel=1e-12)
    assert cv.ttest().pvalue == pytest.approx(p, rel=1e-12)
    assert cv.ftest().statistic == pytest.approx(f, rel=1e-12)
    assert cv.ftest().pvalue == pytest.approx(pf, rel=1e-12)


def test_equal_to_mlxtend_mcnemar():
    evaluate = pytest.importorskip("mlxtend.evaluate")
    rng = np.random.default_rng(5)
    for _ in range(30):
        y = rng.integers(0, 3, 80)
        a = np.where(rng.random(80) < 0.7, y, rng.integers(0, 3, 80))
        b = np.where(rng.random(80) < 0.6, y, rng.integers(0, 3, 80))
        tb = mcnemar_table(y, a, b)
        assert np.array_equal(tb, evaluate.mcnemar_table(y, a, b))
        if tb[0, 1] == tb[1, 0]:
            continue  # the documented difference
        for exact in (False, True):
            for corrected in (False, True):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    chi2, p = evaluate.mcnemar(tb, exact=exact, corrected=corrected)
                res = mcnemar_test(tb, exact=exact, continuity_correction=corrected)
                assert res.pvalue == pytest.approx(p, rel=1e-12)
                if not exact:
                    assert res.statistic == pytest.approx(chi2, rel=1e-12)
