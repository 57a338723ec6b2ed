"""Scale invariance and careless inputs: scaled scores, empty splitters, non-bool flags."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from modelcompare import (
    bayesian_ttest,
    compare_models,
    corrected_ttest,
    friedman_test,
    nemenyi_test,
    split_sizes,
    wilcoxon_holm_test,
)

A = np.array([0.80, 0.82, 0.79, 0.85, 0.81, 0.83, 0.80, 0.84, 0.82, 0.81])
B = np.array([0.78, 0.80, 0.80, 0.82, 0.79, 0.80, 0.79, 0.83, 0.80, 0.80])


@pytest.mark.parametrize("factor", [1e300, 1e-300, 2.0**-1000, 1e150])
def test_corrected_ttest_is_invariant_to_the_scale_of_the_scores(factor):
    ref = corrected_ttest(A, B, n_train=90, n_test=10)
    res = corrected_ttest(A * factor, B * factor, n_train=90, n_test=10)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    assert res.statistic_uncorrected == pytest.approx(ref.statistic_uncorrected, rel=1e-12)
    assert res.mean_difference == pytest.approx(ref.mean_difference * factor, rel=1e-12)
    assert res.standard_error == pytest.approx(ref.standard_error * factor, rel=1e-12)
    assert not res.degenerate
    low, high = res.confidence_interval(0.95)
    ref_low, ref_high = ref.confidence_interval(0.95)
    assert (low / factor, high / factor) == pytest.approx((ref_low, ref_high), rel=1e-10)


@pytest.mark.parametrize("factor", [1e300, 1e-300])
def test_bayesian_and_pairwise_tables_are_scale_invariant(factor):
    ref = bayesian_ttest(A, B, n_train=90, n_test=10, rope=None)
    res = bayesian_ttest(A * factor, B * factor, n_train=90, n_test=10, rope=None)
    assert res.prob_a_better == pytest.approx(ref.prob_a_better, rel=1e-10)
    table = compare_models(
        {"a": A * factor, "b": B * factor}, n_train=90, n_test=10, rope=None
    ).table
    plain = compare_models({"a": A, "b": B}, n_train=90, n_test=10, rope=None).table
    assert table["t"].iloc[0] == pytest.approx(plain["t"].iloc[0], rel=1e-12)
    assert table["p"].iloc[0] == pytest.approx(plain["p"].iloc[0], rel=1e-10)


def test_ordinary_scores_give_the_unscaled_formula_exactly():
    d = A - B
    se = np.sqrt(np.var(d, ddof=1) * (1 / 10 + 10 / 90))
    res = corrected_ttest(A, B, n_train=90, n_test=10)
    assert res.mean_difference == float(np.mean(d))
    assert res.standard_error == float(se)
    assert res.statistic == float(np.mean(d)) / float(se)


def test_overflowing_differences_are_refused_clearly():
    big = np.full(5, 1.5e308)
    with pytest.raises(ValueError, match="overflows"):
        corrected_ttest(big * np.linspace(0.9, 1.0, 5), -big, n_train=9, n_test=1)


@pytest.mark.parametrize(
    ("cv", "exc", "match"),
    [
        ([], ValueError, "no splits"),
        (iter([]), ValueError, "no splits"),
        ([([0, 1, 2], [])], ValueError, "empty test set"),
        ([([], [0, 1])], ValueError, "empty training set"),
        (True, TypeError, "`cv`"),
        (0, ValueError, "`cv`"),
        ("five", ValueError, "`cv`"),
    ],
)
def test_split_sizes_refuses_empty_or_bad_cv(cv, exc, match):
    with pytest.raises(exc, match=match):
        split_sizes(cv, n_samples=10)


def test_split_sizes_classifier_must_be_a_bool():
    with pytest.raises(TypeError, match="is_classifier"):
        split_sizes(3, n_samples=10, is_classifier="yes")


@pytest.mark.parametrize("flag", ["x", "False", 0, 1, None])
def test_greater_is_better_must_be_a_real_bool(flag):
    table = np.c_[A, B, A - 0.02]
    with pytest.raises(TypeError, match="greater_is_better"):
        compare_models({"a": A, "b": B}, n_train=9, n_test=1, greater_is_better=flag)
    for test in (friedman_test, nemenyi_test, wilcoxon_holm_test):
        with pytest.raises(TypeError, match="greater_is_better"):
            test(table, greater_is_better=flag)


def test_numpy_bools_are_accepted_as_flags():
    res = compare_models({"a": A, "b": B}, n_train=9, n_test=1, greater_is_better=np.True_)
    assert res.greater_is_better is True


def test_mixed_type_names_and_labels_are_strings():
    frame = pd.DataFrame(np.c_[A, B, A - 0.02], columns=["a", 1, 2.5])
    res = wilcoxon_holm_test(frame)
    assert res.names == ("a", "1", "2.5")
    assert all(isinstance(name, str) for clique in res.cliques(alpha=0.05) for name in clique)
    table = compare_models({"a": A, 1: B}, n_train=9, n_test=1).table
    assert set(table["model_a"]) | set(table["model_b"]) == {"a", "1"}
    with pytest.raises(ValueError, match="unique"):
        friedman_test(np.c_[A, B, A], names=["1", 1, 2])


def test_cross_validate_results_with_mixed_keys_name_what_is_missing():
    results = {"a": {"test_x": A, 1: 2.0, "fit_time": A}, "b": {"test_x": B}}
    with pytest.raises(ValueError, match="has no 'test_z'"):
        compare_models(results, n_train=9, n_test=1, scoring="z")


@pytest.mark.parametrize("alpha", [float("nan"), 0.0, 1.0, -0.1])
def test_alpha_nan_and_out_of_range_are_refused(alpha):
    res = corrected_ttest(A, B, n_train=90, n_test=10)
    with pytest.raises(ValueError, match="alpha"):
        res.decision(alpha)
    with pytest.raises(ValueError, match="alpha"):
        nemenyi_test(np.c_[A, B, A - 0.02], alpha=alpha)
    with pytest.raises(ValueError, match="alpha"):
        wilcoxon_holm_test(np.c_[A, B, A - 0.02]).significant(alpha)


def _fitted_search(cv):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    groups = np.repeat(np.arange(6), 10)
    search = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, cv=cv)
    return search.fit(X, y, groups=groups if not isinstance(cv, int) else None), X, y


def test_split_sizes_errors_name_the_data_that_could_not_be_split():
    from sklearn.model_selection import KFold

    search, X, y = _fitted_search(5)
    with pytest.raises(ValueError, match=r"could not split.*pass `y` \(and `groups`\) with `X`"):
        compare_models(search, X=X[:-3], y=y)
    with pytest.raises(ValueError, match=r"`y` must hold the class labels.*got 1.5"):
        compare_models(search, X=X, y=1.5)
    with pytest.raises(ValueError, match=r"could not split.*with `n_samples` as used"):
        split_sizes(KFold(5), n_samples=3)


def test_scoring_must_be_a_metric_name_present_in_the_results():
    cv_results = {
        "params": [{"C": 1}, {"C": 10}],
        "split0_test_acc": [0.8, 0.9],
        "split1_test_acc": [0.7, 0.85],
    }
    for bad in (["acc"], 3, b"acc"):
        with pytest.raises(TypeError, match="`scoring` must be None or the name of a metric"):
            compare_models(cv_results, n_train=9, n_test=1, scoring=bad)
    results = {m: {"test_acc": A, "test_f1": B} for m in "ab"}
    with pytest.raises(ValueError, match=r"`scoring` 'z': `results\['a'\]` has no 'test_z'"):
        compare_models(results, n_train=9, n_test=1, scoring="z")
