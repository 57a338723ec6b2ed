"""B*_k binnings, the random baseline and the granularity evaluation."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from modelcompare import (
    CategoricalReference,
    ModelCompareWarning,
    adaptive_binning,
    granularity,
    perturb,
    random_binning,
    stair_distribution,
)
from modelcompare.categorical._space import index_to_rows


@pytest.fixture(scope="module")
def p6():
    return stair_distribution(6, 6, 3, 2.0)


@pytest.fixture(scope="module")
def q4(p6):
    return perturb(p6, l1=0.2, seed=3)


def _brute_gains(p, x):
    """Splitting gains recomputed element by element from their definition (P_j, N_j sums)."""
    qhat = np.bincount(p.index_of(x), minlength=p.size) / x.shape[0]
    gains = []
    for j in range(p.n_stairs):
        on = p.stair_labels == j
        d = p.table[on] - qhat[on]
        big_p, big_n = d[d > 0].sum(), -d[d <= 0].sum()
        gains.append((big_p + big_n) - abs(big_p - big_n))
    return np.array(gains), qhat


def test_adaptive_binning_levels_follow_the_definition(p6, q4):
    x = q4.sample(3000, seed=5)
    gains, qhat = _brute_gains(p6, x)
    tvs = []
    prev_labels = None
    for k in range(4, 9):
        b = adaptive_binning(p6, x, n_bins=k, seed=0)
        assert b.n_bins == k
        np.testing.assert_allclose(b.gains, gains, atol=1e-12)
        order = np.argsort(-gains, kind="stable")
        assert list(b.split_stairs) == [int(j) for j in order[: min(k - 4, 3)]]
        lab = b.assign(index_to_rows(np.arange(p6.size), 6, 6))
        # zero bin last, holding exactly the zero stair
        np.testing.assert_array_equal(lab == k - 1, p6.table == 0)
        np.testing.assert_allclose(b.p_binned, np.bincount(lab, weights=p6.table, minlength=k))
        qb = np.bincount(lab, weights=qhat, minlength=k)
        tvs.append(0.5 * np.abs(b.p_binned - qb).sum())
        if prev_labels is not None:  # B*_{k+1} refines B*_k: each new bin inside one old bin
            pairs = set(zip(lab.tolist(), prev_labels.tolist()))
            assert len({a for a, _ in pairs}) == len(pairs)
        prev_labels = lab
    # TV grows with each split and reaches the full empirical TV at k = 2s - 1
    assert all(np.diff(tvs[:4]) > 0)
    assert tvs[3] == pytest.approx(0.5 * np.abs(p6.table - qhat).sum(), abs=1e-12)
    assert tvs[4] == pytest.approx(tvs[3], abs=1e-12)  # extra cuts inside one-signed halves
    # the gain of a split is exactly the increase of the binned l1
    assert 2 * (tvs[1] - tvs[0]) == pytest.approx(gains.max(), abs=1e-12)


def test_binning_assign_validates_rows(p6):
    b = adaptive_binning(p6, p6.sample(200, seed=0), n_bins=5, seed=0)
    lab = b.assign([[0, 0, 0, 0, 0, 0], [5, 5, 5, 5, 5, 5]])  # plain lists are accepted
    assert lab.tolist() == [b.assign(np.zeros((1, 6), int))[0], 4]  # 5^6 is on the zero stair
    with pytest.raises(ValueError, match="length L=6"):
        b.assign([[0, 1]])


def test_tv_bound_mode_through_granularity(p6, q4):
    res = granularity(p6, q4.sample(2000, seed=0), mode="tv-bound", seed=0)
    for t in res.tests:
        assert t.threshold == pytest.approx(
            max(np.sqrt(t.n_bins / 2000), np.sqrt(2 / 2000 * np.log2(40)))
        )
        assert t.statistic == pytest.approx(t.tv)


def test_k_below_s_raises(p6):
    with pytest.raises(ValueError, match="below s=4"):
        adaptive_binning(p6, p6.sample(100, seed=0), n_bins=3)


def test_table_and_row_engines_agree():
    # the row engine (used when Ω cannot be enumerated) against the exact table engine
    from modelcompare.categorical._binning import draw_cuts, make_engine

    c = 5
    rule = stair_distribution(c, c, 2, 3.0, layout="sort")
    table = rule.as_table()
    assert table.stair_sizes == rule.stair_sizes == (60, 60)
    x = rule.sample(400, seed=2)
    cuts = draw_cuts(np.random.default_rng(0), 2, 4)
    et = make_engine(table, x)
    er = make_engine(rule, x, force_rows=True, chunk_seed=3)
    np.testing.assert_allclose(et.gains, er.gains, atol=1e-12)
    for k in (3, 4, 5):  # no extra cuts: identical partitions up to bin order
        bt, br = et.binning(k, cuts), er.binning(k, cuts)
        np.testing.assert_allclose(bt.p_binned, br.p_binned, atol=1e-12)
        np.testing.assert_array_equal(bt.counts(x), br.counts(x))
    for k in (6, 7):  # extra cuts: same bin count and coarse masses, chunks differ (hash vs order)
        bt, br = et.binning(k, cuts), er.binning(k, cuts)
        assert bt.n_bins == br.n_bins == k
        assert br.p_binned.sum() == pytest.approx(1.0)
        assert br.counts(x).sum() == 400
    # small rule spaces are enumerated automatically, so granularity uses exact masses
    a = granularity(rule, x, seed=1, mode="cantelli", split=True)
    b = granularity(table, x, seed=1, mode="cantelli", split=True)
    np.testing.assert_allclose(a.statistics, b.statistics)


def test_random_binning_baseline(p6):
    b = random_binning(p6, n_bins=5, seed=0)
    lab = b.assign(index_to_rows(np.arange(p6.size), 6, 6))
    sizes = np.bincount(lab)
    assert sizes[:4].tolist() == [46656 // 5] * 4
    assert sizes[4] == 46656 - 4 * (46656 // 5)
    assert b.p_binned.sum() == pytest.approx(1.0)
    assert not np.array_equal(
        lab, random_binning(p6, n_bins=5, seed=1).assign(index_to_rows(np.arange(p6.size), 6, 6))
    )
    big = stair_distribution(20, 20, 2, 3.0, layout="sort")
    hb = random_binning(big, n_bins=7, seed=0)
    x = big.sample(7000, seed=0)
    counts = hb.counts(x)
    np.testing.assert_allclose(hb.p_binned, 1 / 7)
    assert stats.chisquare(counts).pvalue > 0.001  # p-mass 1/k per bin at this scale


def test_granularity_conventions_and_fields(p6, q4):
    res = granularity(p6, q4.sample(10000, seed=1), seed=0)
    assert res.k_values.tolist() == [4, 5, 6, 7, 8]
    hit = np.flatnonzero(res.decisions)
    assert res.first_rejected_k == (res.k_values[hit[0]] if hit.size else 8)
    assert res.value == res.first_rejected_k - 1
    assert not res.all_accepted
    np.testing.assert_array_equal(res.decisions, [t.decision() for t in res.tests])
    assert res.n_stairs == 3
    for t, k in zip(res.tests, res.k_values):
        assert t.n_bins == k
        assert t.epsilon == 0.1
        assert t.alpha == 0.05
    assert res.alpha == 0.05
    d = res.to_dict()
    assert next(iter(d)) == "value"
    assert "rejects" not in d
    assert "max_accepted_k" not in d
    assert d["first_rejected_k"] == res.first_rejected_k
    assert len(d["tests"]) == 5
    assert "accept" in res.table() or "reject" in res.table()


def test_all_accepted_convention(p6):
    res = granularity(p6, p6.sample(10000, seed=3), epsilon=0.5, seed=0)
    assert res.all_accepted
    assert res.first_rejected_k == 8
    assert res.value == 8


def test_score_protocol_and_value_conventions(p6, q4):
    from modelcompare._foundation.results import ScoreResult

    x = q4.sample(10000, seed=1)
    res = granularity(p6, x, seed=0)
    assert isinstance(res, ScoreResult)
    assert repr(res).startswith("GranularityResult(value=")
    # even the first level rejects: one below it
    worst = granularity(p6, x, epsilon=0.01, seed=0)
    assert worst.decisions[0]
    assert worst.first_rejected_k == 4
    assert worst.value == 3
    # levels with a gap: the last evaluated level before the first rejection
    gap = granularity(p6, x, n_bins_grid=[4, 6, 8], seed=0)
    assert gap.decisions.tolist() == [False, True, True]
    assert gap.first_rejected_k == 6
    assert gap.value == 4


def test_seeded_and_deterministic(p6, q4):
    x = q4.sample(2000, seed=1)
    a = granularity(p6, x, seed=4)
    b = granularity(p6, x, seed=4)
    np.testing.assert_array_equal(a.statistics, b.statistics)
    np.testing.assert_array_equal(
        [t.batch_statistics for t in a.tests], [t.batch_statistics for t in b.tests]
    )
    assert a.seed_used == 4
    c = granularity(p6, x, seed=None)
    assert isinstance(c.seed_used, int)
    big = stair_distribution(20, 20, 2, 3.0, layout="sort")
    y = big.sample(3000, seed=0)
    s1 = granularity(big, y, split=True, seed=9, n_bins_grid=range(3, 8))
    s2 = granularity(big, y, split=True, seed=9, n_bins_grid=range(3, 8))
    np.testing.assert_array_equal(s1.statistics, s2.statistics)


def test_power_ordering_on_the_synthetic_study(p6):
    # m = 10^4, paper mode, eps = 0.1: q4 fails earlier than q1 (the study's config A)
    q1, q4 = p6, perturb(p6, l1=0.2, seed=3)
    s1 = [granularity(p6, q1.sample(10000, seed=s), seed=s).value for s in range(3)]
    s4 = [granularity(p6, q4.sample(10000, seed=s), seed=s).value for s in range(3)]
    assert np.mean(s1) > np.mean(s4)
    assert max(s4) <= 6


def test_unsplit_selection_bias_rejects_samples_of_p():
    # generative-model stair (s = 3), m = 10^4, eps = 0.1 (a re-run of the authors' code): samples
    # of p itself are rejected at k = 5 in 100 % of trials; with eps = 0.18 never. No level can
    # hold unsplit.
    p = stair_distribution(6, 6, 2, 3.0)
    xs = [p.sample(10000, seed=s) for s in range(5)]
    rej = [granularity(p, x, seed=s, n_bins_grid=[5]).decisions[0] for s, x in enumerate(xs)]
    assert sum(rej) >= 4
    loose = [granularity(p, x, seed=s, epsilon=0.18).all_accepted for s, x in enumerate(xs)]
    assert all(loose)


@pytest.mark.parametrize("mode", ["cantelli", "mc"])
def test_split_mode_size_under_q_equals_p(mode):
    # bins chosen on an independent half: per-level false rejections <= alpha (100 trials)
    p = stair_distribution(4, 4, 2, 3.0, positive_fraction=24 / 256)
    rng = np.random.default_rng(123)
    trials, k = 100, 5
    rej = 0
    for _ in range(trials):
        x = p.sample(300, seed=rng)
        res = granularity(p, x, split=True, mode=mode, n_bins_grid=[k], n_resamples=199, seed=rng)
        rej += bool(res.decisions[0])
    assert stats.binomtest(rej, trials, 0.05, alternative="greater").pvalue > 0.01


def test_unsplit_calibrated_mode_has_no_level():
    # the same exact MC test, bins chosen on the tested samples: q = p is rejected almost always
    p = stair_distribution(4, 4, 2, 3.0, positive_fraction=24 / 256)
    rng = np.random.default_rng(5)
    with pytest.warns(ModelCompareWarning, match="selection bias"):
        rej = sum(
            granularity(
                p, p.sample(300, seed=rng), mode="mc", n_bins_grid=[5], n_resamples=99, seed=rng
            ).decisions[0]
            for _ in range(20)
        )
    assert rej >= 15


def test_split_mode_power_against_q4(p6):
    q = perturb(p6, l1=0.2, seed=3)
    rej = [
        granularity(
            p6,
            q.sample(20000, seed=s),
            split=True,
            mode="mc",
            n_bins_grid=[7],
            n_resamples=199,
            seed=s,
        ).decisions[0]
        for s in range(5)
    ]
    assert sum(rej) >= 4


def test_large_space_20_to_the_20():
    big = stair_distribution(20, 20, 2, 3.0, layout="sort")
    x = big.sample(5000, seed=0)
    noisy = x.copy()
    noisy[:1000] = np.random.default_rng(0).integers(0, 20, size=(1000, 20))  # 20% off-support
    res = granularity(big, noisy, seed=0, split=True, mode="cantelli")
    assert res.decisions[0]  # the zero bin catches off-support rows already at k = s
    ok = granularity(big, x, seed=0, split=True, mode="cantelli")
    assert ok.all_accepted
    # unsplit at this scale every sampled row has q̂ >> p: B*_k rejects even samples of p
    assert granularity(big, x, seed=0).decisions[1:].all()


def test_two_sample_mode(p6):
    ref = p6.sample(5000, seed=1)
    same = granularity(
        p6,
        p6.sample(5000, seed=2),
        reference_samples=ref,
        seed=0,
        split=True,
        mode="permutation",
        n_resamples=199,
    )
    far = granularity(
        p6,
        perturb(p6, l1=0.6, add_frac=0.9, seed=3).sample(5000, seed=2),
        reference_samples=ref,
        seed=0,
        split=True,
        mode="permutation",
        n_resamples=199,
    )
    assert same.two_sample
    assert same.tests[0].n_reference == 2500
    assert far.decisions.any()
    assert far.value <= same.value
    # without level sets: one stair, levels 2..4, rows hashed (no index)
    ns = granularity(None, p6.sample(3000, seed=4), reference_samples=ref, seed=0)
    assert ns.k_values.tolist() == [2, 3, 4]
    assert ns.mode == "threshold"


def test_two_sample_mode_at_20_to_the_20():
    big = stair_distribution(20, 20, 2, 3.0, layout="sort")
    ref = big.sample(3000, seed=1)
    x = big.sample(3000, seed=2)
    noisy = x.copy()
    noisy[:600] = np.random.default_rng(0).integers(0, 20, size=(600, 20))
    kw = {"reference_samples": ref, "split": True, "mode": "permutation", "n_resamples": 99}
    assert granularity(big, x, seed=0, **kw).all_accepted
    assert granularity(big, noisy, seed=0, **kw).decisions[0]
    # without level sets, at m << |Ω| every tested row is new: both samples fall in the same
    # (implicit) halves, so the split two-sample test has no power. Documented limitation.
    blind = granularity(None, noisy, seed=0, **kw)
    assert blind.all_accepted
    assert blind.tv.max() < 0.05


def test_dataframe_samples(p6):
    x = p6.sample(500, seed=0)
    cats = list(range(6))
    frame = pd.DataFrame({f"x{j}": pd.Categorical(x[:, j], categories=cats) for j in range(6)})
    a = granularity(p6, frame, seed=0)
    b = granularity(p6, x, seed=0)
    np.testing.assert_array_equal(a.statistics, b.statistics)
    # integer indices are accepted for table references
    c = granularity(p6, p6.index_of(x), seed=0)
    np.testing.assert_array_equal(c.statistics, b.statistics)


def test_granularity_validation(p6):
    x = p6.sample(100, seed=0)
    with pytest.raises(TypeError, match="CategoricalReference"):
        granularity(np.ones(10), x)
    with pytest.raises(ValueError, match="reference_samples"):
        granularity(None, x)
    with pytest.raises(ValueError, match="k >= s=4"):
        granularity(p6, x, n_bins_grid=[3, 4])
    with pytest.raises(ValueError, match="mode"):
        granularity(p6, x, mode="permutation")
    with pytest.raises(ValueError, match="length L=6"):
        granularity(p6, x[:, :5])
    with pytest.raises(ValueError, match="train_fraction"):
        granularity(p6, x, split=True, train_fraction=1.5)
    with pytest.raises(ValueError, match=r"outside 0\.\.5"):
        granularity(p6, x + 1)
    with pytest.raises(ValueError, match="alpha"):
        granularity(p6, x, alpha=1.0)


def test_function_reference_runs_through_granularity():
    # a reference given by a function and its level sets (enumerated internally: |Ω| = 256)
    c = 4
    rule = stair_distribution(c, c, 2, 3.0, layout="sort")
    fn = CategoricalReference.from_function(
        rule.prob,
        {float(rule.stair_probs[0]): 12, float(rule.stair_probs[1]): 12},
        c,
        c,
        sampler=lambda m, rng: rule.sample(m, seed=rng),
    )
    x = fn.sample(800, seed=1)
    a = granularity(fn, x, seed=0)
    b = granularity(rule, x, seed=0)
    np.testing.assert_allclose(a.statistics, b.statistics)
    assert len(list(itertools.islice(iter(a.tests), 10))) == 4


@pytest.mark.parametrize(
    ("mode", "two_sample", "with_pvalue"),
    [
        ("paper", False, False),
        ("cantelli", False, False),
        ("tv-bound", False, False),
        ("mc", False, True),
        ("asymptotic", False, True),
        ("threshold", True, False),
        ("permutation", True, True),
    ],
)
def test_each_level_decides_at_alpha(p6, q4, mode, two_sample, with_pvalue):
    x = q4.sample(3000, seed=1)
    ref = p6.sample(3000, seed=2) if two_sample else None
    res = granularity(
        p6,
        x,
        mode=mode,
        split=True,
        alpha=0.1,
        reference_samples=ref,
        n_resamples=99,
        seed=0,
    )
    assert {type(t).__name__ for t in res.tests} == {"ClosenessResult"}
    assert res.decisions.tolist() == [t.decision(0.1) for t in res.tests]
    assert res.thresholds.tolist() == [t.critical_value(0.1) for t in res.tests]
    if with_pvalue:
        # a p-value test stores no level: granularity decides each level at its own alpha
        assert all(t.alpha is None for t in res.tests)
        assert res.pvalues.tolist() == [t.pvalue for t in res.tests]
    else:
        assert res.decisions.tolist() == [t.decision() for t in res.tests]
        assert all(t.alpha == 0.1 for t in res.tests)
        assert res.thresholds.tolist() == [t.threshold for t in res.tests]
        assert res.pvalues is None
