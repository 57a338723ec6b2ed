"""The C2ST MLP engine against scikit-learn's MLPClassifier recipe, piece by piece."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning
from sklearn.model_selection import KFold
from sklearn.neural_network import MLPClassifier
from sklearn.neural_network._base import binary_log_loss
from sklearn.neural_network._stochastic_optimizers import AdamOptimizer

from modelcompare import c2st
from modelcompare._foundation.errors import ConvergenceWarning
from modelcompare._foundation.mlp import recipe as _mlp
from modelcompare._foundation.mlp import torch_engine as _mlp_engine
from modelcompare._foundation.mlp.recipe import (
    FoldData,
    ParamLayout,
    StoppingRule,
    forward_logits,
    glorot_init,
)
from modelcompare._foundation.mlp.torch_engine import adam_update_, fused_adam_update_
from modelcompare._foundation.mlp.trainer import train_mlp

pytestmark = pytest.mark.torch


@pytest.fixture(autouse=True)
def _one_torch_thread():
    # tiny matrices: intra-op threads only add synchronisation (and thrash on a loaded CI box)
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _native_available():
    from modelcompare._foundation.mlp import native as _native

    return _native.load_kernel(respect_env=False) is not None


@pytest.fixture(params=["native", "torch"])
def engine(request):
    """Both CPU engines: the compiled kernel (the default) and the batched torch engine."""
    if request.param == "native" and not _native_available():
        pytest.skip("no C compiler could build the native kernel")
    return request.param


def _two_gaussians(rng, n, d, shift=0.0):
    x = np.concatenate([rng.standard_normal((n, d)), rng.standard_normal((n, d)) + shift])
    y = np.concatenate([np.zeros(n), np.ones(n)])
    return x.astype(np.float32), y.astype(np.float32)


def _sklearn_fit(x, y, seed, hidden, max_iter=10000, **kw):
    clf = MLPClassifier(
        activation="relu",
        hidden_layer_sizes=hidden,
        max_iter=max_iter,
        solver="adam",
        random_state=seed,
        **kw,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkConvergenceWarning)
        return clf.fit(x, y)


def _sk_logits(clf, x):
    p = clf.predict_proba(x)[:, 1].astype(np.float64)
    return np.log(p) - np.log1p(-p)


# ------------------------------------------------------------------------------------ the parts


def test_glorot_init_is_sklearns_init_coef():
    sizes = (3, 30, 30, 1)
    ours = glorot_init(np.random.RandomState(11), sizes)
    clf = MLPClassifier(activation="relu")
    clf._random_state = np.random.RandomState(11)
    for (w, b), (fan_in, fan_out) in zip(ours, itertools.pairwise(sizes)):
        w_ref, b_ref = clf._init_coef(fan_in, fan_out, np.float32)
        np.testing.assert_array_equal(w, w_ref)
        np.testing.assert_array_equal(b, b_ref)
        bound = np.sqrt(6.0 / (fan_in + fan_out))
        assert w.dtype == np.float32
        assert np.abs(w).max() <= bound
        assert np.abs(b).max() > 0  # biases are drawn, not zero
    # and the same values as a plain float64 RandomState draw, in the order W0, b0, W1, ...
    rs = np.random.RandomState(11)
    first = rs.uniform(-np.sqrt(6 / 33), np.sqrt(6 / 33), (3, 30)).astype(np.float32)
    np.testing.assert_array_equal(ours[0][0], first)


def test_layout_pack_unpack_and_weight_mask():
    layout = ParamLayout((2, 4, 3, 1))
    layers = glorot_init(np.random.RandomState(0), layout.sizes)
    flat = layout.pack(layers)
    assert flat.size == layout.size == 3 * 4 + 5 * 3 + 4 * 1
    for (w, b), (w2, b2) in zip(layers, layout.unpack(flat)):
        np.testing.assert_array_equal(w, w2)
        np.testing.assert_array_equal(b, b2)
    # the L2 mask covers the weights only
    masked = layout.pack([(np.ones_like(w), np.zeros_like(b)) for w, b in layers])
    np.testing.assert_array_equal(masked, layout.weight_mask)


@pytest.mark.parametrize("scale", [1.0, 1e-8])
def test_adam_matches_sklearn_adam_optimizer(scale):
    rng = np.random.default_rng(3)
    p0 = rng.standard_normal(50).astype(np.float32)
    grads = [(scale * rng.standard_normal(50)).astype(np.float32) for _ in range(4)]
    ref = [p0.copy()]
    opt = AdamOptimizer(ref, learning_rate_init=1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-8)
    ours = torch.tensor(p0)
    fused = torch.tensor(p0)
    m, v = torch.zeros(50), torch.zeros(50)
    mf, vf = torch.zeros(50), torch.zeros(50)
    step = torch.zeros(())
    for t, g in enumerate(grads, start=1):
        opt.update_params(ref, [g])
        adam_update_(ours, torch.tensor(g), m, v, t, torch)
        fused_adam_update_([fused], [torch.tensor(g)], [mf], [vf], step, t, torch)
        np.testing.assert_allclose(ours.numpy(), ref[0], rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(fused.numpy(), ref[0], rtol=1e-6, atol=1e-9)
    # with tiny gradients, torch.optim.Adam's ε placement would move the weights much further
    if scale == 1e-8:
        moved = np.abs(ref[0] - p0).max()
        assert moved < 0.8 * len(grads) * 1e-3


def test_stopping_rule_matches_sklearn_counter():
    rng = np.random.default_rng(5)
    tol = 1e-4
    # descent, then steps just above and just below tol, then a plateau with noise
    base = np.concatenate(
        [
            0.7 - 0.01 * np.arange(10),
            0.61 - np.array([1.5e-4, 2.9e-4, 3.5e-4, 4.2e-4]),  # improvements > / < tol
            0.6057 + 3e-5 * rng.standard_normal(40),
        ]
    )
    curves = np.stack([base, base[::-1] * 0 + base + 2e-4 * np.sin(np.arange(base.size))])
    for curve in curves:
        clf = MLPClassifier(tol=tol, n_iter_no_change=10)
        clf.loss_curve_, clf.best_loss_, clf._no_improvement_count = [], np.inf, 0
        ref_stop = None
        for i, value in enumerate(curve, start=1):
            clf.loss_curve_.append(value)
            clf._update_no_improvement_count(False, None, None, None)
            if clf._no_improvement_count > clf.n_iter_no_change:
                ref_stop = i
                break
        rule = StoppingRule(1)
        our_stop = next(
            (i for i, value in enumerate(curve, start=1) if rule.update(np.array([value]))[0]),
            None,
        )
        assert ref_stop is not None
        assert our_stop == ref_stop
        assert our_stop >= 12


def test_stopping_rule_is_vectorised_per_entry():
    rule = StoppingRule(2)
    stops = [rule.update(np.array([0.5, 0.5 - 0.01 * i])) for i in range(13)]
    # entry 0 never improves after the first epoch: bad = 1..11, stops at epoch 12
    assert [s[0] for s in stops].index(True) == 11
    assert not any(s[1] for s in stops)


def _loss_reference(layers, x, y, n_batches):
    """Epoch loss with frozen weights: Σ_b L_b·|b|/n with sklearn's loss pieces."""
    p = 1.0 / (1.0 + np.exp(-forward_logits(layers, x).astype(np.float32)))
    bce = binary_log_loss(y.astype(bool)[:, None], p.astype(np.float32)[:, None])
    sq = sum(float(np.dot(w.ravel(), w.ravel())) for w, _ in layers)
    return bce + n_batches * 0.5 * 1e-4 * sq / x.shape[0]


@pytest.mark.parametrize(
    ("engine", "keep_l2"), [("native", True), ("torch", True), ("torch", False)]
)
def test_epoch_loss_is_sklearns_loss_with_l2(monkeypatch, engine, keep_l2):
    if engine == "native" and not _native_available():
        pytest.skip("no C compiler could build the native kernel")
    rng = np.random.default_rng(1)
    x, y = _two_gaussians(rng, 225, 3, 0.5)  # 450 rows: batches 200, 200, 50
    monkeypatch.setattr(_mlp, "LEARNING_RATE", 0.0)
    if not keep_l2:  # the step-wise norm reduction used when many entries are batched
        monkeypatch.setattr(_mlp_engine, "KEEP_L2_FLOATS", 0)
    fit = train_mlp([FoldData(x, y, x[:3], 4)], hidden=(30, 30), max_epochs=1, engine=engine)[0]
    layers = glorot_init(np.random.RandomState(4), (3, 30, 30, 1))
    np.testing.assert_allclose(fit.final_loss, _loss_reference(layers, x, y, 3), rtol=1e-6)
    ref = _sklearn_fit(x, y, 4, (30, 30), max_iter=1, learning_rate_init=1e-30)
    np.testing.assert_allclose(fit.final_loss, ref.loss_curve_[0], rtol=1e-6)


@pytest.mark.parametrize(
    ("engine", "keep_l2"), [("native", True), ("torch", True), ("torch", False)]
)
def test_first_epochs_match_sklearn_bit_for_bit_up_to_rounding(monkeypatch, engine, keep_l2):
    # same init, same batch order (same RandomState stream): the loss curves agree to rounding
    if engine == "native" and not _native_available():
        pytest.skip("no C compiler could build the native kernel")
    if not keep_l2:
        monkeypatch.setattr(_mlp_engine, "KEEP_L2_FLOATS", 0)
    rng = np.random.default_rng(2)
    x, y = _two_gaussians(rng, 300, 2, 0.3)  # 600 rows = 3 batches per epoch
    for epochs in (1, 5):
        ref = _sklearn_fit(x, y, 9, (20, 20), max_iter=epochs)
        fit = train_mlp([FoldData(x, y, x, 9)], hidden=(20, 20), max_epochs=epochs, engine=engine)[
            0
        ]
        assert fit.epochs == epochs
        assert fit.hit_max
        assert abs(fit.final_loss - ref.loss_curve_[-1]) < 1e-6
        np.testing.assert_allclose(fit.test_logits, _sk_logits(ref, x), atol=1e-4)


@pytest.mark.parametrize("hidden", [(8,), (6, 5, 4)])
def test_custom_hidden_matches_sklearn(hidden, engine):
    rng = np.random.default_rng(8)
    x, y = _two_gaussians(rng, 250, 2, 0.8)
    ref = _sklearn_fit(x, y, 3, hidden, max_iter=60)
    fit = train_mlp([FoldData(x, y, x, 3)], hidden=hidden, max_epochs=60, engine=engine)[0]
    assert fit.epochs == ref.n_iter_
    assert abs(fit.final_loss - ref.loss_curve_[-1]) < 1e-5
    np.testing.assert_allclose(fit.test_logits, _sk_logits(ref, x), atol=1e-3)


# ----------------------------------------------------------------------- the batched engine


def test_batched_entries_equal_entries_trained_alone(engine):
    rng = np.random.default_rng(4)
    # different sizes (1, 3 and 2 batches per epoch; B = 150 for the first) and seeds
    sets = [_two_gaussians(rng, n, 2, s) for n, s in ((75, 0.0), (228, 0.5), (160, 1.0))]
    folds = [FoldData(x, y, x[:40], seed) for (x, y), seed in zip(sets, (1, 2, 3))]
    together = train_mlp(folds, hidden=(12, 12), max_epochs=300, engine=engine)
    for fold, fit in zip(folds, together):
        alone = train_mlp([fold], hidden=(12, 12), max_epochs=300, engine=engine)[0]
        assert fit.epochs == alone.epochs
        assert fit.hit_max == alone.hit_max
        np.testing.assert_allclose(fit.test_logits, alone.test_logits, atol=1e-5)
        np.testing.assert_allclose(fit.final_loss, alone.final_loss, rtol=1e-6)


def test_fused_and_hand_written_adam_train_the_same(monkeypatch):
    rng = np.random.default_rng(6)
    x, y = _two_gaussians(rng, 200, 2, 0.5)
    folds = [FoldData(x, y, x, 5), FoldData(x[::2], y[::2], x, 6)]
    fused = train_mlp(folds, hidden=(10, 10), max_epochs=40, engine="torch")
    monkeypatch.setattr(_mlp_engine, "USE_FUSED_ADAM", False)
    plain = train_mlp(folds, hidden=(10, 10), max_epochs=40, engine="torch")
    for a, b in zip(fused, plain):
        assert a.epochs == b.epochs
        np.testing.assert_allclose(a.test_logits, b.test_logits, atol=1e-4)


def test_determinism_and_max_epochs_flag(engine):
    rng = np.random.default_rng(7)
    x, y = _two_gaussians(rng, 150, 2)
    folds = [FoldData(x, y, x, 13)]
    a = train_mlp(folds, hidden=(10, 10), max_epochs=4, engine=engine)[0]
    b = train_mlp(folds, hidden=(10, 10), max_epochs=4, engine=engine)[0]
    np.testing.assert_array_equal(a.test_logits, b.test_logits)
    assert a.epochs == 4
    assert a.hit_max
    full = train_mlp(folds, hidden=(10, 10), max_epochs=10000, engine=engine)[0]
    assert 12 <= full.epochs < 10000
    assert not full.hit_max


def test_progress_callable_counts_all_epochs(engine):
    rng = np.random.default_rng(9)
    x, y = _two_gaussians(rng, 100, 2)
    calls = []
    fits = train_mlp(
        [FoldData(x, y, x, 1), FoldData(x, y, x, 2)],
        hidden=(5, 5),
        max_epochs=50,
        progress=calls.append,
        engine=engine,
    )
    assert sum(calls) == sum(f.epochs for f in fits)
    assert max(calls) == 2
    # a tqdm bar on stderr changes nothing in the result
    plain = train_mlp([FoldData(x, y, x, 1)], hidden=(5, 5), max_epochs=50)[0]
    barred = train_mlp([FoldData(x, y, x, 1)], hidden=(5, 5), max_epochs=50, progress=True)[0]
    np.testing.assert_array_equal(barred.test_logits, plain.test_logits)


def test_ragged_entries_of_different_width_are_rejected():
    x = np.zeros((10, 2), np.float32)
    y = np.zeros(10, np.float32)
    with pytest.raises(ValueError, match="same number of columns"):
        train_mlp(
            [FoldData(x, y, x, 0), FoldData(np.zeros((10, 3), np.float32), y, x, 0)],
            hidden=(4,),
            max_epochs=2,
        )


# ---------------------------------------------------------------- the quick exactness check


def test_quick_exactness_against_sbibm_recipe():
    """500 vs 500 draws, d = 2, four data seeds: sbibm's recipe and ours on the same arrays."""
    acc_ref, acc_ours, ep_ref, ep_ours = [], [], [], []
    for seed in range(1, 5):
        rng = np.random.default_rng(100 + seed)
        x = rng.standard_normal((500, 2))
        y = rng.standard_normal((500, 2)) + 0.4
        mu, sd = x.mean(0), x.std(0, ddof=1)
        x, y = ((x - mu) / sd).astype(np.float32), ((y - mu) / sd).astype(np.float32)
        data = np.concatenate([x, y])
        labels = np.r_[np.zeros(500), np.ones(500)]
        accs = []
        for tr, te in KFold(5, shuffle=True, random_state=seed).split(data):
            clf = _sklearn_fit(data[tr], labels[tr], seed, (20, 20))
            accs.append(np.mean(clf.predict(data[te]) == labels[te]))
            ep_ref.append(clf.n_iter_)
        acc_ref.append(np.mean(accs))
        res = c2st(x, y, seed=seed, z_score=False)
        acc_ours.append(res.accuracy)
        ep_ours.extend(res.epochs.tolist())
    diff = np.array(acc_ours) - np.array(acc_ref)
    se = max(diff.std(ddof=1) / 2, 1e-3)
    assert abs(diff.mean()) <= 3 * se
    assert abs(np.mean(ep_ours) - np.mean(ep_ref)) <= 0.25 * np.mean(ep_ref)
    # same init and batch order: nearly every fold stops at the very same epoch
    assert np.mean(np.array(ep_ours) == np.array(ep_ref)) >= 0.8


# ------------------------------------------------------------------------- through c2st()


def test_c2st_mlp_end_to_end_and_determinism():
    rng = np.random.default_rng(10)
    x = rng.standard_normal((300, 2))
    y = rng.standard_normal((300, 2)) + 1.0
    a = c2st(x, y, seed=4)
    b = c2st(x, y, seed=4)
    assert a.classifier == "mlp"
    assert a.hidden == (20, 20)
    assert a.accuracy == b.accuracy
    assert np.array_equal(a.epochs, b.epochs)
    assert 0.65 < a.accuracy < 0.82  # Bayes accuracy Φ(1/√2·√2/2·…) ≈ 0.76
    assert a.pvalue < 1e-3
    assert a.epochs.shape == (5,)
    assert (a.epochs >= 12).all()
    null = c2st(x, rng.standard_normal((300, 2)), seed=4)
    assert abs(null.accuracy - 0.5) < 0.08


def test_c2st_custom_hidden_and_max_epochs_warning():
    rng = np.random.default_rng(11)
    x, y = rng.standard_normal((120, 3)), rng.standard_normal((120, 3))
    res = c2st(x, y, seed=1, hidden=(7,), max_epochs=500)
    assert res.hidden == (7,)
    with pytest.warns(ConvergenceWarning, match="max_epochs"):
        capped = c2st(x, y, seed=1, max_epochs=2)
    assert capped.hit_max_epochs
    assert (capped.epochs == 2).all()


def test_device_auto_falls_back_and_gpu_without_accelerator_raises():
    rng = np.random.default_rng(12)
    x, y = rng.standard_normal((60, 2)), rng.standard_normal((60, 2)) + 0.5
    cpu = c2st(x, y, seed=2, hidden=(4,), device="cpu")
    has_accel = torch.cuda.is_available() or (
        hasattr(torch.backends, "mps") and torch.backends.mps.is_available()
    )
    if not has_accel:
        auto = c2st(x, y, seed=2, hidden=(4,), device="auto")
        assert auto.accuracy == cpu.accuracy
        with pytest.raises(ValueError, match="gpu"):
            c2st(x, y, seed=2, device="gpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="cuda"):
            c2st(x, y, seed=2, device="cuda")


def test_cuda_device_strings_are_checked_before_use():
    from modelcompare._foundation.torch_support import resolve_device

    with pytest.raises(ValueError, match=r"`device` must be 'cuda' or 'cuda:<index>'"):
        resolve_device("cuda:abc", torch)
    if torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA device"):
            resolve_device(f"cuda:{torch.cuda.device_count()}", torch)


@pytest.mark.gpu
def test_cuda_matches_cpu_statistics():
    rng = np.random.default_rng(13)
    accs = {"cpu": [], "cuda": []}
    epochs = {"cpu": [], "cuda": []}
    for seed in range(4):
        x = rng.standard_normal((1000, 2))
        y = rng.standard_normal((1000, 2)) + 0.3
        for dev in ("cpu", "cuda"):
            res = c2st(x, y, seed=seed, device=dev)
            accs[dev].append(res.accuracy)
            epochs[dev].extend(res.epochs.tolist())
    assert abs(np.mean(accs["cpu"]) - np.mean(accs["cuda"])) < 0.01
    assert abs(np.mean(epochs["cpu"]) - np.mean(epochs["cuda"])) <= 0.25 * np.mean(epochs["cpu"])


def test_training_is_single_threaded_and_restores_the_callers_setting():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    seen = []
    try:
        rng = np.random.default_rng(0)
        fold = FoldData(
            rng.normal(size=(60, 2)).astype(np.float32),
            (rng.random(60) < 0.5).astype(np.float32),
            rng.normal(size=(20, 2)).astype(np.float32),
            0,
        )
        train_mlp(
            [fold],
            hidden=(4,),
            max_epochs=3,
            engine="torch",
            progress=lambda n: seen.append(torch.get_num_threads()),
        )
        assert seen
        assert set(seen) == {1}
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_an_entry_does_not_depend_on_the_rest_of_the_batch(engine):
    """Bit-identical results whether an entry trains alone, with its folds, or inside a bigger batch
    of entries with the same minibatch layout (the layout c2st_many groups by).

    Elementwise kernels treat a tensor's last partial vector chunk differently; padded buffers keep
    every element out of such a tail, so neighbours (and compaction) cannot change an entry.
    """

    def entry(seed, n):
        r = np.random.default_rng(seed)
        x = r.normal(size=(n, 2)).astype(np.float32)
        return FoldData(x, (r.random(n) < 0.5).astype(np.float32), x[:50], seed)

    sizes = (400, 401, 400, 401, 399)  # 2 or 3 minibatches: a ragged batch, as c2st's folds can be
    a = [entry(i, n) for i, n in enumerate(sizes)]
    b = [entry(100 + i, n) for i, n in enumerate(sizes * 2)]
    alone = train_mlp(a, hidden=(20, 20), max_epochs=10000, engine=engine)
    mixed = train_mlp(b[:4] + a + b[4:], hidden=(20, 20), max_epochs=10000, engine=engine)[4:9]
    for one, other in zip(alone, mixed):
        assert one.epochs == other.epochs
        np.testing.assert_array_equal(one.test_logits, other.test_logits)
    uniform = [entry(200 + i, 400) for i in range(4)]
    together = train_mlp(uniform, hidden=(20, 20), max_epochs=10000, engine=engine)
    for e, fit in zip(uniform[:2], together[:2]):
        single = train_mlp([e], hidden=(20, 20), max_epochs=10000, engine=engine)[0]
        assert single.epochs == fit.epochs
        np.testing.assert_array_equal(single.test_logits, fit.test_logits)
