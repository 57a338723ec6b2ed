"""Many models × many data sets: Friedman, Nemenyi, Wilcoxon–Holm, Bayesian signed-rank, plots."""

from __future__ import annotations

import math

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
    wilcoxon_holm,
)
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


def test_nemenyi_critical_values_demsar():
    # Demšar (2006), Table 5(a): q_0.05 for k = 2..10 (q = studentised range / sqrt 2).
    q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    rng = np.random.default_rng(0)
    for k, q in zip(range(2, 11), q05):
        res = nemenyi_test(rng.standard_normal((14, k)))
        assert res.critical_difference / math.sqrt(k * (k + 1) / (6 * 14)) == pytest.approx(
            q, abs=1.5e-3
        )
    # Demšar's worked example: N = 14 data sets, k = 4 algorithms, CD = 1.25 at α = 0.05.
    assert nemenyi_test(rng.standard_normal((14, 4))).critical_difference == pytest.approx(
        1.25, abs=5e-3
    )


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
            assert (res.pvalues[i, j] <= 0.05) == (diff >= res.critical_difference)
    assert np.allclose(res.pvalues, res.pvalues.T)
    assert np.all(np.diag(res.pvalues) == 1)
    # a rank difference exactly at the CD has p = α
    p_at_cd = stats.studentized_range.sf(res.critical_difference / se * math.sqrt(2), k, np.inf)
    assert p_at_cd == pytest.approx(0.05, rel=1e-6)
    frame = res.to_frame()
    assert list(frame.columns) == list(table.columns)


def test_wilcoxon_holm_matches_scipy(table):
    res = wilcoxon_holm(table)
    arr = table.to_numpy()
    raw, pairs = [], []
    for i in range(5):
        for j in range(i + 1, 5):
            raw.append(stats.wilcoxon(arr[:, i] - arr[:, j]).pvalue)
            pairs.append((i, j))
    adj = adjust_pvalues(raw, "holm")
    for (i, j), p in zip(pairs, adj):
        assert res.pvalues[i, j] == pytest.approx(p, rel=1e-12)
    assert res.method == "wilcoxon-holm"
    assert res.critical_difference is None
    pratt = wilcoxon_holm(table, zero_method="pratt", p_adjust="bonferroni")
    assert pratt.method == "wilcoxon-bonferroni"
    # all-zero differences for one pair: p = 1 instead of scipy's NaN
    dup = table.assign(F=table["A"])
    out = wilcoxon_holm(dup)
    assert out.pvalues[0, 5] == 1.0
    assert not np.isnan(out.pvalues).any()


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
    r1 = bayesian_signed_rank(x, y, rope=0.01, n_samples=20_000, seed=3)
    r2 = bayesian_signed_rank(x, y, rope=0.01, n_samples=20_000, seed=3)
    np.testing.assert_array_equal(r1.samples, r2.samples)
    assert r1.seed_used == 3
    assert r1.prob_a_worse + r1.prob_rope + r1.prob_a_better == pytest.approx(1.0)
    left, mid, right = baycomp.two_on_multiple(x, y, rope=0.01, random_state=11)
    for ours, ref in zip((r1.prob_a_better, r1.prob_rope, r1.prob_a_worse), (left, mid, right)):
        assert abs(ours - ref) < 0.02  # independent Monte Carlo streams, 20k and 50k draws
    assert r1.prob_a_better > 0.5
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
    plot_critical_difference(wilcoxon_holm(table), ax=ax)
    with pytest.raises(TypeError, match="BayesianTTestResult"):
        plot_posterior(nemenyi_test(table))
    plt.close("all")
