"""The compiled CPU engine of the C2ST MLP: layout, agreement with the torch engine, fallbacks."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from modelcompare import c2st
from modelcompare._foundation.mlp import native as _native
from modelcompare._foundation.mlp.recipe import FoldData, ParamLayout, glorot_init
from modelcompare._foundation.mlp.trainer import train_mlp

pytestmark = pytest.mark.torch

SIZES = [(2, 20, 20, 1), (7, 13, 9, 5, 1), (3, 1, 1), (5, 8, 1), (10, 100, 100, 1)]


@pytest.fixture(scope="module")
def kernel():
    lib = _native.load_kernel(respect_env=False)
    if lib is None:
        pytest.skip("no C compiler could build the native kernel")
    return lib


@pytest.fixture
def fresh_loader(monkeypatch, tmp_path):
    """An empty kernel cache in tmp_path; the process-wide loader is reset before and after."""
    monkeypatch.setenv("MODELCOMPARE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(_native, "_fallback_cache_dir", lambda: tmp_path / "fallback")
    _native._load.cache_clear()
    yield tmp_path
    _native._load.cache_clear()


def _data(seed, n, d, shift=0.5):
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.standard_normal((n, d)), rng.standard_normal((n, d)) + shift])
    y = np.r_[np.zeros(n), np.ones(n)]
    return x.astype(np.float32), y.astype(np.float32)


@pytest.mark.parametrize("sizes", SIZES)
def test_padded_layout_round_trips_and_matches_the_kernel(kernel, sizes):
    layout = ParamLayout(sizes)
    flat = layout.pack(glorot_init(np.random.RandomState(0), sizes))
    padded = _native.to_padded(layout, flat)
    c_sizes = np.asarray(sizes, dtype=np.int32)
    assert padded.size == kernel.mc_param_size(len(sizes) - 1, c_sizes.ctypes.data)
    assert padded.size % _native.VECTOR == 0
    np.testing.assert_array_equal(_native.from_padded(layout, padded), flat)
    # every padding slot is zero: the kernel relies on it (padded activations stay 0)
    assert np.count_nonzero(padded) == np.count_nonzero(flat)


@pytest.mark.parametrize(
    ("d", "hidden", "n"),
    [(2, (20, 20), 230), (7, (13, 9, 5), 301), (3, (1,), 250), (4, (40,), 199)],
)
def test_native_and_torch_engines_train_the_same_network(kernel, d, hidden, n):
    # odd widths (padding), a width-1 layer, ragged last minibatch, one to three hidden layers
    x, y = _data(1, n, d)
    folds = [FoldData(x, y, x[:50], 3), FoldData(x[::2], y[::2], x[:50], 4)]
    native = train_mlp(folds, hidden=hidden, max_epochs=40, engine="native")
    batched = train_mlp(folds, hidden=hidden, max_epochs=40, engine="torch")
    for a, b in zip(native, batched):
        assert a.epochs == b.epochs
        assert a.hit_max == b.hit_max
        np.testing.assert_allclose(a.final_loss, b.final_loss, rtol=1e-5)
        np.testing.assert_allclose(a.test_logits, b.test_logits, atol=2e-4)


def test_native_training_leaves_its_inputs_alone(kernel):
    x, y = _data(2, 120, 3)
    xt = x[:30].copy()
    before = (x.copy(), y.copy(), xt.copy())
    train_mlp([FoldData(x, y, xt, 1)], hidden=(6, 6), max_epochs=5, engine="native")
    for now, then in zip((x, y, xt), before):
        np.testing.assert_array_equal(now, then)


def test_c2st_uses_the_native_engine_by_default_and_the_env_switch_turns_it_off(
    kernel, monkeypatch
):
    x, _ = _data(3, 150, 2, 1.0)
    calls = []
    real = _native.train_native

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_native, "train_native", spy)
    default = c2st(x[:150], x[150:], seed=5)
    assert calls
    calls.clear()
    monkeypatch.setenv("MODELCOMPARE_NATIVE", "0")
    off = c2st(x[:150], x[150:], seed=5)
    assert not calls
    # the two engines agree on this small problem (same folds, init and minibatch order)
    np.testing.assert_array_equal(default.epochs, off.epochs)
    assert abs(default.accuracy - off.accuracy) <= 0.01


def test_without_a_compiler_auto_falls_back_and_native_says_why(fresh_loader, monkeypatch):
    monkeypatch.setattr(_native, "_compilers", list)
    assert _native.load_kernel() is None
    x, y = _data(4, 100, 2)
    folds = [FoldData(x, y, x[:20], 1)]
    fit = train_mlp(folds, hidden=(5, 5), max_epochs=3)[0]  # torch engine
    assert fit.epochs == 3
    with pytest.raises(RuntimeError, match="`engine` is 'native' but no C compiler"):
        train_mlp(folds, hidden=(5, 5), max_epochs=3, engine="native")


def test_a_failing_compiler_is_not_fatal(fresh_loader, monkeypatch, tmp_path):
    broken = tmp_path / "cc"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setattr(_native, "_compilers", lambda: [str(broken)])
    assert _native.load_kernel() is None


def test_the_kernel_is_compiled_once_then_loaded_from_the_cache(fresh_loader, monkeypatch):
    lib = _native.load_kernel()
    if lib is None:
        pytest.skip("no C compiler could build the native kernel")
    built = list((fresh_loader / "cache").glob("c2st_mlp_*.so"))
    assert len(built) == 1
    _native._load.cache_clear()

    def no_compile(*args, **kwargs):
        raise AssertionError("the cached build should have been used")

    monkeypatch.setattr(_native, "_compile", no_compile)
    assert isinstance(_native.load_kernel(), ctypes.CDLL)


def test_engine_option_is_validated(kernel):
    x, y = _data(5, 40, 2)
    with pytest.raises(ValueError, match="engine"):
        train_mlp([FoldData(x, y, x, 1)], hidden=(4,), max_epochs=2, engine="fast")


def test_the_smoke_test_rejects_a_wrong_or_frozen_kernel(kernel):
    assert _native._works(kernel)

    class WrongLoss:
        def mc_mlp_epoch(self, *args):
            ctypes.c_double.from_address(args[-1]).value = 0.123
            return 0

    assert not _native._works(WrongLoss())

    class NeverLearns:  # right loss, but the learning rate is ignored
        def mc_mlp_epoch(self, *args):
            hyper = np.ctypeslib.as_array((ctypes.c_double * 5).from_address(args[-2])).copy()
            hyper[1] = 0.0
            args = (*args[:-2], hyper.ctypes.data, args[-1])
            return kernel.mc_mlp_epoch(*args)

    assert not _native._works(NeverLearns())


def test_a_build_that_fails_its_smoke_test_is_not_used(fresh_loader, monkeypatch):
    monkeypatch.setattr(_native, "_works", lambda lib: False)
    assert _native.load_kernel() is None


def test_an_unusable_cache_folder_falls_back_to_the_temp_folder(fresh_loader, monkeypatch):
    blocker = fresh_loader / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("MODELCOMPARE_CACHE_DIR", str(blocker / "cache"))  # mkdir fails
    if _native.load_kernel() is None:
        pytest.skip("no C compiler could build the native kernel")
    assert len(list((fresh_loader / "fallback").glob("c2st_mlp_*.so"))) == 1


def test_a_corrupt_cached_build_is_replaced_from_the_temp_folder(fresh_loader):
    compilers = _native._compilers()
    if not compilers:
        pytest.skip("no C compiler")
    name = _native.build_name(_native.SOURCE.read_bytes(), compilers[0], _native.flag_sets()[0])
    (fresh_loader / "cache").mkdir()
    (fresh_loader / "cache" / name).write_bytes(b"not a shared object")
    if _native.load_kernel() is None:
        pytest.skip("no C compiler could build the native kernel")
    assert (fresh_loader / "fallback" / name).exists()


@pytest.mark.parametrize(
    ("machine", "cpu_flags", "fallback"),
    [
        ("x86_64", "flags : sse2 avx avx2 fma", ("-mavx2", "-mfma")),
        ("x86_64", "flags : sse2 avx", None),  # plain SSE2 code: the torch engine is faster
        ("aarch64", "Features : fp asimd", ()),  # NEON and FMA are baseline
    ],
)
def test_flag_sets_never_fall_back_to_slow_x86_code(monkeypatch, machine, cpu_flags, fallback):
    monkeypatch.setattr(_native.platform, "machine", lambda: machine)
    monkeypatch.setattr(_native, "_cpu_identity", lambda: cpu_flags)
    sets = _native.flag_sets()
    assert sets[0] == (*_native.COMMON_FLAGS, "-march=native")
    if fallback is None:
        assert len(sets) == 1
    else:
        assert sets[1:] == [(*_native.COMMON_FLAGS, *fallback)]


def test_networks_deeper_than_the_kernel_takes_use_the_torch_engine(kernel, monkeypatch):
    monkeypatch.setattr(_native, "MAX_LAYERS", 2)
    x, y = _data(6, 60, 2)
    folds = [FoldData(x, y, x[:10], 1)]
    fit = train_mlp(folds, hidden=(4, 4), max_epochs=3)[0]  # 3 layers: torch engine
    assert fit.epochs == 3
    with pytest.raises(ValueError, match="at most 2 layers"):
        train_mlp(folds, hidden=(4, 4), max_epochs=3, engine="native")
