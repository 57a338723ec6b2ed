"""L-C2ST-NF on the batched MLP engine: size, power and agreement with the scikit-learn classifier."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning

from modelcompare import ConditionalGaussianModel, lc2st_nf
from modelcompare._foundation.mlp import native as _native
from modelcompare.posterior._local import _lc2st
from modelcompare.posterior._local._lc2st_engine import lc2st_statistics

MODEL = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
X0 = np.array([[0.0, 0.0]])
ALPHA = 0.05
FEW_NULLS = pytest.mark.filterwarnings(
    "ignore::modelcompare._foundation.errors.TooFewResamplesWarning"
)


def _needs_kernel():
    if _native.load_kernel(respect_env=False) is None:
        pytest.skip("no C compiler could build the native kernel")


def _sklearn(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkConvergenceWarning)
        return lc2st_nf(*args, classifier="sklearn", **kwargs)


def _rejections(flow, reps, n, n_resamples, seed0, **kw):
    rejected = 0
    for r in range(reps):
        theta, x = MODEL.simulate(n, seed=seed0 + r)
        res = lc2st_nf(flow, theta, x, X0, n_resamples=n_resamples, n_eval=200, seed=r, **kw)
        rejected += res.decision(ALPHA)
    return rejected


def test_exact_flow_size():
    # the observed classifier is exchangeable with the null ones: P(p <= 1/20) = 1/20 exactly
    _needs_kernel()
    reps = 30
    k = _rejections(MODEL.exact_flow(), reps, 120, 19, 1000)
    assert binomtest(k, reps, ALPHA, alternative="greater").pvalue > 0.01


@pytest.mark.parametrize(
    "flow",
    [MODEL.exact_flow(scale_factor=1.6), MODEL.exact_flow(offset=np.array([0.6, 0.0]))],
    ids=["dispersion", "shift"],
)
def test_biased_flow_is_flagged(flow):
    _needs_kernel()
    theta, x = MODEL.simulate(400, seed=3)
    res = lc2st_nf(flow, theta, x, X0, n_resamples=19, n_eval=300, seed=0)
    assert res.pvalue == pytest.approx(1 / 20)
    assert res.decision(ALPHA)
    assert res.classifier == "mlp"


@FEW_NULLS
def test_engine_and_sklearn_classifier_give_the_same_test():
    # the same data, splits and seeds: the statistics differ only by float32 vs float64 rounding
    _needs_kernel()
    theta, x = MODEL.simulate(100, seed=4)
    flow = MODEL.exact_flow(scale_factor=1.4)
    kw = {"n_resamples": 3, "n_eval": 200, "seed": 1}
    ours = lc2st_nf(flow, theta, x, X0, **kw)
    ref = _sklearn(flow, theta, x, X0, **kw)
    np.testing.assert_allclose(ours.null_statistics, ref.null_statistics, rtol=1e-2)
    np.testing.assert_allclose(ours.statistics, ref.statistics, rtol=1e-2)
    assert ref.classifier == "sklearn"


@FEW_NULLS
def test_threads_and_the_torch_engine_do_not_change_the_test(monkeypatch):
    _needs_kernel()
    theta, x = MODEL.simulate(100, seed=5)
    flow = MODEL.exact_flow()
    x0 = np.array([[0.0, 0.0], [1.0, -1.0]])
    kw = {"n_resamples": 5, "n_eval": 100, "seed": 2}
    one = lc2st_nf(flow, theta, x, x0, **kw)
    two = lc2st_nf(flow, theta, x, x0, n_jobs=2, **kw)
    np.testing.assert_array_equal(one.null_statistics, two.null_statistics)
    np.testing.assert_array_equal(one.statistics, two.statistics)
    pytest.importorskip("torch")
    monkeypatch.setenv("MODELCOMPARE_NATIVE", "0")  # the batched torch engine on the CPU
    batched = lc2st_nf(flow, theta, x, x0, **kw)
    np.testing.assert_allclose(batched.null_statistics, one.null_statistics, rtol=1e-3, atol=1e-7)
    np.testing.assert_allclose(batched.statistics, one.statistics, rtol=1e-3, atol=1e-7)


@FEW_NULLS
def test_null_statistics_do_not_depend_on_the_flow():
    _needs_kernel()
    theta, x = MODEL.simulate(100, seed=6)
    kw = {"n_resamples": 4, "n_eval": 100, "seed": 3}
    a = lc2st_nf(MODEL.exact_flow(), theta, x, X0, **kw)
    _lc2st._NULL_CACHE.clear()  # trained again, not recalled
    b = lc2st_nf(MODEL.exact_flow(scale_factor=2.0), theta, x, X0, **kw)
    np.testing.assert_array_equal(a.null_statistics, b.null_statistics)
    assert b.statistic > a.statistic


@FEW_NULLS
@pytest.mark.parametrize("classifier", ["mlp", "quadratic"])
def test_recalled_null_gives_the_numbers_of_a_fresh_run(classifier):
    if classifier == "mlp":
        _needs_kernel()
    theta, x = MODEL.simulate(150, seed=7)
    kw = {"n_resamples": 9, "n_eval": 100, "classifier": classifier}
    shifted = MODEL.exact_flow(scale_factor=1.5)
    _lc2st._NULL_CACHE.clear()
    fresh = lc2st_nf(shifted, theta, x, X0, seed=4, **kw)
    _lc2st._NULL_CACHE.clear()
    lc2st_nf(MODEL.exact_flow(), theta, x, X0, seed=4, **kw)  # leaves its null behind
    assert len(_lc2st._NULL_CACHE) == 1
    recalled = lc2st_nf(shifted, theta, x, X0, seed=4, **kw)
    assert len(_lc2st._NULL_CACHE) == 1
    np.testing.assert_array_equal(recalled.null_statistics, fresh.null_statistics)
    np.testing.assert_array_equal(recalled.statistics, fresh.statistics)
    np.testing.assert_array_equal(recalled.pvalues, fresh.pvalues)
    # anything the null depends on makes a new entry: the seed, the points, the calibration x
    lc2st_nf(shifted, theta, x, X0, seed=5, **kw)
    lc2st_nf(shifted, theta, x, X0 + 1.0, seed=4, **kw)
    lc2st_nf(shifted, theta, x[::-1], X0, seed=4, **kw)
    assert len(_lc2st._NULL_CACHE) == 4


def test_engine_function_shapes_and_epochs():
    _needs_kernel()
    rng = np.random.default_rng(0)
    z, xs = rng.standard_normal((80, 2)), rng.standard_normal((80, 3))
    fits = lc2st_statistics(
        z, xs, rng.standard_normal((40, 2)), rng.standard_normal((3, 3)),
        null_rngs=rng.spawn(4), obs_rng=rng, hidden=(8,),
    )  # fmt: skip
    assert fits.statistics.shape == (3,)
    assert fits.null_statistics.shape == (4, 3)
    # early stopping: at least n_iter_no_change + 1 epochs, far fewer than max_epochs
    assert np.all(fits.epochs >= 21)
    assert np.all(fits.epochs < 500)
    assert fits.engine == "native"


def test_skipping_the_training_loss_keeps_the_weights():
    # with early stopping nothing reads the training loss, so the kernel skips it: same weights
    _needs_kernel()
    from modelcompare._foundation.mlp.trainer import FoldData, _train

    rng = np.random.default_rng(7)
    x = rng.standard_normal((300, 4)).astype(np.float32)
    y = (x[:, 0] + rng.standard_normal(300) > 0).astype(np.float32)
    folds = [FoldData(x, y, x[:0], seed=s) for s in (0, 1)]
    kw = {
        "hidden": (16, 8), "max_epochs": 60, "torch": None, "dev": None,
        "kernel": _native.load_kernel(respect_env=False), "engine": "native", "progress": False,
        "early_stopping": True, "validation_fraction": 0.1, "n_iter_no_change": 5, "tol": 1e-4,
    }  # fmt: skip
    tracked = _train(folds, track_loss=True, **kw)
    skipped = _train(folds, track_loss=False, **kw)
    for j in range(2):
        np.testing.assert_array_equal(tracked.final_theta[j], skipped.final_theta[j])
        assert tracked.entries[j].epochs == skipped.entries[j].epochs
        assert tracked.scores[j] == skipped.scores[j]
        assert np.isfinite(tracked.final_loss[j])
        assert np.isnan(skipped.final_loss[j])


def test_classifier_option_is_checked():
    theta, x = MODEL.simulate(50, seed=0)
    with pytest.raises(ValueError, match="classifier"):
        lc2st_nf(MODEL.exact_flow(), theta, x, X0, classifier="forest", n_resamples=19)
    with pytest.raises(TypeError, match="predict_proba"):
        lc2st_nf(MODEL.exact_flow(), theta, x, X0, classifier=object(), n_resamples=19)


# ------------------------------------------------------------------------------------ slow


@pytest.mark.slow
def test_exact_flow_size_study():
    _needs_kernel()
    reps = 200
    k = _rejections(MODEL.exact_flow(), reps, 500, 19, 5000)
    # two-sided binomial tolerance around alpha (P(fail) < 0.01 when the size is exact)
    assert binomtest(k, reps, ALPHA).pvalue > 0.01


@pytest.mark.slow
def test_biased_flows_get_the_sklearn_verdicts():
    _needs_kernel()
    flows = {
        "dispersion": MODEL.exact_flow(scale_factor=1.3),
        "shift": MODEL.exact_flow(offset=np.array([0.3, 0.0])),
        "local": MODEL.exact_flow(
            offset=lambda c: np.column_stack([1.0 * (c[:, 0] > 1), 0 * c[:, 0]])
        ),
    }
    x0 = np.array([[0.0, 0.0], [2.0, 2.0]])
    agree = total = 0
    for i, flow in enumerate(flows.values()):
        for r in range(3):
            theta, x = MODEL.simulate(1000, seed=100 * i + r)
            kw = {"n_resamples": 19, "n_eval": 500, "seed": r}
            ours = lc2st_nf(flow, theta, x, x0, **kw)
            ref = _sklearn(flow, theta, x, x0, **kw)
            agree += int(np.sum((ours.pvalues <= ALPHA) == (ref.pvalues <= ALPHA)))
            total += ours.pvalues.size
    assert agree >= total - 1
