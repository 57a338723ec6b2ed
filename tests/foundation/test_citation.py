"""One citation record: ``modelcompare --cite``, ``CITATION.cff`` and the docstrings agree with it.

After changing ``modelcompare/_foundation/citation.py``, rewrite the file with
``python -c "from modelcompare._foundation.citation import citation_cff; print(citation_cff(), end='')" > CITATION.cff``.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import modelcompare
from modelcompare._foundation.citation import PAPERS, SOFTWARE, bibtex, citation_cff
from modelcompare.cli import app

ROOT = Path(__file__).resolve().parents[2]


def test_citation_cff_is_generated_from_the_record() -> None:
    assert (ROOT / "CITATION.cff").read_text(encoding="utf-8") == citation_cff()


def test_citation_cff_is_valid_yaml_with_the_required_keys() -> None:
    data = yaml.safe_load(citation_cff())
    assert {"cff-version", "message", "title", "authors"} <= set(data)
    assert data["version"] == modelcompare.__version__ == SOFTWARE.version
    assert len(data["references"]) == len(PAPERS)
    for ref in data["references"]:
        assert ref["authors"]
        assert all(a["family-names"] for a in ref["authors"])


def test_cite_prints_the_record() -> None:
    out = CliRunner().invoke(app, ["--cite"]).output
    assert out == bibtex() + "\n"
    assert out.count("\n@") == len(PAPERS)  # one entry per paper after the library's own
    for paper in PAPERS:
        assert f"{{{paper.key}," in out


def test_every_paper_has_a_resolvable_identifier() -> None:
    for paper in PAPERS:
        assert paper.doi or paper.arxiv or paper.url, paper.key
        if paper.arxiv:
            assert re.fullmatch(r"\d{4}\.\d{5}", paper.arxiv), paper.key
        if paper.doi:
            assert paper.doi.startswith("10."), paper.key
    keys = [paper.key for paper in PAPERS]
    assert len(keys) == len(set(keys))


def _references_section(obj: object) -> str:
    doc = inspect.getdoc(obj) or ""
    found = re.search(r"\nReferences\n-{10}\n(.*?)(?=\n[A-Z][a-z]+\n-{3,}\n|\Z)", doc, re.DOTALL)
    return found.group(1) if found else ""


METHOD_FUNCTIONS = sorted({name for paper in PAPERS for name in paper.functions})
PARTS = ("twosample", "relative", "posterior", "categorical", "cv")


def _public(name: str) -> object:
    """The public function ``name`` from ``modelcompare`` or, failing that, from its part."""
    for module in (modelcompare, *(importlib.import_module(f"modelcompare.{p}") for p in PARTS)):
        if name in getattr(module, "__all__", ()):
            return getattr(module, name)
    raise AssertionError(f"{name} is not public")


@pytest.mark.parametrize("name", METHOD_FUNCTIONS)
def test_each_method_function_cites_its_papers(name: str) -> None:
    """A numpydoc References section with ``.. [n]`` entries giving each paper's DOI or arXiv id."""
    section = _references_section(_public(name))
    assert section, f"{name} has no References section"
    assert re.search(r"^\.\. \[1\] ", section, re.MULTILINE), f"{name}: entries are not `.. [1]`"
    flat = " ".join(section.split())
    for paper in PAPERS:
        if name in paper.functions:
            ident = paper.doi or paper.arxiv or paper.url
            assert ident in flat, f"{name} does not cite {paper.key} ({ident})"
