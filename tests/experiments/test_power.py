"""power_study: rejection rates, binomial intervals, size of a real test."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy import stats

from modelcompare import c2st, power_study
from modelcompare._foundation.errors import ModelCompareWarning


def normal_mean(n, shift, seed):
    return (seed.normal(shift, 1.0, size=n),)


def ttest(x, seed):
    return stats.ttest_1samp(x, 0.0)


def gaussians(shift, seed):
    return seed.normal(size=(40, 2)), seed.normal(shift, 1.0, size=(40, 2))


def uniform_pvalue(seed):
    return {"pvalue": float(np.random.default_rng(seed).random())}


def test_power_matches_theory_for_the_t_test():
    res = power_study(
        ttest,
        normal_mean,
        n_trials=150,
        alpha=0.05,
        settings={"n": [20], "shift": [0.0, 0.5]},
        seed=1,
        progress=False,
    )
    table = res.table
    assert list(table.columns[:2]) == ["n", "shift"]
    assert table["n_trials"].tolist() == [150, 150]
    # exact power of the two-sided one-sample t-test (noncentral t)
    df, nc = 19, 0.5 * np.sqrt(20)
    crit = stats.t.ppf(0.975, df)
    exact = [0.05, stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc)]
    for row, p in zip(table.itertuples(), exact, strict=True):
        k, n = row.n_rejected, row.n_trials
        assert row.power == k / n
        assert stats.binomtest(k, n, p).pvalue > 0.01
        assert row.power_low <= p <= row.power_high
    assert np.array_equal(res.power, table["power"].to_numpy())


def test_intervals_are_clopper_pearson_or_wilson():
    res = power_study(
        uniform_pvalue, lambda seed: (), n_trials=40, alpha=[0.1, 0.5], seed=0, progress=False
    )
    for row in res.table.itertuples():
        k, n, a = row.n_rejected, row.n_trials, 0.05
        low = stats.beta.ppf(a / 2, k, n - k + 1) if k > 0 else 0.0
        high = stats.beta.ppf(1 - a / 2, k + 1, n - k) if k < n else 1.0
        assert row.power_low == pytest.approx(low, rel=1e-9)
        assert row.power_high == pytest.approx(high, rel=1e-9)
    wil = power_study(
        uniform_pvalue,
        lambda seed: (),
        n_trials=40,
        alpha=0.5,
        seed=0,
        progress=False,
        ci_method="wilson",
        confidence_level=0.9,
    )
    row = wil.table.iloc[0]
    k, n, z = row["n_rejected"], row["n_trials"], stats.norm.ppf(0.95)
    p = k / n
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z / (1 + z**2 / n) * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    assert row["power_low"] == pytest.approx(centre - half, rel=1e-9)
    assert row["power_high"] == pytest.approx(centre + half, rel=1e-9)
    # the levels are read from the same p-values
    assert res.table["n_rejected"].tolist() == [
        int((res.pvalues["pvalue"] <= a).sum()) for a in (0.1, 0.5)
    ]


def test_c2st_logistic_size_and_power():
    test = functools.partial(c2st, classifier="logistic")
    res = power_study(
        test,
        gaussians,
        n_trials=30,
        settings=[{"shift": 0.0}, {"shift": 1.2}],
        seed=3,
        progress=False,
    )
    size, power = res.table.itertuples()
    assert (
        stats.binomtest(size.n_rejected, size.n_trials, 0.05, alternative="greater").pvalue > 0.01
    )
    assert power.power > 0.9


def test_same_seed_same_data_across_tests():
    # common random numbers: two studies with the same seed test the same data sets
    def stat_mean(x, seed):
        return {"pvalue": 0.5, "statistic": float(np.mean(x))}

    def stat_mean_again(x, seed):
        return {"pvalue": 0.2, "statistic": float(np.mean(x))}

    kw = {"n_trials": 5, "settings": {"n": [10], "shift": [0.1]}, "seed": 2, "progress": False}
    a = power_study(stat_mean, normal_mean, **kw)
    b = power_study(stat_mean_again, normal_mean, **kw)
    assert a.pvalues["statistic"].tolist() == b.pvalues["statistic"].tolist()
    assert a.pvalues["statistic"].nunique() == 5


def test_failed_trials_are_counted_not_fatal():
    def sometimes(seed):
        value = float(np.random.default_rng(seed).random())
        if value < 0.3:
            msg = "boom"
            raise RuntimeError(msg)
        return value

    res = power_study(sometimes, lambda seed: (), n_trials=30, alpha=0.6, seed=0, progress=False)
    row = res.table.iloc[0]
    assert row["n_failed"] + row["n_trials"] == 30
    assert row["n_failed"] == int(res.pvalues["error"].notna().sum()) > 0
    with pytest.warns(ModelCompareWarning, match=r"every trial failed \(3 of 3\).*invalid p-value"):
        bad = power_study(
            lambda seed: float("nan"), lambda seed: (), n_trials=3, seed=0, progress=False
        )
    assert bad.table["n_failed"].iloc[0] == 3
    assert np.isnan(bad.power[0])
    assert "invalid p-value" in bad.pvalues["error"].iloc[0]


def test_power_study_resumable(tmp_path):
    kw = {"n_trials": 6, "settings": {"n": [10], "shift": [0.0]}, "seed": 5, "progress": False}
    first = power_study(ttest, normal_mean, out=tmp_path / "p.csv", **kw)
    again = power_study(ttest, normal_mean, out=tmp_path / "p.csv", **kw)
    assert again.pvalues.attrs["n_skipped"] == 6
    assert first.table.equals(again.table)
    plain = power_study(ttest, normal_mean, **kw)
    assert plain.pvalues["pvalue"].tolist() == first.pvalues["pvalue"].tolist()


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"n_trials": 0}, ValueError, "n_trials"),
        ({"n_trials": 2, "alpha": 1.5}, ValueError, "alpha"),
        ({"n_trials": 2, "alpha": []}, ValueError, "alpha"),
        ({"n_trials": 2, "ci_method": "wald"}, ValueError, "ci_method"),
        ({"n_trials": 2, "settings": [{"trial": 1}]}, ValueError, "trial"),
        ({"n_trials": 2, "settings": [{"n": 1}, {"n": 1}]}, ValueError, "twice"),
        ({"n_trials": 2, "settings": "n=3"}, TypeError, "settings"),
        ({"n_trials": 2, "settings": {"shift": []}}, ValueError, "settings.*'shift'"),
        ({"n_trials": 2, "settings": {"n": [10], "shift": []}}, ValueError, "settings"),
        ({"n_trials": 2, "settings": []}, ValueError, "settings"),
        ({"n_trials": 2, "settings": [{"n": 10, 1: 2}]}, TypeError, r"settings\[0\]"),
        ({"n_trials": 2, "settings": {"n": [10], 1: [2]}}, TypeError, "settings"),
        ({"n_trials": 2, "alpha": float("nan")}, ValueError, "alpha"),
        ({"n_trials": 2, "alpha": [0.05, float("nan")]}, ValueError, "alpha"),
        ({"n_trials": 2, "alpha": True}, TypeError, "alpha"),
        ({"n_trials": 2, "n_jobs": 0}, ValueError, "n_jobs"),
        ({"n_trials": 2, "n_jobs": True}, TypeError, "n_jobs"),
        ({"n_trials": 2, "n_jobs": 2.0}, TypeError, "n_jobs"),
        ({"n_trials": 2, "progress": "x"}, TypeError, "progress"),
    ],
)
def test_power_study_bad_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        power_study(ttest, normal_mean, seed=0, progress=False, **kwargs)


def test_settings_where_every_trial_fails_are_flagged():
    def fragile(x, seed):
        if x.size < 5:
            msg = "too few draws"
            raise ValueError(msg)
        return stats.ttest_1samp(x, 0.0)

    kw = {"n_trials": 4, "settings": {"n": [3, 20], "shift": [0.0]}, "seed": 0, "progress": False}
    with pytest.warns(ModelCompareWarning, match=r"1 of 2 settings.*too few draws"):
        res = power_study(fragile, normal_mean, **kw)
    assert np.isnan(res.power[0])
    assert res.table["n_failed"].tolist() == [4, 0]
    assert np.isfinite(res.power[1])
