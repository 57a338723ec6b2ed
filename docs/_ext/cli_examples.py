"""Show the examples of the command-line help as code on the command-line reference page.

click keeps a paragraph that follows a ``\\b`` line as written, and sphinx-click renders it as a
line block: a proportional font that loses the columns of a table and wraps long commands. This
extension turns each such block into its caption (the first line, when it ends with ``:``) and a
``text`` code block with the rest, so that the examples read, and copy, as they print.
"""

from __future__ import annotations

import textwrap
from typing import Any

from sphinx.application import Sphinx


def code_blocks(lines: list[str]) -> list[str]:
    """``lines`` with every run of line-block lines (``| ...``) turned into a code block.

    >>> for line in code_blocks(["Intro.", "", "| Example:", "|   $ modelcompare cv s.csv", ""]):
    ...     print(repr(line))
    'Intro.'
    ''
    'Example:'
    ''
    '.. code-block:: text'
    ''
    '    $ modelcompare cv s.csv'
    ''
    ''
    """
    out: list[str] = []
    run: list[str] = []
    for line in [*lines, ""]:
        if line.startswith("|"):
            run.append(line[2:] if line.startswith("| ") else "")
            continue
        if run:
            out += _block(run)
            run = []
        out.append(line)
    return out[:-1]


def _block(run: list[str]) -> list[str]:
    caption = [run.pop(0).strip(), ""] if run[0].rstrip().endswith(":") else []
    body = textwrap.dedent("\n".join(run)).splitlines()
    if not body:
        return caption
    return [*caption, ".. code-block:: text", "", *("    " + b if b else "" for b in body), ""]


def _description(app: Sphinx, ctx: Any, lines: list[str]) -> None:
    lines[:] = code_blocks(lines)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("sphinx_click")
    # before plain_pipes (priority 500) escapes the text, so the code blocks stay as written
    app.connect("sphinx-click-process-description", _description, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
