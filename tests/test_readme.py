"""Every example in the README runs as written, on the data shipped in the repository.

Each ``python`` block runs in a fresh interpreter and each ``modelcompare ...`` line of a ``bash``
block in a shell, both from the repository root. Blocks directly preceded by the line
``<!-- skip-test -->`` (the set-up commands and the docs build) are left out; nothing else is.
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
BLOCK = re.compile(r"(<!-- skip-test -->\n)?```(\w+)\n(.*?)```", re.DOTALL)


def _blocks() -> list[tuple[str, str]]:
    found = []
    for skip, language, body in BLOCK.findall(README.read_text(encoding="utf-8")):
        if skip:
            continue
        if language == "python":
            found.append(("python", body))
        elif language == "bash":
            found += [
                ("bash", line) for line in body.splitlines() if line.startswith("modelcompare ")
            ]
    return found


def _env() -> dict[str, str]:
    env = dict(os.environ, MPLBACKEND="Agg", OMP_NUM_THREADS="1")
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    return env


def test_the_readme_is_short_and_has_examples() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 150
    kinds = [kind for kind, _ in _blocks()]
    assert kinds.count("python") >= 5
    assert kinds.count("bash") >= 6


@pytest.mark.parametrize(("kind", "code"), _blocks(), ids=lambda v: v.split("\n")[0][:40])
def test_readme_example_runs(kind: str, code: str) -> None:
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
