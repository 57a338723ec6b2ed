"""Interpretability: the single-location power-criterion map and greedy location selection.

Both evaluate Rel-UME's criterion for sets of candidate locations at a fixed Gaussian width
(Jitkrittum et al. 2018). The map treats each candidate as its own J = 1 test
(kmod's ``get_power_criterion_func``, reg = 1e-7); the greedy search grows a set of J locations,
each step adding the candidate that maximises the J-location criterion of the enlarged set.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.deprecation import renamed_parameters
from modelcompare._foundation.resources import check_memory
from modelcompare._foundation.results import Result, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    check_bandwidth,
    check_int,
    check_positive,
    check_samples,
)
from modelcompare.relative._chunks import chunk_rows
from modelcompare.relative._fssd import FSSDFeatures
from modelcompare.relative._optimize import pooled_meddistance
from modelcompare.relative._ume import UMEFeatures, gauss_block

__all__ = [
    "LocationSelection",
    "PowerCriterionMap",
    "fssd_power_criterion_map",
    "power_criterion_map",
    "select_locations",
]

#: kmod's regulariser for the single-location criterion map.
MAP_REG = 1e-7


@result_class
class PowerCriterionMap(Result):
    """The power criterion at each candidate location, each taken alone (J = 1).

    From :func:`power_criterion_map` (Rel-UME) or :func:`fssd_power_criterion_map` (Rel-FSSD).

    Attributes
    ----------
    candidates : numpy.ndarray
        Candidate locations, shape ``(C, d)``.
    criterion : numpy.ndarray
        ``(Û²_P(v) − Û²_Q(v)) / √(ν̂(v) + reg)`` per candidate: positive where Q fits R better.
    relative_witness : numpy.ndarray
        ``wit²_P(v) − wit²_Q(v)`` per candidate.
    witness_p, witness_q : numpy.ndarray
        Rel-UME: ``mean k(x, v) − mean k(z, v)`` and the same for y, shape ``(C,)``. Rel-FSSD: the
        Stein witnesses g_p(v), g_q(v), shape ``(C, d)``.
    variance : numpy.ndarray
        ν̂(v) per candidate.
    bandwidth, sigma2 : float
        Gaussian width σ and σ².
    reg : float
        Regulariser inside the square root.
    n : int
        Rows per sample.
    seed_used : int or None
    test : str
        ``"ume"`` or ``"fssd"``.
    """

    candidates: np.ndarray
    criterion: np.ndarray
    relative_witness: np.ndarray
    witness_p: np.ndarray
    witness_q: np.ndarray
    variance: np.ndarray
    bandwidth: float
    sigma2: float
    reg: float
    n: int
    seed_used: int | None
    test: str = "ume"

    _repr_fields: ClassVar[tuple[str, ...]] = ("test", "bandwidth", "reg", "n")

    @renamed_parameters(k="n_locations")
    def best(self, n_locations: int = 1) -> np.ndarray:
        """Indices of the ``n_locations`` candidates with the largest criterion (most evidence
        that Q fits better); use ``-criterion`` yourself for P."""
        n = check_int(n_locations, "n_locations", low=1)
        return np.argsort(-self.criterion, kind="stable")[:n]


@result_class
class LocationSelection(Result):
    """Result of :func:`select_locations`.

    Attributes
    ----------
    indices : numpy.ndarray
        Chosen candidate indices, in the order they were added.
    locations : numpy.ndarray
        The chosen candidates, shape ``(J, d)``.
    criterion_path : numpy.ndarray
        The J-location criterion after each addition.
    bandwidth, sigma2, reg : float
    n : int
    seed_used : int or None
    """

    indices: np.ndarray
    locations: np.ndarray
    criterion_path: np.ndarray
    bandwidth: float
    sigma2: float
    reg: float
    n: int
    seed_used: int | None

    _repr_fields: ClassVar[tuple[str, ...]] = ("bandwidth", "n")


def _prepare(
    x: Any,
    y: Any,
    z: Any,
    candidates: Any,
    bandwidth: Any,
    reg: float,
    seed: SeedLike,
    subsample: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float, float, int | None]:
    rng, seed_used = check_seed(seed)
    sub_rng, med_rng = rng.spawn(2)
    x, y, z = UMEFeatures.from_samples(x, y, z, subsample=subsample, rng=sub_rng).pool
    cand = check_samples(candidates, "candidates", min_samples=1)
    if cand.shape[1] != x.shape[1]:
        msg = f"`candidates` must have {x.shape[1]} columns like the data; got {cand.shape[1]}."
        raise ValueError(msg)
    reg = check_positive(reg, "reg", allow_zero=True)
    if bandwidth is None:
        bw = pooled_meddistance((x, y, z), med_rng, ("x", "y", "z"))
    else:
        bw = check_bandwidth(bandwidth, "bandwidth")
    return x, y, z, cand, bw, reg, seed_used


def _column_features(
    x: np.ndarray, y: np.ndarray, z: np.ndarray, cand: np.ndarray, sigma2: float, rows: int
) -> Any:
    """Yield per-chunk (k(x,V) − k(z,V), k(y,V) − k(z,V)) for all candidates V."""
    vn = np.einsum("ij,ij->i", cand, cand)
    for start in range(0, x.shape[0], rows):
        sl = slice(start, min(start + rows, x.shape[0]))
        kz = gauss_block(z[sl], cand, vn, sigma2)
        yield gauss_block(x[sl], cand, vn, sigma2) - kz, gauss_block(y[sl], cand, vn, sigma2) - kz


def power_criterion_map(
    x: Any,
    y: Any,
    z: Any,
    candidates: Any,
    *,
    bandwidth: float | None = None,
    reg: float = MAP_REG,
    seed: SeedLike = None,
    subsample: bool = False,
) -> PowerCriterionMap:
    """Evaluate the Rel-UME power criterion at each candidate location separately.

    Parameters
    ----------
    x, y, z : array-like, shape (n, d)
        Draws of P, Q and R (equal n; rows paired). Use data not used to choose the candidates.
    candidates : array-like, shape (C, d)
        Candidate locations (a grid in 1-D/2-D, or held-out data points).
    bandwidth : float, optional
        Gaussian width σ; default the median heuristic of ``vstack(x, y, z)``.
    reg : float
        Regulariser inside the square root (kmod's map uses 1e-7).
    seed : int, Generator or None
        Random source of the median heuristic and of ``subsample``.
    subsample : bool
        Reduce unequal sample sizes to the smallest n at random.

    Returns
    -------
    PowerCriterionMap

    Notes
    -----
    For each v, the J = 1 criterion ``(Û²_P(v) − Û²_Q(v)) / √(ν̂(v) + reg)``; the paper writes it as
    ``½(wit²_P(v) − wit²_Q(v)) / √ν(v)`` at the population level. Positive values mark regions where
    Q fits R better, negative ones where P does. Cost O(n·C·d) time, O(chunk·C) memory.

    References
    ----------
    .. [1] W. Jitkrittum et al. (2018). Informative Features for Model Comparison. Advances in
       Neural Information Processing Systems (NeurIPS). arXiv:1810.11630.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> z = rng.normal(size=(500, 1))
    >>> x, y = rng.normal(size=(500, 1)) + 2.0, rng.normal(size=(500, 1))
    >>> m = power_criterion_map(x, y, z, np.linspace(-4, 4, 9)[:, None], bandwidth=1.0, seed=0)
    >>> bool(m.criterion.max() > 0)
    True
    """
    x, y, z, cand, bw, reg, seed_used = _prepare(
        x, y, z, candidates, bandwidth, reg, seed, subsample
    )
    n, c = x.shape[0], cand.shape[0]
    sigma2 = bw * bw
    acc = np.zeros((5, c))  # sP, sQ, ΣP², ΣQ², ΣPQ per candidate
    rows = max(1, chunk_rows(x.shape[1], None) * 8 // max(8, c))
    for fp, fq in _column_features(x, y, z, cand, sigma2, rows):
        acc[0] += fp.sum(axis=0)
        acc[1] += fq.sum(axis=0)
        acc[2] += np.einsum("ij,ij->j", fp, fp)
        acc[3] += np.einsum("ij,ij->j", fq, fq)
        acc[4] += np.einsum("ij,ij->j", fp, fq)
    sp, sq, spp, sqq, spq = acc
    nn1 = n * (n - 1.0)
    mp, mq = sp / n, sq / n
    u_p = (sp * sp - spp) / nn1
    u_q = (sq * sq - sqq) / nn1
    # J = 1: aᵢ = ψ_P[i] m_P, so mean(a²) = m_P² Σψ_P²/n
    zeta2_p = 4.0 * (mp * mp * spp / n - mp**4)
    zeta2_q = 4.0 * (mq * mq * sqq / n - mq**4)
    zeta_pq = 4.0 * (mp * mq * spq / n - mp * mp * mq * mq)
    var = zeta2_p - 2.0 * zeta_pq + zeta2_q
    crit = (u_p - u_q) / np.sqrt(np.maximum(var + reg, 1e-300))
    return PowerCriterionMap(
        candidates=cand.copy(),
        criterion=crit,
        relative_witness=mp * mp - mq * mq,
        witness_p=mp,
        witness_q=mq,
        variance=var,
        bandwidth=bw,
        sigma2=sigma2,
        reg=reg,
        n=n,
        seed_used=seed_used,
        test="ume",
    )


def fssd_power_criterion_map(
    p: Any,
    q: Any,
    z: Any,
    candidates: Any,
    *,
    bandwidth: float | None = None,
    reg: float = MAP_REG,
    seed: SeedLike = None,
) -> PowerCriterionMap:
    """Evaluate the Rel-FSSD power criterion at each candidate location separately.

    Parameters
    ----------
    p, q : callable or density object
        Scores ∇ log p, ∇ log q, or objects with ``.score`` (as in :func:`modelcompare.rel_fssd`).
    z : array-like, shape (n, d)
        Draws of R.
    candidates : array-like, shape (C, d)
        Candidate locations.
    bandwidth : float, optional
        Gaussian width σ; default the median distance of ``z``.
    reg : float
        Regulariser inside the square root.
    seed : int, Generator or None
        Random source of the median heuristic.

    Returns
    -------
    PowerCriterionMap
        With ``test="fssd"``; positive criterion where q's shape matches r better (paper Fig. 1c).

    References
    ----------
    .. [1] W. Jitkrittum et al. (2018). Informative Features for Model Comparison. Advances in
       Neural Information Processing Systems (NeurIPS). arXiv:1810.11630.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import fssd_power_criterion_map
    >>> from modelcompare.densities import IsotropicNormal
    >>> z = np.random.default_rng(0).normal(size=(400, 1))
    >>> p, q = IsotropicNormal([2.0]), IsotropicNormal([0.0])   # q matches r
    >>> m = fssd_power_criterion_map(p, q, z, np.linspace(-3, 3, 7)[:, None], bandwidth=1.0)
    >>> m.test, bool(m.criterion.max() > 0)
    ('fssd', True)
    """
    rng, seed_used = check_seed(seed)
    features = FSSDFeatures.from_models(p, q, z)
    z = features.z
    cand = check_samples(candidates, "candidates", min_samples=1)
    if cand.shape[1] != z.shape[1]:
        msg = f"`candidates` must have {z.shape[1]} columns like `z`; got {cand.shape[1]}."
        raise ValueError(msg)
    reg = check_positive(reg, "reg", allow_zero=True)
    bw = (
        pooled_meddistance((z,), rng, ("z",))
        if bandwidth is None
        else check_bandwidth(bandwidth, "bandwidth")
    )
    n, d = z.shape
    sigma2 = bw * bw
    crit = np.empty(cand.shape[0])
    var = np.empty(cand.shape[0])
    wit_p = np.empty(cand.shape)
    wit_q = np.empty(cand.shape)
    for c in range(cand.shape[0]):
        st = features.stats(cand[c : c + 1], sigma2)
        wit_p[c] = st.mean_p * np.sqrt(d)
        wit_q[c] = st.mean_q * np.sqrt(d)
        crit[c], var[c] = st.criterion(reg), st.variance
    return PowerCriterionMap(
        candidates=cand.copy(),
        criterion=crit,
        relative_witness=(np.sum(wit_p**2, axis=1) - np.sum(wit_q**2, axis=1)) / d,
        witness_p=wit_p,
        witness_q=wit_q,
        variance=var,
        bandwidth=bw,
        sigma2=sigma2,
        reg=reg,
        n=n,
        seed_used=seed_used,
        test="fssd",
    )


def select_locations(
    x: Any,
    y: Any,
    z: Any,
    candidates: Any,
    *,
    n_locations: int = 5,
    bandwidth: float | None = None,
    reg: float = MAP_REG,
    seed: SeedLike = None,
    subsample: bool = False,
) -> LocationSelection:
    """Greedily pick the candidate locations that make Rel-UME most powerful.

    Starting from the empty set, each step adds the candidate that maximises the Rel-UME power
    criterion ``(Û²_P(S) − Û²_Q(S)) / √(ν̂(S) + reg)`` of the enlarged set S, until ``n_locations``
    are chosen (the paper's CIFAR-10 and MNIST experiments pick informative images this way in
    spirit). Pass the result's ``locations`` to :func:`modelcompare.rel_ume` with
    ``optimizer=None`` on **other** data to test.

    Parameters
    ----------
    x, y, z : array-like, shape (n, d)
        Draws of P, Q and R used for the selection (a training split).
    candidates : array-like, shape (C, d)
        The candidate pool.
    n_locations : int
        Number J of locations to choose (at most C).
    bandwidth : float, optional
        Gaussian width σ; default the median heuristic of ``vstack(x, y, z)``.
    reg : float
        Regulariser inside the square root.
    seed : int, Generator or None
        Random source of the median heuristic and of ``subsample``.
    subsample : bool
        Reduce unequal sample sizes to the smallest n at random.

    Returns
    -------
    LocationSelection

    Raises
    ------
    ResourceLimitError
        When the n × C feature matrices would pass the memory limit (fewer candidates, or fewer
        rows, fit).

    Notes
    -----
    With per-candidate features ``Ψ_P[i, c] = k(xᵢ, v_c) − k(zᵢ, v_c)`` (and Ψ_Q), the J-location
    statistic is the mean of the single-location Û² differences, and
    ``ν̂(S) = 4 Var_n(Σ_{c∈S} eᵢ_c)/|S|²`` with ``eᵢ_c = Ψ_P[i, c] m_P[c] − Ψ_Q[i, c] m_Q[c]``, so
    each step costs O(n·C) after one O(n·C·d) feature pass. Memory: two n × C matrices.

    References
    ----------
    .. [1] W. Jitkrittum et al. (2018). Informative Features for Model Comparison. Advances in
       Neural Information Processing Systems (NeurIPS). arXiv:1810.11630.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import select_locations
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(300, 2))
    >>> x, y = rng.normal(size=(300, 2)) + [1.5, 0.0], rng.normal(size=(300, 2))
    >>> sel = select_locations(x, y, z, rng.normal(size=(30, 2)) * 2, n_locations=3, seed=0)
    >>> sel.locations.shape, len(set(sel.indices.tolist()))
    ((3, 2), 3)
    """
    x, y, z, cand, bw, reg, seed_used = _prepare(
        x, y, z, candidates, bandwidth, reg, seed, subsample
    )
    n, c = x.shape[0], cand.shape[0]
    j = check_int(n_locations, "n_locations", low=1, high=c)
    # the n × C features of P and Q (chunks, then stacked) and their centred combination
    check_memory(8 * 5 * n * c, f"the features of {c} candidates on {n} rows", "candidates")
    sigma2 = bw * bw
    rows = max(1, chunk_rows(x.shape[1], None) * 8 // max(8, c))
    fps, fqs = zip(*_column_features(x, y, z, cand, sigma2, rows))
    fp, fq = np.vstack(fps), np.vstack(fqs)
    sp, sq = fp.sum(axis=0), fq.sum(axis=0)
    nn1 = n * (n - 1.0)
    delta = (sp * sp - np.einsum("ij,ij->j", fp, fp)) / nn1 - (
        sq * sq - np.einsum("ij,ij->j", fq, fq)
    ) / nn1
    e = fp * (sp / n) - fq * (sq / n)
    del fp, fq
    e -= e.mean(axis=0)  # centred per candidate
    var_e = np.einsum("ij,ij->j", e, e) / n
    r = np.zeros(n)  # centred running sum Σ_{c∈S} e_c
    var_r, diff_sum = 0.0, 0.0
    chosen: list[int] = []
    path = []
    available = np.ones(c, dtype=bool)
    for k in range(1, j + 1):
        cov = (e.T @ r) / n
        var = 4.0 * (var_r + var_e + 2.0 * cov) / (k * k)
        crit = ((diff_sum + delta) / k) / np.sqrt(np.maximum(var + reg, 1e-300))
        crit[~available] = -np.inf
        best = int(np.argmax(crit))
        chosen.append(best)
        path.append(float(crit[best]))
        available[best] = False
        r += e[:, best]
        var_r = float(r @ r) / n
        diff_sum += float(delta[best])
    idx = np.array(chosen)
    return LocationSelection(
        indices=idx,
        locations=cand[idx].copy(),
        criterion_path=np.array(path),
        bandwidth=bw,
        sigma2=sigma2,
        reg=reg,
        n=n,
        seed_used=seed_used,
    )
