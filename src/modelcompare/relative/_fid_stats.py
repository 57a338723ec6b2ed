"""Precomputed FID reference statistics (μ, Σ), as clean-fid and pytorch-fid store them."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import numpy as np

from modelcompare._foundation.validation import check_samples

__all__ = ["FIDStats", "load_fid_stats"]

#: Relative asymmetry of Σ tolerated (float32 files round-trip to about 1e-7).
_SYMMETRY_RTOL = 1e-5


@dataclasses.dataclass(frozen=True, eq=False)
class FIDStats:
    """Mean and covariance of a reference sample's features, for :func:`fid`.

    Parameters
    ----------
    mu : numpy.ndarray, shape (d,)
        The feature mean.
    sigma : numpy.ndarray, shape (d, d)
        The feature covariance (ddof = 1, as clean-fid and pytorch-fid compute it).
    n : int or None
        Rows the statistics were computed from, when known (the ``.npz`` files of clean-fid and
        pytorch-fid do not store it).

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import FIDStats, fid
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(500, 3))
    >>> stats = FIDStats.from_samples(z)
    >>> stats.n, stats.sigma.shape
    (500, (3, 3))
    >>> x = rng.normal(size=(500, 3))
    >>> bool(np.isclose(fid(x, stats).value, fid(x, z).value))
    True
    """

    mu: np.ndarray
    sigma: np.ndarray
    n: int | None = None

    def __post_init__(self) -> None:
        mu = np.array(self.mu, dtype=float)  # a copy: the caller's arrays are never shared
        sigma = np.array(self.sigma, dtype=float)
        if mu.ndim != 1:
            msg = f"`mu` must be a 1-D mean vector; got shape {mu.shape}."
            raise ValueError(msg)
        d = mu.shape[0]
        if sigma.shape != (d, d):
            msg = f"`sigma` must be a {d} × {d} covariance to match `mu`; got shape {sigma.shape}."
            raise ValueError(msg)
        if not (np.isfinite(mu).all() and np.isfinite(sigma).all()):
            msg = "`mu` and `sigma` must be finite; they hold NaN or inf."
            raise ValueError(msg)
        scale = float(np.max(np.abs(sigma))) if sigma.size else 0.0
        if np.max(np.abs(sigma - sigma.T), initial=0.0) > _SYMMETRY_RTOL * max(scale, 1e-300):
            msg = "`sigma` must be a symmetric covariance matrix; it is not symmetric."
            raise ValueError(msg)
        if self.n is not None and (isinstance(self.n, bool) or int(self.n) != self.n or self.n < 2):
            msg = f"`n` must be an int >= 2 or None; got {self.n!r}."
            raise ValueError(msg)
        sigma = (sigma + sigma.T) / 2.0
        mu.flags.writeable = False
        sigma.flags.writeable = False
        object.__setattr__(self, "mu", mu)
        object.__setattr__(self, "sigma", sigma)
        object.__setattr__(self, "n", None if self.n is None else int(self.n))

    def __repr__(self) -> str:
        return f"FIDStats(d={self.mu.shape[0]}, n={self.n})"

    @classmethod
    def from_samples(cls, z: Any) -> FIDStats:
        """Mean and ddof = 1 covariance of the rows of ``z``.

        Parameters
        ----------
        z : array-like, shape (n, d)
            Features of the reference sample.

        Returns
        -------
        FIDStats
            The statistics, with ``n`` set.
        """
        z = check_samples(z, "z")
        return cls(z.mean(axis=0), np.atleast_2d(np.cov(z, rowvar=False, ddof=1)), z.shape[0])

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write an ``.npz`` with the keys ``mu`` and ``sigma`` (and ``n`` when known).

        Parameters
        ----------
        path : str or path-like
            The file to write; clean-fid and pytorch-fid read the same keys.
        """
        arrays: dict[str, np.ndarray] = {"mu": self.mu, "sigma": self.sigma}
        if self.n is not None:
            arrays["n"] = np.asarray(self.n)
        with Path(path).open("wb") as handle:
            np.savez(handle, **arrays)


def load_fid_stats(path: str | os.PathLike[str]) -> FIDStats:
    """Read FID reference statistics from an ``.npz`` of clean-fid or pytorch-fid.

    Parameters
    ----------
    path : str or path-like
        An ``.npz`` holding ``mu`` (d,) and ``sigma`` (d, d), the layout that clean-fid's
        reference statistics and pytorch-fid's ``--save-stats`` write; ``n``, when present (as
        :meth:`FIDStats.save` writes it), is read too.

    Returns
    -------
    FIDStats
        The statistics, to pass to :func:`fid` as the reference.

    Raises
    ------
    TypeError
        When ``path`` is not a str or path-like.
    ValueError
        When ``path`` does not exist, is not an ``.npz`` archive, lacks ``mu`` or ``sigma``, or
        holds arrays of the wrong shape or non-finite values.

    Examples
    --------
    >>> import numpy as np, pathlib, tempfile
    >>> from modelcompare import FIDStats, load_fid_stats
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "ref.npz"
    >>> np.savez(path, mu=np.zeros(2), sigma=np.eye(2))   # as pytorch-fid writes it
    >>> load_fid_stats(path)
    FIDStats(d=2, n=None)
    """
    if not isinstance(path, str | os.PathLike):
        msg = f"`path` must be a str or path-like, not {type(path).__name__}."
        raise TypeError(msg)
    if not Path(path).is_file():
        msg = f"`path` {os.fspath(path)!r}: no such file."
        raise ValueError(msg)
    try:
        archive = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        msg = f"`path` {os.fspath(path)!r} is not an .npz archive of FID statistics ({exc})."
        raise ValueError(msg) from exc
    if not isinstance(archive, np.lib.npyio.NpzFile):
        msg = f"`path` {os.fspath(path)!r} holds one array, not an .npz with `mu` and `sigma`."
        raise ValueError(msg)  # noqa: TRY004 (a bad file is a bad value of `path`)
    with archive:
        missing = [key for key in ("mu", "sigma") if key not in archive.files]
        if missing:
            msg = (
                f"`path` {os.fspath(path)!r} lacks {' and '.join(missing)}: FID statistics are "
                f"an .npz with the keys mu and sigma (it has {sorted(archive.files)})."
            )
            raise ValueError(msg)
        n = int(archive["n"]) if "n" in archive.files else None
        return FIDStats(archive["mu"], archive["sigma"], n)
