"""The digits study's analysis on its committed arrays: pools, draws, rejections, Figure 3."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from modelcompare import power_criterion_map
from tests.case_studies import load_case_study

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "examples" / "data" / "digits.npz"

digits = load_case_study("digits")


@pytest.fixture(scope="module")
def data() -> dict[str, np.ndarray]:
    with np.load(DATA) as f:
        return dict(f)


@pytest.fixture(scope="module")
def pools(data) -> dict[str, np.ndarray]:
    return {k: data[f"pool_{k}"].astype(np.float64) for k in ("S", "N", "RS", "RN")}


def _tagged(n: int) -> dict[str, np.ndarray]:
    """Pools whose rows carry their pool and index, to check which rows a trial used."""
    return {k: np.column_stack([np.full(n, i), np.arange(n)]) for i, k in enumerate(digits.POOLS)}


def test_draws_within_a_pool_are_disjoint_and_rm_is_an_equal_mixture():
    pools = _tagged(100)
    rng = np.random.default_rng(0)
    for problem in digits.PROBLEMS:
        x, y, z = digits.draw_problem(problem, pools, 30, rng)
        rows = [tuple(r) for r in np.vstack([x, y, z])]
        assert len(set(rows)) == 90
    _, _, rm = digits.draw_problem(digits.PROBLEMS[4], pools, 30, rng)
    np.testing.assert_array_equal(np.bincount(rm[:, 0].astype(int), minlength=4)[2:], [15, 15])
    with pytest.raises(ValueError, match="pool 'RS' holds 100 rows; this trial needs 120"):
        digits.draw_problem(digits.PROBLEMS[1], pools, 40, rng)


def test_locations_are_half_from_each_group_and_nested():
    a, b = np.zeros((60, 2)), np.ones((60, 2))
    locs = digits.random_locations((a, b), np.random.default_rng(0))
    for j in digits.J_VALUES:
        assert locs[j].shape == (j, 2)
        assert locs[j][:, 0].sum() == j // 2
    a = np.arange(60.0)[:, None]
    locs = digits.random_locations((a, a + 100), np.random.default_rng(1))
    assert set(locs[10].ravel()) <= set(locs[40].ravel())


def test_the_committed_pools_are_the_designs_sizes(data, pools):
    assert pools["S"].shape == pools["N"].shape == (2000, 8)
    assert len(pools["RS"]) >= 3 * 120  # problem 2 draws P, Q and R from RS
    assert len(pools["RN"]) >= 2 * 120
    assert data["locations_RS"].shape == data["locations_RN"].shape == (60, 8)
    assert data["fig3_images"].shape == (180, 64)
    assert data["fig3_images"].max() <= 16
    assert float(data["classifier_accuracy"]) > 0.9
    assert DATA.stat().st_size < 300_000


def test_the_analysis_on_the_committed_pools(data, pools):
    loc = (data["locations_RS"].astype(float), data["locations_RN"].astype(float))
    rej = digits.run_study(pools, loc, n=60, n_trials=4, seed=0, fid_trials=2, problems=(1, 4))
    assert set(rej) == set(digits.TESTS)
    assert np.isnan(rej["Rel-MMD"][[1, 2, 4]]).all()
    assert np.isnan(rej["FID(P,R) > FID(Q,R)"][0, 2:]).all()
    columns, rows = digits.rejection_table(rej)
    assert columns[:5] == ["problem", "P", "Q", "R", "truth"]
    assert [r[0] for r in rows] == [1, 4]
    # problem 4 (Q = N fits R = RN) is easy at n = 60: every calibrated test finds Q better
    assert all(v == 1.0 for v in rows[1][5:-1])
    # a subset of problems runs the same trials as the whole study
    again = digits.run_study(pools, loc, n=60, n_trials=4, seed=0, fid_trials=2, problems=(4,))
    np.testing.assert_array_equal(again["Rel-KID"][3], rej["Rel-KID"][3])


def test_the_committed_table_names_every_test():
    record = json.loads((ROOT / "benchmarks" / "results" / "digits_table1.json").read_text())
    assert record["columns"][5:] == list(digits.TESTS)
    assert len(record["rows"]) == len(digits.PROBLEMS)
    for row in record["rows"]:
        assert all(0.0 <= v <= 1.0 for v in row[5:])


def test_figure3_summary_on_the_committed_candidates(data):
    crit = power_criterion_map(
        data["fig3_P"], data["fig3_Q"], data["fig3_R"], data["fig3_candidates"], seed=0
    ).criterion
    s = digits.figure3_summary(crit, data["fig3_groups"])
    assert len(s["top_groups"]) == 15
    assert s["top_share_A"] + s["top_share_B"] + s["top_share_C"] == pytest.approx(1.0)
    # the shared group C is fitted by both models: its criterion is the smallest of the three
    assert s["median_C"] < min(s["median_A"], s["median_B"])
    toy = digits.figure3_summary(np.array([3.0, 2.0, 0.0, -1.0]), np.array(list("BACA")), top=2)
    assert toy["top_groups"] == ["B", "A"]
    assert toy["share_negative"] == 0.25
