"""Helpers shared by the plotting functions of every part.

matplotlib is an optional dependency: it is imported only when a figure is drawn, with an install
hint when it is missing. A plot draws on the Axes it is given and creates a figure only when it is
given none; it refuses a result of the wrong type, and labels of the wrong length, with a message
that names the argument.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from modelcompare._foundation.optional import import_optional

__all__ = ["axes_row", "check_labels", "check_result_type", "new_axes", "pyplot"]


def pyplot(purpose: str) -> Any:
    """``matplotlib.pyplot``, or a ``MissingDependencyError`` that says how to install it.

    Parameters
    ----------
    purpose : str
        What draws the figure, for the message (the plotting function's name).
    """
    return import_optional("matplotlib.pyplot", purpose=purpose)


def new_axes(ax: Any, purpose: str, **subplots: Any) -> Any:
    """``ax`` itself, or the Axes of a new figure when ``ax`` is None.

    Parameters
    ----------
    ax : matplotlib Axes or None
        Where the caller wants the plot.
    purpose : str
        The plotting function's name, for the message when matplotlib is missing.
    **subplots
        Passed to ``plt.subplots`` for the new figure (e.g. ``figsize``).

    Raises
    ------
    TypeError
        If ``ax`` is neither None nor an Axes.
    """
    if ax is None:
        _, ax = pyplot(purpose).subplots(**subplots)
        return ax
    _check_axes(ax, "ax")
    return ax


def _check_axes(ax: Any, name: str) -> None:
    # duck-typed, so that matplotlib need not be imported to refuse a wrong object
    if not (hasattr(ax, "plot") and hasattr(ax, "figure")):
        msg = f"`{name}` must be a matplotlib Axes; got {type(ax).__name__}."
        raise TypeError(msg)


def axes_row(axes: Any, k: int, purpose: str, *, what: str = "one per panel") -> np.ndarray:
    """``k`` Axes as a flat object array: the first ``k`` of ``axes``, or a new row of ``k`` panels.

    Parameters
    ----------
    axes : Axes, array of Axes or None
        The caller's Axes; a new figure of ``k`` panels side by side when None.
    k : int
        Panels needed.
    purpose : str
        The plotting function's name, for the message when matplotlib is missing.
    what : str
        What each panel shows, for the message when ``axes`` holds too few.

    Raises
    ------
    TypeError
        If an entry of ``axes`` is not an Axes.
    ValueError
        If ``axes`` holds fewer than ``k`` Axes.
    """
    if axes is None:
        _, axes = pyplot(purpose).subplots(1, k, figsize=(3.2 * k, 3.0), squeeze=False)
    arr = np.atleast_1d(np.asarray(axes, dtype=object)).ravel()
    if arr.size < k:
        msg = f"`ax` must hold at least {k} Axes ({what}); got {arr.size}."
        raise ValueError(msg)
    for i, ax in enumerate(arr[:k]):
        _check_axes(ax, f"ax[{i}]")
    return arr[:k]


def _article(word: str) -> str:
    return "an" if word[:1].upper() in "AEIOU" else "a"


def check_result_type(
    result: Any,
    expected: type | tuple[type, ...],
    producer: str,
    *,
    name: str = "result",
) -> None:
    """Refuse a ``result`` that is not of the ``expected`` type, naming what makes one.

    Parameters
    ----------
    result : object
        The plotting function's input.
    expected : type or tuple of types
        The result classes the plot draws.
    producer : str
        The functions that return them, for the message (``"global_coverage_test"``).
    name : str
        The argument's name.

    Raises
    ------
    TypeError
        ```result` must be a GlobalCoverageResult (from global_coverage_test); got dict.``

    Examples
    --------
    >>> check_result_type({"pvalue": 0.5}, float, "a test")
    Traceback (most recent call last):
    ...
    TypeError: `result` must be a float (from a test); got dict.
    """
    types = expected if isinstance(expected, tuple) else (expected,)
    if isinstance(result, types):
        return
    wanted = " or ".join(f"{_article(t.__name__)} {t.__name__}" for t in types)
    msg = f"`{name}` must be {wanted} (from {producer}); got {type(result).__name__}."
    raise TypeError(msg)


def check_labels(labels: Any, n: int, default: Sequence[str], *, name: str = "labels") -> list[str]:
    """The ``n`` label strings of a plot: ``default`` when ``labels`` is None.

    Parameters
    ----------
    labels : sequence or None
        The caller's labels, one per panel, line or row (converted with ``str``).
    n : int
        How many the plot needs.
    default : sequence of str
        The labels used when ``labels`` is None.
    name : str
        The argument's name.

    Raises
    ------
    TypeError
        If ``labels`` is a string or not a sequence.
    ValueError
        If it does not hold exactly ``n`` labels.

    Examples
    --------
    >>> check_labels(None, 2, ["z1", "z2"])
    ['z1', 'z2']
    >>> check_labels(["a"], 2, ["z1", "z2"])
    Traceback (most recent call last):
    ...
    ValueError: `labels` must have 2 entries (one per panel, line or row); got 1.
    """
    if labels is None:
        return [str(v) for v in default]
    if isinstance(labels, str | bytes) or not hasattr(labels, "__iter__"):
        msg = f"`{name}` must be a sequence of {n} names; got {type(labels).__name__}."
        raise TypeError(msg)
    out = [str(v) for v in labels]
    if len(out) != n:
        msg = f"`{name}` must have {n} entries (one per panel, line or row); got {len(out)}."
        raise ValueError(msg)
    return out
