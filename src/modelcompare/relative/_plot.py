"""Plot of the power-criterion map (1-D and 2-D data); matplotlib is imported lazily."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare._foundation.plotting import new_axes
from modelcompare.relative._maps import PowerCriterionMap

__all__ = ["plot_power_criterion_map"]


def plot_power_criterion_map(result_or_map: Any, *, ax: Any = None, **kwargs: Any) -> Any:
    """Draw where Q fits the data better (positive) and where P does (negative).

    Parameters
    ----------
    result_or_map : PowerCriterionMap, RelUMEResult or RelFSSDResult
        A :func:`~modelcompare.relative.power_criterion_map` result (the criterion at every
        candidate), or a test result (its ``relative_witness`` at the test locations).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure is made only when None.
    **kwargs
        Forwarded to the main artist: ``ax.plot`` for 1-D maps, ``ax.scatter`` otherwise.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        For data with more than two dimensions (plot ``result.criterion`` against your own
        coordinates instead).

    References
    ----------
    .. [1] W. Jitkrittum et al. (2018). Informative Features for Model Comparison. Advances in
       Neural Information Processing Systems (NeurIPS). arXiv:1810.11630.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(300, 1)); x = z + 1.0; y = rng.normal(size=(300, 1))
    >>> m = power_criterion_map(x, y, z, np.linspace(-3, 3, 50)[:, None], seed=0)  # doctest: +SKIP
    >>> ax = plot_power_criterion_map(m)  # doctest: +SKIP
    """
    if isinstance(result_or_map, PowerCriterionMap):
        pts = result_or_map.candidates
        values = result_or_map.criterion
        label = f"power criterion (J = 1, reg = {result_or_map.reg:g})"
        is_map = True
    elif hasattr(result_or_map, "relative_witness") and hasattr(result_or_map, "locations"):
        pts = np.asarray(result_or_map.locations)
        values = np.asarray(result_or_map.relative_witness)
        label = "relative witness wit²_P − wit²_Q"
        is_map = False
    else:
        msg = (
            "`result_or_map` must be a PowerCriterionMap or a Rel-UME/Rel-FSSD result; got "
            f"{type(result_or_map).__name__}."
        )
        raise TypeError(msg)
    d = pts.shape[1]
    if d > 2:
        msg = f"plot_power_criterion_map draws 1-D and 2-D data only; these locations have d = {d}."
        raise ValueError(msg)
    ax = new_axes(ax, "plot_power_criterion_map")
    if d == 1:
        order = np.argsort(pts[:, 0], kind="stable")
        if is_map:
            kwargs.setdefault("label", label)
            ax.plot(pts[order, 0], values[order], **kwargs)
        else:
            kwargs.setdefault("label", label)
            ax.stem(pts[order, 0], values[order], **kwargs)
        ax.axhline(0.0, color="0.5", linewidth=0.8)
        ax.set_xlabel("location")
        ax.set_ylabel(label)
        ax.legend(title="> 0: Q fits better; < 0: P fits better", fontsize="small")
        return ax
    lim = float(np.max(np.abs(values))) if values.size else 1.0
    lim = lim if lim > 0 else 1.0
    kwargs.setdefault("cmap", "coolwarm")
    kwargs.setdefault("vmin", -lim)
    kwargs.setdefault("vmax", lim)
    if not is_map:
        kwargs.setdefault("marker", "*")
        kwargs.setdefault("s", 200)
        kwargs.setdefault("edgecolors", "k")
    art = ax.scatter(pts[:, 0], pts[:, 1], c=values, **kwargs)
    cbar = ax.figure.colorbar(art, ax=ax)
    cbar.set_label(f"{label}\n> 0: Q fits better; < 0: P fits better")
    ax.set_xlabel("coordinate 1")
    ax.set_ylabel("coordinate 2")
    return ax
