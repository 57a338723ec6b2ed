"""Plots of the power-criterion map (1-D and 2-D data) and of the best locations as images.

matplotlib is imported lazily.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare._foundation.plotting import new_axes
from modelcompare.relative._maps import PowerCriterionMap

__all__ = ["plot_locations_as_images", "plot_power_criterion_map"]


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


def _criterion_values(result_or_criterion: Any) -> np.ndarray:
    if isinstance(result_or_criterion, PowerCriterionMap):
        return np.asarray(result_or_criterion.criterion, dtype=float)
    if hasattr(result_or_criterion, "relative_witness") and hasattr(
        result_or_criterion, "locations"
    ):
        return np.asarray(result_or_criterion.relative_witness, dtype=float)
    try:
        values = np.asarray(result_or_criterion, dtype=float)
    except (TypeError, ValueError):
        values = None
    if values is None or values.ndim != 1:
        msg = (
            "`result_or_criterion` must be a PowerCriterionMap, a Rel-UME/Rel-FSSD result or a "
            f"1-D array of criterion values; got {type(result_or_criterion).__name__}."
        )
        raise TypeError(msg)
    return values


def _as_images(images: Any, count: int, image_shape: tuple[int, ...] | None) -> np.ndarray:
    arr = np.asarray(images)
    if arr.dtype.kind not in "biuf" or arr.ndim < 2:
        msg = (
            "`images` must be a numeric array of shape (C, height, width), (C, height, width, "
            f"channels) or (C, height·width); got dtype {arr.dtype} and shape {arr.shape}."
        )
        raise ValueError(msg)
    if arr.shape[0] != count:
        msg = f"`images` holds {arr.shape[0]} images for {count} criterion values."
        raise ValueError(msg)
    if image_shape is not None:
        try:
            return arr.reshape((count, *image_shape))
        except ValueError:
            msg = f"`image_shape` {image_shape} does not fit images of shape {arr.shape[1:]}."
            raise ValueError(msg) from None
    if arr.ndim == 2:
        side = round(float(np.sqrt(arr.shape[1])))
        if side * side != arr.shape[1]:
            msg = (
                f"`images` are flat rows of {arr.shape[1]} values, not a square: give "
                "`image_shape=(height, width)`."
            )
            raise ValueError(msg)
        return arr.reshape(count, side, side)
    return arr


def plot_locations_as_images(
    result_or_criterion: Any,
    images: Any,
    *,
    top: int | None = None,
    largest: bool = True,
    image_shape: tuple[int, ...] | None = None,
    ncols: int | None = None,
    ax: Any = None,
    **kwargs: Any,
) -> Any:
    """Show the locations with the largest (or smallest) criterion as images, with their values.

    The picture of Figure 3b of Jitkrittum et al. (2018): the candidate locations are images (or
    the features of images), and this draws the images themselves, best first, each titled with
    its criterion value, in one grid on one Axes.

    Parameters
    ----------
    result_or_criterion : PowerCriterionMap, RelUMEResult, RelFSSDResult or array-like
        The criterion per candidate: a :func:`~modelcompare.relative.power_criterion_map` result,
        a test result (its ``relative_witness`` per location), or a 1-D array of values.
    images : array-like, shape (C, height, width), (C, height, width, channels) or (C, h·w)
        The image of each candidate, in the order of the criterion values. Flat rows of a square
        number of pixels are reshaped to squares; others need ``image_shape``.
    top : int, optional
        How many images to show, at most C (default: 15, as in the paper's figure, or C when
        fewer).
    largest : bool
        True shows the largest values (where Q fits better); False the smallest (where P does).
    image_shape : tuple of int, optional
        Shape of one image, for flat rows that are not square.
    ncols : int, optional
        Images per row of the grid (default: up to 5).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure is made only when None.
    **kwargs
        Forwarded to ``ax.imshow`` (default ``cmap="gray_r"`` for grey images).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        For a ``result_or_criterion`` of another kind.
    ValueError
        For images that do not match the criterion values, non-finite criterion values, or a
        bad ``top``.

    Notes
    -----
    With ``largest=True`` the positive values mark where Q fits R better; values near zero mark
    regions both models fit equally (the cats of the paper's Figure 3). The locations are
    interpretable only when the relative test rejects (Jitkrittum et al. 2018, Sec. 3).

    References
    ----------
    .. [1] W. Jitkrittum, H. Kanagawa, P. Sangkloy, J. Hays, B. Schölkopf, A. Gretton. Informative
       Features for Model Comparison. NeurIPS 2018. arXiv:1810.11630.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import plot_locations_as_images
    >>> rng = np.random.default_rng(0)
    >>> images = rng.uniform(size=(30, 8, 8))
    >>> values = rng.normal(size=30)
    >>> ax = plot_locations_as_images(values, images, top=10)  # doctest: +SKIP
    """
    values = _criterion_values(result_or_criterion)
    if not np.isfinite(values).all():
        msg = "`result_or_criterion` holds non-finite criterion values."
        raise ValueError(msg)
    if not isinstance(largest, bool):
        msg = f"`largest` must be a bool; got {type(largest).__name__}."
        raise TypeError(msg)
    imgs = _as_images(images, values.size, image_shape)
    if top is None:
        top = min(15, values.size)
    if isinstance(top, bool) or not isinstance(top, int | np.integer):
        msg = f"`top` must be an int; got {type(top).__name__}."
        raise TypeError(msg)
    if not 1 <= top <= values.size:
        msg = f"`top` must be between 1 and {values.size}; got {top}."
        raise ValueError(msg)
    order = np.argsort(-values if largest else values, kind="stable")[:top]
    ncols = min(5, top) if ncols is None else ncols
    if isinstance(ncols, bool) or not isinstance(ncols, int | np.integer) or ncols < 1:
        msg = f"`ncols` must be a positive int; got {ncols!r}."
        raise ValueError(msg)
    nrows = -(-top // ncols)
    h, w = imgs.shape[1:3]
    pad = max(1, h // 4)
    channels = imgs.shape[3:]
    sheet = np.full((nrows * (h + pad) + pad, ncols * (w + pad) + pad, *channels), np.nan)
    picked = imgs[order].astype(float)
    for k in range(top):
        r, c = divmod(k, ncols)
        row0, left = pad + r * (h + pad), pad + c * (w + pad)
        sheet[row0 : row0 + h, left : left + w] = picked[k]
    ax = new_axes(ax, "plot_locations_as_images", figsize=(1.3 * ncols, 1.5 * nrows + 0.4))
    if not channels:
        kwargs.setdefault("cmap", "gray_r")
    kwargs.setdefault("interpolation", "nearest")
    if channels:  # imshow cannot show NaN in RGB: pad with white
        low, high = float(np.nanmin(picked)), float(np.nanmax(picked))
        sheet = np.where(np.isnan(sheet), high, sheet)
        if high > 1.0 or low < 0.0:
            sheet = (sheet - low) / (high - low or 1.0)
    ax.imshow(sheet, **kwargs)
    for k, i in enumerate(order):
        r, c = divmod(k, ncols)
        ax.text(
            pad + c * (w + pad) + w / 2 - 0.5,
            pad + r * (h + pad) - 0.6,
            f"{values[i]:.3g}",
            ha="center",
            va="bottom",
            fontsize="x-small",
        )
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    which = "largest" if largest else "smallest"
    side = "Q" if largest else "P"
    ax.set_title(f"{top} {which} criterion values (where {side} fits better)", fontsize="small")
    return ax
