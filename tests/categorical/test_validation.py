"""Input validation of the categorical part: argument types, bad values, the granularity limit,
non-finite statistics and inputs that must never be written to."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from modelcompare import (
    CategoricalReference,
    ClosenessResult,
    DegenerateDataWarning,
    adaptive_binning,
    closeness_test,
    granularity,
    perturb,
    random_binning,
    stair_distribution,
    two_sample_closeness_test,
)
from modelcompare.categorical import _closeness, distances, l2_statistic, l2_statistic_variance

MODES = ("paper", "amplified", "cantelli", "asymptotic", "mc", "tv-bound")
P_VALUE_MODES = ("asymptotic", "mc")


def _read_only(a):
    out = np.array(a)
    out.setflags(write=False)
    return out


@pytest.fixture(scope="module")
def small():
    """A 256-element space Ω = {0..3}^4 with a 192-element support (|Ω⁺| + 1 = 193)."""
    table = np.r_[np.full(128, 1 / 192), np.full(64, 1 / 192), np.zeros(64)]
    p = CategoricalReference.from_table(table, 4, 4)
    return p, p.sample(300, seed=0)


@pytest.fixture(scope="module")
def stairs():
    p = stair_distribution(6, 6, 3, 2.0)
    return p, p.sample(1000, seed=0)


# ---------------------------------------------------------------------- the granularity limit
def test_n_bins_above_the_finest_partition_is_refused_by_both_builders(small):
    p, x = small
    with pytest.raises(ValueError, match=r"`n_bins`=1000000 is above the finest partition.*<= 193"):
        adaptive_binning(p, x, n_bins=10**6, seed=0)
    with pytest.raises(ValueError, match=r"`n_bins`=1000000 is above the finest partition.*<= 256"):
        random_binning(p, n_bins=10**6, seed=0)
    with pytest.raises(ValueError, match=r"`n_bins`=194 .*\|Ω⁺\| \+ 1 = 193"):
        adaptive_binning(p, x, n_bins=194)
    with pytest.raises(ValueError, match=r"`n_bins`=257 .*\|Ω\| = 4\^4 = 256"):
        random_binning(p, n_bins=257)
    assert adaptive_binning(p, x, n_bins=193, seed=0).n_bins <= 193
    assert random_binning(p, n_bins=256, seed=0).n_bins == 256


def test_k_limit_on_a_rule_reference():
    p = stair_distribution(3, 3, 2, 2.0, layout="sort")  # |Ω| = 27, |Ω⁺| = 3! = 6
    x = p.sample(50, seed=0)
    with pytest.raises(ValueError, match=r"`n_bins`=8 .*<= 7"):
        adaptive_binning(p, x, n_bins=8)
    with pytest.raises(ValueError, match=r"`n_bins`=28 .*<= 27"):
        random_binning(p, n_bins=28)
    assert adaptive_binning(p, x, n_bins=7, seed=0).counts(x).sum() == 50


def test_k_range_is_bounded_before_anything_runs(small):
    p, x = small
    with pytest.raises(ValueError, match=r"`n_bins_grid`=1000000 is above the finest partition"):
        granularity(p, x, n_bins_grid=[2, 3, 10**6])
    with pytest.raises(ValueError, match=r"`n_bins_grid`=10{30}"):  # never materialised
        granularity(p, x, n_bins_grid=range(2, 10**30 + 1))
    y = p.sample(200, seed=1)
    with pytest.raises(ValueError, match=r"<= 500 \(the number of pooled sample rows"):
        granularity(None, x, reference_samples=y, n_bins_grid=[2, 501])
    with pytest.raises(TypeError, match=r"iterable of ints; got the element 4\.5"):
        granularity(p, x, n_bins_grid=[3, 4.5])
    with pytest.raises(TypeError, match="iterable of ints"):
        granularity(p, x, n_bins_grid=5)
    with pytest.raises(TypeError, match="iterable of ints"):
        granularity(p, x, n_bins_grid="345")
    assert granularity(p, x, n_bins_grid=range(2, 194), seed=0).k_values[-1] == 193


def test_default_levels_stop_at_the_finest_partition():
    p = CategoricalReference.from_table([0.6, 0.4], 2, 1)  # s = 3, 2s = 6, |Ω⁺| + 1 = 3
    res = granularity(p, p.sample(100, seed=0).reshape(-1, 1), seed=0)
    assert res.k_values.tolist() == [3]


# ---------------------------------------------------------------------- reference arguments
@pytest.mark.parametrize("bad", [None, np.ones(4), [0.5, 0.5], "stairs", 3])
def test_reference_arguments_must_be_categorical_references(stairs, bad):
    p, x = stairs
    name = type(bad).__name__
    with pytest.raises(TypeError, match=rf"`p` must be a CategoricalReference.*got {name}"):
        adaptive_binning(bad, x, n_bins=5)
    with pytest.raises(TypeError, match=rf"`p` must be a CategoricalReference.*got {name}"):
        random_binning(bad, n_bins=5)
    with pytest.raises(TypeError, match=rf"`p` must be a CategoricalReference.*got {name}"):
        perturb(bad, l1=0.1)
    with pytest.raises(TypeError, match=rf"`q` must be a CategoricalReference.*got {name}"):
        distances(p, bad)
    if bad is not None:  # p=None is the two-sample mode
        with pytest.raises(TypeError, match=rf"`p` must be a CategoricalReference.*got {name}"):
            granularity(bad, x)


# ---------------------------------------------------------------------- bad values
@pytest.mark.parametrize(
    ("p", "counts", "error", "message"),
    [
        ([0.5, 0.5 + 0j], [3, 7], TypeError, "`p_binned` must hold real"),
        ([0.5, 0.5], [3, 7 + 1j], TypeError, "`counts` must hold real"),
        ([0.5, np.nan], [3, 7], ValueError, "`p_binned` holds NaN or inf"),
        ([0.5, np.inf], [3, 7], ValueError, "`p_binned` holds NaN or inf"),
        ([1.5, -0.5], [3, 7], ValueError, "`p_binned` holds negative"),
        ([0.5, 0.5], [3, np.nan], ValueError, "`counts` holds NaN or inf"),
        ([0.5, 0.5], [3, np.inf], ValueError, "`counts` holds NaN or inf"),
        ([0.5, 0.5], [3, -7], ValueError, "`counts` holds negative"),
        ([0.5, 0.5], [3, 7.5], ValueError, "`counts` holds non-integer"),
        ([], [], ValueError, "`p_binned` is empty"),
        ([1.0], [], ValueError, "`counts` is empty"),
        ("ab", [1, 2], TypeError, "`p_binned` must be numeric"),
        (["0.5", "0.5"], [1, 2], TypeError, "`p_binned` must hold numeric"),
        ([0.5, 0.5], ["3", "7"], TypeError, "`counts` must hold numeric"),
        ([0.5, 0.5], "37", TypeError, "`counts` must be numeric"),
        ([0.5, 0.5], [[3, 7]], ValueError, "`counts` must be a 1-D"),
        ([0.5, 0.5], [2**62, 2**62], ValueError, r"`counts` totals .* above 2\*\*53"),
    ],
)
def test_closeness_test_refuses_bad_values(p, counts, error, message):
    with pytest.raises(error, match=message):
        closeness_test(p, counts)


@pytest.mark.parametrize(
    ("x", "y", "error", "message"),
    [
        ([3, 5 + 1j], [5, 3], TypeError, "`reference_counts` must hold real"),
        ([3, 5], [5, np.nan], ValueError, "`counts` holds NaN or inf"),
        ([3, -5], [5, 3], ValueError, "`reference_counts` holds negative"),
        ([3, 5], [5.5, 3], ValueError, "`counts` holds non-integer"),
        ([], [], ValueError, "`reference_counts` is empty"),
        (["3", "5"], [5, 3], TypeError, "`reference_counts` must hold numeric"),
    ],
)
def test_two_sample_test_refuses_bad_values(x, y, error, message):
    with pytest.raises(error, match=message):
        two_sample_closeness_test(x, y)


def test_options_and_statistics_refuse_bad_values():
    with pytest.raises(TypeError, match="`epsilon` must be a real number"):
        closeness_test([0.5, 0.5], [3, 7], epsilon="0.1")
    with pytest.raises(TypeError, match="`epsilon` must be a real number"):
        two_sample_closeness_test([3, 5], [5, 3], epsilon=True)
    with pytest.raises(ValueError, match="`epsilon` must be a finite positive"):
        two_sample_closeness_test([3, 5], [5, 3], epsilon=np.nan)
    with pytest.raises(ValueError, match="`epsilon0` must be a finite non-negative"):
        closeness_test([0.5, 0.5], [3, 7], mode="cantelli", epsilon0=-0.1)
    with pytest.raises(ValueError, match="`counts` holds NaN"):
        l2_statistic([0.5, 0.5], [[3, 7], [np.nan, 2]])
    with pytest.raises(ValueError, match="one entry per bin"):
        l2_statistic([0.5, 0.5], [3, 7, 1])
    with pytest.raises(TypeError, match="`q` must hold real"):
        l2_statistic_variance([0.5, 0.5], [0.5, 0.5j], 10)
    with pytest.raises(ValueError, match="`m` must be in"):
        l2_statistic_variance([0.5, 0.5], [0.5, 0.5], 1)


@pytest.mark.parametrize(
    ("table", "stairs", "error", "message"),
    [
        ([0.25, 0.25, 0.25, 0.25j], None, TypeError, "`p` must hold real"),
        ([0.25, 0.25, 0.25, np.nan], None, ValueError, "`p` holds NaN or inf"),
        ([0.5, 0.5, 0.5, -0.5], None, ValueError, "`p` holds negative"),
        (["0.25"] * 4, None, TypeError, "`p` must hold numeric"),
        ([], None, ValueError, "`p` is empty"),
        ([0.25] * 4, [0, 0, 0.5, 0], ValueError, "`stairs` must hold integer"),
        ([0.25] * 4, [0, 0, np.nan, 0], ValueError, "`stairs` must hold integer"),
        ([0.25] * 4, ["a"] * 4, TypeError, "`stairs` must hold integer"),
        ([0.25] * 4, [True] * 4, TypeError, "`stairs` must hold integer"),
    ],
)
def test_from_table_refuses_bad_values(table, stairs, error, message):
    with pytest.raises(error, match=message):
        CategoricalReference.from_table(table, 2, 2, stairs=stairs)


@pytest.mark.parametrize(
    ("rows", "error", "message"),
    [
        (np.zeros((3, 6), dtype=complex), TypeError, "complex values"),
        (np.full((3, 6), np.nan), ValueError, "NaN or inf"),
        (np.full((3, 6), 0.5), ValueError, "non-integer"),
        (np.zeros((0, 6), dtype=int), ValueError, "at least"),
        ([["a"] * 6] * 3, TypeError, "integer category codes"),
        ("abcdef", TypeError, "numeric array-like"),
    ],
)
def test_samples_refuse_bad_values(stairs, rows, error, message):
    p, _ = stairs
    with pytest.raises(error, match=message):
        granularity(p, rows)
    with pytest.raises(error, match=message):
        adaptive_binning(p, rows, n_bins=5)


# ---------------------------------------------------------------------- torch tensors
@pytest.mark.torch
def test_tensors_that_require_grad_are_detached(stairs):
    torch = pytest.importorskip("torch")
    p, x = stairs
    pt = torch.tensor([0.25, 0.75], dtype=torch.float64, requires_grad=True)
    nt = torch.tensor([30.0, 70.0], requires_grad=True)
    assert closeness_test(pt, nt, mode="asymptotic").statistic == pytest.approx(
        closeness_test([0.25, 0.75], [30, 70], mode="asymptotic").statistic
    )
    assert two_sample_closeness_test(nt, nt, mode="threshold").n_samples == 100
    assert float(l2_statistic(pt, nt)) == pytest.approx(float(l2_statistic([0.25, 0.75], [30, 70])))
    table = torch.tensor(p.table, requires_grad=True)
    labels = torch.tensor(p.stair_labels)
    ref = CategoricalReference.from_table(table, 6, 6, stairs=labels)
    assert ref.stair_sizes == p.stair_sizes
    xt = torch.tensor(x.astype(np.float32), requires_grad=True)
    assert granularity(ref, xt, seed=0).value == granularity(p, x, seed=0).value
    assert adaptive_binning(p, xt, n_bins=5, seed=0).counts(xt).sum() == x.shape[0]
    assert nt.requires_grad
    assert nt.grad is None


# ---------------------------------------------------------------------- non-finite statistics
def test_a_result_with_a_non_finite_statistic_is_never_a_decision():
    res = ClosenessResult(
        statistic=float("nan"),
        pvalue=None,
        threshold=0.1,
        alpha=0.05,
        epsilon=0.1,
        epsilon0=None,
        mode="cantelli",
        n_batches=1,
        batch_size=10,
        batch_statistics=np.array([np.nan]),
        n_batches_rejecting=1,
        tv=0.0,
        n_samples=10,
        n_bins=2,
    )
    assert res.decision() is False
    test = ClosenessResult(
        statistic=float("inf"),
        pvalue=0.0,
        threshold=None,
        alpha=None,
        epsilon=0.1,
        epsilon0=0.0,
        mode="mc",
        n_batches=1,
        batch_size=10,
        batch_statistics=np.array([np.inf]),
        n_batches_rejecting=None,
        tv=0.0,
        n_samples=10,
        n_bins=2,
    )
    assert test.decision(alpha=0.5) is False


@pytest.mark.parametrize("mode", [m for m in MODES if m != "tv-bound"])
@pytest.mark.parametrize("value", [np.inf, np.nan])
def test_non_finite_statistic_is_flagged_degenerate(monkeypatch, mode, value):
    def broken(p, counts):
        counts = np.asarray(counts)
        return np.full(counts.shape[:-1], value) if counts.ndim == 2 else np.float64(value)

    monkeypatch.setattr(_closeness, "l2_statistic", broken)
    with pytest.warns(DegenerateDataWarning, match="not finite"):
        res = closeness_test([0.5, 0.5], [300, 700], mode=mode, n_resamples=19, seed=0)
    assert res.degenerate
    if mode in P_VALUE_MODES:
        assert res.pvalue == 1.0
        assert res.decision(alpha=0.5) is False
    else:
        assert res.pvalue is None
        assert res.decision() is False
        assert res.n_batches_rejecting == 0


def test_non_finite_two_sample_statistic_is_flagged_degenerate(monkeypatch):
    monkeypatch.setattr(_closeness, "_cdvv", lambda x, y, m1, m2: np.full(np.shape(x)[:-1], np.inf))
    for mode in ("permutation", "threshold"):
        with pytest.warns(DegenerateDataWarning, match="not finite"):
            res = two_sample_closeness_test([50, 30], [20, 60], mode=mode, seed=0)
        assert res.degenerate
        assert (res.decision(0.5) if mode == "permutation" else res.decision()) is False


def test_finite_statistics_stay_undegenerate():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = closeness_test([0.5, 0.5], [300, 700], mode="mc", n_resamples=99, seed=0)
    assert not res.degenerate
    assert res.decision(alpha=0.05)


# ---------------------------------------------------------------------- inputs are never written
def test_read_only_inputs_are_accepted_and_unchanged(stairs):
    p, x0 = stairs
    x = _read_only(x0)
    y = _read_only(p.sample(1000, seed=1))
    idx = _read_only(np.arange(500) * 7 % p.size)
    pb, counts = _read_only([0.25, 0.75]), _read_only([240, 760])
    for mode in MODES:
        closeness_test(pb, counts, mode=mode, n_resamples=19, seed=0)
    two_sample_closeness_test(counts, _read_only([260, 740]), n_resamples=19, seed=0)
    l2_statistic(pb, _read_only([[3, 7], [5, 5]]))
    table, labels = _read_only(p.table), _read_only(p.stair_labels)
    ref = CategoricalReference.from_table(table, 6, 6, stairs=labels)
    b = adaptive_binning(ref, x, n_bins=12, seed=0)
    assert b.counts(x).sum() == 1000
    assert b.counts(idx).sum() == 500
    assert random_binning(ref, n_bins=10, seed=0).counts(y).sum() == 1000
    granularity(ref, x, seed=0)
    granularity(ref, x, split=True, mode="mc", n_resamples=19, seed=0)
    granularity(ref, x, reference_samples=y, split=True, n_resamples=19, seed=0)
    granularity(None, x, reference_samples=y, seed=0)
    granularity(ref, idx, seed=0)
    perturb(ref, l1=0.1, seed=0)
    s = stair_distribution(8, 8, 2, 3.0, layout="sort")
    xs = _read_only(s.sample(500, seed=0))
    granularity(s, xs, n_bins_grid=range(3, 9), seed=0)
    assert adaptive_binning(s, xs, n_bins=9, seed=0).counts(xs).sum() == 500
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(table, p.table)
    np.testing.assert_array_equal(labels, p.stair_labels)
    np.testing.assert_array_equal(counts, [240, 760])
