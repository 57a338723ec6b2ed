"""The documentation builds without a single warning (``sphinx -W``), from a copy of its sources."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the docs extra: Sphinx and the extensions that docs/conf.py loads
DOCS_MODULES = (
    "sphinx",
    "numpydoc",
    "myst_parser",
    "pydata_sphinx_theme",
    "sphinx_gallery",
    "sphinx_design",
    "sphinx_copybutton",
    "sphinx_click",
    "sphinx-mathjax-offline",
)
MISSING = [m for m in DOCS_MODULES if importlib.util.find_spec(m) is None]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(MISSING), reason=f"the docs extra is not installed: {MISSING}"),
]

# outputs of earlier builds in the checkout, not sources
BUILD_OUTPUTS = shutil.ignore_patterns(
    "_build", "generated", "auto_examples", "api", "_api_*.rst", "__pycache__"
)


def test_docs_build_without_warnings(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    for folder in ("docs", "examples"):
        shutil.copytree(ROOT / folder, tree / folder, ignore=BUILD_OUTPUTS)
    shutil.copy2(ROOT / "BENCHMARKS.md", tree / "BENCHMARKS.md")
    env = dict(os.environ, MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), os.environ.get("PYTHONPATH")) if p
    )
    html = tmp_path / "html"
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    command += ["-d", str(tmp_path / "doctrees"), str(tree / "docs"), str(html)]
    proc = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-6000:]

    import modelcompare

    pages = ("index", "install", "citing", "troubleshooting", "api", "cli", "benchmarks")
    for page in (*pages, "glossary", "changelog"):
        assert (html / f"{page}.html").is_file(), page
    missing = [
        name
        for name in modelcompare.__all__
        if not name.startswith("__")
        and not (html / "generated" / f"modelcompare.{name}.html").is_file()
    ]
    assert not missing, f"public names without an API page: {missing}"

    # formulas render offline: the pages load the bundled MathJax, never a CDN
    page = (html / "generated" / "modelcompare.rel_mmd.html").read_text(encoding="utf-8")
    assert '<script defer="defer" src="_static/mathjax/tex-chtml.js' in page.replace(
        "../_static", "_static"
    )
    assert "cdn.jsdelivr.net" not in page
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()
