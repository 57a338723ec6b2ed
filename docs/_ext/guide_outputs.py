"""Run the user guide's Python blocks and write what each prints in the ``text`` block under it.

Each page's ``python`` blocks run in order in one namespace, from the repository root, like a
notebook. A block's output is what its ``print`` calls write, plus the value of each top-level
expression statement that is not None, shown as ``>>> expression`` and its repr, as an
interactive session shows them. The output is kept in a ``text`` block directly under the code
block; a block preceded by ``<!-- no-output -->`` is not run (it needs a cluster, say). Lines
wider than 88 characters are broken after a comma or at a space, and continue indented by four
spaces.

``python docs/_ext/guide_outputs.py`` rewrites the pages; ``tests/test_user_guide.py`` checks
that the pages show what the code prints.
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "user_guide"
WIDTH = 88  # the widest code line the pages show without a scroll bar
NO_OUTPUT = "<!-- no-output -->"
# a python block, optionally the marker before it, and the text block of its output after it
BLOCK = re.compile(
    r"(?P<marker><!-- no-output -->\n)?```python\n(?P<code>.*?)```\n(?:\n```text\n(?P<out>.*?)```\n)?",
    re.DOTALL,
)


def _fit(line: str) -> list[str]:
    """``line`` broken after a comma (else at a space) so that no piece is wider than WIDTH."""
    pieces = []
    while len(line) > WIDTH:
        cut = line.rfind(", ", 0, WIDTH - 1)
        if cut < WIDTH // 2:  # no comma late enough: break at a space
            cut = line.rfind(" ", 4, WIDTH)
            if cut <= 4:
                break
            pieces.append(line[:cut])
            line = "    " + line[cut + 1 :]
            continue
        pieces.append(line[: cut + 1])
        line = "    " + line[cut + 2 :]
    return [*pieces, line]


def _format(value: object) -> str:
    return "\n".join(piece for line in repr(value).splitlines() for piece in _fit(line))


def run_block(code: str, namespace: dict) -> str:
    """What ``code`` prints when run in ``namespace``, in the session format of the module doc."""
    out = io.StringIO()
    tree = ast.parse(code)
    lines = code.splitlines()
    for stmt in tree.body:
        source = "\n".join(lines[stmt.lineno - 1 : stmt.end_lineno])
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if isinstance(stmt, ast.Expr):
                value = eval(compile(ast.Expression(stmt.value), "<guide>", "eval"), namespace)
                if value is not None:
                    expression = re.sub(r"\s+#.*$", "", source.strip())
                    first, *rest = expression.splitlines()
                    out.write(">>> " + first + "\n")
                    for line in rest:
                        out.write("... " + line + "\n")
                    out.write(_format(value) + "\n")
            else:
                exec(compile(ast.Module([stmt], []), "<guide>", "exec"), namespace)  # noqa: S102
    printed = out.getvalue().splitlines()
    return "".join(piece + "\n" for line in printed for piece in _fit(line))


def _setup() -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import numpy as np
    import pandas as pd

    np.set_printoptions(linewidth=WIDTH)
    pd.set_option("display.width", WIDTH)
    pd.set_option("display.max_columns", None)


def page_outputs(path: Path) -> list[str | None]:
    """The output of each python block of ``path`` (None for a block marked not to run)."""
    _setup()
    namespace: dict = {"__name__": "__guide__"}
    outputs: list[str | None] = []
    cwd = Path.cwd()
    os.chdir(ROOT)
    try:
        for match in BLOCK.finditer(path.read_text(encoding="utf-8")):
            if match.group("marker"):
                outputs.append(None)
            else:
                outputs.append(run_block(match.group("code"), namespace))
    finally:
        os.chdir(cwd)
        import matplotlib.pyplot as plt

        plt.close("all")
    return outputs


def shown_outputs(path: Path) -> list[str | None]:
    """The output each python block of ``path`` shows under it (None: no text block)."""
    return [m.group("out") for m in BLOCK.finditer(path.read_text(encoding="utf-8"))]


def rewrite(path: Path) -> None:
    outputs = iter(page_outputs(path))

    def block(match: re.Match[str]) -> str:
        output = next(outputs)
        head = (match.group("marker") or "") + "```python\n" + match.group("code") + "```\n"
        if not output:
            return head
        return head + "\n```text\n" + output + "```\n"

    text = path.read_text(encoding="utf-8")
    path.write_text(BLOCK.sub(block, text), encoding="utf-8")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    pages = [Path(p) for p in sys.argv[1:]] or sorted(GUIDE.glob("*.md"))
    for page in pages:
        rewrite(page)
        sys.stdout.write(f"{page.name}\n")
