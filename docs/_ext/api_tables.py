"""Write the API reference pages from ``modelcompare.__all__``.

Before autosummary reads the sources, this extension writes (all ignored by git):

- ``api/<part>.rst``: one page per part of the library, the part found from each public object's
  ``__module__`` (its public packages, as ``posterior.comparison``), with an autosummary table of its functions and one of its classes; and one page
  for the public modules ``modelcompare.kernels`` and ``modelcompare.densities``;
- ``_api_toc.rst``: the toctree of those pages, included by ``api.rst``;
- ``_api_results.rst``: a list of every result class with its kind, fields and methods, read from
  the code, included by ``api.rst``.

A name added to ``modelcompare.__all__`` therefore appears in the reference without editing the
docs, and a new part gets a page of its own.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

# part (the first module below ``modelcompare``) -> page title, in reading order
PARTS = {
    "twosample": "C2ST",
    "relative": "Relative fit",
    "posterior": "Posterior diagnostics",
    "workflows": "Posterior validation report",
    "posterior.comparison": "Comparing posterior estimators",
    "categorical": "Categorical granularity",
    "cv": "Cross-validated comparison",
    "experiments": "Scale-out",
    "_foundation": "Intervals, errors and warnings",
}
# public modules documented as modules (their own ``__all__``), on one page
MODULES_PAGE = (
    "modules",
    "Kernels, densities and feature extractors",
    ("modelcompare.kernels", "modelcompare.densities", "modelcompare.features"),
)

# the module of the result protocol: its classes below ``Result`` name the kinds of result
PROTOCOL = "modelcompare._foundation.results"
HEADER = ".. Written by docs/_ext/api_tables.py at each build; do not edit.\n\n"


def _part(obj: Any) -> str:
    """The public package below ``modelcompare`` that holds ``obj`` (``posterior``,
    ``posterior.comparison``), or the private one directly below it (``_foundation``)."""
    module = getattr(obj, "__module__", "") or ""
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "modelcompare":
        return module
    public = [parts[1]]
    for segment in parts[2:]:
        if public[0].startswith("_") or segment.startswith("_"):
            break
        public.append(segment)
    return ".".join(public)


def _kind(cls: type) -> str | None:
    """``TestResult`` -> "test", ``ThresholdResult`` -> "threshold", ...; None below ``Result``."""
    for base in cls.__mro__[1:]:
        if base.__module__ == PROTOCOL and base.__name__ != "Result":
            words = re.findall(r"[A-Z][a-z]*", base.__name__.removesuffix("Result"))
            return " ".join(words).lower()
    return None


def _methods(cls: type) -> list[str]:
    names = []
    for name, value in inspect.getmembers(cls):
        if name.startswith("_") or name == "to_dict":
            continue
        if inspect.isfunction(value) or isinstance(inspect.getattr_static(cls, name), property):
            owner = next((c for c in cls.__mro__ if name in c.__dict__), cls)
            if owner.__module__.startswith("modelcompare"):
                names.append(name)
    return names


def _title(text: str, char: str = "=") -> list[str]:
    return [text, char * len(text), ""]


def _table(names: list[str], title: str) -> list[str]:
    if not names:
        return []
    lines = [*_title(title, "-"), ".. autosummary::", "   :toctree: ../generated", ""]
    lines += [f"   {name}" for name in names]
    return [*lines, ""]


def _result_list(classes: list[tuple[str, type]]) -> list[str]:
    lines = []
    for name, cls in classes:
        kind = _kind(cls)
        fields = ", ".join(f"``{f.name}``" for f in dataclasses.fields(cls) if f.name[0] != "_")
        methods = ", ".join(f"``{m}``" for m in _methods(cls))
        entry = f"- :class:`{name}`" + (f" ({kind})" if kind else "") + f": {fields or 'no fields'}"
        lines.append(entry + (f"; methods and properties {methods}." if methods else "."))
    return [*lines, ""]


def _write(target: Path, lines: list[str]) -> None:
    text = HEADER + "\n".join(lines)
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")


def write_pages(srcdir: Path) -> list[str]:
    """Write the generated sources into ``srcdir``; return those autosummary must scan."""
    import modelcompare

    groups: dict[str, list[str]] = {}
    for name in modelcompare.__all__:
        if not name.startswith("__"):
            groups.setdefault(_part(getattr(modelcompare, name)), []).append(name)
    order = [p for p in PARTS if p in groups] + sorted(p for p in groups if p not in PARTS)

    pages: list[str] = []
    results: list[tuple[str, type]] = []
    for part in order:
        objects = [(n, getattr(modelcompare, n)) for n in groups[part]]
        where = f"``modelcompare.{part}``" if not part.startswith("_") else "the foundation"
        lines = [
            *_title(PARTS.get(part, f"``{part}``")),
            ".. currentmodule:: modelcompare",
            "",
            f"The public names of {where}, all importable from ``modelcompare``.",
            "",
        ]
        lines += _table([n for n, o in objects if not inspect.isclass(o)], "Functions")
        lines += _table([n for n, o in objects if inspect.isclass(o)], "Classes")
        name = part.lstrip("_").replace(".", "_")
        _write(srcdir / "api" / f"{name}.rst", lines)
        pages.append(f"api/{name}")
        results += [
            (n, o)
            for n, o in objects
            if inspect.isclass(o) and dataclasses.is_dataclass(o) and n.endswith("Result")
        ]

    name, title, modules = MODULES_PAGE
    lines = [
        *_title(title),
        "The building blocks that the relative-fit tests accept: kernels (``kernel=``) and",
        "densities with an exact score (for Rel-FSSD); and the feature extractors that turn",
        "images into the features the generative-model scores and tests take.",
        "",
        ".. autosummary::",
        "   :toctree: ../generated",
        "",
        *(f"   {m}" for m in modules),
        "",
    ]
    _write(srcdir / "api" / f"{name}.rst", lines)
    pages.append(f"api/{name}")

    toc = [".. toctree::", "   :maxdepth: 1", "", *(f"   {p}" for p in pages), ""]
    _write(srcdir / "_api_toc.rst", toc)
    _write(
        srcdir / "_api_results.rst",
        [".. currentmodule:: modelcompare", "", *_result_list(sorted(results))],
    )
    return [f"{p}.rst" for p in pages]


def _builder_inited(app: Sphinx) -> None:
    scanned = write_pages(Path(app.srcdir))
    generate = app.config.autosummary_generate
    if generate is not True:
        app.config.autosummary_generate = [*(generate or []), *scanned]


def setup(app: Sphinx) -> dict[str, Any]:
    # before autosummary (priority 500) scans the sources for the stubs it must write
    app.connect("builder-inited", _builder_inited, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
