"""Helpers for running many tasks: a task's output as flat table cells."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from modelcompare._foundation.results import to_builtin

__all__ = ["flatten_config", "flatten_output"]


def _cell(value: Any, *, include_arrays: bool = False) -> Any:
    """One table cell: scalars stay, lists and dicts become JSON text (arrays too, if asked)."""
    value = to_builtin(value, include_arrays=include_arrays)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return json.dumps(value, sort_keys=True)


def flatten_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """Config entries as table cells; an array value is kept, as JSON text of its list."""
    return {str(k): _cell(v, include_arrays=True) for k, v in config.items()}


def flatten_output(out: Any) -> dict[str, Any]:
    """A task's return value as table cells.

    A result object contributes its scalar fields (``to_dict(include_arrays=False)``, plus its
    ``statistic`` when that is a property); a mapping its entries; a number ``value``; None nothing.
    """
    if out is None:
        return {}
    if hasattr(out, "to_dict") and not hasattr(out, "columns"):
        fields = out.to_dict(include_arrays=False)
        row = {}
        if "statistic" not in fields and hasattr(out, "statistic"):
            row["statistic"] = _cell(out.statistic)
        row.update({str(k): _cell(v) for k, v in fields.items()})
        return row
    if isinstance(out, Mapping):
        return {str(k): _cell(v) for k, v in out.items()}
    if isinstance(out, bool | int | float | np.generic):
        return {"value": _cell(out)}
    msg = f"a task must return a result object, a dict or a number; got {type(out).__name__}."
    raise TypeError(msg)
