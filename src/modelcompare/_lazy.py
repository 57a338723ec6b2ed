"""Lazy attribute loading for the top-level package (scientific-python SPEC 1).

The package ``__init__`` lists its public names once, as real imports inside an
``if TYPE_CHECKING:`` block, where type checkers and import-linter see them. At run time that block
is skipped; :func:`attach` reads it back from the source and imports a name's module only when the
name is first used, so ``import modelcompare`` loads neither scikit-learn nor scipy.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["attach"]


def _type_checking_imports(source: str) -> dict[str, str]:
    """``{public name: module}`` from the ``if TYPE_CHECKING:`` block of a module's source."""
    names: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.module:
                    for alias in stmt.names:
                        names[alias.asname or alias.name] = stmt.module
    return names


def attach(
    package: str, init_file: str, renamed: Mapping[str, str] | None = None
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """Return ``__getattr__``, ``__dir__`` and ``__all__`` for ``package``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    init_file : str
        The package's ``__file__``; its ``if TYPE_CHECKING:`` block names the public API.
    renamed : mapping of str to str, optional
        Old public names and their new names: an old name still resolves, with a
        :class:`FutureWarning` naming the new one, but is not listed in ``__all__`` or ``dir()``.
    """
    renamed = dict(renamed or {})
    where = _type_checking_imports(Path(init_file).read_text(encoding="utf-8"))

    def __getattr__(name: str) -> Any:
        module_name = where.get(name)
        if module_name is None:
            if name in renamed:
                # Imported here: the deprecation helper is needed only when an old name is used.
                from modelcompare._foundation.deprecation import renamed_name

                return renamed_name(package, name, renamed)
            msg = f"module {package!r} has no attribute {name!r}"
            raise AttributeError(msg)
        module = importlib.import_module(module_name)
        value = getattr(module, name)
        setattr(importlib.import_module(package), name, value)  # later look-ups skip __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted(set(where) | set(importlib.import_module(package).__dict__))

    return __getattr__, __dir__, list(where)
