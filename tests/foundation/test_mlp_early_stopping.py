"""Validation early stopping in the MLP engine, and fit_predict_proba, against scikit-learn."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning
from sklearn.neural_network import MLPClassifier

from modelcompare._foundation.mlp import native as _native
from modelcompare._foundation.mlp.recipe import ValidationRule, validation_split
from modelcompare._foundation.mlp.trainer import FoldData, fit_predict_proba, train_mlp

pytestmark = pytest.mark.torch


@pytest.fixture(autouse=True)
def _one_torch_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(params=["native", "torch"])
def engine(request):
    """Both CPU engines."""
    if request.param == "native" and _native.load_kernel(respect_env=False) is None:
        pytest.skip("no C compiler could build the native kernel")
    return request.param


def _data(seed, n, d, shift=0.4):
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.standard_normal((n, d)), rng.standard_normal((n, d)) + shift])
    return x.astype(np.float32), np.r_[np.zeros(n), np.ones(n)].astype(np.float32)


def _sklearn(x, y, seed, hidden, **kw):
    clf = MLPClassifier(hidden, early_stopping=True, random_state=seed, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkConvergenceWarning)
        return clf.fit(x, y)


def test_validation_rule_is_sklearns_counter():
    # sklearn's _update_no_improvement_count with early_stopping=True, replayed on a score path
    scores = [0.5, 0.6, 0.6, 0.60005, 0.55, 0.7, np.nan, 0.7, 0.69]
    rule = ValidationRule(1, tol=1e-4, n_iter_no_change=2)
    best, bad, stops, improved = -np.inf, 0, [], []
    for s in scores:
        bad = bad + 1 if s < best + 1e-4 else 0
        imp = s > best
        best = s if imp else best
        stops.append(bad > 2)
        improved.append(imp)
        assert rule.update(np.array([s]))[0] == stops[-1]
        assert rule.improved[0] == imp
    assert any(stops)


def test_validation_split_is_sklearns_and_advances_the_stream():
    from sklearn.model_selection import train_test_split

    y = np.r_[np.zeros(30), np.ones(30)]
    a, b = np.random.RandomState(3), np.random.RandomState(3)
    tr, va = validation_split(a, y, 0.1)
    tr_ref, va_ref = train_test_split(np.arange(60), random_state=b, test_size=0.1, stratify=y)
    np.testing.assert_array_equal(tr, tr_ref)
    np.testing.assert_array_equal(va, va_ref)
    assert a.randint(1 << 30) == b.randint(1 << 30)
    assert np.sum(y[va]) == 3  # stratified


@pytest.mark.parametrize(("d", "hidden", "seed"), [(3, (20, 20), 0), (2, (12,), 1), (5, (9, 7), 2)])
def test_early_stopping_follows_sklearn_step_by_step(engine, d, hidden, seed):
    # same init, split, batch order and rule: same epochs, best score and predictions to rounding
    x, y = _data(seed, 260, d)
    ref = _sklearn(x, y, seed, hidden, max_iter=300)
    fit = train_mlp(
        [FoldData(x, y, x, seed)], hidden=hidden, max_epochs=300, engine=engine, early_stopping=True
    )[0]
    assert fit.epochs == ref.n_iter_
    assert fit.validation_score == pytest.approx(ref.best_validation_score_)
    p = 1.0 / (1.0 + np.exp(-fit.test_logits))
    np.testing.assert_allclose(p, ref.predict_proba(x)[:, 1], atol=1e-5)


def test_early_stopping_options_follow_sklearn(engine):
    x, y = _data(4, 200, 2, shift=0.8)
    kw = {"n_iter_no_change": 4, "tol": 1e-3, "validation_fraction": 0.2}
    ref = _sklearn(x, y, 7, (10,), max_iter=300, **kw)
    fit = train_mlp(
        [FoldData(x, y, x, 7)],
        hidden=(10,),
        max_epochs=300,
        engine=engine,
        early_stopping=True,
        **kw,
    )[0]
    assert fit.epochs == ref.n_iter_
    p = 1.0 / (1.0 + np.exp(-fit.test_logits))
    np.testing.assert_allclose(p, ref.predict_proba(x)[:, 1], atol=1e-5)


def test_max_epochs_keeps_the_best_weights_not_the_last(engine):
    x, y = _data(5, 150, 2, shift=1.0)
    ref = _sklearn(x, y, 2, (8,), max_iter=6)  # stops on max_iter, restores the best weights
    fit = train_mlp(
        [FoldData(x, y, x, 2)], hidden=(8,), max_epochs=6, engine=engine, early_stopping=True
    )[0]
    assert fit.hit_max
    assert fit.epochs == 6
    p = 1.0 / (1.0 + np.exp(-fit.test_logits))
    np.testing.assert_allclose(p, ref.predict_proba(x)[:, 1], atol=1e-5)


def test_without_early_stopping_nothing_changes(engine):
    x, y = _data(6, 120, 2)
    folds = [FoldData(x, y, x[:20], 1)]
    a = train_mlp(folds, hidden=(8, 8), max_epochs=50, engine=engine)[0]
    b = train_mlp(folds, hidden=(8, 8), max_epochs=50, engine=engine, early_stopping=False)[0]
    np.testing.assert_array_equal(a.test_logits, b.test_logits)
    assert a.validation_score is None


def test_fit_predict_proba_engines_agree_and_each_classifier_stands_alone(engine):
    rng = np.random.default_rng(8)
    xs = np.stack([_data(s, 120, 3)[0] for s in range(4)])
    xs[2] = rng.standard_normal(xs[2].shape)  # a null set: early stopping stops it early
    y = _data(0, 120, 3)[1]
    x_eval = rng.standard_normal((33, 3))
    together = fit_predict_proba(
        xs, y, x_eval, seeds=[5, 6, 7, 8], hidden=(16, 16), max_epochs=200, engine=engine
    )
    assert together.engine == engine
    assert together.proba.shape == (4, 33)
    assert np.all((together.proba > 0) & (together.proba < 1))
    for j in range(4):
        alone = fit_predict_proba(
            xs[j : j + 1], y, x_eval, seeds=[5 + j], hidden=(16, 16), max_epochs=200, engine=engine
        )
        assert alone.epochs[0] == together.epochs[j]
        np.testing.assert_allclose(alone.proba[0], together.proba[j], atol=1e-6)
    other = "torch" if engine == "native" else "native"
    if other == "native" and _native.load_kernel(respect_env=False) is None:
        return
    cross = fit_predict_proba(
        xs, y, x_eval, seeds=[5, 6, 7, 8], hidden=(16, 16), max_epochs=200, engine=other
    )
    np.testing.assert_array_equal(cross.epochs, together.epochs)
    np.testing.assert_allclose(cross.proba, together.proba, atol=1e-4)
    np.testing.assert_allclose(cross.validation_score, together.validation_score)


def test_fit_predict_proba_per_classifier_eval_rows_labels_and_threads(engine):
    x, y = _data(9, 80, 2)
    xs = np.stack([x, x[::-1]])
    ys = np.stack([y, y[::-1]])
    x_eval = np.stack([x[:10], x[-10:]])
    fit = fit_predict_proba(xs, ys, x_eval, seeds=[1, 2], hidden=(8,), engine=engine)
    assert fit.proba.shape == (2, 10)
    shared = fit_predict_proba(xs, ys, x[:10], seeds=[1, 2], hidden=(8,), engine=engine)
    np.testing.assert_allclose(shared.proba[0], fit.proba[0], atol=1e-7)
    threaded = fit_predict_proba(xs, ys, x_eval, seeds=[1, 2], hidden=(8,), engine=engine, n_jobs=2)
    np.testing.assert_allclose(threaded.proba, fit.proba, atol=1e-7)
    np.testing.assert_array_equal(threaded.epochs, fit.epochs)


def test_fit_predict_proba_checks_its_inputs():
    x, y = _data(1, 30, 2)
    with pytest.raises(ValueError, match="shape"):
        fit_predict_proba(x, y, x, seeds=[0])
    with pytest.raises(ValueError, match="labels"):
        fit_predict_proba(x[None], y + 2, x, seeds=[0])
    with pytest.raises(ValueError, match="x_eval"):
        fit_predict_proba(x[None], y, x[:, :1], seeds=[0])
    with pytest.raises(ValueError, match="seeds"):
        fit_predict_proba(x[None], y, x, seeds=[0, 1])
    with pytest.raises(ValueError, match="n_jobs"):
        fit_predict_proba(x[None], y, x, seeds=[0], n_jobs=0)
    few = [0, 1, 2, 3, 30, 31, 32, 33]  # 8 rows: 10 % is one validation row
    with pytest.raises(ValueError, match=r"too small|test_size"):
        fit_predict_proba(x[None, few], y[few], x, seeds=[0], validation_fraction=0.1)


def test_fit_predict_proba_native_needs_no_torch_device_argument(monkeypatch):
    # on the CPU with the compiled kernel, torch is never asked for
    if _native.load_kernel(respect_env=False) is None:
        pytest.skip("no C compiler could build the native kernel")
    from modelcompare._foundation.mlp import trainer

    def no_torch(*args, **kwargs):
        raise AssertionError("torch was imported")

    monkeypatch.setattr(trainer, "import_torch", no_torch)
    x, y = _data(2, 40, 2)
    fit = fit_predict_proba(x[None], y, x[:3], seeds=[0], hidden=(4,), max_epochs=5)
    assert fit.engine == "native"
