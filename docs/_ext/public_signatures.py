"""Leave the private fields of result dataclasses out of the documented class signatures.

A result dataclass keeps private state of its methods in fields whose name starts with ``_``
(see ``modelcompare._foundation.results.Result``); they are not part of the public API and are
dropped from the signature that autodoc shows.
"""

from __future__ import annotations

import inspect
from typing import Any

from sphinx.application import Sphinx


def _signature(
    app: Sphinx,
    what: str,
    name: str,
    obj: Any,
    options: Any,
    signature: str | None,
    return_annotation: str | None,
) -> tuple[str, str | None] | None:
    if what not in ("class", "exception") or not signature or "_" not in signature:
        return None
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = [p for p in sig.parameters.values() if not p.name.startswith("_")]
    if len(params) == len(sig.parameters):
        return None
    plain = [p.replace(annotation=inspect.Parameter.empty) for p in params]
    return str(sig.replace(parameters=plain, return_annotation=inspect.Signature.empty)), None


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("autodoc-process-signature", _signature)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
