"""Figures shared by several checks, and what every figure knows of the report's decision.

Every mark of rejection in a figure follows the report's table: a check's figure gets a
:class:`FigureContext` holding the check's p-value after Holm's correction across the checks, and
per-point p-values are shown on the same scale (:meth:`FigureContext.point_pvalues`), never as
verdicts at a level of their own.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "FigureContext",
    "call_draw",
    "check_parameter_names",
    "default_parameter_names",
    "draw_per_point",
    "label_points",
    "legend_below",
    "observation_label",
    "point_label",
]

_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def default_parameter_names(m: int) -> tuple[str, ...]:
    """θ₁ … θₘ.

    Examples
    --------
    >>> default_parameter_names(2)
    ('θ₁', 'θ₂')
    """
    return tuple(f"θ{str(i + 1).translate(_SUBSCRIPTS)}" for i in range(m))


def check_parameter_names(parameter_names: Any, m: int) -> tuple[str, ...]:
    """``parameter_names`` as m distinct strings (θ₁ … θₘ when None).

    Examples
    --------
    >>> check_parameter_names(None, 2)
    ('θ₁', 'θ₂')
    >>> check_parameter_names(["mu", "sigma"], 2)
    ('mu', 'sigma')
    """
    if parameter_names is None:
        return default_parameter_names(m)
    if isinstance(parameter_names, str | bytes) or not isinstance(parameter_names, Sequence):
        msg = f"`parameter_names` must be a sequence of {m} strings; got {parameter_names!r}."
        raise TypeError(msg)
    names = tuple(parameter_names)
    if not all(isinstance(v, str) for v in names):
        msg = f"`parameter_names` must hold strings; got {names!r}."
        raise TypeError(msg)
    if len(names) != m or len(set(names)) != m:
        msg = f"`parameter_names` must hold {m} distinct names, one per parameter; got {names!r}."
        raise ValueError(msg)
    return names


def observation_label(x_obs: Any, row: int, digits: int = 2) -> str:
    """An observed data set by its row of ``x_obs`` (counted from 1) and its coordinates.

    Examples
    --------
    >>> observation_label([8.0, -8.0], 1)
    'x_obs row 2 = (8, -8)'
    """
    return f"x_obs row {row + 1} = ({point_label(x_obs, digits)[4:-1]})"


def point_label(x0: Any, digits: int = 2) -> str:
    """An evaluation point by its coordinates, rounded (at most three shown).

    Examples
    --------
    >>> point_label([0.1234, -1.0])
    'x₀=(0.12, -1)'
    >>> point_label([1, 2, 3, 4, 5])
    'x₀=(1, 2, 3, …)'
    """
    values = np.atleast_1d(np.asarray(x0, dtype=float)).ravel()
    shown = ", ".join(f"{v:.{digits}g}" if abs(v) < 10**digits else f"{v:.0f}" for v in values[:3])
    more = ", …" if values.size > 3 else ""
    return f"x₀=({shown}{more})"


@dataclass(frozen=True)
class FigureContext:
    """What a check's figure needs from the report around it.

    Attributes
    ----------
    parameter_names : tuple of str
        Names of the parameters (θ₁ … θₘ by default).
    pvalue : float
        The check's own overall p-value.
    pvalue_adjusted : float
        The check's p-value after Holm's correction across the checks (the table's).
    alpha : float
        The report's level.
    x_eval : numpy.ndarray or None
        The evaluation points of the local checks.
    """

    parameter_names: tuple[str, ...]
    pvalue: float
    pvalue_adjusted: float
    alpha: float
    x_eval: np.ndarray | None = None

    @property
    def rejects(self) -> bool:
        """Whether the report's table rejects this check."""
        return bool(self.pvalue_adjusted <= self.alpha)

    def point_pvalues(self, adjusted_within: Any) -> np.ndarray:
        """Per-point p-values on the report's scale.

        ``adjusted_within`` are the p-values already adjusted across the points (or pairs) of
        the check; each is multiplied by the factor Holm's step across the checks applied to the
        check's own p-value (``pvalue_adjusted / pvalue``) and floored at ``pvalue_adjusted``,
        so that the smallest equals the table's p-value and a point is at or below ``alpha``
        only when the table rejects the check.
        """
        p = np.asarray(adjusted_within, dtype=float)
        factor = self.pvalue_adjusted / self.pvalue if self.pvalue > 0 else 1.0
        return np.clip(np.maximum(p * factor, self.pvalue_adjusted), 0.0, 1.0)

    def label(self, i: int) -> str:
        """The label of evaluation point ``i``: its rounded coordinates, or its index."""
        if self.x_eval is None or i >= len(self.x_eval):
            return f"point {i}"
        return point_label(self.x_eval[i])

    def decision(self) -> str:
        """The table's decision on the check, in words (the line under each figure)."""
        verb = "rejects" if self.rejects else "does not reject"
        return (
            f"At alpha = {self.alpha:g}, after Holm's correction across the checks "
            f"(p = {self.pvalue_adjusted:.3g}), this check {verb}."
        )


def call_draw(draw: Any, fig: Any, result: Any, context: FigureContext) -> None:
    """``draw(fig, result, context)``, or ``draw(fig, result)`` for a draw without a context."""
    try:
        n = len(inspect.signature(draw).parameters)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        n = 3
    if n >= 3:
        draw(fig, result, context)
    else:
        draw(fig, result)


def legend_below(fig: Any, ax: Any, ncol: int | None = None) -> None:
    """Move the legend of ``ax`` below the figure's axes, so that it never covers data."""
    handles, labels = ax.get_legend_handles_labels()
    legend = ax.get_legend()
    if legend is not None:
        legend.remove()
    if not handles:
        return
    fig.legend(
        handles,
        labels,
        loc="outside lower center",
        fontsize="small",
        frameon=False,
        ncol=ncol or min(len(labels), 4),
    )


def label_points(ax: Any, context: FigureContext, pvalues: Any, *, narrow: bool = False) -> None:
    """Label each evaluation point below the axis by its coordinates and report-scale p-value.

    Bold only where that p-value is at or below the report's level, which happens only when the
    table rejects the check. More than three points (more than one in a ``narrow`` panel) are
    labelled vertically, one line each, so that neighbouring labels never overlap.
    """
    xs = list(range(len(pvalues)))
    vertical = len(xs) > (1 if narrow else 3)
    sep = ", " if vertical else "\n"
    labels = [f"{context.label(i)}{sep}p = {p:.2g}" for i, p in zip(xs, pvalues)]
    ax.set_xticks(xs, labels, fontsize="x-small" if vertical else "small")
    if vertical:
        ax.tick_params(axis="x", labelrotation=90)
        fig = ax.figure  # room below the axes for the vertical labels
        fig.set_size_inches(fig.get_figwidth(), max(fig.get_figheight(), 5.0))
    for tick, p in zip(ax.get_xticklabels(), pvalues):
        tick.set_fontweight("bold" if p <= context.alpha else "normal")


def draw_per_point(fig: Any, result: Any, title: str, context: FigureContext) -> None:
    """The statistic at each evaluation point, labelled by its coordinates and report-scale p.


    The 95 % quantile of each point's own null is drawn as a per-point reference only: the
    decision is the report's, shown as the adjusted p-values below the bars.
    """
    ax = fig.subplots()
    stats = np.asarray(result.statistics, dtype=float)
    values = stats.max(axis=0) if stats.ndim == 2 else stats
    xs = range(values.size)
    ax.bar(xs, values, color="C0", label="statistic")
    if getattr(result, "null_statistics", None) is not None:
        null = np.asarray(result.null_statistics, dtype=float)
        q = np.broadcast_to(np.quantile(null, 0.95, axis=0), values.shape)
        # one mark per bar, as wide as the bar: marks of neighbouring points never touch
        ax.hlines(
            q,
            np.arange(values.size) - 0.4,
            np.arange(values.size) + 0.4,
            colors="k",
            label="95 % quantile of the point's null (reference)",
        )
    label_points(ax, context, context.point_pvalues(result.pvalues_adjusted))
    ax.set(
        xlabel="evaluation point (p adjusted across the point's tests, points and checks)",
        ylabel="statistic",
    )
    ax.set_title(title)
    legend_below(fig, ax)
