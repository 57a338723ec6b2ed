"""The sbibm study's analysis on its committed fixture: ground truth, verdicts, rejection rates.

The fixture (``tests/data/sbibm_two_moons.npz``, written by ``benchmarks/sbibm_study.py
--stage fixture``) holds, for two NPE estimators of sbibm's two_moons task (10³ and 10⁴
simulations), reference and estimator draws at three observations with the C2ST the study
computed on them, and a 300-pair calibration set with each estimator's PIT values and SBC ranks.
Neither sbi nor sbibm is needed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from modelcompare.workflows import report_from_arrays
from tests.case_studies import load_case_study

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "sbibm_two_moons.npz"


study = load_case_study("sbibm_study")


@pytest.fixture(scope="module")
def data() -> dict[str, np.ndarray]:
    with np.load(FIXTURE) as f:
        return dict(f)


@pytest.fixture(scope="module")
def estimators(data) -> list[dict]:
    """The two estimators as the study records them, with reports built from the arrays."""
    out = []
    n_obs = data["x_obs"].shape[0]
    for budget in data["budgets"]:
        report = report_from_arrays(
            pit_values=data[f"pit_{budget}"],
            x=data["x"],
            x_obs=data["x_obs"],
            ranks=data[f"ranks_{budget}"],
            n_posterior_samples=int(data["n_posterior_samples"]),
            seed=0,
        )
        c2st = [float(v) for v in data[f"c2st_{budget}"]]
        out.append(
            {
                "name": f"two_moons_n{budget}_s0",
                "task": "two_moons",
                "budget": int(budget),
                "seed": 0,
                "c2st_obs": c2st,
                "c2st_global": float(np.mean(c2st)),
                "verdicts": study.report_verdicts(report, n_obs),
                "report": report,
            }
        )
    return out


@pytest.mark.torch
def test_ground_truth_c2st_reproduces_the_stored_values(data) -> None:
    pytest.importorskip("torch")  # sbibm's MLP classifier, as the study ran it
    for budget in data["budgets"]:
        for j in range(data["x_obs"].shape[0]):
            acc = study.ground_truth_c2st(
                data["reference"][j], data[f"draws_{budget}"][j], n=None, seed=j
            )
            # the compiled kernel and the torch engine agree up to float32 rounding
            assert acc == pytest.approx(data[f"c2st_{budget}"][j], abs=0.02)


def test_ground_truth_c2st_separates_a_shift_from_a_resample() -> None:
    rng = np.random.default_rng(0)
    ref, same, shifted = rng.normal(size=(3, 1000, 2)) + np.array([[0.0], [0.0], [1.0]])[..., None]
    # a shift of 1 in each of two coordinates: Bayes accuracy Φ(√2 / 2) = 0.76
    assert abs(study.ground_truth_c2st(ref, same, classifier="logistic") - 0.5) < 0.04
    assert study.ground_truth_c2st(ref, shifted, classifier="logistic") > 0.7
    # subsampled to n rows a side: both sets, seeded
    small = study.ground_truth_c2st(ref, shifted, n=100, classifier="logistic")
    assert small == study.ground_truth_c2st(ref, shifted, n=100, classifier="logistic")
    assert small != study.ground_truth_c2st(ref, shifted, n=100, classifier="logistic", seed=1)


def test_the_fixture_spans_a_bad_and_a_good_estimator(data) -> None:
    small, large = (data[f"c2st_{b}"] for b in data["budgets"])
    assert small.mean() > large.mean()


def test_report_verdicts_agree_with_the_report(estimators) -> None:
    from modelcompare.workflows._findings import point_pvalues

    for e in estimators:
        report, v = e["report"], e["verdicts"]
        failures = set(report.failures(0.05))
        table = report.checks.set_index("name")
        assert set(v["checks"]) == set(table.index)
        for name, c in v["checks"].items():
            assert c["rejects"] == (name in failures)
            if c["pvalue_adjusted"] is not None and name != "misspecification":
                assert c["rejects"] == (c["pvalue_adjusted"] <= 0.05)
        assert v["local"], "the report ran no local check"
        for name, loc in v["local"].items():
            assert len(loc["rejects"]) == 3
            np.testing.assert_allclose(loc["pvalues"], point_pvalues(report, name)[-3:])
            # a point rejects only when its check does, and a check's p is its smallest point's
            assert not any(loc["rejects"]) or name in failures
            assert min(loc["pvalues"]) >= v["checks"][name]["pvalue_adjusted"] - 1e-12
        assert v["any_posterior_failure"] == bool(failures - {"misspecification"})


def test_verdict_records_pair_each_verdict_with_its_ground_truth(estimators) -> None:
    records = study.verdict_records(estimators)
    for e in estimators:
        mine = records[records["name"] == e["name"]]
        local = mine[mine["scope"] == "local"]
        n_local = len(e["verdicts"]["local"])
        assert len(local) == 3 * (n_local + 1)  # each local check, and "any local"
        for name, loc in e["verdicts"]["local"].items():
            rows = local[local["check"] == name].sort_values("obs")
            assert rows["c2st"].tolist() == e["c2st_obs"]
            assert rows["rejects"].tolist() == loc["rejects"]
        anyl = local[local["check"] == "any local"].sort_values("obs")["rejects"].tolist()
        expected = np.any([loc["rejects"] for loc in e["verdicts"]["local"].values()], axis=0)
        assert anyl == expected.tolist()
        glob = mine[mine["scope"] == "global"]
        assert (glob["c2st"] == e["c2st_global"]).all()
        assert "scores" not in set(glob["check"])  # a score is not a test
        ran = {n for n, c in e["verdicts"]["checks"].items() if c["skipped"] is None}
        assert set(glob["check"]) == (ran - {"scores"}) | {"report"}


def test_rejection_table_counts_only_clear_units_with_wilson_intervals() -> None:
    import pandas as pd

    def row(c2st: float, rejects: bool, scope: str = "global", check: str = "a") -> dict:
        return {"scope": scope, "check": check, "c2st": c2st, "rejects": rejects}

    # check "a": 10 bad units (7 reject), 20 good (1 rejects), 5 in between (all reject)
    rows = [row(0.8, i < 7) for i in range(10)] + [row(0.5, i < 1) for i in range(20)]
    rows += [row(0.58, True) for _ in range(5)]
    # the boundaries themselves count in neither group; a missing ground truth is left out
    rows += [row(0.6, True), row(0.55, True), row(np.nan, True)]
    rows.append(row(0.9, False, scope="local", check="b"))
    table = study.rejection_table(pd.DataFrame(rows)).set_index(["scope", "check"])
    a = table.loc[("global", "a")]
    assert (a.k_bad, a.n_bad, a.k_good, a.n_good) == (7, 10, 1, 20)
    assert a.rate_bad == pytest.approx(0.7)
    assert a.rate_good == pytest.approx(0.05)
    for k, n, lo, hi in ((7, 10, a.bad_lo, a.bad_hi), (1, 20, a.good_lo, a.good_hi)):
        ci = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
        assert (lo, hi) == pytest.approx((ci.low, ci.high), abs=1e-9)
    b = table.loc[("local", "b")]
    assert (b.k_bad, b.n_bad, b.n_good) == (0, 1, 0)
    assert np.isnan(b.rate_good)
    text = study.markdown_table(table.reset_index())
    assert "0.70 [0.40, 0.89] (7/10)" in text
    assert "— (0 units)" in text


def test_wilson_interval_edges() -> None:
    assert study.wilson_interval(0, 10)[0] == 0.0
    assert study.wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert study.wilson_interval(0, 10)[1] == pytest.approx(0.2775, abs=1e-4)
    assert all(np.isnan(study.wilson_interval(0, 0)))


def test_the_study_end_to_end_on_the_fixture(estimators) -> None:
    records = study.verdict_records(estimators)
    order = ("any local", *study.LOCAL_CHECKS, *study.GLOBAL_CHECKS, "report")
    table = study.rejection_table(records, order=order)
    scopes = list(table["scope"])
    assert scopes == sorted(scopes, key=lambda s: s != "local")  # local rows first
    assert "lc2st_nf" not in set(table["check"])  # it needs the flow: skipped from arrays
    c2st = np.concatenate([e["c2st_obs"] for e in estimators])
    row = table[(table["scope"] == "local") & (table["check"] == "any local")].iloc[0]
    assert (row.n_bad, row.n_good) == ((c2st > 0.6).sum(), (c2st < 0.55).sum())
    report = table[table["check"] == "report"].iloc[0]
    glob = np.array([e["c2st_global"] for e in estimators])
    assert (report.n_bad, report.n_good) == ((glob > 0.6).sum(), (glob < 0.55).sum())


def test_binned_rates_count_each_unit_in_its_bin() -> None:
    import pandas as pd

    c2st = [0.50, 0.52, 0.56, 0.61, 0.75, 0.95, 0.99]
    rejects = [False, True, False, True, True, True, False]
    records = pd.DataFrame(
        {"scope": "local", "check": "a", "c2st": c2st, "rejects": rejects}
        | {"name": "e", "obs": range(7)}
    )
    edges = (0.0, 0.55, 0.6, 0.7, 1.01)
    table = study.binned_rates(records, ["a"], edges)
    assert table["n"].tolist() == [2, 1, 1, 3]
    assert table["k"].tolist() == [1, 0, 1, 2]
    assert table["n"].sum() == len(c2st)
    assert study.binned_rates(records, ["other"], edges).empty
