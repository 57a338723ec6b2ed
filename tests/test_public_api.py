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


def _scores(
    n_splits: int = 10, shift: float = 0.01, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = 0.8 + 0.02 * rng.normal(size=n_splits)
    return a, a - shift + 0.01 * rng.normal(size=n_splits)


def _score_table() -> np.ndarray:
    return 0.7 + 0.05 * _rng().random((8, 3)) + np.array([0.0, 0.02, 0.04])


def _categorical() -> tuple[Any, np.ndarray]:
    p = mc.stair_distribution(4, 4, 2)
    return p, p.sample(400, seed=0)


def _draws_and_theta(n: int = 150, s: int = 20) -> tuple[np.ndarray, np.ndarray]:
    flow, theta, x = _flow_and_pairs(n)
    return flow.sample(x, s, seed=0), theta


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
    "rel_kid": lambda: mc.rel_kid(_normal(), _normal(shift=0.5, seed=1), _normal(seed=2), seed=0),
    "rel_fid": lambda: mc.rel_fid(
        _normal(), _normal(shift=0.5, seed=1), _normal(seed=2), n_blocks=4, seed=0
    ),
    "fid": lambda: mc.fid(_normal(), _normal(seed=1)),
    "kid": lambda: mc.kid(_normal(), _normal(seed=1), n_subsets=5, subset_size=20, seed=0),
    "fd": lambda: mc.fd(_normal(), _normal(seed=1), n_resamples=5, seed=0),
    "fd_infinity": lambda: mc.fd_infinity(
        _normal(), _normal(seed=1), sizes=[20, 30, 40], n_resamples=3, seed=0
    ),
    "cmmd": lambda: mc.cmmd(_normal(), _normal(seed=1)),
    # posterior
    "sbc": lambda: mc.sbc(*_flow_and_pairs(), n_posterior_samples=20, seed=0),
    "sbc_test": lambda: mc.sbc_test(_rng().integers(0, 21, size=(150, 2)), 20, seed=0),
    "tarp": lambda: mc.tarp(*_flow_and_pairs(), n_posterior_samples=20, seed=0),
    "sbc_log_gamma": lambda: mc.sbc_log_gamma(
        _rng().integers(0, 21, size=(150, 2)), 20, n_resamples=99, seed=0
    ),
    "parameter_recovery": lambda: mc.parameter_recovery(*_draws_and_theta()),
    "posterior_contraction": lambda: mc.posterior_contraction(*_draws_and_theta()),
    "calibration_error": lambda: mc.calibration_error(*_draws_and_theta()),
    "hpd_coverage_test": lambda: mc.hpd_coverage_test(
        _rng().normal(size=(150, 20)), _rng().normal(size=150), seed=0
    ),
    "hpd_coverage": lambda: mc.hpd_coverage(*_flow_and_pairs(), n_posterior_samples=20, seed=0),
    "misspecification_test": lambda: mc.misspecification_test(
        _normal(1, seed=3), _normal(200), seed=0
    ),
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
    "wilcoxon_holm_test": lambda: mc.wilcoxon_holm_test(_score_table()),
    "bayesian_hierarchical_ttest": lambda: mc.bayesian_hierarchical_ttest(
        np.array([_scores(seed=k)[0] for k in range(3)]),
        np.array([_scores(seed=k)[1] for k in range(3)]),
        n_draws=300,
        seed=0,
    ),
    "mcnemar_test": lambda: mc.mcnemar_test([[50, 12], [4, 30]]),
    "paired_ttest_5x2cv": lambda: mc.paired_ttest_5x2cv(*(s[:10] for s in _scores())),
    "combined_ftest_5x2cv": lambda: mc.combined_ftest_5x2cv(*(s[:10] for s in _scores())),
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
        assert getattr(result, "alpha", None) is None  # a test with a p-value stores no level
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


def _glossary_section(title: str) -> str:
    text = GLOSSARY.read_text(encoding="utf-8")
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : None if end < 0 else end]


def _glossary_names(title: str = "Argument names") -> set[str]:
    """The names in the first column of a glossary table (several per row: `a`, `b`)."""
    names: set[str] = set()
    pattern = r"^\| ((?:`[A-Za-z_]+`(?:, )?)+) \|"
    for cell in re.findall(pattern, _glossary_section(title), re.MULTILINE):
        names |= set(re.findall(r"`([A-Za-z_]+)`", cell))
    return names


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
    "k": "n_bins (a binning) or n_locations (PowerCriterionMap.best)",
    "k_range": "n_bins_grid",
    "split_fraction": "train_fraction",
    "optimize": "optimizer (None: no optimisation)",
    "draws": "posterior_samples",
    "axes": "ax",
    "references": "reference_points",
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
    # sbc_test's and calibration_findings' count is part of their data (ranks lie in 0..n_posterior_samples), and the
    # correction is what adjust_pvalues is about
    data_like = {
        ("sbc_test", "n_posterior_samples"),
        ("calibration_findings", "n_posterior_samples"),
        ("sbc_log_gamma", "n_posterior_samples"),
        ("adjust_pvalues", "correction"),
    }
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


# ----------------------------------------------------------------------------------------------
# the full vocabulary: every parameter of every public signature


def _public_callables() -> list[tuple[str, Callable[..., Any]]]:
    """Public functions, constructors of option and model classes, and public methods.

    The constructors of dataclasses (results, fitted parameters, binnings) are left out: their
    parameters are the fields they report, not options. ``OptimizerOptions`` is an options object,
    so its constructor is in.
    """
    out: list[tuple[str, Callable[..., Any]]] = []
    for name in mc.__all__:
        obj = getattr(mc, name)
        if inspect.isfunction(obj):
            out.append((name, obj))
        elif inspect.isclass(obj):
            if not dataclasses.is_dataclass(obj) or obj is mc.OptimizerOptions:
                out.append((name, obj))
            for attr, value in vars(obj).items():
                if not attr.startswith("_") and inspect.isfunction(value):
                    out.append((f"{name}.{attr}", value))
    return out


def _parameters() -> list[tuple[str, inspect.Parameter]]:
    out = []
    for name, fn in _public_callables():
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
            continue
        for p in sig.parameters.values():
            if p.name in {"self", "cls"} or p.name.startswith("_"):
                continue
            if p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                continue
            out.append((name, p))
    return out


#: Names that mean something in one part only (reviewed: a name used by two parts belongs in the
#: glossary instead). name -> the part and what it is.
PART_SPECIFIC: dict[str, str] = {
    # two-sample (C2ST)
    "hidden": "twosample: the MLP's hidden layer sizes",
    "max_epochs": "twosample: the MLP's epoch limit",
    "noise_scale": "twosample: sbibm's input noise",
    "group_size": "twosample: tests per batched fit of c2st_many",
    "pairs": "twosample and posterior: the (i, j) pairs a many-test or an independence test runs on",
    # relative fit
    "candidates": "relative: candidate locations of a power-criterion map",
    "kernel": "relative: the kernel of Rel-MMD",
    "bandwidth_method": "relative: the median heuristic of Rel-MMD's default width",
    "result_or_map": "relative: what plot_power_criterion_map draws",
    "extractor": "workflows: what maps images to features in compare_generators",
    "extractor_name": "workflows: how compare_generators' page names the extractor",
    "result_or_criterion": "relative: the criterion values plot_locations_as_images ranks",
    "images": "relative: the image of each candidate location",
    "image_shape": "relative: the shape of one candidate image",
    "largest": "relative: whether the best or the worst candidates are drawn",
    "top": "relative: how many candidate images plot_locations_as_images draws",
    "ncols": "relative: images per row of plot_locations_as_images",
    "preset": "relative: OptimizerOptions' named option set",
    "max_iter": "relative: OptimizerOptions' L-BFGS-B iterations",
    "tol_fun": "relative: OptimizerOptions' L-BFGS-B tolerance",
    "locs_bounds_frac": "relative: OptimizerOptions' box on the locations",
    "bandwidth_bounds": "relative: OptimizerOptions' bounds on the width",
    "test": "relative and experiments: the test an option set or a power study is for",
    "scheme": "relative: how rel_fid gets its standard error (jackknife or blocks)",
    "nearest_k": "relative: the k of prdc's k-nearest-neighbour balls (Naeem et al.'s name)",
    "metric": "relative: which of precision, recall, density and coverage an interval is for",
    "sizes": "relative: the subset sizes N that FD∞ extrapolates over",
    "subsample_reference": "relative: FD∞ subsamples the reference sample too",
    # posterior
    "atol": "posterior: check_flow's tolerance",
    "band": "posterior: which band plot_global_pp draws",
    "convention": "posterior: TARP's coverage convention",
    "embedding": "posterior: the embedding net of a zuko flow",
    "estimator": "posterior: the estimator a regressor wraps",
    "index": "posterior: the evaluation point plot_local_pp draws",
    "kind": "posterior: the band or plot variant",
    "mean_matrix": "posterior: the affine Gaussian flow's mean map",
    "n": "posterior: draws made by a test model's sample or simulate",
    "n_levels_per_sample": "posterior: level draws per pair of the amortised regressor",
    "noise_cov": "posterior: the Gaussian test model's noise",
    "null": "posterior: precomputed null regressors",
    "obj": "posterior: what as_flow adapts",
    "parameter_names": "posterior: the display names of θ's coordinates in calibration findings",
    "offset": "posterior: the affine flow's offset",
    "posterior": "posterior: an sbi posterior object",
    "prior_cov": "posterior: the Gaussian test model's prior",
    "rearrange": "posterior: monotone rearrangement of the amortised regressor",
    "reference_points": "posterior: TARP's reference points",
    "normalize": "posterior: what parameter_recovery divides the RMSE by; relative: CMMD's L2 norm",
    "prior_variance": "posterior: the prior variances of posterior_contraction",
    "aggregation": "posterior: how calibration_error summarises its levels",
    "tolerance": "posterior: the z-scores' spread that PosteriorContractionResult.reading accepts",
    "scale": "posterior: the affine flow's scale; relative: CMMD's factor on the MMD²",
    "scale_factor": "posterior: the over/under-dispersion of the exact test flow",
    "simultaneous": "posterior: the simultaneous band's construction",
    "u": "posterior: the regression targets of a null regressor's fit",
    "checks": "workflows: the report's checks",
    "include_arrays": "workflows: whether the report's dict holds arrays",
    "first": "workflows: the estimator compare_posteriors tests as better",
    "second": "workflows: the estimator compare_posteriors tests it against",
    "estimators": "workflows: the named estimators rank_posteriors ranks",
    "compare_with": "workflows: a second estimator the report compares the flow with",
    # categorical
    "add_frac": "categorical: perturb's added mass",
    "epsilon": "categorical: the closeness tolerance ε",
    "epsilon0": "categorical: the null side ε₀ of the closeness test",
    "l1": "categorical: perturb's L1 distance",
    "layout": "categorical: the stair distribution's layout",
    "length": "categorical: the string length L of Ω",
    "mode": "categorical: the closeness test's rule",
    "name": "categorical: the argument name in CategoricalReference.check's messages",
    "null_frac": "categorical: perturb's mass on the zero stair",
    "positive_fraction": "categorical: the stair distribution's support share",
    "ratio": "categorical: the stair distribution's step ratio",
    "split": "categorical: choose the bins on a split of the samples",
    "tv": "categorical: perturb's total-variation distance",
    "variance_bound": "categorical: the variance bound of the closeness statistic",
    # cross-validated comparison
    "corrected": "cv: the Nadeau–Bengio corrected interval or the naive one",
    "high": "cv: the upper end of a ConfidenceInterval",
    "low": "cv: the lower end of a ConfidenceInterval",
    "order": "cv: the row order of compare_models",
    "prior": "cv: the Dirichlet prior of the Bayesian signed-rank test",
    "scoring": "cv: the scorer of a search's results",
    "value": "cv: the threshold of BayesianTTestResult.prob_greater",
    "zero_method": "cv: scipy.stats.wilcoxon's zero handling",
    "exact": "cv: McNemar's exact binomial form",
    "continuity_correction": "cv: Edwards' continuity correction of McNemar's chi-square",
    "splits": "cv: how cross_validate_5x2 draws its halves",
    "across": "cv: whether compare_models_report compares across data sets or splits",
    "posthoc": "cv: the post-hoc test of compare_models_report",
    "bayesian": "cv: the Bayesian test of compare_models_report",
    # experiments
    "ci_method": "experiments: the binomial interval of a power study",
    "configs": "experiments: the configurations of run_many or run_sweep",
    "fn": "experiments: the function a sweep runs",
    "out": "experiments: the output directory",
    "retry_failed": "experiments: rerun the failed tasks of a sweep",
    "settings": "experiments: the settings a power study records",
    "simulate": "experiments: the simulator of a power study",
}

#: concept -> kind -> (default, the public functions of that kind). The kinds and their reasons
#: are the glossary's "Defaults that differ between kinds"; a concept not listed here has one
#: default wherever it has one.
DEFAULTS: dict[str, dict[str, tuple[Any, tuple[str, ...]]]] = {
    "n_draws": {
        "independent Monte Carlo draws": (50_000, ("bayesian_signed_rank",)),
        "MCMC draws per chain": (5000, ("bayesian_hierarchical_ttest",)),
    },
    "n_folds": {
        "a classifier test's own cross-validation": (5, ("c2st", "c2st_many")),
        "given CV scores": (None, ("bayesian_hierarchical_ttest", "compare_models_report")),
    },
    "n_resamples": {
        "Monte Carlo p-value": (
            999,
            (
                "closeness_test",
                "two_sample_closeness_test",
                "granularity",
                "sbc_log_gamma",
                "misspecification_test",
            ),
        ),
        "simulated ECDF band": (1000, ("global_coverage_test",)),
        "refitted null models": (
            100,
            ("local_coverage_test", "local_independence_test", "fit_null_regressors", "lc2st_nf"),
        ),
        "bootstrap-t p-value": (1999, ("compare_posteriors", "rank_posteriors")),
        "bootstrap standard error of a score": (50, ("fd", "fd_infinity")),
        "planned by the report": (None, ("validate_posterior",)),
    },
    "regressor": {
        "local tests and the report": (
            "knn",
            (
                "local_coverage_test",
                "local_independence_test",
                "fit_null_regressors",
                "validate_posterior",
            ),
        ),
    },
    "classifier": {
        "classifier tests": ("mlp", ("c2st", "c2st_many", "lc2st_nf")),
        "report": ("logistic", ("validate_posterior",)),
    },
    "band_correction": {
        "global bands": (None, ("global_coverage_test",)),
        "local bands": ("bonferroni", ("local_coverage_test",)),
    },
    "n_bins": {
        "PIT histogram": (None, ("global_coverage_test",)),
        "chi-squared table": (5, ("pit_independence_test",)),
        "SBC rank histogram": (20, ("sbc_test",)),
    },
    "reg": {
        "power-criterion maps": (
            1e-7,
            ("power_criterion_map", "fssd_power_criterion_map", "select_locations"),
        ),
        "optimiser options (the preset's)": (None, ("OptimizerOptions",)),
    },
    "correction": {
        "adjusting a family": (
            "holm",
            (
                "adjust_pvalues",
                "wilcoxon_holm_test",
                "compare_posteriors",
                "rank_posteriors",
                "calibration_findings",
            ),
        ),
        "scikit-learn's pairwise comparison": ("bonferroni", ("compare_models",)),
    },
    "alpha": {
        "a level fixed in advance": (
            0.05,
            (
                "granularity",
                "calibration_findings",
                "nemenyi_test",
                "compare_models_report",
                "power_study",
                "plot_local_statistics",
                "plot_posterior_comparison",
                "plot_posterior_ranking",
                "WilcoxonHolmResult.significant",
                "WilcoxonHolmResult.cliques",
                "C2STResult.summary",
                "SBCLogGammaResult.relative_log_gamma",
                "PosteriorComparisonResult.where",
                "validate_posterior",
                "GeneratorComparisonResult.better",
                "GeneratorComparisonResult.rejected",
                "GeneratorComparisonResult.summary",
                "GeneratorComparisonResult.to_html",
                "GeneratorComparisonResult.verdict",
            ),
        ),
        "the result's own level": (
            None,
            (
                "plot_critical_difference",
                "PosteriorValidationResult.failures",
                "PosteriorValidationResult.findings_at",
                "PosteriorValidationResult.summary",
                "PosteriorValidationResult.to_html",
                "PosteriorValidationResult.to_dict",
            ),
        ),
        "a threshold mode's level (0.05); none in the p-value modes": (
            None,
            ("closeness_test", "two_sample_closeness_test"),
        ),
        "the level a threshold mode ran at (0.05 for a p-value mode)": (
            None,
            ("ClosenessResult.critical_value", "ClosenessResult.decision"),
        ),
    },
    "levels": {
        "a credibility grid": (
            None,
            (
                "fit_null_regressors",
                "global_coverage_test",
                "local_coverage_test",
                "calibration_error",
                "hpd_coverage_test",
                "hpd_coverage",
            ),
        ),
        "credible intervals to report": (
            (0.5, 0.75, 0.95),
            ("BayesianTTestResult.credible_intervals",),
        ),
    },
    "n_locations": {
        "locations of a test": (
            5,
            (
                "rel_ume",
                "rel_fssd",
                "optimize_ume",
                "optimize_fssd",
                "select_locations",
                "compare_generators",
            ),
        ),
        "the best candidates of a map": (1, ("PowerCriterionMap.best",)),
    },
    "names": {
        "names from the data": (
            None,
            ("compare_models", "friedman_test", "nemenyi_test", "wilcoxon_holm_test"),
        ),
        "a plot of two models": (("a", "b"), ("plot_posterior",)),
        "two generative models": (("first", "second"), ("compare_generators",)),
        "a search's naming style": ("values", ("scores_from_cv_results",)),
        "a report's naming style": ("params", ("compare_models_report",)),
    },
    "method": {
        "FID's matrix square root": ("eigh", ("fid", "rel_fid", "fd", "fd_infinity")),
        "a paired mean": ("t", ("compare_posteriors", "rank_posteriors")),
    },
    "statistic": {
        "the local coverage statistic": ("mse", ("local_coverage_test",)),
        "PIT dependence": ("spearman", ("pit_independence_test",)),
        "SBC's rank test": ("ks", ("sbc", "sbc_test")),
        "a misspecification statistic": ("knn", ("misspecification_test",)),
    },
    "n_neighbors": {
        "the kNN regressor": (150, ("NearestNeighborRegressor",)),
        "the misspecification test's typicality score": (5, ("misspecification_test",)),
        "compare_posteriors' where-map": (None, ("compare_posteriors",)),
    },
    "variance": {
        "the relative KID": ("ustat", ("rel_kid",)),
        "Rel-MMD, the authors' test": ("bounliphone", ("rel_mmd",)),
    },
    "bandwidth": {
        "chosen from the data": (
            None,
            (
                "fssd_power_criterion_map",
                "optimize_fssd",
                "optimize_ume",
                "power_criterion_map",
                "rel_fssd",
                "rel_ume",
                "select_locations",
                "rel_mmd",
            ),
        ),
        "CMMD's fixed width": (10.0, ("cmmd",)),
    },
    "n_subsets": {
        "KID's estimator": (100, ("kid",)),
        "half-size subsets for a standard error": (20, ("prdc",)),
    },
    "train_fraction": {
        "relative tests": (0.2, ("rel_ume", "rel_fssd")),
        "granularity": (0.5, ("granularity",)),
    },
}


def _defaults_of(argument: str) -> dict[str, Any]:
    return {
        name: p.default
        for name, p in _parameters()
        if p.name == argument and p.default is not inspect.Parameter.empty
    }


def test_every_parameter_name_is_in_the_glossary_or_part_specific() -> None:
    known = _glossary_names() | _glossary_names("Data arguments")
    unknown = sorted(
        f"{name}({p.name})"
        for name, p in _parameters()
        if p.name not in known and p.name not in PART_SPECIFIC
    )
    assert unknown == [], (
        f"name these in {GLOSSARY.name} (Argument names or Data arguments), or, if the name "
        f"means something in one part only, add it to PART_SPECIFIC: {unknown}"
    )


def test_part_specific_names_are_not_glossary_names_and_are_used() -> None:
    glossary = _glossary_names() | _glossary_names("Data arguments")
    assert sorted(set(PART_SPECIFIC) & glossary) == []
    used = {p.name for _, p in _parameters()}
    assert sorted(set(PART_SPECIFIC) - used) == []


def test_retired_names_are_gone_everywhere() -> None:
    """Methods and constructors too, not only the functions."""
    found = sorted(
        f"{name}({p.name}) -> use {RETIRED[p.name]}"
        for name, p in _parameters()
        if p.name in RETIRED
    )
    assert found == []


@pytest.mark.parametrize("concept", sorted(DEFAULTS))
def test_one_default_per_kind(concept: str) -> None:
    defaults = _defaults_of(concept)
    claimed: set[str] = set()
    for kind, (default, functions) in DEFAULTS[concept].items():
        for fn in functions:
            assert fn in defaults, f"{fn} has no default {concept} ({kind})"
            assert defaults[fn] == default, f"{fn}({concept}={defaults[fn]!r}), {kind}: {default!r}"
            claimed.add(fn)
    unclassified = sorted(set(defaults) - claimed)
    assert unclassified == [], f"say which kind of {concept} these are in DEFAULTS: {unclassified}"


def _shown(default: Any) -> set[str]:
    """How the glossary may write a default."""
    if default is None:
        return {"`None`"}
    if isinstance(default, str):
        return {f'`"{default}"`'}
    if isinstance(default, tuple):
        return {str(default).replace("'", '"'), str(default)}
    return {str(default), f"{default:g}", f"{default:.0e}".replace("e-0", "e-")}


def test_defaults_table_matches_the_glossary() -> None:
    assert _glossary_names("Defaults that differ between kinds") == set(DEFAULTS)
    text = _glossary_section("Defaults that differ between kinds")
    for concept, kinds in DEFAULTS.items():
        row = next(line for line in text.splitlines() if line.startswith(f"| `{concept}` |"))
        for kind, (default, _) in kinds.items():
            assert any(shown in row for shown in _shown(default)), (concept, kind, default)


def test_every_other_glossary_concept_has_one_default() -> None:
    """A concept without kinds in the glossary has the same default wherever it has one."""
    mixed = {}
    for concept in sorted(_glossary_names() - set(DEFAULTS)):
        values = {repr(v) for v in _defaults_of(concept).values()}
        if len(values) > 1:
            mixed[concept] = _defaults_of(concept)
    assert mixed == {}, f"give these one default, or kinds in DEFAULTS and the glossary: {mixed}"
