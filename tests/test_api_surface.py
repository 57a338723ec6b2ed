"""API-break check: nothing in the committed snapshot of the public surface disappears silently.

A public name, parameter, method, property or command-line option in ``tests/data/api_surface.json``
that is gone now must keep its old spelling, still accepted with a ``FutureWarning``: an old name
through the package's ``__getattr__``, an old keyword through ``renamed_parameters`` (which records
it in ``__renamed_parameters__``), a parameter made keyword-only through ``positional_to_keyword``
(``__positional_to_keyword__``), an old option as a hidden option; a result's JSON keys and
``"test"`` name never change, nor do the keys and ``"test"`` name of the JSON each command prints
with ``--json``. Additions are fine; the
snapshot is refreshed with ``PYTHONPATH=src python -m tests.api_surface --update``.
"""

from __future__ import annotations

import importlib
import inspect
import json
import warnings
from typing import Any

import pytest

from tests.api_surface import (
    CLI_JSON_CALLS,
    SNAPSHOT,
    cli_json_surface,
    cli_surface,
    parse_parameter,
    surface,
)

REFRESH = "PYTHONPATH=src python -m tests.api_surface --update"
POSITIONAL = {"POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD"}


def _snapshot() -> dict[str, Any]:
    return json.loads(SNAPSHOT.read_text(encoding="utf-8"))


def _get_old(module: str, name: str) -> tuple[Any, list[warnings.WarningMessage]]:
    """``getattr(module, name)`` and the warnings it emitted (``AttributeError`` if none)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = getattr(importlib.import_module(module), name)
    return value, list(caught)


def _recorded(obj: Any, attribute: str) -> set[str]:
    """The names a deprecation decorator recorded on ``obj`` or on any function it wraps."""
    found: set[str] = set()
    while obj is not None:
        found |= set(getattr(obj, attribute, ()))
        obj = getattr(obj, "__wrapped__", None)
    return found


def _parameter_breaks(where: str, obj: Any, old: list[str] | None) -> list[str]:
    """Parameters in ``old`` that ``obj`` no longer takes, or no longer takes by position."""
    if old is None:
        return []
    try:
        now = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return [f"{where}: no longer has a signature"]
    takes_var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in now.values())
    renamed = _recorded(obj, "__renamed_parameters__")
    made_keyword = _recorded(obj, "__positional_to_keyword__")
    breaks = []
    for entry in old:
        name, kind, _ = parse_parameter(entry)
        if kind in {"VAR_POSITIONAL", "VAR_KEYWORD"} or name.startswith("_"):
            continue  # a private dataclass field is no API
        if name not in now:
            if name not in renamed and not takes_var_kw:
                breaks.append(f"{where}: parameter `{name}` removed without an alias")
        elif (
            kind in POSITIONAL
            and now[name].kind is inspect.Parameter.KEYWORD_ONLY
            and name not in made_keyword
        ):
            breaks.append(f"{where}: parameter `{name}` can no longer be passed by position")
    return breaks


def test_the_snapshot_is_readable_and_current_code_produces_one() -> None:
    snap = _snapshot()
    assert set(snap) == {"names", "objects", "cli", "json", "cli_json"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        now = surface()
    assert set(now) == set(snap)


def test_no_public_name_disappears_without_a_warning_alias() -> None:
    breaks = []
    for package, names in _snapshot()["names"].items():
        current = set(importlib.import_module(package).__all__)
        for name in names:
            if name in current:
                continue
            try:
                _, caught = _get_old(package, name)
            except AttributeError:
                breaks.append(f"{package}.{name}: removed")
                continue
            if not any(issubclass(w.category, FutureWarning) for w in caught):
                breaks.append(f"{package}.{name}: not in __all__ and no FutureWarning on access")
    assert not breaks, _message(breaks)


def test_no_parameter_method_or_property_disappears_without_an_alias() -> None:
    breaks = []
    for qualified, entry in _snapshot()["objects"].items():
        module, _, name = qualified.rpartition(".")
        try:
            obj, _ = _get_old(module, name)
        except (AttributeError, ImportError):
            continue  # a removed name is reported by the names test; optional deps may be absent
        if entry["kind"] == "function":
            breaks += _parameter_breaks(qualified, obj, entry["parameters"])
        elif entry["kind"] == "class":
            breaks += _parameter_breaks(qualified, obj, entry["init"])
            for member, old in entry["members"].items():
                if not hasattr(obj, member):
                    breaks.append(f"{qualified}.{member}: removed without an alias")
                elif old != "property":
                    breaks += _parameter_breaks(f"{qualified}.{member}", getattr(obj, member), old)
    assert not breaks, _message(breaks)


def test_no_command_or_option_disappears_without_a_hidden_alias() -> None:
    now = cli_surface(include_hidden=True)
    breaks = []
    for command, options in _snapshot()["cli"].items():
        if command not in now:
            breaks.append(f"`{command}`: command removed")
            continue
        breaks += [f"`{command} {o}`: option removed" for o in options if o not in now[command]]
    assert not breaks, _message(breaks)


def test_no_json_key_or_test_name_changes() -> None:
    """A result's JSON keys and ``"test"`` name stay (a renamed field keeps its JSON key)."""
    from tests.api_surface import json_surface

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        now = json_surface()
    breaks = []
    for name, old in _snapshot()["json"].items():
        if name not in now:
            continue  # the function's own removal is reported by the names test
        if now[name]["test"] != old["test"]:
            breaks.append(f'{name}: "test" changed from {old["test"]!r} to {now[name]["test"]!r}')
        gone = sorted(set(old["keys"]) - set(now[name]["keys"]))
        if gone:
            breaks.append(f"{name}: JSON keys removed: {gone}")
    assert not breaks, _message(breaks)


def cli_json_breaks(
    old: dict[str, dict[str, Any] | None], now: dict[str, dict[str, Any] | None]
) -> list[str]:
    """What the ``--json`` output of each command in ``old`` lost in ``now``: a key at the top
    level or in a nested object (``params``, ...), or its ``"test"`` name.

    A call that could not run here for want of an optional dependency (None) is not compared.
    """
    breaks = []
    for command, before in old.items():
        if command not in now:
            breaks.append(f"`{command} --json`: no longer recorded")
            continue
        after = now[command]
        if before is None or after is None:
            continue
        if after["test"] != before["test"]:
            breaks.append(
                f'`{command} --json`: "test" changed from {before["test"]!r} to {after["test"]!r}'
            )
        gone = sorted(set(before["keys"]) - set(after["keys"]))
        if gone:
            breaks.append(f"`{command} --json`: keys removed: {gone}")
        for key, sub in before["nested"].items():
            lost = sorted(set(sub) - set(after["nested"].get(key, ())))
            if lost and key in after["keys"]:
                breaks.append(f"`{command} --json`: keys removed from {key!r}: {lost}")
    return breaks


def test_no_cli_json_key_or_test_name_disappears() -> None:
    """The JSON each command prints keeps its keys and ``"test"`` name (a renamed field too)."""
    breaks = cli_json_breaks(_snapshot()["cli_json"], cli_json_surface())
    assert not breaks, _message(breaks)


def test_every_command_that_prints_json_has_a_recorded_call() -> None:
    calls = {args[0] for args in CLI_JSON_CALLS.values()}
    with_json = {c.split(" ", 1)[1] for c, options in cli_surface().items() if "--json" in options}
    assert with_json - calls == set(), "add a call to CLI_JSON_CALLS in tests/api_surface.py"


def test_the_cli_json_check_catches_a_removed_key() -> None:
    old = {
        "modelcompare demo": {
            "test": "demo",
            "keys": ["params", "pvalue", "statistic"],
            "nested": {"params": ["n_resamples", "seed"]},
        }
    }
    same = json.loads(json.dumps(old))
    assert cli_json_breaks(old, same) == []
    more = json.loads(json.dumps(old))
    more["modelcompare demo"]["keys"].append("reject")
    assert cli_json_breaks(old, more) == []  # an addition passes
    fewer = json.loads(json.dumps(old))
    fewer["modelcompare demo"]["keys"].remove("pvalue")
    fewer["modelcompare demo"]["nested"]["params"].remove("seed")
    fewer["modelcompare demo"]["test"] = "demo2"
    found = cli_json_breaks(old, fewer)
    assert any("keys removed: ['pvalue']" in b for b in found)
    assert any("keys removed from 'params': ['seed']" in b for b in found)
    assert any('"test" changed' in b for b in found)
    assert cli_json_breaks(old, {"modelcompare demo": None}) == []  # could not run here


def _message(breaks: list[str]) -> str:
    return (
        "The public API lost these without an old spelling that still works with a "
        "FutureWarning:\n  "
        + "\n  ".join(breaks)
        + "\nKeep the old spelling as a warning alias (see docs/api_conventions.md), then refresh "
        f"the snapshot with `{REFRESH}`."
    )


@pytest.mark.parametrize(
    ("old_entry", "expected"),
    [
        (["k: POSITIONAL_OR_KEYWORD"], "parameter `k` removed"),
        (["n_bins: POSITIONAL_OR_KEYWORD"], None),
    ],
)
def test_the_check_catches_a_removed_parameter(old_entry: list[str], expected: str | None) -> None:
    def plain(p: Any, *, n_bins: int) -> None:
        """A function whose ``k`` was renamed without an alias."""

    breaks = _parameter_breaks("f", plain, old_entry)
    if expected is None:
        assert breaks == ["f: parameter `n_bins` can no longer be passed by position"]
    else:
        assert any(expected in b for b in breaks)


def test_the_check_accepts_aliases_the_decorators_record() -> None:
    from modelcompare._foundation.deprecation import positional_to_keyword, renamed_parameters

    @renamed_parameters(k="n_bins")
    @positional_to_keyword("n_bins", n_positional=1)
    def binning(p: Any, *, n_bins: int) -> int:
        return n_bins

    old = ["p: POSITIONAL_OR_KEYWORD", "k: POSITIONAL_OR_KEYWORD", "n_bins: POSITIONAL_OR_KEYWORD"]
    assert _parameter_breaks("binning", binning, old) == []
