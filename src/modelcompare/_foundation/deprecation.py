"""Old spellings that still work: renamed keyword arguments and renamed public names.

A public name or argument that is renamed keeps its old spelling for at least one release. Using
the old spelling works as before and emits a :class:`FutureWarning` that names the new spelling
(``FutureWarning`` rather than ``DeprecationWarning``, so that users of scripts and notebooks see
it; the convention of NumPy, pandas and scikit-learn for changes that affect end users).
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = [
    "positional_to_keyword",
    "renamed_attribute",
    "renamed_name",
    "renamed_parameters",
    "warn_renamed",
]

F = TypeVar("F", bound=Callable[..., Any])


def warn_renamed(old: str, new: str, *, what: str = "argument", stacklevel: int = 3) -> None:
    """Emit the :class:`FutureWarning` for a renamed name.

    Parameters
    ----------
    old, new : str
        The old and the new spelling.
    what : str, default="argument"
        What was renamed (``"argument"``, ``"name"``, ``"attribute"``, ``"option"``).
    stacklevel : int, default=3
        Passed to :func:`warnings.warn`, so that the warning points at the caller's line.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_renamed("axes", "ax")
    >>> str(caught[0].message)
    'The argument `axes` was renamed `ax`; `axes` still works but will be removed in a future release.'
    """
    msg = (
        f"The {what} `{old}` was renamed `{new}`; `{old}` still works but will be removed in a "
        "future release."
    )
    warnings.warn(msg, FutureWarning, stacklevel=stacklevel)


def renamed_parameters(**old_to_new: str) -> Callable[[F], F]:
    """Decorator: accept each old keyword ``old`` as ``new``, with a :class:`FutureWarning`.

    Passing both the old and the new spelling raises :class:`TypeError`.

    Parameters
    ----------
    **old_to_new : str
        ``old=new`` pairs of keyword names.

    Returns
    -------
    callable
        A decorator that leaves the function's signature unchanged.

    Examples
    --------
    >>> @renamed_parameters(axes="ax")
    ... def plot(values, *, ax=None):
    ...     return ax
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     plot([1], axes="here")
    'here'
    """

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        msg = (
                            f"{func.__name__}() got both `{old}` and its new spelling `{new}`; "
                            f"pass only `{new}`."
                        )
                        raise TypeError(msg)
                    warn_renamed(old, new)
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        # Recorded for the API-break check, which accepts a parameter's removal only when its old
        # spelling is still accepted here (stacked decorators merge their records).
        wrapper.__renamed_parameters__ = {  # type: ignore[attr-defined]
            **getattr(func, "__renamed_parameters__", {}),
            **old_to_new,
        }
        return wrapper  # type: ignore[return-value]

    return decorate


def renamed_name(package: str, name: str, renamed: Mapping[str, str]) -> Any:
    """Return the object now called ``renamed[name]`` in ``package``, warning about the old name.

    Used by a package's module ``__getattr__``: old names are served from there, never listed in
    ``__all__``.

    Parameters
    ----------
    package : str
        The package whose attribute is looked up.
    name : str
        The old name.
    renamed : mapping of str to str
        Old name to new name.

    Returns
    -------
    object
        The object under its new name.

    Raises
    ------
    AttributeError
        If ``name`` is not an old name.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     renamed_name("math", "PI", {"PI": "pi"})
    3.141592653589793
    """
    new = renamed.get(name)
    if new is None:
        msg = f"module {package!r} has no attribute {name!r}"
        raise AttributeError(msg)
    warn_renamed(f"{package}.{name}", f"{package}.{new}", what="name", stacklevel=3)
    return getattr(importlib.import_module(package), new)


def renamed_attribute(old: str, new: str) -> property:
    """A read-only property ``old`` that returns ``self.<new>`` with a :class:`FutureWarning`.

    Parameters
    ----------
    old, new : str
        The old and the new attribute names.

    Returns
    -------
    property
        The property to assign to the old name in the class body.

    Examples
    --------
    >>> class Box:
    ...     size = 3
    ...     width = renamed_attribute("width", "size")
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     Box().width
    3
    """

    def getter(self: Any) -> Any:
        warn_renamed(old, new, what="attribute")
        return getattr(self, new)

    getter.__doc__ = f"Old name of :attr:`{new}` (warns)."
    return property(getter)


def positional_to_keyword(*names: str, n_positional: int) -> Callable[[F], F]:
    """Decorator: accept ``names`` given positionally after the first ``n_positional`` arguments.

    For options that became keyword-only: ``f(p, k)`` still works as ``f(p, n_bins=k)``, with a
    :class:`FutureWarning`.

    Parameters
    ----------
    *names : str
        The keyword-only parameters that were once positional, in their old order.
    n_positional : int
        How many positional parameters the function still has.

    Returns
    -------
    callable
        A decorator that leaves the function's signature unchanged.

    Examples
    --------
    >>> @positional_to_keyword("n_bins", n_positional=1)
    ... def binning(p, *, n_bins):
    ...     return n_bins
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     binning("p", 4)
    4
    """

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            extra = args[n_positional:]
            if extra:
                if len(extra) > len(names):
                    msg = f"{func.__name__}() takes {n_positional} positional arguments."
                    raise TypeError(msg)
                for name, value in zip(names, extra, strict=False):
                    if name in kwargs:
                        msg = f"{func.__name__}() got `{name}` twice."
                        raise TypeError(msg)
                    msg = (
                        f"Pass `{name}` by keyword: `{func.__name__}(..., {name}=...)`; "
                        "passing it by position still works but will be removed in a future release."
                    )
                    warnings.warn(msg, FutureWarning, stacklevel=2)
                    kwargs[name] = value
            return func(*args[:n_positional], **kwargs)

        # Recorded for the API-break check: these keyword-only parameters may still be positional.
        wrapper.__positional_to_keyword__ = names  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate
