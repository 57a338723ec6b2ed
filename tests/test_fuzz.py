"""Every public function on bad and unusual inputs; the catalogue is in tests/fuzz/.

A case passes when the call raises a ``ValueError``/``TypeError`` naming the argument in backticks,
returns a result with finite p-values in [0, 1] (flagged ``degenerate`` where it must be), or
raises ``MissingDependencyError``; and the inputs are left untouched. The default suite runs a
seeded subset of each function's cases and a few command-line cases; the whole catalogue runs
under ``slow`` (or ``python benchmarks/fuzz_catalogue.py --cli``). Known escapes are marked
``xfail(strict=True)`` from the catalogue's ``KNOWN_ESCAPES``, so fixing one turns its case red
until the mark is removed.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

import modelcompare as mc
from tests.fuzz import cases, cli_cases, runner

MAX_MEMORY = "1G"  # the library's guard, below what any test process may use
QUICK_TIMEOUT = 10.0
FULL_TIMEOUT = 20.0

CASES = cases.catalogue()
# known timeouts stay out of the quick subset (they would cost their whole time limit)
QUICK = {
    c.id for c in cases.quick_subset(CASES) if "timeout" not in cases.KNOWN_ESCAPES.get(c.id, "")
}


def _params(cases: list[Any], known: dict[str, str]) -> list[Any]:
    out = []
    for case in cases:
        marks = [pytest.mark.xfail(strict=True, reason=known[case.id])] if case.id in known else []
        out.append(pytest.param(case, id=case.id, marks=marks))
    return out


@pytest.fixture
def memory_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODELCOMPARE_MAX_MEMORY", MAX_MEMORY)
    monkeypatch.setenv("MODELCOMPARE_NUM_THREADS", "1")


def _check(case: Any, timeout: float) -> None:
    outcome = runner.run_case(case, timeout=timeout)
    assert outcome.ok, f"{case.id}: {outcome.detail}"


def test_every_public_function_is_fuzzed() -> None:
    functions = {n for n in mc.__all__ if inspect.isfunction(getattr(mc, n))}
    fuzzed = {c.function for c in CASES}
    assert functions - fuzzed == set()
    assert fuzzed - functions == set()


def test_known_escapes_are_cases() -> None:
    ids = {c.id for c in CASES}
    assert set(cases.KNOWN_ESCAPES) - ids == set()


@pytest.mark.usefixtures("memory_guard")
@pytest.mark.parametrize("case", _params([c for c in CASES if c.id in QUICK], cases.KNOWN_ESCAPES))
def test_quick(case: Any) -> None:
    _check(case, QUICK_TIMEOUT)


@pytest.mark.slow
@pytest.mark.usefixtures("memory_guard")
@pytest.mark.parametrize(
    "case", _params([c for c in CASES if c.id not in QUICK], cases.KNOWN_ESCAPES)
)
def test_full(case: Any) -> None:
    _check(case, FULL_TIMEOUT)


# ----------------------------------------------------------------------------------------------
# the command line: one-line errors, exit 2 or 3, within seconds, under a 4 GiB address space


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return cli_cases.cli_files(tmp_path_factory.mktemp("fuzz-cli"))


def _cli_ids(quick: bool) -> list[Any]:
    out = []
    for case_id, is_quick in cli_cases.cli_case_ids():
        if is_quick != quick:
            continue
        known = cases.KNOWN_CLI_ESCAPES.get(case_id)
        marks = [pytest.mark.xfail(strict=True, reason=known)] if known else []
        if not quick:
            marks.append(pytest.mark.slow)
        out.append(pytest.param(case_id, id=case_id, marks=marks))
    return out


def _run_cli(case_id: str, files: dict[str, str]) -> None:
    case = {c.id: c for c in cli_cases.cli_catalogue(files)}[case_id]
    if case.argv[0] not in cli_cases.cli_commands():
        pytest.skip(f"no `{case.argv[0]}` subcommand")
    outcome = cli_cases.run_cli_case(case, timeout=cli_cases.CLI_TIMEOUT)
    assert outcome.ok, f"{case_id}: {outcome.detail}"


@pytest.mark.parametrize("case_id", _cli_ids(quick=True))
def test_cli_quick(case_id: str, cli_files: dict[str, str]) -> None:
    _run_cli(case_id, cli_files)


@pytest.mark.parametrize("case_id", _cli_ids(quick=False))
def test_cli_full(case_id: str, cli_files: dict[str, str]) -> None:
    _run_cli(case_id, cli_files)
