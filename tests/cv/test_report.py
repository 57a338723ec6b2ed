"""compare_models_report: one call from scores or a search to omnibus, post-hoc, CD, Bayes, text."""

from __future__ import annotations

import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from modelcompare import (
    ModelComparisonReport,
    bayesian_signed_rank,
    compare_models,
    compare_models_report,
    friedman_test,
    nemenyi_test,
    plot_critical_difference,
    plot_pair_probabilities,
)
from modelcompare.cv import _multi


@pytest.fixture
def table():
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        np.array([0.86, 0.85, 0.78, 0.86]) + 0.02 * rng.standard_normal((12, 4)),
        columns=["forest", "boosting", "tree", "svm"],
    )


def test_datasets_report_matches_its_parts(table):
    rep = compare_models_report(table, seed=0)
    assert isinstance(rep, ModelComparisonReport)
    fr = friedman_test(table)
    ne = nemenyi_test(table)
    assert rep.pvalue == fr.pvalue
    assert rep.omnibus.statistic == fr.statistic
    assert rep.models == list(fr.average_ranks)
    assert rep.average_ranks == pytest.approx(fr.average_ranks)
    row = rep.table.set_index(["model_a", "model_b"]).loc[("svm", "tree")]
    i, j = ne.names.index("svm"), ne.names.index("tree")
    assert row["p"] == ne.pvalues[i, j]
    assert bool(row["significant"])
    # the Bayesian column is the signed-rank test on the pair's columns
    children = np.random.default_rng(0).spawn(6)
    pairs = [(a, b) for k, a in enumerate(rep.models) for b in rep.models[k + 1 :]]
    k = pairs.index(("svm", "tree"))
    sr = bayesian_signed_rank(table["svm"], table["tree"], seed=children[k])
    assert row["prob_a_better"] == sr.prob_a_better
    assert "Friedman's test rejects" in rep.summary
    assert "svm > tree" in rep.summary
    assert rep.summary in rep.to_text()
    assert rep.to_frame().shape == (6, 9)


def test_no_pair_is_significant_when_friedman_does_not_reject():
    rng = np.random.default_rng(1)
    tab = pd.DataFrame(0.8 + 0.02 * rng.standard_normal((6, 3)), columns=["a", "b", "c"])
    rep = compare_models_report(tab, seed=0)
    assert rep.pvalue > 0.05
    assert not rep.table["significant"].any()
    assert "does not reject" in rep.summary
    assert "No pair is declared different" in rep.summary


def test_wilcoxon_posthoc_uses_the_module_function(table):
    rep = compare_models_report(table, posthoc="wilcoxon", seed=0)
    fn = getattr(_multi, "wilcoxon_holm_test", None) or _multi.wilcoxon_holm
    ref = fn(table)
    i, j = ref.names.index("svm"), ref.names.index("tree")
    row = rep.table.set_index(["model_a", "model_b"]).loc[("svm", "tree")]
    assert row["p"] == ref.pvalues_adjusted[i, j]
    assert "Holm" in rep.summary


def test_losses_are_negated(table):
    rep = compare_models_report(1 - table, greater_is_better=False, seed=0)
    assert rep.models == compare_models_report(table, seed=0).models


def test_per_split_input_and_hierarchical_view():
    rng = np.random.default_rng(2)
    base = np.array([[0.86], [0.80], [0.70]])
    cube = {
        f"d{i}": pd.DataFrame(base + 0.02 * rng.standard_normal((3, 10)), index=["a", "b", "c"])
        for i in range(5)
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Friedman's degenerate-F note when ranks always agree
        rep = compare_models_report(cube, bayesian="hierarchical", n_folds=10, seed=0)
    assert rep.n_datasets == 5
    assert rep.n_splits == 10
    assert rep.bayesian == "hierarchical"
    row = rep.table.set_index(["model_a", "model_b"]).loc[("a", "c")]
    assert row["reading"] == "a better"
    with pytest.raises(ValueError, match="per-split"):
        compare_models_report(pd.DataFrame(base.T.repeat(4, 0)), bayesian="hierarchical")


def test_splits_report_is_compare_models_without_friedman():
    rng = np.random.default_rng(3)
    scores = {
        "a": 0.90 + 0.02 * rng.standard_normal(50),
        "b": 0.80 + 0.02 * rng.standard_normal(50),
        "c": 0.90 + 0.02 * rng.standard_normal(50),
    }
    rep = compare_models_report(scores, across="splits", n_train=90, n_test=10)
    ref = compare_models(scores, n_train=90, n_test=10)
    assert rep.omnibus is None
    assert rep.posthoc is None
    assert rep.pvalue == ref.pvalue
    assert np.array_equal(rep.table["p"].to_numpy(), ref.table["p_adjusted"].to_numpy())
    assert "not independent blocks" in rep.summary
    ax = rep.plot()
    assert ax.get_xlabel() == "posterior probability"
    plt.close("all")


def test_search_is_named_by_parameters_and_reported_across_splits():
    from sklearn.datasets import make_moons
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC

    X, y = make_moons(n_samples=80, noise=0.35, random_state=1)
    grid = GridSearchCV(
        SVC(), {"C": [1, 10], "kernel": ["linear", "rbf"]}, cv=StratifiedKFold(5)
    ).fit(X, y)
    rep = compare_models_report(grid, X=X, y=y)
    assert rep.across == "splits"
    assert all(", kernel=" in m for m in rep.models)
    old = compare_models_report(grid, X=X, y=y, names="values")
    assert all("_" in m for m in old.models)


def test_bad_arguments(table):
    with pytest.raises(ValueError, match="posthoc"):
        compare_models_report(table, posthoc="tukey")
    with pytest.raises(ValueError, match="across"):
        compare_models_report(table, across="folds")
    with pytest.raises(ValueError, match="bayesian"):
        compare_models_report(table, bayesian="bf")


def test_report_plot_is_the_cd_diagram(table):
    rep = compare_models_report(table, seed=0)
    ax = rep.plot()
    assert "Nemenyi" in ax.get_title()
    plt.close("all")


def test_plot_critical_difference_accepts_a_dataframe(table):
    ax = plot_critical_difference(table)
    ref = plot_critical_difference(nemenyi_test(table))
    assert ax.get_title() == ref.get_title()
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == sorted(t.get_text() for t in ref.texts)
    ax = plot_critical_difference(table.to_numpy(), alpha=0.1)
    assert "α = 0.1" in ax.get_title()
    plt.close("all")
    with pytest.raises(TypeError, match="DataFrame"):
        plot_critical_difference([1, 2, 3])


def test_plot_pair_probabilities_checks_columns():
    with pytest.raises(ValueError, match="missing"):
        plot_pair_probabilities(pd.DataFrame({"model_a": ["a"]}))
