"""Every public name follows the result protocol and the vocabulary of docs/glossary.md.

The test walks ``modelcompare.__all__``, classifies each name by kind, calls every public test,
threshold test, score, check and Bayesian comparison on small valid data, and asserts its protocol.
A new public function that returns a result must get an entry in ``CALLS`` below.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import modelcompare as mc
from modelcompare._foundation.results import (
    CheckResult,
    Result,
    ScoreResult,
    TestResult,
    ThresholdResult,
)

GLOSSARY = Path(__file__).resolve().parents[1] / "docs" / "glossary.md"


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _normal(n: int = 60, d: int = 2, shift: float = 0.0, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(shift, 1.0, size=(n, d))


def _flow_and_pairs(n: int = 150) -> tuple[Any, np.ndarray, np.ndarray]:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(n, seed=0)
    return model.exact_flow(), theta, x


def _scores(n_splits: int = 10, shift: float = 0.01) -> tuple[np.ndarray, np.ndarray]:
    rng = _rng()
    a = 0.8 + 0.02 * rng.normal(size=n_splits)
    return a, a - shift + 0.01 * rng.normal(size=n_splits)


def _score_table() -> np.ndarray:
    return 0.7 + 0.05 * _rng().random((8, 3)) + np.array([0.0, 0.02, 0.04])


def _categorical() -> tuple[Any, np.ndarray]:
    p = mc.stair_distribution(4, 4, 2)
    return p, p.sample(400, seed=0)


def _pit(n: int = 200) -> tuple[np.ndarray, np.ndarray]:
    rng = _rng()
    return rng.random((n, 2)), rng.normal(size=(n, 2))


def _gaussian_density(mean: float) -> Any:
    from modelcompare.densities import IsotropicNormal

    return IsotropicNormal(np.full(2, mean), 1.0)


# name -> a call on small valid data; keyword arguments only where they keep the call cheap
CALLS: dict[str, Callable[[], Any]] = {
    # two-sample
    "c2st": lambda: mc.c2st(_normal(), _normal(seed=1), classifier="logistic", seed=0),
    # relative fit
    "rel_ume": lambda: mc.rel_ume(_normal(), _normal(shift=0.5, seed=1), _normal(seed=2), seed=0),
    "rel_fssd": lambda: mc.rel_fssd(
        _gaussian_density(0.0), _gaussian_density(0.5), _normal(seed=2), seed=0
    ),
    "rel_mmd": lambda: mc.rel_mmd(_normal(), _normal(shift=0.5, seed=1), _normal(seed=2), seed=0),
    "relative_kid": lambda: mc.relative_kid(
        _normal(), _normal(shift=0.5, seed=1), _normal(seed=2), seed=0
    ),
    "relative_fid": lambda: mc.relative_fid(
        _normal(), _normal(shift=0.5, seed=1), _normal(seed=2), n_resamples=20, seed=0
    ),
    "fid": lambda: mc.fid(_normal(), _normal(seed=1)),
    "kid": lambda: mc.kid(_normal(), _normal(seed=1), n_subsets=5, subset_size=20, seed=0),
    # posterior
    "sbc": lambda: mc.sbc(*_flow_and_pairs(), n_posterior_samples=20, seed=0),
    "sbc_test": lambda: mc.sbc_test(_rng().integers(0, 21, size=(150, 2)), 20, seed=0),
    "tarp": lambda: mc.tarp(*_flow_and_pairs(), n_posterior_samples=20, seed=0),
    "global_coverage_test": lambda: mc.global_coverage_test(_pit()[0], n_resamples=100, seed=0),
    "pit_independence_test": lambda: mc.pit_independence_test(_pit()[0]),
    "local_coverage_test": lambda: mc.local_coverage_test(
        *_pit(), _pit()[1][:2], regressor="knn", n_resamples=10, seed=0
    ),
    "local_independence_test": lambda: mc.local_independence_test(
        *_pit(), _pit()[1][:2], regressor="knn", n_resamples=10, seed=0
    ),
    "lc2st_nf": lambda: mc.lc2st_nf(
        *_flow_and_pairs(), _flow_and_pairs()[2][:2], n_resamples=5, n_eval=50, seed=0
    ),
    "check_flow": lambda: mc.check_flow(*_flow_and_pairs(20)),
    "compare_posteriors": lambda: mc.compare_posteriors(
        _flow_and_pairs()[0],
        mc.ConditionalGaussianModel(noise_cov=np.eye(2)).exact_flow(scale_factor=1.2),
        *_flow_and_pairs()[1:],
        x_eval=_flow_and_pairs()[2][:2],
        seed=0,
    ),
    # categorical
    "closeness_test": lambda: mc.closeness_test(
        np.full(4, 0.25), np.array([24, 26, 25, 25]), mode="asymptotic", seed=0
    ),
    "two_sample_closeness_test": lambda: mc.two_sample_closeness_test(
        np.array([24, 26, 25, 25]), np.array([25, 25, 26, 24]), n_resamples=99, seed=0
    ),
    "granularity": lambda: mc.granularity(*_categorical(), seed=0),
    # cross-validated comparison
    "corrected_ttest": lambda: mc.corrected_ttest(*_scores(), n_train=90, n_test=10),
    "bayesian_ttest": lambda: mc.bayesian_ttest(*_scores(), n_train=90, n_test=10),
    "bayesian_signed_rank": lambda: mc.bayesian_signed_rank(*_scores(), n_draws=2000, seed=0),
    "friedman_test": lambda: mc.friedman_test(_score_table()),
    "nemenyi_test": lambda: mc.nemenyi_test(_score_table()),
    "wilcoxon_holm": lambda: mc.wilcoxon_holm(_score_table()),
}

KINDS = {
    TestResult: "test",
    ThresholdResult: "threshold test",
    ScoreResult: "score",
    CheckResult: "check",
}


def _kind(cls: type) -> str:
    for base, kind in KINDS.items():
        if issubclass(cls, base):
            return kind
    if dataclasses.is_dataclass(cls) and "prob_rope" in {f.name for f in dataclasses.fields(cls)}:
        return "Bayesian comparison"
    if issubclass(cls, Result):
        return "parameters or collection"
    return "other"


def _return_class(fn: Callable[..., Any]) -> type | None:
    module = inspect.getmodule(fn)
    annotation = fn.__annotations__.get("return")
    if isinstance(annotation, str):
        annotation = getattr(module, annotation, None)
    return annotation if isinstance(annotation, type) else None


def _public_functions() -> list[str]:
    return [n for n in mc.__all__ if inspect.isfunction(getattr(mc, n, None))]


def test_every_result_returning_function_has_an_example_call() -> None:
    missing = []
    for name in _public_functions():
        cls = _return_class(getattr(mc, name))
        if cls is None or not issubclass(cls, Result):
            continue
        if _kind(cls) != "parameters or collection" and name not in CALLS:
            missing.append(name)
    assert missing == [], f"add these to CALLS in {__file__}: {missing}"


def test_every_public_result_class_is_a_frozen_result() -> None:
    for name in mc.__all__:
        obj = getattr(mc, name)
        if isinstance(obj, type) and name.endswith("Result"):
            assert issubclass(obj, Result), name
            assert dataclasses.is_dataclass(obj), name
            assert obj.__dataclass_params__.frozen, name  # type: ignore[attr-defined]


def _check_common(result: Result) -> None:
    data = result.to_dict()
    json.dumps(data)  # JSON-safe (NaN/inf allowed as floats)
    assert "reject" not in data
    assert not hasattr(result, "reject")
    text = repr(result)
    assert text.startswith(type(result).__name__)
    assert len(text) < 300
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.statistic = 0.0  # type: ignore[misc]


def _finite_p(p: Any) -> None:
    assert isinstance(p, float | np.floating), type(p)
    assert math.isfinite(p)
    assert 0.0 <= p <= 1.0


@pytest.mark.parametrize("name", sorted(CALLS))
def test_protocol(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = CALLS[name]()
    kind = _kind(type(result))
    if name == "check_flow":
        assert kind == "check"
    _check_common(result)
    fields = {f.name for f in dataclasses.fields(result)}
    if kind == "test":
        assert isinstance(result.statistic, float | np.floating)
        _finite_p(result.pvalue)
        assert "alpha" not in fields
        for alpha in (0.01, 0.05, 0.5):
            assert result.decision(alpha) is (result.pvalue <= alpha)
        with pytest.raises(ValueError, match="alpha"):
            result.decision(float("nan"))
    elif kind == "threshold test":
        assert {"statistic", "threshold", "alpha"} <= fields
        assert isinstance(result.decision(), bool)
    elif kind == "score":
        assert dataclasses.fields(result)[0].name == "value"
        assert math.isfinite(result.value)
    elif kind == "check":
        assert isinstance(result.passed, bool)
        assert {"statistic", "tolerance"} <= fields
    elif kind == "Bayesian comparison":
        total = result.prob_a_better + result.prob_rope + result.prob_a_worse
        assert total == pytest.approx(1.0, abs=1e-9)
        assert result.decision() in {"a_better", "rope", "a_worse", "undecided"}
    else:
        pytest.fail(f"{name} returns {type(result).__name__}, which follows no protocol kind")
    fn = getattr(mc, name)
    if "seed" in inspect.signature(fn).parameters:
        assert "seed_used" in fields, f"{name} is random but reports no seed_used"


@pytest.mark.parametrize(
    "name", sorted(n for n in CALLS if "seed" in inspect.signature(getattr(mc, n)).parameters)
)
def test_same_seed_same_result(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first, second = CALLS[name]().to_dict(), CALLS[name]().to_dict()
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


# ----------------------------------------------------------------------------------------------
# vocabulary


def _glossary_names() -> set[str]:
    text = GLOSSARY.read_text(encoding="utf-8")
    return set(re.findall(r"^\| `([a-z_]+)`", text, flags=re.MULTILINE)) | set(
        re.findall(r"^\| `[a-z_]+`, `([a-z_]+)`", text, flags=re.MULTILINE)
    )


RETIRED = {
    "n_permutations": "n_resamples",
    "n_simulations": "n_resamples",
    "n_null": "n_resamples",
    "n_bootstrap": "n_resamples",
    "delta": "alpha",
    "alphas": "levels",
    "n_alphas": "n_levels",
    "block_size": "chunk_size",
    "band_level": "confidence_level",
    "p_adjust": "correction",
}


def _signatures() -> list[tuple[str, inspect.Signature]]:
    out = []
    for name in mc.__all__:
        obj = getattr(mc, name)
        if inspect.isfunction(obj):
            out.append((name, inspect.signature(obj)))
    return out


def test_no_retired_argument_names() -> None:
    found = [
        f"{name}({p}) -> use {RETIRED[p]}"
        for name, sig in _signatures()
        for p in sig.parameters
        if p in RETIRED
    ]
    assert found == []


def test_counts_are_glossary_names() -> None:
    allowed = _glossary_names()
    unknown = sorted(
        {
            f"{name}({p})"
            for name, sig in _signatures()
            for p in sig.parameters
            if p.startswith("n_") and p not in allowed
        }
    )
    assert unknown == [], f"name these counts in {GLOSSARY.name}: {unknown}"


@pytest.mark.parametrize(
    ("argument", "default"), [("seed", None), ("n_jobs", None), ("progress", False)]
)
def test_defaults_follow_the_glossary(argument: str, default: Any) -> None:
    wrong = [
        f"{name}({argument}={sig.parameters[argument].default!r})"
        for name, sig in _signatures()
        if argument in sig.parameters and sig.parameters[argument].default is not default
    ]
    assert wrong == []


def test_options_are_keyword_only() -> None:
    """Data are positional; options (anything with a glossary name) are keyword-only."""
    options = _glossary_names() - {"x_eval", "n_samples", "n_categories", "n_stairs"}
    # sbc_test's count is part of its data (ranks lie in 0..n_posterior_samples), and the
    # correction is what adjust_pvalues is about
    data_like = {("sbc_test", "n_posterior_samples"), ("adjust_pvalues", "correction")}
    positional = [
        f"{name}({p.name})"
        for name, sig in _signatures()
        for p in sig.parameters.values()
        if p.name in options
        and p.kind is not inspect.Parameter.KEYWORD_ONLY
        and (name, p.name) not in data_like
    ]
    assert positional == []


def test_glossary_lists_the_result_kinds() -> None:
    text = GLOSSARY.read_text(encoding="utf-8")
    for kind in ("**test**", "**threshold test**", "**score**", "**check**", "**report**"):
        assert kind in text
