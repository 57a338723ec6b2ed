"""Lazy imports of optional dependencies with an install hint."""

from __future__ import annotations

import importlib
from types import ModuleType

from modelcompare._foundation.errors import MissingDependencyError

__all__ = ["import_optional"]

_EXTRA_OF = {
    "torch": "torch",
    "zuko": "flows",
    "matplotlib": "plot",
    "matplotlib.pyplot": "plot",
    "pyarrow": "parquet",
    "yaml": "yaml",
    "dask": "dask",
    "distributed": "dask",
}


def import_optional(name: str, *, purpose: str, hint: str | None = None) -> ModuleType:
    """Import an optional module, or raise an error that says how to install it.

    Parameters
    ----------
    name : str
        Module to import, e.g. ``"torch"``.
    purpose : str
        What needs it, used in the message (``"the MLP classifier of c2st"``).
    hint : str, optional
        An alternative the user can take without the dependency.

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    MissingDependencyError
        If the module cannot be imported.
    """
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        extra = _EXTRA_OF.get(name, name.split(".")[0])
        msg = f"{purpose} requires {name.split('.')[0]}: pip install 'modelcompare[{extra}]'."
        if hint:
            msg += f" {hint}"
        raise MissingDependencyError(msg) from exc
