"""Lazy imports of optional dependencies with an install hint."""

from __future__ import annotations

import importlib
from types import ModuleType

from modelcompare._foundation.errors import MissingDependencyError

__all__ = ["import_optional", "install_hint"]

_EXTRA_OF = {
    "torch": "torch",
    "zuko": "flows",
    "matplotlib": "plot",
    "matplotlib.pyplot": "plot",
    "pyarrow": "parquet",
    "yaml": "yaml",
    "dask": "dask",
    "distributed": "dask",
    "jinja2": "html",
}


def install_hint(extra: str) -> str:
    """How to install an extra: the package is not on an index, so from the checkout.

    Examples
    --------
    >>> install_hint("parquet")
    'install the extra modelcompare[parquet] (in the modelcompare checkout: pip install -e ".[parquet]")'
    """
    return f'install the extra modelcompare[{extra}] (in the modelcompare checkout: pip install -e ".[{extra}]")'


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
        msg = f"{purpose} requires {name.split('.')[0]}: {install_hint(extra)}."
        if hint:
            msg += f" {hint}"
        raise MissingDependencyError(msg) from exc
