"""Sphinx configuration of the modelcompare documentation (offline: no intersphinx).

Build from this folder with ``python -m sphinx -W -b html . _build/html``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
if SRC.is_dir():  # document the checkout this folder belongs to, not an installed copy
    sys.path.insert(0, str(SRC))
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")

import modelcompare

project = "modelcompare"
author = "modelcompare developers"
copyright = "2026, modelcompare developers"
version = release = modelcompare.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 copied into _static/: the pages render math offline
    "numpydoc",
    "myst_parser",
    "sphinx_design",
    "sphinx_copybutton",
    "sphinx_click",
    "sphinx_gallery.gen_gallery",
    "api_tables",
    "plain_pipes",
    "cli_examples",
    "public_signatures",
    "citations",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "_api_*.rst",  # written by _ext/api_tables.py, included by api.rst
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "auto_examples/*.json",
    "**.ipynb_checkpoints",
]
default_role = "py:obj"
nitpicky = False
# no typographic substitutions: command-line help and its JSON output stay as typed, so that
# "--seed", '"pvalue": 0.01' and "..." can be copied from the page
smartquotes = False
# "decision()" in the page TOC, not "C2STResult.decision()"
toc_object_entries_show_parents = "hide"

# -- autodoc / autosummary / numpydoc ---------------------------------------------------------
autosummary_generate: list[str] = []  # _ext/api_tables.py adds the pages it writes
autosummary_ignore_module_all = False
autosummary_imported_members = False
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_preserve_defaults = True
numpydoc_show_class_members = False  # dataclass fields are documented once, in Attributes
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# -- MyST --------------------------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

# -- sphinx-gallery: only examples/plot_*.py are rendered, and they are run -----------------------
sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": str(HERE / "auto_examples"),
    "filename_pattern": r"/plot_",
    # matched on bare file names when collecting, on full paths when rendering
    "ignore_pattern": r"^(?!(.*/)?plot_[^/]*\.py$)",
    "within_subsection_order": "gallery_order.ExampleOrder",  # the order of the user guide
    "download_all_examples": False,
    "remove_config_comments": True,
    "write_computation_times": False,
    "show_signature": False,
    "image_scrapers": ("matplotlib",),
    "capture_repr": (),  # show what an example prints, not the repr of its last expression
    # "Examples using X" on each API page, and names in the examples' code linked to their pages
    "backreferences_dir": str(HERE / "generated" / "backreferences"),
    "doc_module": ("modelcompare",),
    "reference_url": {"modelcompare": None},
}

# -- HTML ----------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"modelcompare {release}"
html_static_path = ["_static"]
html_css_files = ["fit-code.css"]  # room for 88-character code lines
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "header_links_before_dropdown": 8,
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
}
html_context = {"default_mode": "light"}
# pages without children need no section navigation
html_sidebars = {
    page: []
    for page in (
        "index",
        "install",
        "cli",
        "troubleshooting",
        "citing",
        "benchmarks",
        "glossary",
        "changelog",
        "size_audit",
        "api_conventions",
    )
}
