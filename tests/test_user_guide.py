"""The docs' code blocks fit the page, and the user guide shows what its code prints.

The output under each ``python`` block of ``docs/user_guide/*.md`` is written by
``docs/_ext/guide_outputs.py`` (run it after changing a block); the slow test runs the blocks
again and compares. No code line is wider than 88 characters, so that none is clipped.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([*(ROOT / "docs").glob("*.md"), *(ROOT / "docs" / "user_guide").glob("*.md")])
GUIDE = sorted((ROOT / "docs" / "user_guide").glob("*.md"))
# a fenced block and its language; a MyST directive (```{figure}) is prose, not code
FENCE = re.compile(r"^(`{3,})(\{?\w*\}?)[^\n]*\n(.*?)^\1$", re.DOTALL | re.MULTILINE)


def _tool():
    spec = importlib.util.spec_from_file_location(
        "guide_outputs", ROOT / "docs" / "_ext" / "guide_outputs.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["guide_outputs"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_code_lines_fit(page: Path) -> None:
    width = _tool().WIDTH
    long = [
        line
        for fence, language, body in FENCE.findall(page.read_text(encoding="utf-8"))
        if not language.startswith("{")
        for line in body.splitlines()
        if len(line) > width
    ]
    assert not long, f"code lines wider than {width} characters: {long}"


@pytest.mark.parametrize("page", GUIDE, ids=lambda p: p.name)
def test_every_python_block_shows_its_output(page: Path) -> None:
    tool = _tool()
    text = page.read_text(encoding="utf-8")
    blocks = tool.BLOCK.findall(text)
    assert text.count("```python") == len(blocks)
    for marker, code, out in blocks:
        body = ast.parse(code).body
        shows = "print(" in code or any(
            isinstance(s, ast.Expr) and not isinstance(s.value, ast.Call) for s in body
        )
        assert marker or out or not shows, f"{page.name}: a block without its output:\n{code}"


@pytest.mark.slow
@pytest.mark.parametrize("page", GUIDE, ids=lambda p: p.name)
def test_the_shown_output_is_what_the_code_prints(page: Path) -> None:
    tool = _tool()
    shown = tool.shown_outputs(page)
    for got, want in zip(tool.page_outputs(page), shown, strict=True):
        if got is not None:  # None: a block marked not to run
            assert (got or None) == want  # a block that prints nothing has no text block
