"""The result objects of the CV part: compare_models' collection, scores_from_cv_results' fields."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

from modelcompare import (
    BayesianTTestResult,
    CVScoresResult,
    ModelComparisonResult,
    bayesian_signed_rank,
    bayesian_ttest,
    compare_models,
    scores_from_cv_results,
)
from modelcompare._foundation.results import (
    BayesianComparisonResult,
    CollectionResult,
    CollectionTestResult,
)


@pytest.fixture
def three():
    rng = np.random.default_rng(4)
    scores = {m: mu + 0.02 * rng.standard_normal(20) for m, mu in [("a", 0.9), ("b", 0.89)]}
    scores["c"] = scores["a"] - 0.05 + 0.01 * rng.standard_normal(20)
    return scores


def test_model_comparison_result_fields(three):
    res = compare_models(three, n_train=45, n_test=5, correction="holm", rope=0.02)
    assert isinstance(res, ModelComparisonResult)
    assert isinstance(res, CollectionTestResult)
    assert isinstance(res, CollectionResult)
    table = res.table
    assert isinstance(table, pd.DataFrame)
    assert len(table) == 3
    assert not table.attrs  # the settings are fields, not attrs
    best = int(np.argmin(table["p"]))
    assert res.statistic == table["t"].iloc[best]
    assert (res.model_a, res.model_b) == tuple(table[["model_a", "model_b"]].iloc[best])
    assert res.pvalue == table["p_adjusted"].min()
    assert res.models == ["a", "b", "c"]
    assert res.mean_scores == {m: pytest.approx(float(np.mean(three[m]))) for m in "abc"}
    assert res.test_train_ratio == pytest.approx(5 / 45)
    assert res.ratio_source == "given n_train/n_test"
    assert res.rope == (-0.02, 0.02)
    assert res.alternative == "two-sided"
    assert res.correction == "holm"
    assert res.greater_is_better is True
    assert res.n_splits == 20


@pytest.mark.parametrize("correction", ["holm", "bonferroni", None])
def test_family_wise_pvalue_and_decision(three, correction):
    res = compare_models(three, n_train=45, n_test=5, correction=correction)
    p = res.table["p"].to_numpy()
    # the overall p-value is Holm's smallest adjusted one, min(1, m p_min), whatever
    # `correction` does to the per-pair column: only it keeps the family-wise level
    assert res.pvalue == pytest.approx(min(1.0, 3 * p.min()), rel=1e-15)
    if correction is not None:
        assert res.pvalue == pytest.approx(res.table["p_adjusted"].min(), rel=1e-15)
    else:
        assert res.table["p_adjusted"].to_numpy() == pytest.approx(p, rel=1e-15)
    for alpha in (1e-6, 0.01, 0.05, 0.5):
        assert res.decision(alpha) is bool(res.pvalue <= alpha)
    with pytest.raises(ValueError, match="alpha"):
        res.decision(1.5)


def test_family_wise_size_under_h0():
    # four models with equal expected scores on independent splits: "some pair differs" at 0.1
    rng = np.random.default_rng(11)
    rejections = 0
    n_trials = 300
    for _ in range(n_trials):
        scores = {m: 0.8 + 0.02 * rng.standard_normal(10) for m in "abcd"}
        res = compare_models(scores, test_train_ratio=1e-12, rope=None, correction="holm")
        rejections += res.decision(0.1)
    # Holm is valid under any dependence: at most alpha (binomial slack at 3 sd)
    assert rejections / n_trials <= 0.1 + 3 * np.sqrt(0.1 * 0.9 / n_trials)


def test_model_comparison_result_prints_the_table(three):
    res = compare_models(three, n_train=45, n_test=5)
    text = str(res)
    first, *rest = text.splitlines()
    assert first == repr(res)
    assert repr(res).startswith("ModelComparisonResult(statistic=")
    assert "\n" not in repr(res)
    assert "\n".join(rest) == res.table.to_string(index=False)
    assert "p_adjusted" in text
    assert "prob_a_better" in text


def test_model_comparison_result_to_dict_and_frozen(three):
    res = compare_models(three, n_train=45, n_test=5)
    d = res.to_dict()
    json.dumps(d, allow_nan=False)  # JSON-safe: builtins only, all finite here
    assert d["pvalue"] == res.pvalue
    assert d["rope"] == [-0.01, 0.01]
    assert len(d["table"]) == 3
    assert set(d["table"][0]) == set(res.table.columns)
    assert type(d["table"][0]["degenerate"]) is bool
    assert type(d["table"][0]["df"]) is int
    assert res.to_dict(include_arrays=False)["model_a"] == res.model_a
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.pvalue = 0.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.table = None  # type: ignore[misc]


def test_scores_from_cv_results_fields():
    cv_results = {
        "params": [{"C": 1}, {"C": 10}, {"C": 100}],
        "split0_test_score": [0.8, 0.9, 0.85],
        "split1_test_score": [0.7, 0.85, 0.8],
        "rank_test_score": [3, 1, 2],
    }
    res = scores_from_cv_results(cv_results)
    assert isinstance(res, CVScoresResult)
    assert res.names == ["10", "100", "1"]
    np.testing.assert_array_equal(res.scores, [[0.9, 0.85], [0.85, 0.8], [0.8, 0.7]])
    assert res.scoring == "score"
    assert (res.n_candidates, res.n_splits) == (3, 2)
    assert repr(res) == "CVScoresResult(scoring='score', n_candidates=3, n_splits=2)"
    assert json.loads(json.dumps(res.to_dict())) == {
        "names": ["10", "100", "1"],
        "scores": [[0.9, 0.85], [0.85, 0.8], [0.8, 0.7]],
        "scoring": "score",
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.names = []  # type: ignore[misc]
    multi = {
        "params": [{"C": 1}, {"C": 10}],
        "split0_test_auc": [0.8, 0.9],
        "split0_test_acc": [0.7, 0.6],
        "rank_test_acc": [1, 2],
    }
    assert scores_from_cv_results(multi, scoring="acc").scoring == "acc"
    assert scores_from_cv_results(multi, scoring="acc").names == ["1", "10"]


def test_bayesian_comparison_kind_lives_in_the_foundation():
    rng = np.random.default_rng(0)
    a = 0.8 + 0.03 * rng.standard_normal(15)
    post = bayesian_ttest(a, a - 0.03 + 0.001 * rng.standard_normal(15), n_train=9, n_test=1)
    signed = bayesian_signed_rank(a, a - 0.03, n_draws=500, seed=0)
    for res in (post, signed):
        assert isinstance(res, BayesianComparisonResult)
        assert res.decision(threshold=0.9) == "a_better"
    assert isinstance(post, BayesianTTestResult)
    assert BayesianComparisonResult.__module__ == "modelcompare._foundation.results"
