"""Small valid inputs shared by the fuzz cases."""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np


def _normal(n: int = 40, d: int = 2, shift: float = 0.0, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(shift, 1.0, size=(n, d))


def _uniform(n: int = 80, d: int = 2, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random((n, d))


def _scores(n: int = 10, shift: float = 0.01, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = 0.8 + 0.02 * rng.normal(size=n)
    return a, a - shift + 0.01 * rng.normal(size=n)


def _score_table() -> np.ndarray:
    rng = np.random.default_rng(0)
    return 0.7 + 0.05 * rng.random((8, 3)) + np.array([0.0, 0.02, 0.04])


def _density(mean: float, d: int = 2) -> Any:
    from modelcompare.densities import IsotropicNormal

    return IsotropicNormal(np.full(d, mean), 1.0)


def _model() -> Any:
    import modelcompare as mc

    return mc.ConditionalGaussianModel(noise_cov=np.eye(2))


def _flow_pairs(n: int = 60) -> dict[str, Any]:
    model = _model()
    theta, x = model.simulate(n, seed=0)
    return {"flow": model.exact_flow(), "theta": theta, "x": x}


def _posterior_pair(n: int = 60) -> tuple[Any, Any, np.ndarray, np.ndarray]:
    """Two estimators (the exact posterior and a wrong one) and calibration pairs."""
    import modelcompare as mc

    theta, x = _model().simulate(n, seed=0)
    wrong = mc.ConditionalGaussianModel(noise_cov=2 * np.eye(2)).exact_flow()
    return _model().exact_flow(), wrong, theta, x


def _stairs() -> Any:
    import modelcompare as mc

    return mc.stair_distribution(4, 4, 2)


def _cat_samples(n: int = 300) -> np.ndarray:
    return _stairs().sample(n, seed=0)


def _result(name: str) -> Any:
    """A small valid result of ``name``, for the plotting functions."""
    import modelcompare as mc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "global":
            return mc.global_coverage_test(_uniform(), n_resamples=50, seed=0)
        if name == "local":
            return mc.local_coverage_test(
                _uniform(120, 1),
                _normal(120, 1),
                [[0.0], [1.0]],
                regressor="knn",
                n_resamples=10,
                levels=9,
                seed=0,
            )
        if name == "nemenyi":
            return mc.nemenyi_test(_score_table())
        if name == "bayes":
            return mc.bayesian_ttest(*_scores(), n_train=90, n_test=10)
        if name == "pairs":
            return mc.compare_models(dict(zip("ab", _scores())), n_train=90, n_test=10).table
        if name == "granularity":
            return mc.granularity(_stairs(), _cat_samples(), seed=0)
        if name == "sbc":
            ranks = np.random.default_rng(0).integers(0, 21, size=(100, 2))
            return mc.sbc_test(ranks, 20, seed=0)
        if name == "tarp":
            return mc.tarp(**_flow_pairs(), n_posterior_samples=20, seed=0)
        if name == "independence":
            return mc.pit_independence_test(_uniform(80, 3))
        if name in ("comparison", "comparison_global"):
            first, second, theta, x = _posterior_pair()
            x_eval = None if name == "comparison_global" else x[:4]
            return mc.compare_posteriors(first, second, theta, x, x_eval=x_eval, seed=0)
        if name == "ranking":
            return mc.rank_posteriors([*_posterior_pair()[:2]], *_posterior_pair()[2:], seed=0)
        if name == "map":
            z = _normal(60, 1)
            return mc.power_criterion_map(
                z + 1.0, _normal(60, 1, seed=1), z, np.linspace(-2, 2, 5)[:, None], seed=0
            )
    raise KeyError(name)


def _kfold() -> Any:
    from sklearn.model_selection import KFold

    return KFold(5)


def _ttest(x: np.ndarray, seed: Any) -> Any:
    from scipy import stats

    return stats.ttest_1samp(x, 0.0)


def _simulate(shift: float, seed: Any) -> np.ndarray:
    return seed.normal(shift, 1.0, size=20)


def _square(v: float, seed: Any) -> dict[str, float]:
    return {"square": v * v}


_TMP = tempfile.TemporaryDirectory(prefix="modelcompare-fuzz-")


def _out_path() -> str:
    return str(Path(tempfile.mkdtemp(dir=_TMP.name)) / "results.csv")


def _logistic() -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression()
