"""Read ``|`` in docstrings and command-line help as a plain character.

The library's docstrings are written to be read in a terminal as well, with plain-text notation
such as ``|G|`` (a grid's size), ``‖a − b‖`` or ``q(·|x)``. reStructuredText reads ``|name|`` as a
substitution, so this extension escapes every ``|`` outside inline literals, roles, doctest
lines, directive lines, code and math blocks and literal blocks before numpydoc and docutils see the text.
"""

from __future__ import annotations

import re
from typing import Any

from sphinx.application import Sphinx

_INLINE_CODE = re.compile(r"(``.+?``|`[^`]*`)")
_PIPE = re.compile(r"(?<!\\)\|")
# directives whose content is code or math, left as written
_LITERAL_DIRECTIVE = re.compile(
    r"\.\. (code-block|code|sourcecode|math|doctest|testcode|testoutput|parsed-literal|"
    r"literalinclude|plot|ipython)::"
)


def _escape(text: str) -> str:
    parts = _INLINE_CODE.split(text)
    return "".join(p if i % 2 else _PIPE.sub(r"\\|", p) for i, p in enumerate(parts))


def escape_lines(lines: list[str]) -> None:
    """Escape the pipes of reStructuredText ``lines`` in place (see the module docstring)."""
    block_indent: int | None = None  # inside a literal block or a directive's content
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if block_indent is not None:
            if not stripped or indent > block_indent:
                continue
            block_indent = None
        if stripped.startswith((">>>", "... ")) or stripped == "...":
            continue
        if stripped.startswith(".. "):  # a directive, comment or target: its line as written
            if _LITERAL_DIRECTIVE.match(stripped):
                block_indent = indent
            continue
        if stripped.startswith("| "):  # a line block keeps its marker
            lines[i] = line[:indent] + "| " + _escape(stripped[2:])
        else:
            lines[i] = line[:indent] + _escape(stripped)
        if stripped.rstrip().endswith("::"):
            block_indent = indent


def _docstring(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    escape_lines(lines)


def _click(app: Sphinx, ctx: Any, lines: list[str]) -> None:
    escape_lines(lines)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("sphinx_click")
    # before numpydoc (priority 500) turns the docstring into reStructuredText
    app.connect("autodoc-process-docstring", _docstring, priority=400)
    for event in ("description", "options", "arguments", "epilog"):
        app.connect(f"sphinx-click-process-{event}", _click)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
