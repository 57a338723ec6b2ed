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
