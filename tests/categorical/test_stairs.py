"""Sample space, stair references and perturbations."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from modelcompare import CategoricalReference, perturb, stair_distribution
from modelcompare.categorical import _space, distances
from modelcompare.categorical._space import check_rows, group_rows, index_to_rows, rows_to_index


# ---------------------------------------------------------------------- the stair distribution
def test_synthetic_stair_matches_the_paper_setup():
    p = stair_distribution(6, 6, 3, 2.0)
    assert p.size == 6**6 == 46656
    assert p.stair_sizes == (240, 240, 240)
    np.testing.assert_allclose(p.stair_probs * 1080, [2.0, 1.5, 1.0], rtol=1e-12)
    np.testing.assert_allclose(p.stair_masses, [4 / 9, 1 / 3, 2 / 9], rtol=1e-12)
    assert p.table.sum() == pytest.approx(1.0, abs=1e-12)
    # highest stair at the lowest indices, zero stair from index 720 on
    assert p.table[0] == pytest.approx(2 / 1080)
    assert p.table[719] == pytest.approx(1 / 1080)
    assert (p.table[720:] == 0).all()
    assert (p.stair_labels[:240] == 0).all()
    assert (p.stair_labels[720:] == -1).all()


def test_generative_model_stair_and_remainder():
    p = stair_distribution(6, 6, 2, 3.0)
    np.testing.assert_allclose(p.stair_probs * 1440, [3.0, 1.0])
    np.testing.assert_allclose(p.stair_masses, [0.75, 0.25])
    # 720 = 7*102 + 6: the highest stair takes the remainder after reversing
    q = stair_distribution(6, 6, 7, 2.0)
    assert q.stair_sizes == (108, 102, 102, 102, 102, 102, 102)
    assert q.table.sum() == pytest.approx(1.0)
    assert np.all(np.diff(q.stair_probs) < 0)


def test_index_layout_needs_fraction_when_l_differs_from_c():
    with pytest.raises(ValueError, match="positive_fraction"):
        stair_distribution(4, 5, 2)
    p = stair_distribution(4, 5, 2, positive_fraction=0.25)
    assert p.support_size == 256


@pytest.mark.parametrize("c", [3, 4, 5])
def test_sort_layout_rule_matches_enumeration(c):
    p = stair_distribution(c, c, 2, 3.0, layout="sort")
    rows = np.array(list(itertools.product(range(c), repeat=c)), dtype=np.uint8)
    st = p.stair_of(rows)
    is_perm = np.array([len(set(r)) == c for r in rows.tolist()])
    expected = np.where(is_perm, np.where(rows[:, 0] < rows[:, -1], 0, 1), -1)
    np.testing.assert_array_equal(st, expected)
    counts = np.bincount(st[st >= 0])
    assert tuple(counts) == p.stair_sizes == (math.factorial(c) // 2,) * 2
    assert p.prob(rows).sum() == pytest.approx(1.0)


def test_sort_layout_at_6_is_the_gmcd_sort_dataset():
    p = stair_distribution(6, 6, 2, 3.0, layout="sort")
    perm_lo = np.array([[0, 1, 2, 3, 4, 5]], dtype=np.uint8)
    perm_hi = np.array([[5, 1, 2, 3, 4, 0]], dtype=np.uint8)
    non = np.array([[0, 0, 1, 2, 3, 4]], dtype=np.uint8)
    assert p.prob(perm_lo)[0] == pytest.approx(3 / (2 * 720))
    assert p.prob(perm_hi)[0] == pytest.approx(1 / (2 * 720))
    assert p.prob(non)[0] == 0


def test_sort_sampler_frequencies():
    p = stair_distribution(5, 5, 2, 3.0, layout="sort")
    x = p.sample(4000, seed=0)
    st = p.stair_of(x)
    assert (st >= 0).all()
    assert stats.binomtest(int((st == 0).sum()), 4000, 0.75).pvalue > 0.001
    # uniform within a stair: chi-square over the 60 high-stair permutations
    _, _, counts = group_rows(x[st == 0])
    assert len(counts) == 60
    assert stats.chisquare(counts).pvalue > 0.001


def test_table_sampler_frequencies():
    p = stair_distribution(6, 6, 3, 2.0)
    x = p.sample(20000, seed=1)
    st = p.stair_of(x)
    obs = np.bincount(st + 1, minlength=4)
    assert obs[0] == 0
    assert stats.chisquare(obs[1:], 20000 * p.stair_masses).pvalue > 0.001


def test_sampling_is_seeded():
    p = stair_distribution(6, 6, 3, 2.0)
    np.testing.assert_array_equal(p.sample(50, seed=7), p.sample(50, seed=7))
    assert not np.array_equal(p.sample(50, seed=7), p.sample(50, seed=8))


# ---------------------------------------------------------------------- large Ω: no int64 index
def test_20_to_the_20_never_overflows():
    p = stair_distribution(20, 20, 2, 3.0, layout="sort")
    assert p.size == 20**20 > 2**63
    assert p.stair_sizes == (math.factorial(20) // 2,) * 2
    np.testing.assert_allclose(p.stair_masses, [0.75, 0.25])
    x = p.sample(2000, seed=0)
    assert x.dtype == np.uint8
    assert x.shape == (2000, 20)
    assert (p.stair_of(x) >= 0).all()
    with pytest.raises(ValueError, match="int64 overflow"):
        p.index_of(x)
    with pytest.raises(ValueError, match="too large"):
        stair_distribution(20, 20, 2, 3.0)  # index layout would need a table over Ω


def test_index_roundtrip_small_space(rng):
    idx = rng.integers(0, 5**7, size=100)
    rows = index_to_rows(idx, 5, 7)
    np.testing.assert_array_equal(rows_to_index(rows, 5), idx)
    # product order
    assert rows_to_index(np.array([[0, 0, 1], [0, 1, 0], [1, 0, 0]]), 3).tolist() == [1, 3, 9]


# ---------------------------------------------------------------------- grouping and hashing
def test_group_rows_exact(rng):
    rows = rng.integers(0, 3, size=(500, 4)).astype(np.uint8)
    first, inv, counts = group_rows(rows)
    np.testing.assert_array_equal(rows, rows[first[inv]])
    uniq, cnt = np.unique(rows, axis=0, return_counts=True)
    assert len(first) == len(uniq)
    assert sorted(counts.tolist()) == sorted(cnt.tolist())


def test_group_rows_survives_hash_collisions(monkeypatch, rng):
    rows = rng.integers(0, 3, size=(200, 4)).astype(np.uint8)
    monkeypatch.setattr(_space, "hash_rows", lambda r, seed=0: np.zeros(r.shape[0], np.uint64))
    first, inv, counts = _space.group_rows(rows)
    np.testing.assert_array_equal(rows, rows[first[inv]])
    assert len(first) == len(np.unique(rows, axis=0))
    assert counts.sum() == 200


def test_hash_depends_on_seed_and_row_only(rng):
    rows = rng.integers(0, 20, size=(1000, 20)).astype(np.uint8)
    h0 = _space.hash_rows(rows, 0)
    np.testing.assert_array_equal(h0, _space.hash_rows(rows.copy(), 0))
    assert (h0 != _space.hash_rows(rows, 1)).mean() > 0.99
    # roughly uniform into k bins
    obs = np.bincount((h0 % np.uint64(7)).astype(int), minlength=7)
    assert stats.chisquare(obs).pvalue > 0.001


# ---------------------------------------------------------------------- validation of rows
def test_check_rows_accepts_frames_of_categoricals():
    frame = pd.DataFrame(
        {
            "a": pd.Categorical(["x", "y", "x"], categories=["x", "y", "z"]),
            "b": pd.Categorical(["z", "z", "y"], categories=["x", "y", "z"]),
        }
    )
    rows = check_rows(frame, n_categories=3, length=2)
    np.testing.assert_array_equal(rows, [[0, 2], [1, 2], [0, 1]])


def test_check_rows_messages():
    with pytest.raises(ValueError, match="1-D"):
        check_rows(np.arange(5))
    with pytest.raises(ValueError, match="negative category -1"):
        check_rows([[0, -1]])
    with pytest.raises(ValueError, match=r"category 6, outside 0..5"):
        check_rows([[0, 6]], n_categories=6)
    with pytest.raises(ValueError, match="non-integer"):
        check_rows([[0.5, 1.0]])
    with pytest.raises(ValueError, match="length L=3"):
        check_rows([[0, 1]], length=3)
    with pytest.raises(TypeError, match="integer category codes"):
        check_rows(np.array([["a", "b"]]))
    frame = pd.DataFrame({"a": pd.Categorical(["x", None])})
    with pytest.raises(ValueError, match="missing values"):
        check_rows(frame)


def test_inputs_not_modified():
    x = np.array([[1, 2], [0, 1]], dtype=np.int64)
    before = x.copy()
    out = check_rows(x)
    out[0, 0] = 5
    np.testing.assert_array_equal(x, before)


# ---------------------------------------------------------------------- table and function refs
def test_from_table_level_sets_and_validation():
    p = np.array([0.4, 0.2, 0.2, 0.2, 0, 0, 0, 0])
    ref = CategoricalReference.from_table(p, 2, 3)
    assert ref.stair_sizes == (1, 3)
    np.testing.assert_array_equal(ref.stair_labels, [0, 1, 1, 1, -1, -1, -1, -1])
    with pytest.raises(ValueError, match="sum to 1"):
        CategoricalReference.from_table(p * 2, 2, 3)
    with pytest.raises(ValueError, match="8 entries"):
        CategoricalReference.from_table(p[:5], 2, 3)
    with pytest.raises(ValueError, match="level sets"):
        CategoricalReference.from_table(p, 2, 3, stairs=[0, 0, 1, 1, -1, -1, -1, -1])


def test_from_function_matches_table():
    table = stair_distribution(4, 4, 2, 3.0, layout="index", positive_fraction=24 / 256)
    fn = CategoricalReference.from_function(
        lambda r: table.table[rows_to_index(r, 4)],
        {float(table.stair_probs[0]): 12, float(table.stair_probs[1]): 12},
        4,
        4,
    )
    rows = index_to_rows(np.arange(256), 4, 4)
    np.testing.assert_array_equal(fn.stair_of(rows), table.stair_labels)
    with pytest.raises(ValueError, match="total mass"):
        CategoricalReference.from_function(lambda r: r[:, 0], {0.1: 3}, 4, 4)
    with pytest.raises(ValueError, match="no sampler"):
        fn.sample(10, seed=0)


# ---------------------------------------------------------------------- perturbations
@pytest.mark.parametrize(("l1", "l2"), [(0.1, 0.0063), (0.15, 0.0094), (0.2, 0.0126)])
def test_perturb_distances_are_l1_not_tv(l1, l2):
    p = stair_distribution(6, 6, 3, 2.0)
    q = perturb(p, l1=l1, seed=3)
    d = distances(p, q)
    assert d["l1"] == pytest.approx(l1, rel=1e-9)
    assert d["tv"] == pytest.approx(l1 / 2, rel=1e-9)  # the paper's "TV 0.1" is an l1 of 0.1
    assert d["l2"] == pytest.approx(l2, abs=2e-4)
    assert q.table.min() >= 0
    assert q.table.sum() == pytest.approx(1.0)


def test_perturb_counts_match_errfunct():
    p = stair_distribution(6, 6, 3, 2.0)
    q = perturb(p, l1=0.1, seed=0)
    diff = q.table - p.table
    e_add = 0.05 / (107 + 45)
    e_rem = 0.05 / 108
    assert np.isclose(diff, e_add).sum() == 107 + 45
    assert np.isclose(diff, -e_rem).sum() == 108
    assert np.isclose(diff[720:765], e_add).all()
    assert (diff[765:] == 0).all()
    assert distances(p, perturb(p, tv=0.05, seed=0))["l1"] == pytest.approx(0.1)


def test_perturb_validation():
    p = stair_distribution(6, 6, 3, 2.0)
    with pytest.raises(ValueError, match="exactly one"):
        perturb(p, l1=0.1, tv=0.05)
    with pytest.raises(ValueError, match="too large"):
        perturb(p, l1=0.5, seed=0)
    with pytest.raises(ValueError, match="table reference"):
        perturb(stair_distribution(6, 6, 2, 3.0, layout="sort"), l1=0.1)
    q0 = perturb(p, l1=0.0, seed=1)
    assert distances(p, q0)["l1"] == 0
