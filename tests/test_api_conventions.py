"""The mechanical rules of docs/api_conventions.md, enforced on the public API and the CLI.

Each rule reads the names in the public packages' ``__all__``, their signatures and the command
line. An exception to a rule is listed here with its reason, as on the conventions page.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
import warnings
from typing import Any

import pytest

from tests.api_surface import PACKAGES, cli_surface

#: Public classes with a p-value that are not results of their own: a row of a report's table.
NOT_RESULTS_WITH_PVALUE = {
    "CheckOutcome",  # a row of a report's table
    "ModelComparisonReport",  # a report of several tests (the CV part's report, as in Demšar)
}

#: Functions that return a result with a p-value but do not end in ``_test``, and why.
NOT_ENDING_IN_TEST = {
    # the name of the reference implementation, kept (sbibm, sbi, the L-C2ST and TARP papers)
    "c2st": "sbibm's name and argument order",
    "lc2st_nf": "the L-C2ST paper's name",
    "tarp": "the TARP paper's name; runs the flow",
    "sbc": "the SBC paper's name; runs the flow (its arrays twin is sbc_test)",
    "sbc_log_gamma": "the statistic of Säilynoja et al.",
    "hpd_coverage": "runs the flow (its arrays twin is hpd_coverage_test)",
    "corrected_ttest": "the test's own name (Nadeau & Bengio's corrected t-test)",
    "paired_ttest_5x2cv": "Dietterich's test under mlxtend's name",
    "combined_ftest_5x2cv": "Alpaydın's test under mlxtend's name",
    # the relative tests of Jitkrittum et al. 2018 and Bounliphone et al. 2016
    "rel_ume": "relative test family",
    "rel_fssd": "relative test family",
    "rel_mmd": "relative test family",
    "rel_kid": "relative test family",
    "rel_fid": "relative test family",
    "relative_kid": "relative test family (old spelling of rel_kid)",
    "relative_fid": "relative test family (old spelling of rel_fid)",
    # verbs that run several tests and return a composite result
    "compare_models": "workflow",
    "compare_posteriors": "workflow",
    "rank_posteriors": "workflow",
    "calibration_findings": "workflow",
    "compare_models_report": "workflow",
    "compare_generators": "workflow",
}

#: The functions whose ``method`` chooses an algorithm (never a test statistic: that is
#: ``statistic``), and what it chooses.
METHOD_MEANS = {
    "fid": "the matrix square root algorithm",
    "relative_fid": "the matrix square root algorithm",
    "rel_fid": "the matrix square root algorithm",
    "fd": "the matrix square root algorithm",
    "fd_infinity": "the matrix square root algorithm",
    "ecdf_band": "how the PIT band is built",
    "compare_posteriors": "the paired-mean procedure (t or bootstrap-t)",
    "rank_posteriors": "the paired-mean procedure (t or bootstrap-t)",
}

#: Parameter names that are not snake_case on purpose: scikit-learn's feature matrix, and the
#: interaction matrix B of the Gaussian-Bernoulli RBM, as kgof names it.
NOT_SNAKE_CASE = {"X", "B"}

SNAKE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
KEBAB_OPTION = re.compile(r"--[a-z0-9]+(-[a-z0-9]+)*|-[a-zA-Z]")
KEBAB_COMMAND = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def _public() -> dict[str, Any]:
    out: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for package in PACKAGES:
            module = importlib.import_module(package)
            for name in module.__all__:
                if name == "__version__":
                    continue
                try:
                    out[name] = getattr(module, name)
                except ImportError:  # an optional dependency is absent
                    continue
    return out


PUBLIC = _public()
FUNCTIONS = {n: o for n, o in PUBLIC.items() if callable(o) and not inspect.isclass(o)}
CLASSES = {n: o for n, o in PUBLIC.items() if inspect.isclass(o)}


def _has_pvalue(cls: type) -> bool:
    if dataclasses.is_dataclass(cls) and any(f.name == "pvalue" for f in dataclasses.fields(cls)):
        return True
    return isinstance(inspect.getattr_static(cls, "pvalue", None), property)


def _returned_classes(func: Any) -> list[str]:
    """The public class names in ``func``'s return annotation (annotations are strings here)."""
    annotation = inspect.signature(func).return_annotation
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return [t for t in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text) if t in CLASSES]


def _all_signatures() -> list[tuple[str, inspect.Signature]]:
    out = []
    for name, obj in PUBLIC.items():
        try:
            out.append((name, inspect.signature(obj)))
        except (TypeError, ValueError):
            continue
        if inspect.isclass(obj):
            for member in dir(obj):
                raw = inspect.getattr_static(obj, member)
                func = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
                if member.startswith("_") or not inspect.isfunction(func):
                    continue
                if (func.__module__ or "").startswith("modelcompare"):
                    out.append((f"{name}.{member}", inspect.signature(getattr(obj, member))))
    return out


SIGNATURES = _all_signatures()


def test_the_public_api_is_found() -> None:
    assert {"c2st", "rel_ume", "sbc_test", "plot_global_pp"} <= set(FUNCTIONS)
    assert len(SIGNATURES) > 200


def test_classes_with_a_pvalue_or_a_decision_end_in_result() -> None:
    bad = [
        name
        for name, cls in CLASSES.items()
        if (_has_pvalue(cls) or hasattr(cls, "decision"))
        and not name.endswith("Result")
        and name not in NOT_RESULTS_WITH_PVALUE
    ]
    assert not bad


def test_what_a_test_returns_is_a_result_class() -> None:
    bad = [
        (name, _returned_classes(func))
        for name, func in FUNCTIONS.items()
        if name.endswith("_test") and not any(c.endswith("Result") for c in _returned_classes(func))
    ]
    assert not bad


def test_result_classes_serialise() -> None:
    bad = [n for n, c in CLASSES.items() if n.endswith("Result") and not hasattr(c, "to_dict")]
    assert not bad


def test_functions_returning_a_pvalue_end_in_test_or_are_documented_exceptions() -> None:
    bad = [
        name
        for name, func in FUNCTIONS.items()
        if any(_has_pvalue(CLASSES[c]) for c in _returned_classes(func))
        and not name.endswith("_test")
        and name not in NOT_ENDING_IN_TEST
    ]
    assert not bad, f"name these `*_test` or document them as exceptions: {bad}"


def test_plots_take_ax_never_axes() -> None:
    plots = {n: f for n, f in FUNCTIONS.items() if n.startswith("plot_")}
    assert plots
    for name, func in plots.items():
        params = inspect.signature(func).parameters
        assert "ax" in params, name
        assert params["ax"].kind is inspect.Parameter.KEYWORD_ONLY, name
        assert not {"axes", "level", "conf_level", "ci"} & set(params), name


def test_no_public_signature_takes_axes() -> None:
    assert not [n for n, sig in SIGNATURES if "axes" in sig.parameters]


def test_method_chooses_an_algorithm_only_where_documented() -> None:
    # A result's ``method`` field records the choice made; it is not a parameter that makes one.
    takes_method = {
        n
        for n, sig in SIGNATURES
        if "method" in sig.parameters and not (n in CLASSES and n.endswith("Result"))
    }
    assert takes_method <= set(METHOD_MEANS), (
        f"`method=` only chooses an algorithm, documented in METHOD_MEANS; a choice of test "
        f"statistic is `statistic=`: {sorted(takes_method - set(METHOD_MEANS))}"
    )


def test_parameters_are_snake_case() -> None:
    bad = [
        (name, p)
        for name, sig in SIGNATURES
        for p in sig.parameters
        if not p.startswith("_") and not SNAKE.fullmatch(p) and p not in NOT_SNAKE_CASE
    ]
    assert not bad


def test_public_names_follow_pep8() -> None:
    for name, obj in PUBLIC.items():
        if inspect.isclass(obj):
            assert re.fullmatch(r"[A-Z][A-Za-z0-9]*", name), name
        elif callable(obj):
            assert SNAKE.fullmatch(name), name


@pytest.fixture(scope="module")
def cli() -> dict[str, list[str]]:
    return cli_surface(include_hidden=True)


def test_cli_commands_and_options_are_kebab_case(cli: dict[str, list[str]]) -> None:
    assert "modelcompare c2st" in cli
    for command, options in cli.items():
        for word in command.split()[1:]:
            assert KEBAB_COMMAND.fullmatch(word), command
        bad = [o for o in options if not KEBAB_OPTION.fullmatch(o)]
        assert not bad, (command, bad)
