"""The code-quality gates run inside the test suite, so that one command checks everything."""

from __future__ import annotations

import ast
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


# -- no private name crosses a file ----------------------------------------------------------------

PACKAGE = ROOT / "src" / "modelcompare"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_module(dotted: str) -> bool:
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imported_from(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module of ``from ... import``, relative imports resolved against ``module``."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _private_module_outside(target: str, importer: str) -> bool:
    """Whether ``importer`` may not see ``target``, a module of the library.

    A private module is visible inside the package that holds it and nowhere else:
    ``modelcompare.posterior._lct`` to the modules of ``modelcompare.posterior`` only. The
    private modules directly under ``modelcompare`` (``_foundation``, the shared foundation of
    every layer, and ``_lazy``, the top-level package's lazy loading) are held by ``modelcompare``
    itself, so every module of the library may import their public names.
    """
    segments = target.split(".")
    for i, segment in enumerate(segments[1:], start=1):
        if _is_private(segment):
            holder = ".".join(segments[:i])
            return not (importer == holder or importer.startswith(holder + "."))
    return False


def _private_crossings(path: Path) -> list[str]:
    module = _module_name(path)
    is_package = path.name == "__init__.py"
    where = path.relative_to(ROOT)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = _imported_from(node, module, is_package)
            targets = [(source, alias.name) for alias in node.names]
        else:
            continue
        for source, name in targets:
            if source.split(".")[0] != "modelcompare":
                continue
            line = f"{where}:{node.lineno}: " + (
                f"from {source} import {name}" if name else f"import {source}"
            )
            if name is not None and _is_module(f"{source}.{name}"):
                source, name = f"{source}.{name}", None  # ``from package import _module``
            if name is not None and _is_private(name):
                found.append(f"{line} (a private name of another module)")
            elif _private_module_outside(source, module):
                found.append(f"{line} (a private module of another part)")
    return found


def test_no_private_name_crosses_a_file() -> None:
    """What one file of the library uses from another has a public name.

    Two modules of one part share public names of a module of that part; the workflows, the
    command line and the other parts reach a part through its ``__init__`` (the foundation
    excepted), never through its private modules.
    """
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in _private_crossings(path)]
    assert found == [], "\n".join(found)
