"""ℓ2 closeness tests on binned counts: exact moments, thresholds, size, power, result protocol."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math

import numpy as np
import pytest
from scipy import stats

from modelcompare import ClosenessResult, closeness_test, two_sample_closeness_test
from modelcompare._foundation.results import TestResult
from modelcompare.categorical import l2_statistic, l2_statistic_variance


def _multinomial_outcomes(m: int, q: np.ndarray):
    """All count vectors of m draws over len(q) bins with their probabilities."""
    k = len(q)
    for cut in itertools.combinations(range(m + k - 1), k - 1):
        bounds = (-1, *cut, m + k - 1)
        n = np.array([bounds[i + 1] - bounds[i] - 1 for i in range(k)])
        yield n, stats.multinomial.pmf(n, m, q)


def test_statistic_equals_collision_form():
    # T = [self-collisions/C(m,2)] - 2 (cross-collisions with p)/m + ||p||^2, pairs counted directly
    p = np.array([0.5, 0.3, 0.2])
    labels = np.array([0, 0, 1, 2, 2, 2, 1, 0, 0])
    m = len(labels)
    n = np.bincount(labels, minlength=3)
    self_pairs = sum(labels[i] == labels[j] for i in range(m) for j in range(i + 1, m))
    direct = self_pairs / math.comb(m, 2) - 2 * sum(p[x] for x in labels) / m + p @ p
    assert l2_statistic(p, n) == pytest.approx(direct, rel=1e-12)


@pytest.mark.parametrize(
    ("p", "q"),
    [
        ([0.5, 0.3, 0.2], [0.5, 0.3, 0.2]),
        ([0.5, 0.3, 0.2], [0.2, 0.2, 0.6]),
        ([0.25, 0.25, 0.25, 0.25], [0.4, 0.1, 0.1, 0.4]),
    ],
)
@pytest.mark.parametrize("m", [2, 3, 6])
def test_exact_mean_and_variance_by_enumeration(p, q, m):
    p, q = np.array(p), np.array(q)
    outcomes = list(_multinomial_outcomes(m, q))
    ts = np.array([l2_statistic(p, n) for n, _ in outcomes])
    w = np.array([w for _, w in outcomes])
    assert w.sum() == pytest.approx(1.0)
    mean = w @ ts
    var = w @ (ts - mean) ** 2
    assert mean == pytest.approx(np.sum((q - p) ** 2), abs=1e-12)  # unbiased for ||q - p||^2
    assert var == pytest.approx(l2_statistic_variance(p, q, m), rel=1e-9, abs=1e-15)


def test_null_variance_closed_form():
    p = np.array([0.1, 0.2, 0.3, 0.4])
    m = 50
    closed = 2 * (p @ p - 2 * np.sum(p**3) + (p @ p) ** 2) / (m * (m - 1))
    assert l2_statistic_variance(p, p, m) == pytest.approx(closed, rel=1e-12)


def test_paper_mode_batches_and_majority():
    p = np.full(4, 0.25)
    res = closeness_test(p, [250, 250, 250, 251], epsilon=0.1, alpha=0.05, seed=0)
    assert res.n_batches == 4
    assert res.batch_size == 1001 // 4
    assert res.threshold == pytest.approx(0.75 * 0.01)
    assert res.batch_statistics.shape == (4,)
    assert res.decision() is False
    assert res.epsilon == 0.1
    assert res.alpha == 0.05
    assert closeness_test(p, [100] * 4, alpha=0.01, seed=0).n_batches == 6  # floor(log2 100)
    # far from p: every batch rejects
    far = closeness_test(p, [1000, 0, 0, 0], epsilon=0.1, seed=0)
    assert far.decision()
    assert far.n_batches_rejecting == 4
    # the rule is "strictly more than half": recompute the decision from the batch statistics
    for s in range(20):
        r = closeness_test(p, [330, 230, 230, 230], epsilon=0.1, seed=s)
        assert r.decision() == ((r.batch_statistics > r.threshold).sum() > 2)


def test_amplified_mode_uses_more_batches():
    p = np.full(4, 0.25)
    res = closeness_test(p, [2500] * 4, epsilon=0.1, alpha=0.05, mode="amplified", seed=0)
    assert res.n_batches == math.ceil(8 * math.log(20)) == 24
    assert res.batch_size == 10000 // 24
    assert res.decision() is False
    assert closeness_test(p, [4000, 2000, 2000, 2000], mode="amplified", seed=0).decision()


def test_batches_preserve_counts_and_are_seeded():
    from modelcompare.categorical._closeness import _split_batches

    counts = np.array([5, 17, 0, 40])
    b = _split_batches(counts, 4, np.random.default_rng(0))
    assert (b.sum(axis=1) == counts.sum() // 4).all()
    assert (b.sum(axis=0) <= counts).all()
    b2 = _split_batches(counts, 4, np.random.default_rng(0))
    np.testing.assert_array_equal(b, b2)


def test_cantelli_and_tv_bound_thresholds():
    p = np.array([0.5, 0.25, 0.25])
    n = np.array([52, 25, 23])
    m, eps, alpha = 100, 0.1, 0.05
    e0 = eps / 2
    vbar = 4 * e0**2 / m + 2 * (1 + 2 * e0**2) / (m * (m - 1))
    res = closeness_test(p, n, epsilon=eps, alpha=alpha, mode="cantelli")
    assert res.threshold == pytest.approx(e0**2 + math.sqrt((1 - alpha) / alpha * vbar))
    assert res.statistic == pytest.approx(l2_statistic(p, n))
    tvb = closeness_test(p, n, epsilon=eps, alpha=alpha, mode="tv-bound")
    assert tvb.threshold == pytest.approx(
        max(math.sqrt(3 / 100), math.sqrt(2 / 100 * math.log2(40)))
    )
    assert tvb.statistic == pytest.approx(0.5 * np.abs(p - n / m).sum())


def test_asymptotic_pvalue_matches_threshold():
    p = np.array([0.4, 0.3, 0.3])
    n = np.array([60, 20, 20])
    res = closeness_test(p, n, epsilon=0.1, mode="asymptotic")
    assert 0 < res.pvalue < 1
    assert res.decision() == (res.pvalue <= 0.05) == (res.statistic > res.critical_value(0.05))
    for alpha in (0.01, 0.2, 0.5, 0.9):  # the p-value and the critical value agree at any level
        assert res.decision(alpha) == (res.statistic > res.critical_value(alpha))
    var = l2_statistic_variance(p, n / n.sum(), int(n.sum()))
    z = stats.norm.ppf(0.99)
    assert res.critical_value(0.01) == pytest.approx(0.05**2 + z * math.sqrt(var), rel=1e-12)


def test_asymptotic_degenerate_variance_is_flagged():
    from modelcompare import DegenerateDataWarning

    with pytest.warns(DegenerateDataWarning, match="variance"):
        res = closeness_test([1.0, 0.0], [10, 0], mode="asymptotic")
    assert res.degenerate
    assert res.pvalue == 1.0
    assert not res.decision()


def test_mc_pvalue_and_threshold_agree(rng):
    p = np.array([0.4, 0.3, 0.2, 0.1])
    for _ in range(5):
        n = rng.multinomial(60, [0.3, 0.3, 0.2, 0.2])
        res = closeness_test(p, n, mode="mc", n_resamples=199, seed=rng)
        assert 0 < res.pvalue <= 1
        for alpha in (0.01, 0.05, 0.2):
            assert res.decision(alpha) == (res.statistic > res.critical_value(alpha))
    # with B = 19 no p-value reaches 0.01: the critical value is infinite
    small = closeness_test(p, [30, 10, 10, 10], mode="mc", n_resamples=19, seed=0)
    assert small.critical_value(0.01) == math.inf
    assert small.decision(0.01) is False


@pytest.mark.parametrize("mode", ["mc", "cantelli", "asymptotic"])
def test_size_under_null(mode):
    # q = p with data-independent bins: false rejections <= delta
    rng = np.random.default_rng(2024)
    p = np.array([0.3, 0.25, 0.2, 0.15, 0.1])
    trials, alpha = 100, 0.05
    rej = sum(
        closeness_test(p, rng.multinomial(200, p), mode=mode, n_resamples=199, seed=rng).decision()
        for _ in range(trials)
    )
    assert stats.binomtest(rej, trials, alpha, alternative="greater").pvalue > 0.01


@pytest.mark.parametrize("mode", ["mc", "cantelli", "paper"])
def test_power_against_far_alternative(mode):
    rng = np.random.default_rng(7)
    p = np.array([0.3, 0.25, 0.2, 0.15, 0.1])
    q = np.array([0.1, 0.15, 0.2, 0.25, 0.3])  # ||q - p||_2 = 0.32 >> eps
    rej = sum(
        closeness_test(p, rng.multinomial(400, q), mode=mode, n_resamples=199, seed=rng).decision()
        for _ in range(30)
    )
    assert rej >= 28


def test_closeness_validation():
    with pytest.raises(ValueError, match="mode"):
        closeness_test([0.5, 0.5], [3, 3], mode="bogus")
    with pytest.raises(ValueError, match="sum to 1"):
        closeness_test([0.5, 0.6], [3, 3])
    with pytest.raises(ValueError, match="one entry per bin"):
        closeness_test([0.5, 0.5], [3, 3, 3])
    with pytest.raises(ValueError, match="epsilon"):
        closeness_test([0.5, 0.5], [3, 3], epsilon=0)
    with pytest.raises(ValueError, match="alpha"):
        closeness_test([0.5, 0.5], [3, 3], alpha=1.5)
    with pytest.raises(ValueError, match=r"alpha <= 0\.5"):
        closeness_test([0.5, 0.5], [3, 3], alpha=0.7)
    with pytest.raises(ValueError, match="2 samples per batch"):
        closeness_test([0.5, 0.5], [3, 3])
    with pytest.raises(ValueError, match="non-negative"):
        closeness_test([0.5, 0.5], [-1, 30])
    with pytest.raises(TypeError, match="RandomState"):
        closeness_test([0.5, 0.5], [30, 30], seed=np.random.RandomState(0))


def test_result_to_dict_and_repr():
    res = closeness_test([0.5, 0.5], [40, 60], seed=0)
    d = res.to_dict()
    assert list(d)[:4] == ["statistic", "pvalue", "threshold", "alpha"]
    assert d["pvalue"] is None
    assert "reject" not in d
    assert "delta" not in d
    assert d["epsilon"] == 0.1
    assert d["alpha"] == 0.05
    assert isinstance(d["batch_statistics"], list)
    json.dumps(d, allow_nan=False)
    assert repr(res).startswith("ClosenessResult(statistic=")
    mc = closeness_test([0.5, 0.5], [40, 60], mode="mc", n_resamples=99, seed=0)
    d = mc.to_dict()
    assert list(d)[:2] == ["statistic", "pvalue"]
    assert d["alpha"] is None
    assert d["threshold"] is None
    assert d["n_resamples"] == 99
    assert not any(k.startswith("_") for k in d)
    json.dumps(d, allow_nan=False)
    assert repr(mc).startswith("ClosenessResult(statistic=")
    for r in (res, mc):
        with pytest.raises(dataclasses.FrozenInstanceError):
            r.statistic = 0.0


@pytest.mark.parametrize(
    ("mode", "kwargs"),
    [("paper", {}), ("amplified", {}), ("cantelli", {}), ("tv-bound", {})],
)
def test_threshold_modes_decide_at_the_level_they_ran_at(mode, kwargs):
    p = np.full(4, 0.25)
    res = closeness_test(p, [700, 500, 500, 300], mode=mode, alpha=0.05, seed=0, **kwargs)
    assert type(res) is ClosenessResult
    assert isinstance(res, TestResult)
    assert res.pvalue is None
    assert res.alpha == 0.05
    assert res.decision() is True
    assert res.decision(0.05) is True
    assert res.decision(alpha=0.05) is True
    assert res.critical_value(0.05) == res.critical_value() == res.threshold
    with pytest.raises(ValueError, match=r"decides only at the level it ran at \(alpha=0\.05\)"):
        res.decision(0.01)  # the level was fixed when the test ran: no p-value to compare
    with pytest.raises(ValueError, match="alpha"):
        res.decision(0.0)
    assert closeness_test(p, [700, 500, 500, 300], mode=mode, seed=0, **kwargs).alpha == 0.05


@pytest.mark.parametrize("mode", ["mc", "asymptotic"])
def test_pvalue_modes_follow_the_test_protocol(mode):
    p = np.full(4, 0.25)
    res = closeness_test(p, [62, 50, 50, 38], mode=mode, n_resamples=999, seed=1)
    assert type(res) is ClosenessResult
    assert isinstance(res, TestResult)
    assert res.alpha is None
    assert res.threshold is None
    assert res.n_batches_rejecting is None
    assert 0.0 <= res.pvalue <= 1.0
    assert res.decision() == (res.pvalue <= 0.05)
    for a in (0.001, 0.01, 0.1, 0.5):
        assert res.decision(a) == (res.pvalue <= a)
    assert res.decision(alpha=res.pvalue) is True
    with pytest.raises(ValueError, match="alpha"):
        res.decision(0.0)


@pytest.mark.parametrize("mode", ["mc", "asymptotic"])
def test_a_level_given_to_a_pvalue_mode_is_kept_as_in_0_1_with_a_warning(mode):
    p = np.full(4, 0.25)
    with pytest.warns(FutureWarning, match=r"`alpha` = 0\.01 .*`result\.decision\(alpha\)`"):
        res = closeness_test(p, [62, 50, 50, 38], mode=mode, alpha=0.01, n_resamples=999, seed=1)
    assert res.alpha == 0.01
    assert res.decision() == (res.pvalue <= 0.01)  # the level it ran at, as in 0.1
    assert res.decision(0.5) == (res.pvalue <= 0.5)  # and any other
    assert res.threshold == res.critical_value(0.01)
    assert res.n_batches_rejecting == int(res.decision())
    with pytest.warns(FutureWarning, match="`alpha`"):
        two_sample = two_sample_closeness_test([60, 40], [45, 55], alpha=0.1, seed=0)
    assert (two_sample.alpha, two_sample.decision()) == (0.1, two_sample.pvalue <= 0.1)


def test_two_sample_result_protocol():
    perm = two_sample_closeness_test([60, 40], [45, 55], n_resamples=199, seed=0)
    assert type(perm) is ClosenessResult
    assert 0.0 < perm.pvalue <= 1.0
    assert perm.decision(0.5) == (perm.pvalue <= 0.5)
    assert perm.decision(0.5) == (perm.statistic > perm.critical_value(0.5))
    assert (perm.n_reference, perm.n_samples, perm.n_resamples) == (100, 100, 199)
    thr = two_sample_closeness_test([60, 40], [45, 55], mode="threshold", alpha=0.1)
    assert type(thr) is ClosenessResult
    assert thr.pvalue is None
    assert thr.alpha == 0.1
    assert thr.decision() == thr.decision(0.1) == (thr.statistic > thr.threshold)
    with pytest.raises(ValueError, match="no p-value"):
        thr.decision(0.05)


@pytest.mark.parametrize(
    ("test", "modes"),
    [
        (closeness_test, ("paper", "amplified", "cantelli", "tv-bound", "mc", "asymptotic")),
        (two_sample_closeness_test, ("threshold", "permutation")),
    ],
)
def test_every_mode_returns_one_type_decided_with_a_level(test, modes):
    """A threshold mode and a p-value mode give the same class, and ``decision(alpha)`` works."""
    reference = [260, 240, 250, 250] if test is two_sample_closeness_test else np.full(4, 0.25)
    results = [test(reference, [700, 500, 500, 300], mode=m, n_resamples=99, seed=0) for m in modes]
    assert {type(r) for r in results} == {ClosenessResult}
    for r in results:
        assert r.decision(alpha=0.05) is r.decision() is True
        assert set(r.to_dict()) == {f.name for f in dataclasses.fields(r) if f.name[0] != "_"}
        assert r.statistic > r.critical_value(alpha=0.05)


@pytest.mark.parametrize("old", ["ClosenessTestResult", "ClosenessThresholdResult"])
@pytest.mark.parametrize("package", ["modelcompare", "modelcompare.categorical"])
def test_the_two_former_result_classes_are_the_one_class_with_a_warning(old, package):
    import importlib

    module = importlib.import_module(package)
    with pytest.warns(FutureWarning, match=f"{old}`.*ClosenessResult`"):
        cls = getattr(module, old)
    assert cls is ClosenessResult
    assert old not in module.__all__


# ---------------------------------------------------------------------- two-sample (CDVV)
def test_cdvv_statistic_formula_and_bias():
    x = np.array([10, 5, 5])
    y = np.array([4, 8, 8, 0])[:3]
    m1, m2 = x.sum(), y.sum()
    res = two_sample_closeness_test(x, y, mode="threshold")
    z = np.sum((m2 * x - m1 * y) ** 2 - m2**2 * x - m1**2 * y) / (m1**2 * m2**2)
    assert res.statistic == pytest.approx(z)
    # exact mean under fixed-size multinomial sampling: ||p-q||^2 - ||p||^2/m1 - ||q||^2/m2
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.4, 0.4])
    m1, m2 = 3, 2
    mean = 0.0
    for nx, wx in _multinomial_outcomes(m1, p):
        for ny, wy in _multinomial_outcomes(m2, q):
            mean += wx * wy * two_sample_closeness_test(nx, ny, mode="threshold").statistic
    assert mean == pytest.approx(np.sum((p - q) ** 2) - p @ p / m1 - q @ q / m2, abs=1e-12)


def test_cdvv_poissonised_mean_is_unbiased():
    rng = np.random.default_rng(3)
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.4, 0.4])
    m = 50
    vals = []
    for _ in range(4000):
        x, y = rng.poisson(m * p), rng.poisson(m * q)
        vals.append(np.sum((x - y) ** 2 - x - y) / m**2)
    assert np.mean(vals) == pytest.approx(np.sum((p - q) ** 2), abs=4 * np.std(vals) / 60)


def test_two_sample_permutation_size_and_power():
    rng = np.random.default_rng(11)
    p = np.array([0.3, 0.25, 0.2, 0.15, 0.1])
    q = np.array([0.1, 0.15, 0.2, 0.25, 0.3])
    trials = 100
    rej0 = sum(
        two_sample_closeness_test(
            rng.multinomial(150, p), rng.multinomial(100, p), n_resamples=199, seed=rng
        ).decision()
        for _ in range(trials)
    )
    assert stats.binomtest(rej0, trials, 0.05, alternative="greater").pvalue > 0.01
    rej1 = sum(
        two_sample_closeness_test(
            rng.multinomial(150, p), rng.multinomial(100, q), n_resamples=199, seed=rng
        ).decision()
        for _ in range(20)
    )
    assert rej1 >= 19


def test_two_sample_validation():
    with pytest.raises(ValueError, match="equal length"):
        two_sample_closeness_test([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="at least 2"):
        two_sample_closeness_test([1, 0], [5, 5])
    with pytest.raises(ValueError, match="mode"):
        two_sample_closeness_test([5, 5], [5, 5], mode="paper")
    r1 = two_sample_closeness_test([5, 9], [7, 5], seed=3)
    r2 = two_sample_closeness_test([5, 9], [7, 5], seed=3)
    assert r1.pvalue == r2.pvalue
    assert r1.n_reference == 14
