"""The public surface of modelcompare, as a JSON snapshot that the API-break test compares.

The snapshot lists the names in ``modelcompare.__all__`` and in each public subpackage's
``__all__``; each callable's parameters (name, kind and the ``repr`` of its default); each public
class's constructor, methods and properties; each command-line command with its option names;
the JSON keys and ``"test"`` name of each result of the example calls in ``test_public_api.py``;
and, for each command-line command, the keys of the JSON that ``--json`` prints on the shipped
example data (see :data:`CLI_JSON_CALLS`).
``tests/test_api_surface.py`` fails when something in the snapshot has gone without an old
spelling that still works with a ``FutureWarning``.

Refresh the snapshot after an intended change (additions, or removals that keep an alias)::

    PYTHONPATH=src python -m tests.api_surface --update
"""

from __future__ import annotations

import argparse
import contextlib
import functools
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


#: Where the command-line calls below find the example data (``modelcompare example-data`` writes
#: it there, in the scratch folder the calls run in).
_DATA = "examples/data/"
_REL = [f"{_DATA}rel_p.npy", f"{_DATA}rel_q.npy", f"{_DATA}rel_ref.npy"]
#: A two-model table of per-split scores for ``cv --test hierarchical``, cut from the shipped
#: ``cv_splits_long.csv`` (which holds four models) before the calls run.
_TWO_MODELS = "cv_two_models.csv"

#: ``{name: arguments}``: one small, fast ``--json`` call per command and per ``--test`` whose
#: output has its own keys, on the shipped example data (the inputs of the ``--help`` examples,
#: with cheap settings). ``--alpha`` is given wherever it applies, so that the decision's keys are
#: recorded too. ``example-data`` prints no JSON.
CLI_JSON_CALLS: dict[str, list[str]] = {
    "c2st": ["c2st", f"{_DATA}reference.npy", f"{_DATA}samples.npy", "--classifier", "logistic"],
    "compare-generators": ["compare-generators", *_REL, "--n-locations", "2"],
    "compare-posteriors": [
        "compare-posteriors",
        f"{_DATA}posterior_logq_first.npy",
        f"{_DATA}posterior_logq_second.npy",
    ],
    "compare-posteriors --scoring-rule energy": [
        "compare-posteriors",
        f"{_DATA}posterior_draws_first.npy",
        f"{_DATA}posterior_draws_second.npy",
        "--scoring-rule",
        "energy",
        "--theta",
        f"{_DATA}posterior_theta.npy",
    ],
    "coverage": ["coverage", f"{_DATA}pit.npy", f"{_DATA}x.npy", "--n-resamples", "19"],
    "cv": ["cv", f"{_DATA}cv_scores.csv", "--n-train", "90", "--n-test", "10"],
    "cv --test 5x2cv": ["cv", f"{_DATA}cv_5x2.csv", "--test", "5x2cv"],
    "cv --test 5x2cv-f": ["cv", f"{_DATA}cv_5x2.csv", "--test", "5x2cv-f"],
    "cv --test mcnemar": ["cv", f"{_DATA}mcnemar_predictions.csv", "--test", "mcnemar"],
    "cv --test hierarchical": ["cv", _TWO_MODELS, "--test", "hierarchical"],
    "cv --test report": ["cv", f"{_DATA}cv_datasets.csv", "--test", "report"],
    "features": [
        "features",
        f"{_DATA}digits_p.npy",
        "--extractor",
        f"{_DATA}digit_features.py:pixels",
        "--out",
        "p.npz",
    ],
    "fid": ["fid", f"{_DATA}rel_p.npy", f"{_DATA}rel_ref.npy"],
    "granularity": [
        "granularity",
        f"{_DATA}categorical.npy",
        "--reference",
        "stairs:c=6,L=6,stairs=3,ratio=2",
    ],
    "metrics": [
        "metrics",
        f"{_DATA}rel_p.npy",
        f"{_DATA}rel_ref.npy",
        "--metrics",
        "fd,fd-infinity,kid,cmmd,prdc",
        "--n-resamples",
        "2",
        "--n-subsets",
        "2",
    ],
    "relative --test ume": [
        "relative",
        *_REL,
        "--test",
        "ume",
        "--n-locations",
        "2",
        "--optimizer",
        "none",
    ],
    "relative --test mmd": ["relative", *_REL, "--test", "mmd"],
    "relative --test kid": ["relative", *_REL, "--test", "kid"],
    "relative --test fid": ["relative", *_REL, "--test", "fid"],
    "report": ["report", "--pit", f"{_DATA}pit.npy", "--checks", "global_coverage"],
    "sweep": ["sweep", f"{_DATA}sweep.yaml", "--out", "results.csv"],
}


#: Calls that take no ``--alpha`` although their command does (a Bayesian test has no p-value).
_WITHOUT_ALPHA = {"cv --test hierarchical"}


def _cli_arguments(name: str) -> list[str]:
    """The arguments of call ``name``, with ``--json``, and ``--seed 0`` and ``--alpha 0.05``
    where its command takes them."""
    import click

    from modelcompare.cli import app

    args = CLI_JSON_CALLS[name]
    command = app.get_command(click.Context(app, info_name="modelcompare"), args[0])
    options = {o for p in command.params for o in p.opts}
    extra = ["--json", "--quiet"]
    if "--seed" in options:
        extra += ["--seed", "0"]
    if "--alpha" in options and name not in _WITHOUT_ALPHA:
        extra += ["--alpha", "0.05"]
    return [*args, *extra]


def _write_inputs() -> None:
    """The example data in ``examples/data`` and the two-model table, in the current folder."""
    import pandas as pd

    from modelcompare.datasets import write_example_data

    write_example_data()
    scores = pd.read_csv(f"{_DATA}cv_splits_long.csv")
    scores[scores["model"].isin(scores["model"].unique()[:2])].to_csv(_TWO_MODELS, index=False)


#: Objects whose keys name data or the machine, not the API: model names, library versions.
_KEYED_BY_DATA = {"average_ranks", "mean_scores", "versions"}


def json_keys(data: dict[str, Any]) -> dict[str, Any]:
    """``{"test", "keys", "nested"}`` of one JSON object a command printed.

    ``keys`` are its sorted top-level keys; ``nested`` the sorted keys of each value that is an
    object itself (``params``, the per-check results of ``coverage``, the metrics of ``metrics``),
    except those keyed by data (:data:`_KEYED_BY_DATA`).
    """
    nested = {
        k: sorted(v)
        for k, v in sorted(data.items())
        if isinstance(v, dict) and k not in _KEYED_BY_DATA
    }
    return {"test": data.get("test"), "keys": sorted(data), "nested": nested}


@functools.cache
def cli_json_surface() -> dict[str, dict[str, Any] | None]:
    """``{"modelcompare <call name>": json_keys(output)}`` of each call of :data:`CLI_JSON_CALLS`.

    The calls run in a scratch folder. A call that fails for want of an optional dependency
    (its message names the ``modelcompare[...]`` extra to install) gives None; any other failure
    raises. Cached: the calls run once per process.
    """
    import tempfile

    from click.testing import CliRunner

    from modelcompare.cli import app

    out: dict[str, dict[str, Any] | None] = {}
    with tempfile.TemporaryDirectory() as scratch, contextlib.chdir(scratch):
        _write_inputs()
        for name in CLI_JSON_CALLS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = CliRunner().invoke(app, _cli_arguments(name))
            if result.exit_code != 0:
                if "modelcompare[" in result.stderr:
                    out[f"modelcompare {name}"] = None
                    continue
                msg = f"`modelcompare {name}` exited {result.exit_code}: {result.stderr[-2000:]}"
                raise RuntimeError(msg)
            out[f"modelcompare {name}"] = json_keys(json.loads(result.stdout))
    return out


def surface() -> dict[str, Any]:
    """The whole public surface: ``{"names", "objects", "cli", "json", "cli_json"}``."""
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
    return {
        "names": names,
        "objects": objects,
        "cli": cli_surface(),
        "json": json_surface(),
        "cli_json": cli_json_surface(),
    }


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
