"""c2st_many: batched C2STs equal to c2st with each pair's child seed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from modelcompare import ConvergenceWarning, DegenerateDataWarning, c2st, c2st_many
from modelcompare._foundation.mlp import trainer as _trainer
from modelcompare.experiments import task_seed
from modelcompare.twosample import _api, _many
from modelcompare.twosample._many import pair_key

FIELDS = (
    "statistic",
    "accuracy",
    "pvalue",
    "auc",
    "z",
    "n_per_class",
    "degenerate",
    "hit_max_epochs",
)
ARRAYS = ("fold_accuracy", "fold_auc", "epochs")


def assert_same(a, b):
    for name in FIELDS:
        va, vb = getattr(a, name), getattr(b, name)
        assert va == vb or (np.isnan(va) and np.isnan(vb)), name
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.hidden == b.hidden
    assert a.seed_used == b.seed_used
    assert a.confidence_interval() == b.confidence_interval()


def make_pairs(rng, widths=(2, 2, 3, 2, 3), n=(60, 70)):
    pairs = []
    for i, d in enumerate(widths):
        x = rng.normal(size=(n[0] + i, d))
        y = rng.normal(0.4 * (i % 3), 1.0, size=(n[1], d))
        pairs.append((x, y))
    return pairs


def test_logistic_pairs_equal_c2st_with_child_seed(rng):
    pairs = make_pairs(rng)
    many = c2st_many(pairs, classifier="logistic", seed=8, n_folds=4, noise_scale=0.1)
    assert len(many) == len(pairs)
    for i, (x, y) in enumerate(pairs):
        assert many.seeds[i] == task_seed(8, pair_key(x, y))
        one = c2st(x, y, classifier="logistic", seed=many.seeds[i], n_folds=4, noise_scale=0.1)
        assert_same(one, many[i])
    table = many.table
    assert table["pair"].tolist() == list(range(5))
    assert table["statistic"].tolist() == [r.statistic for r in many]
    assert table["statistic"].tolist() == [r.accuracy for r in many]
    assert "accuracy" not in table.columns  # one name per idea: the statistic
    assert table["seed"].tolist() == list(many.seeds)


def test_results_do_not_depend_on_order_or_company(rng):
    pairs = make_pairs(rng)
    full = c2st_many(pairs, classifier="logistic", seed=1)
    rev = c2st_many(pairs[::-1], classifier="logistic", seed=1)
    alone = c2st_many(pairs[2:3], classifier="logistic", seed=1)
    assert [r.accuracy for r in rev][::-1] == [r.accuracy for r in full]
    assert_same(alone[0], full[2])
    other = c2st_many(pairs, classifier="logistic", seed=2)
    assert other.seeds != full.seeds


def test_named_pairs_are_keyed_by_name(rng):
    x, y = make_pairs(rng, widths=(2,))[0]
    a = c2st_many({"npe": (x, y)}, classifier="logistic", seed=0)
    b = c2st_many({"npe": (x, y), "other": (y, x)}, classifier="logistic", seed=0)
    assert a.keys == ("name:npe",)
    assert a.seeds[0] == b.seeds[0] == task_seed(0, "name:npe")
    assert b.table["pair"].tolist() == ["npe", "other"]
    assert_same(a[0], b[0])
    assert b["other"] is b[1]
    with pytest.raises(KeyError, match="no pair named"):
        b["missing"]


def test_warnings_name_the_pair(rng):
    x = rng.normal(size=(40, 2))
    x[:, 1] = 3.0
    with pytest.warns(DegenerateDataWarning, match="pair 'const'.*constant"):
        c2st_many({"const": (x, rng.normal(size=(40, 2)))}, classifier="logistic", seed=0)


@pytest.mark.parametrize(
    ("pairs", "exc", "match"),
    [
        ([], ValueError, "empty"),
        ("xy", TypeError, "pairs"),
        ([(np.zeros((5, 2)),)], TypeError, "pair"),
        ([(np.zeros((5, 2)), np.zeros((5, 3)))], ValueError, "columns"),
        ([(np.ones(5), np.ones(5))], ValueError, "reshape"),
    ],
)
def test_bad_pairs(pairs, exc, match):
    with pytest.raises(exc, match=match):
        c2st_many(pairs, classifier="logistic", seed=0)


def test_bad_options_as_c2st():
    pairs = [(np.zeros((20, 2)), np.ones((20, 2)))]
    with pytest.raises(ValueError, match="classifier"):
        c2st_many(pairs, classifier="forest", seed=0)
    with pytest.raises(ValueError, match="n_folds"):
        c2st_many(pairs, classifier="logistic", n_folds=1, seed=0)


# ------------------------------------------------------------- the batching logic, fake engine


class FakeEngine:
    """A deterministic stand-in for ``train_mlp`` that records its calls.

    Each fold's logits come from a least-squares direction plus a jitter drawn from the fold's
    recipe seed, and its epoch count depends on the seed and the rows, so that a mix-up of folds,
    seeds or pairs changes the result.
    """

    def __init__(self):
        self.calls = []

    def __call__(self, folds, *, hidden, max_epochs, device="cpu", progress=False, n_threads=1):
        self.calls.append((len(folds), hidden, {f.x_train.shape[1] for f in folds}))
        fits = []
        for f in folds:
            xt = np.column_stack([f.x_train, np.ones(len(f.x_train))]).astype(np.float64)
            w, *_ = np.linalg.lstsq(xt, f.y_train - 0.5, rcond=None)
            jitter = np.random.default_rng(f.seed).normal(scale=1e-3, size=w.shape)
            xs = np.column_stack([f.x_test, np.ones(len(f.x_test))])
            epochs = 12 + f.seed % 5 + len(f.x_train) % 3
            fits.append(
                _trainer.MLPFoldFit(
                    test_logits=xs @ (w + jitter),
                    epochs=min(epochs, max_epochs),
                    hit_max=epochs >= max_epochs,
                    final_loss=0.69,
                )
            )
        return fits


@pytest.fixture
def fake_engine(monkeypatch):
    engine = FakeEngine()
    monkeypatch.setattr(_trainer, "train_mlp", engine)
    monkeypatch.setattr(_api, "import_mlp_torch", lambda: None)
    monkeypatch.setattr(_many, "import_mlp_torch", lambda: None)
    return engine


def test_mlp_one_engine_call_per_width_group(rng, fake_engine):
    pairs = make_pairs(rng, widths=(2, 3, 2, 2, 3))
    many = c2st_many(pairs, seed=4, n_folds=3)
    # two width groups: 3 pairs of d=2 and 2 pairs of d=3, folds x comparisons each
    assert sorted(fake_engine.calls) == [(6, (30, 30), {3}), (9, (20, 20), {2})]
    fake_engine.calls.clear()
    for i, (x, y) in enumerate(pairs):
        one = c2st(x, y, seed=many.seeds[i], n_folds=3)
        assert_same(one, many[i])
    assert len(fake_engine.calls) == len(pairs)  # c2st: one call per comparison


def test_mlp_hidden_groups_and_max_epochs_warning(rng, fake_engine):
    pairs = make_pairs(rng, widths=(2, 3))
    with pytest.warns(ConvergenceWarning, match=r"max_epochs`=13.*pair"):
        many = c2st_many(pairs, seed=0, hidden=(8,), max_epochs=13)
    assert [c[:2] for c in fake_engine.calls] == [(5, (8,)), (5, (8,))]
    assert all(r.hidden == (8,) for r in many)
    assert any(r.hit_max_epochs for r in many)
    assert "not comparable" in many[0].summary()


def test_mlp_n_jobs_and_group_size(rng, fake_engine):
    import joblib

    pairs = make_pairs(rng, widths=(2, 2, 2, 3, 2))
    serial = c2st_many(pairs, seed=6)
    assert len(fake_engine.calls) == 2
    fake_engine.calls.clear()
    with joblib.parallel_config(backend="threading"):
        parallel = c2st_many(pairs, seed=6, n_jobs=2)
    # n_jobs never changes which pairs share a network: still one network per width
    assert sorted(c[0] for c in fake_engine.calls) == [5, 20]
    fake_engine.calls.clear()
    with joblib.parallel_config(backend="threading"):
        batched = c2st_many(pairs, seed=6, n_jobs=2, group_size=3)
    assert sorted(c[0] for c in fake_engine.calls) == [5, 5, 15]
    for a, b, c in zip(serial, parallel, batched, strict=True):
        assert_same(a, b)
        assert_same(a, c)  # the fake engine is batch-invariant, so batching changes nothing
    with pytest.raises(ValueError, match="group_size"):
        c2st_many(pairs, seed=6, group_size=0)


# ------------------------------------------------------------------ the real torch engine


@pytest.mark.torch
def test_mlp_pairs_equal_c2st_real_engine(rng):
    # group_size=1: each pair's folds are exactly the network c2st trains -> bit-identical.
    # A short max_epochs keeps this fast; folds that hit it warn, in c2st and c2st_many alike.
    pairs = make_pairs(rng, widths=(2, 2, 3), n=(30, 34))
    kw = {"n_folds": 3, "hidden": (6, 6), "max_epochs": 15}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exact = c2st_many(pairs, seed=3, group_size=1, **kw)
        batched = c2st_many(pairs, seed=3, **kw)
    assert any(r.hit_max_epochs for r in exact)
    assert [w.category for w in caught] == [ConvergenceWarning] * 2
    for i, (x, y) in enumerate(pairs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            one = c2st(x, y, seed=exact.seeds[i], **kw)
        assert len(caught) == int(one.hit_max_epochs)
        assert_same(one, exact[i])
        # one network for all pairs of a group: an entry's arithmetic does not depend on the
        # other entries of the batch, so this is bit-identical too
        assert batched.seeds[i] == exact.seeds[i]
        assert_same(one, batched[i])


@pytest.mark.torch
def test_batched_c2st_many_equals_c2st_with_the_sbibm_network():
    # default hidden (10d, 10d), full stopping rule; pairs of different sizes (one of them in a
    # different minibatch layout, 4 vs 3 batches per fold, so it trains in its own group)
    rng = np.random.default_rng(11)
    pairs = [
        (rng.normal(size=(300, 2)), rng.normal(0.2, 1.0, size=(320, 2))),
        (rng.normal(size=(260, 2)), rng.normal(size=(260, 2))),
        (rng.normal(size=(300, 2)), rng.normal(0.0, 1.4, size=(300, 2))),
        (rng.normal(size=(420, 2)), rng.normal(0.1, 1.0, size=(400, 2))),
        # wider networks train for hundreds of epochs: GEMM rounding would show here
        (rng.normal(size=(250, 5)), rng.normal(size=(250, 5))),
        (rng.normal(size=(250, 5)), rng.normal(0.0, 1.3, size=(250, 5))),
    ]
    many = c2st_many(pairs, seed=21)
    for i, (x, y) in enumerate(pairs):
        one = c2st(x, y, seed=many.seeds[i])
        np.testing.assert_array_equal(one.fold_accuracy, many[i].fold_accuracy)
        np.testing.assert_array_equal(one.epochs, many[i].epochs)
        assert one.pvalue == many[i].pvalue
