"""The citing page's table of method papers and its BibTeX, rendered from the library's record.

``modelcompare._foundation.citation`` holds the one citation record; ``modelcompare --cite`` and
``CITATION.cff`` are rendered from it too, so the page cannot disagree with either.

* ``.. modelcompare-papers::`` is a table: method, paper, DOI or arXiv id (a link), functions.
* ``.. modelcompare-bibtex::`` is the BibTeX that ``modelcompare --cite`` prints.
"""

from __future__ import annotations

import importlib
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

import modelcompare
from modelcompare._foundation.citation import PAPERS, Paper, bibtex

PARTS = ("twosample", "relative", "posterior", "categorical", "cv")


def _target(name: str) -> str:
    """Where a public function lives: ``modelcompare.name`` or ``modelcompare.<part>.name``."""
    if name in modelcompare.__all__:
        return f"modelcompare.{name}"
    for part in PARTS:
        if name in getattr(importlib.import_module(f"modelcompare.{part}"), "__all__", ()):
            return f"modelcompare.{part}.{name}"
    return f"modelcompare.{name}"


def _link(paper: Paper) -> str:
    links = []
    if paper.doi:
        links.append(f"[doi:{paper.doi}](https://doi.org/{paper.doi})")
    if paper.arxiv:
        links.append(f"[arXiv:{paper.arxiv}](https://arxiv.org/abs/{paper.arxiv})")
    if paper.url and not links:
        links.append(f"[{paper.url.split('://', 1)[-1]}]({paper.url})")
    return ", ".join(links)


def _authors(paper: Paper) -> str:
    families = [a.partition(", ")[0] for a in paper.authors]
    if len(families) > 3:
        return f"{families[0]} et al."
    return (
        " & ".join([", ".join(families[:-1]), families[-1]]) if len(families) > 1 else families[0]
    )


def papers_table() -> list[str]:
    """The papers table as MyST Markdown (a ``list-table``; the citing page is Markdown)."""
    lines = ["```{list-table}", ":header-rows: 1", ":widths: 22 38 18 22", ""]
    lines += ["* - Method", "  - Paper", "  - Identifier", "  - Functions"]
    for paper in PAPERS:
        functions = ", ".join(f"{{func}}`~{_target(name)}`" for name in paper.functions)
        venue = "" if paper.venue == "arXiv preprint" else f" *{paper.venue}*."
        lines += [
            f"* - {paper.method}",
            f"  - {_authors(paper)} ({paper.year}). {paper.title}.{venue}",
            f"  - {_link(paper)}",
            f"  - {functions}",
        ]
    return [*lines, "```"]


class PapersDirective(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        container = nodes.container()
        self.state.nested_parse(StringList(papers_table()), self.content_offset, container)
        return container.children


class BibtexDirective(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        text = bibtex()
        block = nodes.literal_block(text, text)
        block["language"] = "bibtex"
        return [block]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("modelcompare-papers", PapersDirective)
    app.add_directive("modelcompare-bibtex", BibtexDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
