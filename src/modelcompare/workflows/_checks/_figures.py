"""Figures shared by several checks."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["draw_per_point"]


def draw_per_point(fig: Any, result: Any, title: str) -> None:
    """The statistic at each evaluation point, with the 95 % quantile of its null when known."""
    ax = fig.subplots()
    stats = np.asarray(result.statistics, dtype=float)
    values = stats.max(axis=0) if stats.ndim == 2 else stats
    ax.bar(range(values.size), values, color="C0")
    if getattr(result, "null_statistics", None) is not None:
        null = np.asarray(result.null_statistics, dtype=float)
        q = np.quantile(null, 0.95, axis=0)
        ax.plot(
            range(values.size),
            np.broadcast_to(q, values.shape),
            "k_",
            ms=30,
            label="null 95 % quantile",
        )
        ax.legend(fontsize="small")
    ax.set(xlabel="evaluation point", ylabel="statistic", title=title, xticks=range(values.size))
