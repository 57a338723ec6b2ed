"""compare_models on the objects people have: searches (grid, randomized, multi-metric), splitters."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    KFold,
    RandomizedSearchCV,
    RepeatedKFold,
)

from modelcompare import NotFittedError, compare_models, corrected_ttest, scores_from_cv_results


@pytest.fixture(scope="module")
def reg_data():
    return make_regression(n_samples=60, n_features=4, noise=5.0, random_state=0)


def test_randomized_search_and_n_samples(reg_data):
    X, y = reg_data
    cv = RepeatedKFold(n_splits=5, n_repeats=3, random_state=0)
    search = RandomizedSearchCV(
        Ridge(),
        {"alpha": [0.01, 1.0, 100.0]},
        n_iter=3,
        cv=cv,
        random_state=0,
        scoring="neg_mean_squared_error",
    ).fit(X, y)
    res = compare_models(search, n_samples=60)  # KFold needs only the row count
    assert res.test_train_ratio == pytest.approx(12 / 48)
    table = res.table
    extracted = scores_from_cv_results(search.cv_results_)
    names, scores = extracted.names, extracted.scores
    assert table.iloc[0].model_a == names[0]  # best first by rank_test_score
    direct = corrected_ttest(scores[0], scores[1], n_train=48, n_test=12)
    assert table.iloc[0].t == pytest.approx(direct.statistic, rel=1e-12)
    assert table.iloc[0].p == pytest.approx(direct.pvalue, rel=1e-12)
    # neg_* scorers are already greater-is-better: the best model has the largest mean
    means = res.mean_scores
    assert list(means.values()) == sorted(means.values(), reverse=True)


def test_multi_metric_search_needs_scoring():
    X, y = make_classification(n_samples=60, random_state=0)
    search = GridSearchCV(
        LogisticRegression(),
        {"C": [0.01, 1.0]},
        cv=KFold(4),
        scoring=["accuracy", "roc_auc"],
        refit="roc_auc",
    ).fit(X, y)
    with pytest.raises(ValueError, match="choose one with `scoring`"):
        compare_models(search, n_train=45, n_test=15)
    with pytest.raises(ValueError, match="'f1' is not in the search results"):
        compare_models(search, n_train=45, n_test=15, scoring="f1")
    auc = compare_models(search, X=X, y=y, scoring="roc_auc").table
    acc = compare_models(search, X=X, y=y, scoring="accuracy").table
    assert auc.iloc[0].t != acc.iloc[0].t
    assert set(auc.model_a) | set(auc.model_b) == {"0.01", "1.0"}


def test_group_splitter_and_mismatched_data(reg_data):
    X, y = reg_data
    groups = np.repeat(np.arange(6), 10)
    search = GridSearchCV(Ridge(), {"alpha": [0.1, 10.0]}, cv=GroupKFold(3)).fit(
        X, y, groups=groups
    )
    with pytest.raises(ValueError, match="groups"):
        compare_models(search, X=X, y=y)  # GroupKFold needs the groups
    res = compare_models(search, X=X, y=y, groups=groups)
    assert res.test_train_ratio == pytest.approx(20 / 40)
    with pytest.raises(ValueError, match="splits"):
        compare_models(search, X=X, y=y, groups=np.repeat(np.arange(2), 30))


def test_unfitted_search_and_explicit_sizes_win(reg_data):
    X, y = reg_data
    search = GridSearchCV(Ridge(), {"alpha": [0.1, 10.0]}, cv=KFold(3))
    with pytest.raises(NotFittedError, match="not fitted"):
        compare_models(search, X=X)
    search.fit(X, y)
    given = compare_models(search, n_train=40, n_test=20, X=X)
    assert given.ratio_source == "given n_train/n_test"
    ratio = compare_models(search, test_train_ratio=0.5)
    assert ratio.ratio_source == "given test_train_ratio"
    assert ratio.table.iloc[0].t == pytest.approx(given.table.iloc[0].t, rel=1e-14)


def test_default_cv_of_a_classifier_search_needs_y():
    X, y = make_classification(n_samples=50, random_state=1)
    search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}).fit(X, y)  # cv=None: 5-fold
    with pytest.raises(ValueError, match="pass `y` too"):
        compare_models(search, X=X)
    res = compare_models(search, X=X, y=y)
    assert res.test_train_ratio == pytest.approx(10 / 40)
