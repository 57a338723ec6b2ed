"""The benchmarks page is generated from the results files, and every results file is valid.

``benchmarks/render.py`` writes BENCHMARKS.md (and the documentation's page, which includes it)
from ``benchmarks/results/*.json``; a results file edited or added without rerunning it fails
here, as does one that does not follow the schema.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = sorted((ROOT / "benchmarks" / "results").glob("*.json"))


def _load(name: str) -> ModuleType:
    path = ROOT / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


render = _load("render")


def _record(**changes: object) -> dict:
    record = {
        "slug": "c2st-x",
        "title": "A table",
        "part": "c2st",
        "script": "benchmarks/x.py",
        "command": "python benchmarks/x.py --seed 0",
        "machine": "dev-2core",
        "date": "2026-12-05",
        "load": 0.5,
        "transcribed": False,
        "meaning": "What it means.",
        "columns": ["n", "time"],
        "rows": [[10, 0.25], ["a | b", "1 s"]],
        "notes": "",
    }
    record.update(changes)
    return record


def test_there_are_results() -> None:
    assert len(RESULTS) >= 40


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.stem)
def test_every_results_file_follows_the_schema(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    assert render.validate(record) == []
    assert record["slug"] == path.stem


def test_both_pages_are_what_the_results_give() -> None:
    for path, text in render.pages().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.name} is out of date: run `python benchmarks/render.py`"
        )


def test_validate_names_what_is_wrong() -> None:
    assert render.validate(_record()) == []
    assert render.validate(_record(load=None)) == []
    assert "missing key 'rows'" in render.validate(
        {k: v for k, v in _record().items() if k != "rows"}
    )
    assert any("'date'" in p for p in render.validate(_record(date="5 December 2026")))
    assert any("row 1" in p for p in render.validate(_record(rows=[[1, 2], [3]])))
    assert any("'transcribed'" in p for p in render.validate(_record(transcribed="yes")))
    assert any("'load'" in p for p in render.validate(_record(load=True)))
    assert render.validate([1, 2]) != []


def test_render_groups_by_part_in_slug_order_with_unknown_parts_last() -> None:
    records = [
        _record(slug="cv-b", part="cv", title="CV second"),
        _record(slug="cv-a", part="cv", title="CV first"),
        _record(slug="zz-new", part="newpart", title="Something new"),
        _record(slug="c2st-a", title="C2ST one", transcribed=True, columns=[], rows=[]),
    ]
    text = render.render(records, intros=ROOT / "nonexistent")
    order = [text.index(t) for t in ("C2ST one", "CV first", "CV second", "Something new")]
    assert order == sorted(order)
    assert text.index("## Other benchmarks") < text.index("Something new")
    assert "| a \\| b | 1 s |" in text
    assert "transcribed" in text.split("C2ST one", 1)[1].split("###", 1)[0]
    assert "*Reproduce:* `python benchmarks/x.py --seed 0`" in text


def test_load_results_rejects_a_bad_file(tmp_path: Path) -> None:
    (tmp_path / "c2st-x.json").write_text(json.dumps(_record()), encoding="utf-8")
    assert len(render.load_results(tmp_path)) == 1
    (tmp_path / "other.json").write_text(json.dumps(_record()), encoding="utf-8")
    with pytest.raises(ValueError, match=r"other\.json: 'slug'"):
        render.load_results(tmp_path)


harness = _load("_harness")

#: Scripts that are not benchmarks of the page's kind: the harness and the page's generator, the
#: fuzz catalogue (a table of the test suite's cases), and the size audit (its own results writer
#: and documentation page, through the same schema).
NOT_ON_THE_HARNESS = {"_harness", "render", "fuzz_catalogue", "size_audit"}


@pytest.mark.parametrize(
    "script",
    sorted(p for p in (ROOT / "benchmarks").glob("*.py") if p.stem not in NOT_ON_THE_HARNESS),
    ids=lambda p: p.stem,
)
def test_every_benchmark_script_runs_on_the_harness(script: Path) -> None:
    text = script.read_text(encoding="utf-8")
    assert "_harness.parser(" in text, "build the command line with _harness.parser"
    assert "_harness.save(" in text or "_harness.rerun(" in text, "write results with the harness"
    assert "argparse.ArgumentParser(" not in text


def test_rerun_keeps_the_stored_text_and_records_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = tmp_path / "results"
    stored.mkdir()
    old = _record(transcribed=True, notes="Read it so.", load=None)
    (stored / "c2st-x.json").write_text(json.dumps(old), encoding="utf-8")
    monkeypatch.setattr(harness, "RESULTS", stored)
    args = harness.parser("x").parse_args(["--quick", "--out", str(tmp_path / "out")])
    path = harness.rerun(args, "c2st-x", [[5, 0.5]], script=ROOT / "benchmarks" / "x.py")
    new = json.loads(path.read_text(encoding="utf-8"))
    assert path.parent == tmp_path / "out"
    assert render.validate(new) == []
    assert (new["title"], new["meaning"], new["notes"]) == (
        old["title"],
        old["meaning"],
        old["notes"],
    )
    assert new["rows"] == [[5, 0.5]]
    assert new["columns"] == old["columns"]
    assert new["transcribed"] is False
    assert new["script"] == "benchmarks/x.py"
    with pytest.raises(ValueError, match="no stored results file"):
        harness.rerun(args, "c2st-missing", [], script="x.py")


def test_quick_runs_stay_out_of_the_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(harness, "SCRATCH", tmp_path / "scratch")
    args = harness.parser("x").parse_args(["--quick"])
    record = harness.record(
        "c2st-y",
        title="T",
        part="c2st",
        script=ROOT / "benchmarks" / "x.py",
        columns=["a"],
        rows=[[1]],
        meaning="M",
    )
    assert harness.save(args, record) == tmp_path / "scratch" / "c2st-y.json"
    assert harness.save(harness.parser("x").parse_args(["--no-save"]), record) is None


def test_the_command_shows_the_settings_that_change_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MODELCOMPARE_NUM_THREADS", raising=False)
    monkeypatch.setenv("MODELCOMPARE_NATIVE", "0")
    script = ROOT / "benchmarks" / "c2st_exactness.py"
    assert harness.command(script, ["--n", "10 000"]) == (
        "MODELCOMPARE_NATIVE=0 python benchmarks/c2st_exactness.py --n '10 000'"
    )
