"""scikit-learn's "statistical comparison of models using grid search" example, rebuilt and matched.

The example's setup is refitted here (400 SVC fits on 90 points, about 1 s). Every
number the example prints is matched at its printed digits, and to 1e-12 relative against a float64
recomputation with the example's own formulas (written out below, independently of the package).
"""

from __future__ import annotations

import json
from itertools import combinations

import baycomp
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy.stats import t as student_t
from sklearn.datasets import make_moons
from sklearn.model_selection import GridSearchCV, RepeatedStratifiedKFold, cross_validate
from sklearn.svm import SVC

from modelcompare import (
    bayesian_ttest,
    compare_models,
    corrected_ttest,
    scores_from_cv_results,
    split_sizes,
)
from modelcompare.cli import app
from modelcompare.datasets import data_path

REL = 1e-12
EXAMPLE_CSV = str(data_path("cv_scores.csv"))
PUBLISHED_TABLE = [
    # model_1, model_2, t_stat, p_val, worse_prob, better_prob, rope_prob (as displayed)
    ("rbf", "linear", 0.750, 1.000, 0.068, 0.500, 0.432),
    ("rbf", "3_poly", 1.657, 0.302, 0.018, 0.882, 0.100),
    ("rbf", "2_poly", 4.565, 0.000, 0.000, 1.000, 0.000),
    ("linear", "3_poly", 1.111, 0.807, 0.063, 0.750, 0.187),
    ("linear", "2_poly", 4.276, 0.000, 0.000, 1.000, 0.000),
    ("3_poly", "2_poly", 3.851, 0.001, 0.000, 1.000, 0.000),
]


@pytest.fixture(scope="module")
def example():
    X, y = make_moons(noise=0.352, random_state=1, n_samples=100)
    param_grid = [
        {"kernel": ["linear"]},
        {"kernel": ["poly"], "degree": [2, 3]},
        {"kernel": ["rbf"]},
    ]
    cv = RepeatedStratifiedKFold(n_splits=10, n_repeats=10, random_state=0)
    search = GridSearchCV(SVC(random_state=0), param_grid=param_grid, scoring="roc_auc", cv=cv)
    search.fit(X, y)
    # The example's own table: rows sorted by rank, named by joined parameter values.
    results_df = pd.DataFrame(search.cv_results_).sort_values(by=["rank_test_score"])
    results_df = results_df.set_index(
        results_df["params"].apply(lambda x: "_".join(str(val) for val in x.values()))
    )
    model_scores = results_df.filter(like="split", axis=1)
    n_train = len(next(iter(cv.split(X, y)))[0])
    n_test = len(next(iter(cv.split(X, y)))[1])
    return {
        "X": X,
        "y": y,
        "cv": cv,
        "search": search,
        "model_scores": model_scores,
        "n_train": n_train,
        "n_test": n_test,
    }


# --- the example's formulas, verbatim in substance (float64) ------------------------------------
def _corrected_std(differences, n_train, n_test):
    kr = len(differences)
    corrected_var = np.var(differences, ddof=1) * (1 / kr + n_test / n_train)
    return np.sqrt(corrected_var)


def _compute_corrected_ttest(differences, df, n_train, n_test):
    mean = np.mean(differences)
    std = _corrected_std(differences, n_train, n_test)
    t_stat = mean / std
    p_val = student_t.sf(np.abs(t_stat), df)  # the example's "right-tailed" p
    return t_stat, p_val


def _reference_pairwise(model_scores, n_train, n_test):
    df = model_scores.shape[1] - 1
    n_comparisons = 6.0
    rows = []
    for i, k in combinations(range(len(model_scores)), 2):
        differences = model_scores.iloc[i].values - model_scores.iloc[k].values
        t_stat, p_val = _compute_corrected_ttest(differences, df, n_train, n_test)
        p_val = min(1.0, p_val * n_comparisons)
        post = student_t(
            df, loc=np.mean(differences), scale=_corrected_std(differences, n_train, n_test)
        )
        worse = post.cdf(-0.01)
        better = 1 - post.cdf(0.01)
        rope = post.cdf(0.01) - post.cdf(-0.01)
        rows.append(
            (model_scores.index[i], model_scores.index[k], t_stat, p_val, worse, better, rope)
        )
    return rows


def _close(ours, ref, *, rel=REL, abs_=0.0):
    assert ours == pytest.approx(ref, rel=rel, abs=abs_), (ours, ref)


# --- setup -------------------------------------------------------------------------------------
def test_setup_ranking_and_sizes(example):
    ms = example["model_scores"]
    assert list(ms.index) == ["rbf", "linear", "3_poly", "2_poly"]
    assert ms.shape == (4, 100)
    means = ms.mean(axis=1).round(3).tolist()
    stds = ms.std(axis=1, ddof=0).round(3).tolist()  # scikit-learn's std_test_score is ddof = 0
    assert means == [0.940, 0.930, 0.904, 0.685]
    assert stds == [0.079, 0.078, 0.099, 0.169]
    extracted = scores_from_cv_results(example["search"].cv_results_)
    assert extracted.names == list(ms.index)
    np.testing.assert_array_equal(extracted.scores, ms.to_numpy())
    assert (example["n_train"], example["n_test"]) == (90, 10)
    sizes = split_sizes(example["cv"], example["X"], example["y"])
    assert (sizes.first_n_train, sizes.first_n_test, sizes.n_splits) == (90, 10, 100)
    assert sizes.test_train_ratio == pytest.approx(10 / 90, rel=1e-15)


# --- two models: frequentist -------------------------------------------------------------------
def test_two_models_corrected_and_uncorrected(example):
    ms, n_train, n_test = example["model_scores"], example["n_train"], example["n_test"]
    a, b = ms.iloc[0].values, ms.iloc[1].values
    differences = a - b
    n = differences.shape[0]
    ref_t, ref_p = _compute_corrected_ttest(differences, n - 1, n_train, n_test)
    ref_tu = np.mean(differences) / np.sqrt(np.var(differences, ddof=1) / n)
    ref_pu = student_t.sf(np.abs(ref_tu), n - 1)

    res = corrected_ttest(a, b, n_train=n_train, n_test=n_test, alternative="greater")
    assert f"{res.statistic:.3f}" == "0.750"
    assert f"{res.pvalue:.3f}" == "0.227"
    assert f"{res.statistic_uncorrected:.3f}" == "2.611"
    assert f"{res.pvalue_uncorrected:.3f}" == "0.005"
    _close(res.statistic, ref_t)
    _close(res.pvalue, ref_p)
    _close(res.statistic_uncorrected, ref_tu)
    _close(res.pvalue_uncorrected, ref_pu)
    assert res.df == 99
    assert res.n_splits == 100
    assert not res.degenerate

    # The default two-sided p is twice the example's "right-tailed" p (t > 0 here).
    two = corrected_ttest(a, b, n_train=n_train, n_test=n_test)
    _close(two.pvalue, 2 * ref_p)
    _close(two.pvalue_uncorrected, 2 * ref_pu)
    # Swapping the models: the example's |t| form would print the same p; ours flips correctly.
    swapped = corrected_ttest(b, a, n_train=n_train, n_test=n_test, alternative="greater")
    _close(swapped.statistic, -ref_t)
    _close(swapped.pvalue, 1 - ref_p)


# --- two models: Bayesian ----------------------------------------------------------------------
def test_two_models_bayesian(example):
    ms, n_train, n_test = example["model_scores"], example["n_train"], example["n_test"]
    a, b = ms.iloc[0].values, ms.iloc[1].values
    differences = a - b
    df = len(differences) - 1
    t_post = student_t(
        df, loc=np.mean(differences), scale=_corrected_std(differences, n_train, n_test)
    )
    ref_better = 1 - t_post.cdf(0)
    ref_rope = t_post.cdf(0.01) - t_post.cdf(-0.01)

    res = bayesian_ttest(a, b, n_train=n_train, n_test=n_test, rope=0.01)
    better0 = res.prob_greater(0.0)
    assert f"{better0:.3f}" == "0.773"
    assert f"{1 - better0:.3f}" == "0.227"
    assert f"{res.prob_rope:.3f}" == "0.432"
    _close(better0, ref_better)
    _close(res.prob_rope, ref_rope)
    no_rope = bayesian_ttest(a, b, n_train=n_train, n_test=n_test, rope=None)
    _close(no_rope.prob_a_better, ref_better)
    _close(no_rope.prob_a_worse, 1 - ref_better)
    assert no_rope.prob_rope == 0.0
    # Frequentist and Bayesian are linked exactly: P(mu > 0) = 1 - p_greater.
    freq = corrected_ttest(a, b, n_train=n_train, n_test=n_test, alternative="greater")
    _close(better0, 1 - freq.pvalue)
    assert res.scale == pytest.approx(freq.standard_error, rel=1e-15)

    published = {
        0.5: ("0.000977", "0.019023"),
        0.75: ("-0.005422", "0.025422"),
        0.95: ("-0.016445", "0.036445"),
    }
    table = res.credible_intervals([0.5, 0.75, 0.95])
    for level, (lo_txt, hi_txt) in published.items():
        low, high = res.credible_interval(level)
        ref_low, ref_high = t_post.interval(level)
        assert (f"{low:.6f}", f"{high:.6f}") == (lo_txt, hi_txt)
        _close(low, ref_low)
        _close(high, ref_high)
        assert table.loc[level, "low"] == low
        assert table.loc[level, "high"] == high


def test_bayesian_matches_baycomp(example):
    ms, n_train, n_test = example["model_scores"], example["n_train"], example["n_test"]
    for i, k in combinations(range(4), 2):
        a, b = ms.iloc[i].values, ms.iloc[k].values
        res = bayesian_ttest(a, b, n_train=n_train, n_test=n_test, rope=0.01)
        # baycomp's difference is y - x: (p_left, p_rope, p_right) = (a better, rope, a worse).
        p_left, p_rope, p_right = baycomp.two_on_single(a, b, rope=0.01, runs=10)
        assert res.prob_a_better == pytest.approx(p_left, rel=1e-12, abs=1e-15)
        assert res.prob_rope == pytest.approx(p_rope, rel=1e-12, abs=1e-15)
        assert res.prob_a_worse == pytest.approx(p_right, rel=1e-12, abs=1e-15)
        mean, var, df = baycomp.CorrelatedTTest.compute_statistics(a, b, runs=10)
        assert -mean == pytest.approx(res.mean_difference, abs=1e-15)
        assert np.sqrt(var) == pytest.approx(res.scale, rel=1e-13)
        assert df == res.df


# --- all pairs ---------------------------------------------------------------------------------
def _check_table(result, example):
    table = result.table
    ref = _reference_pairwise(example["model_scores"], example["n_train"], example["n_test"])
    assert len(table) == 6
    for row, pub, rf in zip(table.itertuples(), PUBLISHED_TABLE, ref):
        assert (row.model_a, row.model_b) == pub[:2] == rf[:2]
        shown = [
            round(v, 3)
            for v in (row.t, row.p_adjusted, row.prob_a_worse, row.prob_a_better, row.prob_rope)
        ]
        assert shown == pytest.approx(list(pub[2:]), abs=1e-9)
        _close(row.t, rf[2])
        _close(row.p_adjusted, rf[3])
        _close(row.prob_a_worse, rf[4])
        # better_prob sits exactly on the ROPE edge for rbf vs linear: absolute 1e-12.
        _close(row.prob_a_better, rf[5], abs_=1e-12)
        _close(row.prob_rope, rf[6], abs_=1e-15)
        assert row.prob_a_worse + row.prob_rope + row.prob_a_better == pytest.approx(1.0, abs=1e-12)


def test_pairwise_from_search_with_X(example):
    res = compare_models(example["search"], X=example["X"], y=example["y"], alternative="greater")
    _check_table(res, example)
    assert res.ratio_source == "mean over the search's splits"
    assert list(res.table.columns[:10]) == [
        "model_a",
        "model_b",
        "mean_difference",
        "t",
        "df",
        "p",
        "p_adjusted",
        "prob_a_worse",
        "prob_rope",
        "prob_a_better",
    ]


def test_pairwise_other_inputs_agree(example):
    search, ms = example["search"], example["model_scores"]
    kw = {"n_train": 90, "n_test": 10, "alternative": "greater"}
    _check_table(compare_models(search.cv_results_, **kw), example)
    _check_table(compare_models(search, **kw), example)
    _check_table(compare_models(ms, **kw), example)  # models × splits DataFrame
    _check_table(compare_models(ms.to_numpy(), names=list(ms.index), **kw), example)
    _check_table(compare_models(ms.to_numpy().tolist(), names=list(ms.index), **kw), example)
    per_model = {
        name: {"test_score": ms.loc[name].to_numpy(), "fit_time": np.zeros(100)}
        for name in ms.index
    }
    _check_table(compare_models(per_model, **kw), example)


def test_pairwise_default_two_sided_and_holm(example):
    ms = example["model_scores"]
    greater = compare_models(ms, n_train=90, n_test=10, alternative="greater").table
    res = compare_models(ms, n_train=90, n_test=10)
    assert res.alternative == "two-sided"
    two = res.table
    np.testing.assert_allclose(two["p"], 2 * greater["p"], rtol=1e-12)
    holm = compare_models(ms, n_train=90, n_test=10, correction="holm").table
    p = two["p"].to_numpy()
    order = np.argsort(p)
    expected = np.empty(6)
    running = 0.0
    for rank, idx in enumerate(order):
        running = max(running, min(1.0, (6 - rank) * p[idx]))
        expected[idx] = running
    np.testing.assert_allclose(holm["p_adjusted"], expected, rtol=1e-12)
    assert (holm["p_adjusted"] <= two["p_adjusted"] + 1e-15).all()


def test_search_without_sizes_is_a_clear_error(example):
    with pytest.raises(ValueError, match=r"n_train.*n_test.*X.*n_samples"):
        compare_models(example["search"])
    # a stratified splitter cannot be re-run from the row count alone
    with pytest.raises(ValueError, match="pass `y`"):
        compare_models(example["search"], n_samples=100)


def test_cross_validate_dicts_end_to_end(example):
    X, y = example["X"], example["y"]
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)
    res = {
        k: cross_validate(SVC(kernel=k, random_state=0), X, y, cv=cv, scoring="roc_auc")
        for k in ("rbf", "linear")
    }
    table = compare_models(res, n_train=80, n_test=20).table
    direct = corrected_ttest(
        res["rbf"]["test_score"], res["linear"]["test_score"], n_train=80, n_test=20
    )
    row = table.iloc[0]
    a_first = row.model_a == "rbf"
    assert row.t == pytest.approx(direct.statistic if a_first else -direct.statistic, rel=1e-14)
    assert row.p == pytest.approx(direct.pvalue, rel=1e-14)


def test_cli_reproduces_the_example_table(example):
    runner = CliRunner()
    out = runner.invoke(
        app,
        [
            "cv",
            EXAMPLE_CSV,
            "--n-train",
            "90",
            "--n-test",
            "10",
            "--alternative",
            "greater",
            "--json",
        ],
    )
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    assert payload["models"] == ["rbf", "linear", "3_poly", "2_poly"]
    ref = _reference_pairwise(example["model_scores"], 90, 10)
    for pair, rf in zip(payload["table"], ref):
        assert (pair["model_a"], pair["model_b"]) == rf[:2]
        _close(pair["t"], rf[2])
        _close(pair["p_adjusted"], rf[3])
