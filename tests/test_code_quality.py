"""The code-quality gates run inside the test suite, so that one command checks everything."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ["src", "tests", "benchmarks", "examples"]


def _tool(name: str) -> str:
    path = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_check_is_clean() -> None:
    done = _run(_tool("ruff"), "check", *SOURCES)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_is_clean() -> None:
    done = _run(_tool("ruff"), "format", "--check", *SOURCES)
    assert done.returncode == 0, done.stdout + done.stderr


def test_import_layers_hold() -> None:
    """Layers, independent parts, no cycles and no import of the CLI (pyproject's import-linter)."""
    done = _run(_tool("lint-imports"))
    assert done.returncode == 0, done.stdout + done.stderr
