"""The size audit (benchmarks/size_audit.py): an entry for every public test, its page current.

The audit itself runs outside CI (hours at full size); these tests read its results file.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def audit() -> ModuleType:
    path = ROOT / "benchmarks" / "size_audit.py"
    spec = importlib.util.spec_from_file_location("size_audit", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["size_audit"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def results(audit: ModuleType) -> dict:
    return json.loads(audit.RESULTS.read_text("utf-8"))


def test_public_tests_are_found(audit: ModuleType) -> None:
    found = set(audit.public_tests())
    # a few that must be among them, whatever else the API grows
    assert {"c2st", "sbc_test", "tarp", "lc2st_nf", "rel_mmd", "corrected_ttest"} <= found
    assert "plot_sbc" not in found
    assert "fid" not in found


def test_every_public_test_has_an_audit_entry(audit: ModuleType) -> None:
    missing = set(audit.public_tests()) - set(audit.entries())
    assert missing == set(), f"add these to benchmarks/size_audit.py's entries(): {missing}"


def test_every_public_test_has_a_row_or_a_reason(audit: ModuleType, results: dict) -> None:
    rows = {row[0] for row in results["rows"]}
    missing = set(audit.public_tests()) - rows
    assert missing == set(), f"rerun benchmarks/size_audit.py (--only {' '.join(missing)})"


def test_results_follow_the_benchmark_schema(results: dict) -> None:
    keys = {"slug", "title", "part", "script", "command", "machine", "date", "load"}
    keys |= {"transcribed", "meaning", "columns", "rows", "notes"}
    assert keys <= set(results)
    assert results["part"] == "audit"
    assert all(len(row) == len(results["columns"]) for row in results["rows"])


def test_ours_are_within_tolerance_or_stated(results: dict) -> None:
    verdict = results["columns"].index("verdict")
    method = results["columns"].index("method")
    off = [
        row[0]
        for row in results["rows"]
        if row[method] == "modelcompare" and row[verdict].startswith("over")
    ]
    unstated = [name for name in off if f"**{name}:**" not in results["notes"]]
    assert unstated == [], f"over their level without a stated reason: {unstated}"


def test_the_page_is_generated_from_the_results(audit: ModuleType, results: dict) -> None:
    page = (ROOT / "docs" / "size_audit.md").read_text("utf-8")
    assert page == audit.render(results), "run: python benchmarks/size_audit.py --render"


def test_the_verdict_allows_for_multiplicity(audit: ModuleType) -> None:
    # 800 exactly-uniform p-values: a cell near its level is never flagged, a doubled one is
    import numpy as np

    ok = {"t|s": {"ours": list(np.linspace(0, 1, 800))}}
    bad = {"t|s": {"ours": list(np.linspace(0, 0.5, 800))}}
    assert audit.table(ok)["rows"][0][-1] == "within tolerance"
    assert audit.table(bad)["rows"][0][-1].startswith("over")
