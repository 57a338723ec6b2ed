"""HTML pages from the packaged Jinja2 templates, with autoescaping, and figures as data URIs.

Every page extends ``templates/base.html`` (a self-contained layout: inline CSS, no scripts, no
network); a page's template fills its blocks: ``content`` (below the title), and where it needs
them ``style`` (the CSS) and ``footer``. Jinja2 is an optional dependency (the ``html`` extra),
imported only when a page is rendered.
"""

from __future__ import annotations

import base64
import io
import math
from pathlib import Path
from typing import Any

from modelcompare._foundation.optional import import_optional

__all__ = ["TEMPLATES", "figure_uri", "format_number", "render_page"]

#: The folder of the packaged templates.
TEMPLATES = Path(__file__).resolve().parent / "templates"


def format_number(value: Any, digits: int = 3) -> str:
    """A number for a table cell: ``digits`` significant digits, "—" for None and NaN.

    Examples
    --------
    >>> format_number(0.000123456), format_number(float("nan")), format_number(12)
    ('0.000123', '—', '12')
    """
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    value = float(value)
    if math.isnan(value):
        return "—"
    return f"{value:.{digits}g}"


def render_page(template: str, **context: Any) -> str:
    """Render the packaged template ``template`` with ``context``; values are HTML-escaped.

    Parameters
    ----------
    template : str
        File name under the package's ``templates`` folder, e.g. ``"compare_generators.html"`` or
        ``"posterior_report.html"``.
    **context
        The template's variables. Strings are escaped unless marked safe by the template.

    Returns
    -------
    str
        The page.

    Raises
    ------
    MissingDependencyError
        When Jinja2 is not installed (the message names the ``html`` extra).
    """
    jinja2 = import_optional("jinja2", purpose="an HTML page")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        undefined=jinja2.StrictUndefined,  # a missing variable is a bug, not an empty cell
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = format_number
    return env.get_template(template).render(**context)


def figure_uri(draw: Any, *, figsize: tuple[float, float] = (8.0, 3.4), dpi: int = 90) -> str:
    """Render ``draw(fig)`` on a new Agg figure to a base64 PNG data URI.

    Parameters
    ----------
    draw : callable
        Draws on the :class:`matplotlib.figure.Figure` it is given.
    figsize : tuple of float
        Figure size in inches.
    dpi : int
        Resolution of the PNG.

    Returns
    -------
    str
        ``"data:image/png;base64,..."``.
    """
    import_optional("matplotlib", purpose="the figures of an HTML page")
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    draw(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
