"""Many models × many data sets: Friedman, Nemenyi, Wilcoxon–Holm, Bayesian signed-rank, plots."""

from __future__ import annotations

import math
import warnings

import baycomp
import numpy as np
import pandas as pd
import pytest
from baycomp.multiple import SignedRankTest
from scipy import stats

from modelcompare import (
    DegenerateDataWarning,
    adjust_pvalues,
    bayesian_signed_rank,
    bayesian_ttest,
    friedman_test,
    nemenyi_test,
    plot_critical_difference,
    plot_posterior,
    wilcoxon_holm_test,
)
from modelcompare._foundation.results import TestResult, ThresholdResult
from modelcompare.cv._multi import _cliques, signed_rank_masses


@pytest.fixture
def table(rng):
    means = np.array([0.80, 0.79, 0.75, 0.74, 0.70])
    data = means + 0.03 * rng.standard_normal((20, 5))
    return pd.DataFrame(np.round(data, 2), columns=["A", "B", "C", "D", "E"])  # rounding: ties


def test_friedman_matches_scipy_with_ties(table):
    res = friedman_test(table)
    ref = stats.friedmanchisquare(*table.to_numpy().T)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    assert res.df == 4
    assert (res.n_datasets, res.n_models) == (20, 5)
    ranks = stats.rankdata(-table.to_numpy(), axis=1).mean(axis=0)
    assert res.average_ranks == pytest.approx(dict(zip(table.columns, ranks)), rel=1e-14)
    assert list(res.average_ranks) == list(
        np.array(table.columns)[np.argsort(ranks, kind="stable")]
    )
    n, k, chi2 = 20, 5, res.statistic
    ff = (n - 1) * chi2 / (n * (k - 1) - chi2)
    assert res.iman_davenport_statistic == pytest.approx(ff, rel=1e-12)
    assert res.iman_davenport_pvalue == pytest.approx(stats.f.sf(ff, k - 1, (k - 1) * (n - 1)))
    # losses: negating the scores with greater_is_better=False gives the same test
    flipped = friedman_test(-table, greater_is_better=False)
    assert flipped.statistic == pytest.approx(res.statistic, rel=1e-14)
    assert isinstance(res, TestResult)
    assert res.decision(0.05) is (res.pvalue <= 0.05)
    assert list(res.to_dict())[:2] == ["statistic", "pvalue"]


def test_friedman_degenerate_and_bad_input():
    with pytest.warns(DegenerateDataWarning, match="ties all models"):
        res = friedman_test(np.ones((4, 3)))
    assert res.statistic == 0.0
    assert res.pvalue == 1.0
    assert res.degenerate
    with pytest.raises(ValueError, match="at least 2 data sets"):
        friedman_test(np.ones((1, 3)))
    with pytest.raises(ValueError, match="data set 2, model 'm1' is nan"):
        friedman_test(pd.DataFrame({"m0": [1.0, 2, 3], "m1": [1.0, 2, np.nan]}))
    # lists and tensors have an `index` method, not labels
    with pytest.raises(ValueError, match="data set 1, model 'model_1' is nan"):
        friedman_test([[1.0, 2.0], [3.0, np.nan]])
    torch = pytest.importorskip("torch")
    rows = [[0.8, 0.7, 0.6], [0.9, 0.6, 0.7], [0.85, 0.75, 0.65]]
    assert friedman_test(torch.tensor(rows)).statistic == friedman_test(rows).statistic


def test_friedman_perfect_agreement_reports_the_finite_limit():
    # the ranks agree in all N = 10 data sets: chi² reaches its maximum N(k − 1) = 20 (finite,
    # p = chi2.sf(20, 2) = exp(−10)), while Iman–Davenport's F = 9·20/(10·2 − 20) is +inf
    scores = np.array([0.9, 0.8, 0.7]) + np.linspace(0.0, 0.05, 10)[:, None]
    with pytest.warns(DegenerateDataWarning, match="Iman–Davenport statistic is \\+inf"):
        res = friedman_test(scores)
    assert res.statistic == pytest.approx(20.0, rel=1e-12)
    assert res.pvalue == pytest.approx(math.exp(-10.0), rel=1e-9)
    assert res.pvalue == pytest.approx(stats.friedmanchisquare(*scores.T).pvalue, rel=1e-9)
    assert res.iman_davenport_statistic == math.inf
    assert res.iman_davenport_pvalue == res.pvalue  # from the finite statistic, never 0
    assert not res.degenerate  # chi² is defined and its rejection rests on no zero variance
    assert res.decision(0.05)
    # the exact permutation p-value of perfect agreement, (k!)^(1 − N), is smaller still: the
    # chi² p-value is conservative here
    assert res.pvalue > math.factorial(3) ** (1 - 10)
    # near (but not at) the limit F stays finite and no warning is issued
    near = scores.copy()
    near[0] = near[0][[1, 0, 2]]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateDataWarning)
        res = friedman_test(near)
    assert math.isfinite(res.iman_davenport_statistic)
    assert 0 < res.iman_davenport_pvalue < res.pvalue


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "fdr_bh", None])
def test_wilcoxon_pvalue_is_holm_whatever_the_correction(table, correction):
    res = wilcoxon_holm_test(table, correction=correction)
    raw = res.pvalues[np.triu_indices(5, 1)]
    np.testing.assert_allclose(
        res.pvalues_adjusted[np.triu_indices(5, 1)], adjust_pvalues(raw, correction)
    )
    assert res.pvalue == min(1.0, raw.size * raw.min())  # Holm's family-wise p-value
    assert res.correction == correction


def test_nemenyi_critical_values_demsar():
    # Demšar (2006), Table 5(a): q_0.05 for k = 2..10 (q = studentised range / sqrt 2).
    q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    rng = np.random.default_rng(0)
    for k, q in zip(range(2, 11), q05):
        res = nemenyi_test(rng.standard_normal((14, k)))
        assert res.threshold / math.sqrt(k * (k + 1) / (6 * 14)) == pytest.approx(q, abs=1.5e-3)
    # Demšar's worked example: N = 14 data sets, k = 4 algorithms, CD = 1.25 at α = 0.05.
    assert nemenyi_test(rng.standard_normal((14, 4))).threshold == pytest.approx(1.25, abs=5e-3)


def test_nemenyi_pvalues_and_cd_agree(table):
    res = nemenyi_test(table)
    k, n = 5, 20
    se = math.sqrt(k * (k + 1) / (6 * n))
    for i in range(k):
        for j in range(i + 1, k):
            diff = abs(res.average_ranks[i] - res.average_ranks[j])
            z = diff / se
            p_ref = stats.studentized_range.sf(z * math.sqrt(2), k, np.inf)
            assert res.pvalues[i, j] == pytest.approx(p_ref, rel=1e-9)
            assert (res.pvalues[i, j] <= 0.05) == (diff >= res.threshold)
            assert res.significant()[i, j] == (diff >= res.threshold)
    assert np.allclose(res.pvalues, res.pvalues.T)
    assert np.all(np.diag(res.pvalues) == 1)
    # the threshold-test protocol: the largest rank difference against the critical difference
    assert isinstance(res, ThresholdResult)
    assert res.alpha == 0.05
    gaps = np.abs(res.average_ranks[:, None] - res.average_ranks[None, :])
    assert res.statistic == gaps.max()
    assert res.decision() == bool(res.significant().any()) == (res.statistic >= res.threshold)
    assert "reject" not in res.to_dict()
    strict = nemenyi_test(table, alpha=1e-6)
    assert strict.threshold > res.threshold
    # a rank difference exactly at the CD has p = α
    p_at_cd = stats.studentized_range.sf(res.threshold / se * math.sqrt(2), k, np.inf)
    assert p_at_cd == pytest.approx(0.05, rel=1e-6)
    frame = res.to_frame()
    assert list(frame.columns) == list(table.columns)


def test_wilcoxon_holm_matches_scipy(table):
    res = wilcoxon_holm_test(table)
    arr = table.to_numpy()
    raw, pairs = [], []
    for i in range(5):
        for j in range(i + 1, 5):
            raw.append(stats.wilcoxon(arr[:, i] - arr[:, j]).pvalue)
            pairs.append((i, j))
    adj = adjust_pvalues(raw, "holm")
    for (i, j), p, q in zip(pairs, adj, raw):
        assert res.pvalues_adjusted[i, j] == pytest.approx(p, rel=1e-12)
        assert res.pvalues[i, j] == pytest.approx(q, rel=1e-12)
        ref = stats.wilcoxon(arr[:, i] - arr[:, j]).statistic
        assert res.statistics[i, j] == res.statistics[j, i] == pytest.approx(ref, rel=1e-12)
    assert res.correction == "holm"
    # the test protocol: the smallest adjusted p-value and its pair's statistic
    assert isinstance(res, TestResult)
    best = int(np.argmin(raw))
    assert res.pvalue == pytest.approx(min(adj), rel=1e-12)
    assert res.statistic == res.statistics[pairs[best]]
    assert res.decision(0.05) is (res.pvalue <= 0.05)
    assert res.to_frame().loc["A", "B"] == res.pvalues_adjusted[0, 1]
    sig = res.significant(0.05)
    assert np.array_equal(sig, (res.pvalues_adjusted <= 0.05) & ~np.eye(5, dtype=bool))
    assert res.cliques(0.05) == [
        [res.names[i] for i in c] for c in _cliques(res.average_ranks, sig)
    ]
    assert res.cliques(1e-9) == [list(np.array(res.names)[np.argsort(res.average_ranks)])]
    pratt = wilcoxon_holm_test(table, zero_method="pratt", correction="bonferroni")
    assert pratt.correction == "bonferroni"
    with pytest.raises(ValueError, match="correction"):
        wilcoxon_holm_test(table, correction="fdr")
    # all-zero differences for one pair: p = 1 instead of scipy's NaN
    dup = table.assign(F=table["A"])
    out = wilcoxon_holm_test(dup)
    assert out.pvalues[0, 5] == out.pvalues_adjusted[0, 5] == 1.0
    assert out.statistics[0, 5] == 0.0
    assert not np.isnan(out.pvalues_adjusted).any()


def test_cliques():
    avg = np.array([1.0, 2.0, 3.0, 4.0])
    sig = np.zeros((4, 4), dtype=bool)
    sig[0, 2] = sig[2, 0] = sig[0, 3] = sig[3, 0] = sig[1, 3] = sig[3, 1] = True
    assert _cliques(avg, sig) == [[0, 1], [1, 2], [2, 3]]
    assert _cliques(avg, np.zeros((4, 4), dtype=bool)) == [[0, 1, 2, 3]]
    full = ~np.eye(4, dtype=bool)
    assert _cliques(avg, full) == []
    # order follows ranks, not input positions
    assert _cliques(np.array([3.0, 1.0, 2.0]), np.zeros((3, 3), dtype=bool)) == [[1, 2, 0]]


@pytest.mark.parametrize("rope", [0.0, 0.01])
def test_bayesian_signed_rank_matches_baycomp_exactly(rope, rng):
    x = 0.8 + 0.03 * rng.standard_normal(12)
    y = x - 0.01 + 0.02 * rng.standard_normal(12)
    y[3] = x[3] + 2 * rope  # a sum on the ROPE edge exercises the half-weight ties
    ref = SignedRankTest.sample(x, y, rope=rope, nsamples=2000, random_state=7)
    weights = np.concatenate(([0.5], np.ones(12)))
    draws = np.random.RandomState(7).dirichlet(weights, 2000)
    ours = signed_rank_masses(x - y, draws, -rope, rope)
    # baycomp's difference is y − x: its columns (left, rope, right) are our (better, rope, worse)
    np.testing.assert_allclose(ours[:, ::-1], ref, rtol=1e-10, atol=1e-13)


def test_bayesian_signed_rank_seeded_and_consistent(rng):
    x = 0.8 + 0.03 * rng.standard_normal(15)
    y = x - 0.015 + 0.02 * rng.standard_normal(15)
    r1 = bayesian_signed_rank(x, y, rope=0.01, n_draws=20_000, seed=3)
    r2 = bayesian_signed_rank(x, y, rope=0.01, n_draws=20_000, seed=3)
    np.testing.assert_array_equal(r1.draws, r2.draws)
    assert r1.draws.shape == (20_000, 3)
    assert r1.seed_used == 3
    assert r1.prob_a_worse + r1.prob_rope + r1.prob_a_better == pytest.approx(1.0)
    left, mid, right = baycomp.two_on_multiple(x, y, rope=0.01, random_state=11)
    for ours, ref in zip((r1.prob_a_better, r1.prob_rope, r1.prob_a_worse), (left, mid, right)):
        assert abs(ours - ref) < 0.02  # independent Monte Carlo streams, 20k and 50k draws
    assert r1.prob_a_better > 0.5
    assert r1.decision(threshold=0.5) == "a_better"
    assert r1.decision(threshold=0.999) == "undecided"
    assert list(r1.to_dict())[:3] == ["prob_a_better", "prob_rope", "prob_a_worse"]
    with pytest.raises(TypeError, match="RandomState"):
        bayesian_signed_rank(x, y, seed=np.random.RandomState(0))


def test_plots(table):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    a = 0.8 + 0.02 * np.sin(np.arange(30))
    res = bayesian_ttest(a, a - 0.005 + 0.01 * np.cos(np.arange(30)), n_train=90, n_test=10)
    _fig, ax = plt.subplots()
    out = plot_posterior(res, ax=ax, names=("svm", "tree"))
    assert out is ax
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(lbl.startswith("ROPE [-0.01, 0.01]") for lbl in labels)
    assert any("P(svm better)" in lbl for lbl in labels)
    cd_ax = plot_critical_difference(nemenyi_test(table))
    texts = [t.get_text() for t in cd_ax.texts]
    assert any(t.startswith("CD = ") for t in texts)
    assert any(t.startswith("A (") for t in texts)
    wilcoxon = wilcoxon_holm_test(table)
    plot_critical_difference(wilcoxon, ax=ax)
    _fig, ax2 = plt.subplots()
    plot_critical_difference(wilcoxon, alpha=0.01, ax=ax2)
    assert "α = 0.01" in ax2.get_title()
    with pytest.raises(ValueError, match="level is fixed"):
        plot_critical_difference(nemenyi_test(table), alpha=0.1)
    with pytest.raises(TypeError, match="NemenyiResult or a WilcoxonHolmResult"):
        plot_critical_difference(res)
    with pytest.raises(TypeError, match="BayesianTTestResult"):
        plot_posterior(nemenyi_test(table))
    plt.close("all")
