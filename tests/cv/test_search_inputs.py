"""Scikit-learn objects as they come: candidate names from parameters, X refused without a search."""

from __future__ import annotations

import numpy as np
import pytest

from modelcompare import compare_models, scores_from_cv_results

CV_RESULTS = {
    "params": [{"C": 1, "kernel": "linear"}, {"C": 10, "kernel": "rbf"}],
    "split0_test_score": [0.8, 0.9],
    "split1_test_score": [0.7, 0.85],
    "split2_test_score": [0.75, 0.8],
    "rank_test_score": [2, 1],
}


def test_names_from_parameters_and_the_old_values_names():
    assert scores_from_cv_results(CV_RESULTS, names="params").names == [
        "C=10, kernel=rbf",
        "C=1, kernel=linear",
    ]
    # the default keeps scikit-learn's example's names
    assert scores_from_cv_results(CV_RESULTS).names == ["10_rbf", "1_linear"]
    res = compare_models(CV_RESULTS, names="params", n_train=2, n_test=1)
    assert res.models == ["C=10, kernel=rbf", "C=1, kernel=linear"]
    assert compare_models(CV_RESULTS, n_train=2, n_test=1).models == ["10_rbf", "1_linear"]


def test_unknown_name_style_is_refused():
    with pytest.raises(ValueError, match="names"):
        scores_from_cv_results(CV_RESULTS, names="keys")


@pytest.mark.parametrize("kwargs", [{"X": np.zeros((3, 2))}, {"n_samples": 3}])
def test_x_with_a_cv_results_dict_is_refused_not_ignored(kwargs):
    with pytest.raises(ValueError, match="fitted search object"):
        compare_models(CV_RESULTS, **kwargs)
    with pytest.raises(ValueError, match="cv_results_ dict"):
        compare_models(CV_RESULTS, n_train=2, n_test=1, **kwargs)


def test_halving_search_keeps_the_last_iteration():
    from sklearn.datasets import make_classification
    from sklearn.experimental import enable_halving_search_cv  # noqa: F401
    from sklearn.model_selection import HalvingGridSearchCV, KFold
    from sklearn.tree import DecisionTreeClassifier

    X, y = make_classification(n_samples=400, random_state=0)
    search = HalvingGridSearchCV(
        DecisionTreeClassifier(random_state=0),
        {"max_depth": [1, 2, 3, 4, 5, 6]},
        cv=KFold(4),
        factor=2,
        random_state=0,
    ).fit(X, y)
    last = np.asarray(search.cv_results_["iter"]) == max(search.cv_results_["iter"])
    res = compare_models(search, X=X, y=y, names="params")
    assert len(res.models) == int(last.sum())
    # KFold(4) on the last iteration's n_resources_[-1] rows: n_test/n_train = 1/3
    assert res.test_train_ratio == pytest.approx(1 / 3, rel=0.02)
    assert compare_models(search, names="params", n_samples=400).test_train_ratio == (
        pytest.approx(1 / 3, rel=0.02)
    )
