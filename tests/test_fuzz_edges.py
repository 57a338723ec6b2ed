"""The edges of the newer callables (tests/fuzz/edges.py), and what the fuzz protocol cannot see."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import modelcompare as mc
from modelcompare.workflows import report_from_arrays
from tests.fuzz import cli_cases, edges, runner
from tests.fuzz.data import _normal, _posterior_pair

EDGES = edges.edge_cases()


@pytest.fixture
def memory_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODELCOMPARE_MAX_MEMORY", "1G")
    monkeypatch.setenv("MODELCOMPARE_NUM_THREADS", "1")


@pytest.mark.usefixtures("memory_guard")
@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in EDGES])
def test_edge(case: Any) -> None:
    if "requires_grad" in case.label:
        pytest.importorskip("torch")
    outcome = runner.run_case(case, timeout=20.0)
    assert outcome.ok, f"{case.id}: {outcome.detail}"


@pytest.fixture(scope="module")
def edge_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return edges.edge_cli_files(tmp_path_factory.mktemp("fuzz-edges"))


@pytest.mark.parametrize("case_id", [c.id for c in edges.edge_cli_cases(cli_cases._Names())])
def test_cli_edge(case_id: str, edge_files: dict[str, str]) -> None:
    case = {c.id: c for c in edges.edge_cli_cases(edge_files)}[case_id]
    outcome = cli_cases.run_cli_case(case, timeout=cli_cases.CLI_TIMEOUT)
    assert outcome.ok, f"{case_id}: {outcome.detail}"


def test_zero_byte_file_is_not_an_interrupt(edge_files: dict[str, str]) -> None:
    case = edges.edge_cli_cases(edge_files)[0]
    outcome = cli_cases.run_cli_case(case)
    assert "Interrupted" not in outcome.detail
    assert outcome.detail.startswith("exit 3")


def test_x_with_x_obs_alone_runs_the_misspecification_check() -> None:
    x = _normal(80)
    report = report_from_arrays(
        x=x, x_obs=_normal(3, seed=4), checks=["misspecification"], n_resamples=50, seed=0
    )
    row = report.checks.set_index("name").loc["misspecification"]
    assert not row["skipped"], row.to_dict()
    assert 0.0 <= row["pvalue"] <= 1.0


def test_x_obs_without_x_is_refused() -> None:
    with pytest.raises(ValueError, match="`x_obs` needs `x`"):
        report_from_arrays(x_obs=_normal(3), seed=0)


def test_contraction_overflow_reads_as_degenerate() -> None:
    case = {c.label: c for c in EDGES}["edge:theta_overflows"]
    with pytest.warns(mc.DegenerateDataWarning):
        result = mc.posterior_contraction(**case.build())
    assert result.degenerate
    assert all("not read" in line for line in result.reading())


def test_rank_posteriors_names_an_identical_pair() -> None:
    first, second, theta, x = _posterior_pair()
    with pytest.warns(mc.DegenerateDataWarning, match="score identically"):
        result = mc.rank_posteriors([first, first, second], theta, x, seed=0)
    assert (result.table["pvalue"] == 1.0).any()


def test_rank_posteriors_is_silent_on_distinct_estimators() -> None:
    first, second, theta, x = _posterior_pair()
    with warnings.catch_warnings():
        warnings.simplefilter("error", mc.DegenerateDataWarning)
        mc.rank_posteriors([first, second], theta, x, seed=0)


def test_sbc_log_gamma_time_guard_honours_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    ranks = np.random.default_rng(0).integers(0, 10**4 + 1, size=(100, 2))
    monkeypatch.setenv("MODELCOMPARE_MAX_SECONDS", "1")
    with pytest.raises(mc.ResourceLimitError, match="`n_resamples`"):
        mc.sbc_log_gamma(ranks, 10**4, n_resamples=999)
    monkeypatch.delenv("MODELCOMPARE_MAX_SECONDS")
    result = mc.sbc_log_gamma(ranks[:, :1] % 21, 20, n_resamples=99, seed=0)
    assert 0.0 < result.pvalue <= 1.0
