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

    ok = {("t", "s"): {"ours": np.linspace(0, 1, 800)}}
    bad = {("t", "s"): {"ours": np.linspace(0, 0.5, 800)}}
    assert audit.table(ok)["rows"][0][-1] == "within tolerance"
    assert audit.table(bad)["rows"][0][-1].startswith("over")


def test_a_column_planned_per_level_is_read_at_its_own_level(audit: ModuleType) -> None:
    # one decision per level and replicate (0 = rejects): 10 % of rejections at 0.01 only is
    # ten times over that level, and the other levels read their own columns
    import numpy as np

    decisions = np.ones((800, 3))
    decisions[:80, 0] = 0.0
    decisions[:40, 1] = 0.0
    decisions[:80, 2] = 0.0
    row = audit.table({("t", "s"): {"ours": decisions}})["rows"][0]
    assert row[4:7] == [0.1, 0.05, 0.1]
    assert row[-1] == "over at 0.01"


def test_every_peer_column_is_described(audit: ModuleType, results: dict) -> None:
    method = results["columns"].index("method")
    peers = {row[method] for row in results["rows"]} - {"modelcompare", "not run"}
    peers |= {row[2] for row in results["power"]["rows"]} - {"modelcompare"}
    described = results["peers"]
    missing = [p for p in peers if not any(p.startswith(k) for k in described)]
    assert missing == [], f"describe these peers in size_audit.PEERS: {missing}"


def test_the_tasks_cover_every_cell_and_resume_by_key(audit: ModuleType) -> None:
    # every scenario and alternative has its chunks, and a chunk's key does not depend on the
    # size asked for, so a full run resumes the reduced run's tasks
    from modelcompare.experiments import config_key

    quick, full = audit._configs(True, None), audit._configs(False, None)
    assert {config_key(c) for c in quick} <= {config_key(c) for c in full}
    planned = {(c["test"], c["scenario"]) for c in full}
    for name, entry in audit.entries().items():
        assert {(name, s) for s in entry.scenarios} <= planned
        assert entry.replicates % audit.CHUNK == 0
        assert entry.quick % audit.CHUNK == 0
    assert {f"power:{name}" for name in audit.power_entries()} <= {t for t, _ in planned}
