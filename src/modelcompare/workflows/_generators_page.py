"""The HTML page of :class:`GeneratorComparisonResult`, from the packaged template.

The page's figures follow the table's rule: the "where" pictures are titled with the verdict of
the Bonferroni-adjusted table at the page's α, never with a level of their own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare._foundation.html import figure_uri, render_page
from modelcompare._foundation.version import __version__

__all__ = ["render"]

_GRID = 16


def _sheet(fig: Any, images: np.ndarray, title: str, values: np.ndarray | None = None) -> None:
    """Images in a grid of one Axes, each titled with its value when values are given."""
    from modelcompare.relative import plot_locations_as_images

    ax = fig.subplots()
    count = len(images)
    shown = np.arange(count, 0, -1, dtype=float) if values is None else np.asarray(values)
    plot_locations_as_images(shown, images, top=count, ncols=min(8, count), ax=ax)
    if values is None:
        for text in list(ax.texts):
            text.remove()
    ax.set_title(title, fontsize="small")


def _figure(images: np.ndarray, title: str, values: np.ndarray | None = None) -> str | None:
    try:
        cols = min(8, len(images))
        rows = -(-len(images) // cols)
        return figure_uri(
            lambda fig: _sheet(fig, images, title, values),
            figsize=(0.85 * cols + 0.3, 1.0 * rows + 0.45),
            dpi=100,
        )
    except ImportError:  # matplotlib missing: the page keeps its tables
        return None


def _histogram(criterion: np.ndarray, names: tuple[str, str]) -> str | None:
    def draw(fig: Any) -> None:
        ax = fig.subplots()
        ax.hist(criterion, bins=30, color="0.55")
        ax.axvline(0.0, color="k", linewidth=0.8)
        ax.set_xlabel(f"power criterion (< 0: {names[0]} fits better; > 0: {names[1]} does)")
        ax.set_ylabel("reference points")

    try:
        return figure_uri(draw, figsize=(7.0, 2.6))
    except ImportError:
        return None


def render(result: Any, alpha: float) -> str:
    """The page at level ``alpha``."""
    first, second, ref = result._images
    rejected = result.rejected(alpha)
    rows = [
        {**row, "rejects": bool(rej)}
        for row, rej in zip(result.table.to_dict(orient="records"), rejected)
    ]
    side = result.better(alpha)
    where = []
    for name, rows_idx in result.where(top=_GRID).items():
        decided = side in ("both",) or (
            side is not None and name == result.names[0 if side == "first" else 1]
        )
        values = result.criterion[rows_idx]
        uri = None
        if ref is not None and len(rows_idx):
            # short: the figure may be two images wide; the heading above it says why
            caption = f"where {name} fits better" if decided else "not decided"
            uri = _figure(ref[rows_idx], caption, values)
        where.append(
            {
                "name": name,
                "count": len(rows_idx),
                "decided": decided,
                "uri": uri,
                "values": [float(v) for v in values],
            }
        )
    grids = []
    for label, imgs in ((result.names[0], first), (result.names[1], second), ("reference", ref)):
        if imgs is not None:
            shown = imgs[:_GRID]
            grids.append({"name": label, "count": len(shown), "uri": _figure(shown, "")})
    return render_page(
        "compare_generators.html",
        title="Comparison of two generative models",
        version=__version__,
        result=result,
        alpha=alpha,
        verdict=result.verdict(alpha),
        side=side,
        rows=rows,
        n_rows=len(rows),
        metrics=result.metrics.to_dict(orient="records"),
        where=where,
        histogram=_histogram(result.criterion, result.names),
        grids=grids,
    )
