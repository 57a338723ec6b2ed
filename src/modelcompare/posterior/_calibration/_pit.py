"""The multivariate PIT of a conditional normalising flow (Linhart et al. 2022, eq. 2)."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import ndtr

from modelcompare._foundation.validation import check_int, check_same_rows, check_samples
from modelcompare.posterior._flows._flows import latents, require_latent

__all__ = ["check_pit_values", "pit"]


def pit(flow: Any, theta: Any, x: Any, *, chunk_size: int | None = None) -> np.ndarray:
    """Multivariate PIT values P_i = Φ([T⁻¹(θ; x)]_i) for each calibration pair.

    Parameters
    ----------
    flow : object with ``to_latent(theta, x)``
        The normalising direction θ → z onto the standard normal base (see
        :class:`ConditionalFlow`; wrap zuko/nflows/sbi estimators with :func:`as_flow`).
    theta : array-like, shape (N, m)
        Calibration parameters (not used for training).
    x : array-like, shape (N, d)
        The matching observations.
    chunk_size : int, optional
        Evaluate the flow on this many rows at a time (memory bound for large N).

    Returns
    -------
    numpy.ndarray, shape (N, m)
        PIT values in [0, 1]. Under H0(x) they are iid U(0, 1) and mutually independent given x.

    Notes
    -----
    The PIT uses T⁻¹, the normalising direction; applying the sampling direction to θ is the classic
    bug. With a triangular T⁻¹ (one autoregressive pass, or :class:`AffineGaussianFlow` with a
    lower-triangular scale) P_1 is the marginal CDF of θ_1, P_2 the conditional CDF of θ_2 | θ_1, and
    so on (the Rosenblatt transform). With stacked, permuted layers the P_i are arbitrary 1-D
    projections: the theorem still holds, but report them as z_1..z_m, not parameter names.

    References
    ----------
    .. [1] Linhart, Gramfort, Rodrigues (2022), Validation diagnostics for SBI algorithms based on
       normalizing flows, arXiv:2211.09602.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import ConditionalGaussianModel, pit
    >>> model = ConditionalGaussianModel(0.5 * np.array([[1, 0.8], [0.8, 1]]))
    >>> theta, x = model.simulate(1000, seed=0)
    >>> p = pit(model.exact_flow(), theta, x)
    >>> p.shape
    (1000, 2)
    """
    theta = check_samples(theta, "theta", min_samples=1)
    x = check_samples(x, "x", min_samples=1)
    n = check_same_rows([("theta", theta), ("x", x)], what="pit")
    require_latent(flow)
    step = n if chunk_size is None else check_int(chunk_size, "chunk_size", low=1)
    z = latents(flow, theta, x, chunk_size=step)
    return ndtr(z)


def check_pit_values(
    pit_values: Any, name: str = "pit_values", *, min_samples: int = 2
) -> np.ndarray:
    """Validate an (N, m) matrix of PIT values in [0, 1]."""
    p = check_samples(pit_values, name, min_samples=min_samples)
    if p.min() < 0.0 or p.max() > 1.0:
        msg = f"`{name}` must lie in [0, 1]; got values in [{p.min():.4g}, {p.max():.4g}]."
        raise ValueError(msg)
    return p
