"""Every example in the README, and every command line in the docs, runs as written.

Each ``python`` block of the README runs in a fresh interpreter and each ``modelcompare ...`` line
of a ``bash`` block in a shell, both from the repository root, after ``modelcompare example-data``
has written the example data shipped in the package to ``examples/data``. Blocks
directly preceded by the line ``<!-- skip-test -->`` (the set-up commands and the docs build) are
left out; nothing else is. The docs' pages (``docs/*.md``, ``docs/*.rst``,
``docs/user_guide/*.md``) are held to the same rule for their command lines: the ``modelcompare
...`` lines of their ``bash`` blocks (same skip convention) and the inline ``modelcompare ...``
code that gives a subcommand arguments (a bare ``modelcompare cv`` names the subcommand). The
examples in the ``--help`` texts are checked in ``tests/cli/test_help_examples.py``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted(
    path
    for pattern in ("*.md", "*.rst", "user_guide/*.md")
    for path in (ROOT / "docs").glob(pattern)
    # the changelog names commands by their synopsis (FIRST SECOND ...), as history, not to run
    if path.name != "changelog.md"
)
BLOCK = re.compile(r"(<!-- skip-test -->\n)?```(\w+)\n(.*?)```", re.DOTALL)
INLINE = re.compile(r"(?<!`)``?(modelcompare [^`]+)``?")


def _blocks(path: Path = README) -> list[tuple[str, str]]:
    found = []
    for skip, language, body in BLOCK.findall(path.read_text(encoding="utf-8")):
        if skip:
            continue
        if language == "python":
            found.append(("python", body))
        elif language == "bash":
            found += [
                ("bash", line) for line in body.splitlines() if line.startswith("modelcompare ")
            ]
    return found


def _doc_commands() -> list[tuple[str, str]]:
    """(page, command) for each command line of the docs."""
    found = []
    for path in DOCS:
        page = str(path.relative_to(ROOT))
        found += [(page, line) for kind, line in _blocks(path) if kind == "bash"]
        text = BLOCK.sub("", path.read_text(encoding="utf-8"))
        spans = [" ".join(span.split()) for span in INLINE.findall(text)]
        found += [(page, span) for span in spans if len(span.split()) > 2]
    return found


def _env() -> dict[str, str]:
    env = dict(os.environ, MPLBACKEND="Agg", OMP_NUM_THREADS="1")
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    return env


@pytest.fixture(autouse=True, scope="module")
def _example_data() -> None:
    """The files ``modelcompare example-data`` writes, where the commands read them.

    The README's and the docs' command lines begin with that command; the tests run each line on
    its own and in any order, so the files are written once beforehand (atomically: workers may
    run this at the same time).
    """
    from modelcompare.datasets import write_example_data

    write_example_data(ROOT / "examples" / "data")


def test_the_readme_is_short_and_has_examples() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 150
    kinds = [kind for kind, _ in _blocks()]
    assert kinds.count("python") >= 5
    assert kinds.count("bash") >= 6


def _run(kind: str, code: str) -> None:
    if kind == "python":
        command: list[str] | str = [sys.executable, "-c", code]
    else:
        command = code
    done = subprocess.run(
        command,
        shell=kind == "bash",
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]


@pytest.mark.parametrize(("kind", "code"), _blocks(), ids=lambda v: v.split("\n")[0][:40])
def test_readme_example_runs(kind: str, code: str) -> None:
    _run(kind, code)


def test_the_docs_command_lines_are_found() -> None:
    commands = _doc_commands()
    assert "docs/index.md" in {page for page, _ in commands}
    assert all(command.startswith("modelcompare ") for _, command in commands)


@pytest.mark.parametrize(("page", "command"), _doc_commands(), ids=lambda v: v[:40])
def test_docs_command_line_runs(page: str, command: str) -> None:
    _run("bash", command)


# a data file's suffix -> the distribution that reads it, where the core might not have it
_READERS = {".yaml": "pyyaml", ".yml": "pyyaml", ".parquet": "pyarrow"}


def _installed_by_the_first_setup() -> set[str]:
    """The distributions the README's first set-up command installs: the core and its extras."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    text = README.read_text(encoding="utf-8")
    setup = next(line for line in text.splitlines() if "pip install" in line)
    extras = re.search(r'-e "\.\[([^\]]*)\]"', setup)
    wanted = list(project["dependencies"])
    for extra in extras.group(1).split(",") if extras else []:
        wanted += project["optional-dependencies"].get(extra.strip(), [])
    return {re.split(r"[<>=\[; ]", req, maxsplit=1)[0].lower() for req in wanted}


def test_the_readme_command_lines_need_only_the_first_setup() -> None:
    """Each ``modelcompare`` line runs after the README's first ``pip install``, nothing more."""
    installed = _installed_by_the_first_setup()
    for kind, line in _blocks():
        if kind != "bash":
            continue
        for suffix, needs in _READERS.items():
            if re.search(rf"\S{re.escape(suffix)}\b", line):
                assert needs in installed, f"{line!r} needs {needs}"
