"""The public surface of modelcompare, as a JSON snapshot that the API-break test compares.

The snapshot lists the names in ``modelcompare.__all__`` and in each public subpackage's
``__all__``; each callable's parameters (name, kind and the ``repr`` of its default); each public
class's constructor, methods and properties; each command-line command with its option names; and
the JSON keys and ``"test"`` name of each result of the example calls in ``test_public_api.py``.
``tests/test_api_surface.py`` fails when something in the snapshot has gone without an old
spelling that still works with a ``FutureWarning``.

Refresh the snapshot after an intended change (additions, or removals that keep an alias)::

    PYTHONPATH=src python -m tests.api_surface --update
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import re
import sys
import warnings
from pathlib import Path
from typing import Any

SNAPSHOT = Path(__file__).parent / "data" / "api_surface.json"


def public_packages() -> tuple[str, ...]:
    """``modelcompare`` and its public submodules (no leading underscore), found, not listed.

    The command line is snapshotted through its commands (:func:`cli_surface`), not its
    ``__all__``.
    """
    import pkgutil

    import modelcompare

    found = sorted(
        f"modelcompare.{m.name}"
        for m in pkgutil.iter_modules(modelcompare.__path__)
        if not m.name.startswith("_") and m.name != "cli"
    )
    return ("modelcompare", *found)


#: The packages whose ``__all__`` is public API.
PACKAGES = public_packages()

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def default_repr(value: Any) -> str | None:
    """The ``repr`` of a default, stable across runs (memory addresses dropped); ``None`` if none."""
    if value is inspect.Parameter.empty:
        return None
    return _ADDRESS.sub("", repr(value))


def parameters(obj: Any) -> list[str] | None:
    """``["name: KIND = default repr", ...]`` of a callable, or ``None`` without a signature."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    out = []
    for p in sig.parameters.values():
        default = default_repr(p.default)
        out.append(f"{p.name}: {p.kind.name}" + ("" if default is None else f" = {default}"))
    return out


def parse_parameter(entry: str) -> tuple[str, str, str | None]:
    """``(name, kind, default repr or None)`` of one entry written by :func:`parameters`."""
    head, sep, default = entry.partition(" = ")
    name, kind = head.split(": ")
    return name, kind, default if sep else None


def class_members(cls: type) -> dict[str, Any]:
    """Public methods (their parameters) and properties (``"property"``) defined in modelcompare."""
    members: dict[str, Any] = {}
    for name in sorted(dir(cls)):
        if name.startswith("_"):
            continue
        raw = inspect.getattr_static(cls, name)
        if isinstance(raw, property):
            owner = getattr(raw.fget, "__module__", "") or ""
            if owner.startswith("modelcompare"):
                members[name] = "property"
            continue
        func = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
        if inspect.isfunction(func) and (func.__module__ or "").startswith("modelcompare"):
            members[name] = parameters(getattr(cls, name))
    return members


def object_entry(obj: Any) -> dict[str, Any]:
    """The snapshot entry of one public object."""
    if inspect.isclass(obj):
        return {"kind": "class", "init": parameters(obj), "members": class_members(obj)}
    if callable(obj):
        return {"kind": "function", "parameters": parameters(obj)}
    return {"kind": type(obj).__name__}


def cli_surface(*, include_hidden: bool = False) -> dict[str, list[str]]:
    """``{command path: sorted option names}`` of every command of the ``modelcompare`` CLI.

    Hidden options (the old spellings of renamed options) are left out unless ``include_hidden``.
    """
    import click

    from modelcompare.cli import app

    out: dict[str, list[str]] = {}

    def visit(cmd: click.Command, path: str, ctx: click.Context) -> None:
        out[path] = sorted(
            {
                o
                for p in cmd.params
                if isinstance(p, click.Option) and (include_hidden or not p.hidden)
                for o in p.opts + p.secondary_opts
            }
        )
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                if sub is not None:
                    visit(sub, f"{path} {name}", click.Context(sub, parent=ctx, info_name=name))

    visit(app, "modelcompare", click.Context(app, info_name="modelcompare"))
    return out


def json_surface() -> dict[str, dict[str, Any]]:
    """``{function: {"test": name, "keys": sorted top-level keys}}`` of each result's ``to_dict()``.

    The results are those of the small example calls of ``tests/test_public_api.py``: the keys
    of the JSON a result writes, and its ``"test"`` name, are API too.
    """
    from tests.test_public_api import CALLS

    out: dict[str, dict[str, Any]] = {}
    for name, call in sorted(CALLS.items()):
        data = call().to_dict()
        out[name] = {"test": data.get("test"), "keys": sorted(data)}
    return out


def surface() -> dict[str, Any]:
    """The whole public surface: ``{"names", "objects", "cli", "json"}``."""
    names: dict[str, list[str]] = {}
    objects: dict[str, Any] = {}
    for package in PACKAGES:
        module = importlib.import_module(package)
        public = sorted(n for n in getattr(module, "__all__", ()) if n != "__version__")
        names[package] = public
        for name in public:
            try:
                obj = getattr(module, name)
            except ImportError:  # an optional dependency is missing: record the name only
                continue
            objects[f"{package}.{name}"] = object_entry(obj)
    return {"names": names, "objects": objects, "cli": cli_surface(), "json": json_surface()}


def main(argv: list[str] | None = None) -> int:
    """Print the surface, or write it to the snapshot with ``--update``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help=f"rewrite {SNAPSHOT}")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = json.dumps(surface(), indent=1, sort_keys=True) + "\n"
    if args.update:
        SNAPSHOT.write_text(text, encoding="utf-8")
        print(f"wrote {SNAPSHOT}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
