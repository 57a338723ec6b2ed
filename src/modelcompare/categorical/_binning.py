"""Binnings of Ω: the data-dependent B*_k of Regol, Kroon & Coates and the random baseline.

Two engines build the same partitions:

* ``_TableEngine`` (small Ω held as a table, e.g. the 6^6 reproduction): exact, labels over Ω, extra
  cuts split a half into contiguous chunks in index order (``numpy.array_split``).
* ``_RowEngine`` (any Ω, e.g. 20^20): works on the sampled rows only. Per positive stair j the
  finite half (N_j = sampled rows with q̂ ≥ p > 0 for known p; P_j = rows with p̂ > q̂ in the
  two-sample mode) is a set of rows; the other half is its complement, kept implicitly with
  p(P_j) = p(Ω_j) − p(N_j). Extra cuts split a half by a seeded hash of rows.

Rule references on spaces of at most ``TABLE_LIMIT`` elements are enumerated into a table first, so
bin masses are exact wherever that is affordable.

Both engines fit from a reference weight per element (p known, or p̂ from reference samples) and q̂,
then return a :class:`Binning` for any k; cuts are drawn once so levels are nested (B*_{k+1} refines
B*_k above 2s − 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from modelcompare._foundation.deprecation import positional_to_keyword, renamed_attribute
from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import check_int
from modelcompare.categorical._space import check_rows, group_rows, hash_rows
from modelcompare.categorical._stairs import CategoricalReference, check_reference

__all__ = [
    "Binning",
    "adaptive_binning",
    "draw_cuts",
    "limit_message",
    "max_bins",
    "random_binning",
]


@dataclass(frozen=True, eq=False)
class Binning:
    """A partition of Ω into bins, usable on any rows.

    Attributes
    ----------
    n_bins : int
        Number of bins actually produced (can be below ``n_bins_requested`` when a stair has zero
        splitting gain or a half is too small to cut).
    n_bins_requested : int
        The requested granularity k (the ``n_bins`` the builder was given).
    p_binned : numpy.ndarray or None
        p^B (None in the two-sample mode, where p is known only by samples).
    kind : str
        ``"adaptive"`` (B*_k), ``"random"`` (shuffle of Ω) or ``"hash"`` (seeded row hash).
    split_stairs : tuple of int
        Stairs split into (P_j, N_j), in gain order (adaptive only).
    gains : numpy.ndarray or None
        Splitting gain g_j = 2 min(P, N) of each stair (adaptive only).

    Examples
    --------
    >>> from modelcompare import random_binning, stair_distribution
    >>> p = stair_distribution(6, 6, 3, 2.0)
    >>> b = random_binning(p, n_bins=4, seed=0)
    >>> b.n_bins, b.kind, int(b.counts(p.sample(1000, seed=0)).sum())
    (4, 'random', 1000)
    """

    n_bins: int
    n_bins_requested: int
    p_binned: np.ndarray | None
    kind: str
    split_stairs: tuple[int, ...] = ()
    gains: np.ndarray | None = None
    _features: Any = field(default=None, repr=False)
    _labels: Any = field(default=None, repr=False)
    _check: Any = field(default=None, repr=False)

    #: The old name of :attr:`n_bins_requested` (warns).
    k = renamed_attribute("k", "n_bins_requested")

    def assign(self, rows: Any) -> np.ndarray:
        """Bin label of each row (an ``(m, L)`` array of categories, validated).

        Examples
        --------
        >>> from modelcompare import random_binning, stair_distribution
        >>> p = stair_distribution(6, 6, 3, 2.0)
        >>> random_binning(p, n_bins=4, seed=0).assign(p.sample(3, seed=0)).shape
        (3,)
        """
        rows = self._check(rows, "rows") if self._check is not None else check_rows(rows, "rows")
        return self._labels(self._features(rows))

    def counts(self, rows: Any) -> np.ndarray:
        """Bin counts of rows (an ``(m, L)`` array of categories), one per bin.

        Examples
        --------
        >>> from modelcompare import random_binning, stair_distribution
        >>> p = stair_distribution(6, 6, 3, 2.0)
        >>> int(random_binning(p, n_bins=4, seed=0).counts(p.sample(500, seed=0)).sum())
        500
        """
        return np.bincount(self.assign(rows), minlength=self.n_bins)

    def _counts_from_features(self, features: Any) -> np.ndarray:
        return np.bincount(self._labels(features), minlength=self.n_bins)


# ---------------------------------------------------------------------- shared layout logic
def _plan(
    gains: np.ndarray, k: int, has_zero: bool, cuts: np.ndarray
) -> tuple[list[int], np.ndarray]:
    """Which stairs are split at level k, and how many extra cuts each (stair, half) gets.

    Returns the split stairs (in gain order) and ``n_cuts[j, h]`` with h = 0 (P, or the whole stair
    when unsplit) and h = 1 (N).
    """
    n_st = gains.shape[0]
    s = n_st + int(has_zero)
    if k < s:
        msg = f"granularity k={k} is below s={s} (the number of stairs incl. the zero stair)."
        raise ValueError(msg)
    order = np.argsort(-gains, kind="stable")  # ties: lower stair first
    n_split = min(k - s, n_st)
    split = [int(j) for j in order[:n_split] if gains[j] > 0]
    n_cuts = np.zeros((n_st, 2), dtype=np.int64)
    n_extra = k - (2 * n_st + int(has_zero))
    if n_extra > 0:
        slots = cuts[:n_extra]
        if slots.shape[0] < n_extra:
            msg = "internal: not enough pre-drawn cuts."
            raise RuntimeError(msg)
        np.add.at(n_cuts, (slots // 2, slots % 2), 1)
    is_split = np.zeros(n_st, dtype=bool)
    is_split[split] = True
    # an unsplit stair is one "whole" half that receives the cuts of both of its halves
    n_cuts[~is_split, 0] += n_cuts[~is_split, 1]
    n_cuts[~is_split, 1] = 0
    return split, n_cuts


def _chunk_of(position: np.ndarray, size: np.ndarray, n_chunks: np.ndarray) -> np.ndarray:
    """``numpy.array_split`` chunk of each position (vectorised over groups)."""
    n_chunks = np.maximum(n_chunks, 1)
    q, r = np.divmod(size, n_chunks)
    big = r * (q + 1)
    return np.where(
        position < big,
        position // np.maximum(q + 1, 1),
        r + (position - big) // np.maximum(q, 1),
    )


# ---------------------------------------------------------------------- table engine (small Ω)
class _TableEngine:
    """Exact B*_k over an explicit Ω (labels over Ω)."""

    def __init__(
        self,
        stair_labels: np.ndarray,
        n_stairs: int,
        ref: CategoricalReference,
        pw: np.ndarray,
        qw: np.ndarray,
        has_zero: bool,
        p_known: bool,
    ) -> None:
        self.ref = ref
        self.stairs = stair_labels
        self.n_st = n_stairs
        self.has_zero = has_zero
        self.pw = pw
        self.p_known = p_known
        pos = stair_labels >= 0
        diff = pw - qw
        half = np.where(diff > 0, 0, 1)
        half[~pos] = -1
        self.half = half
        js = stair_labels[pos]
        self.gain_p = np.bincount(
            js, weights=np.where(diff[pos] > 0, diff[pos], 0), minlength=n_stairs
        )
        self.gain_n = np.bincount(
            js, weights=np.where(diff[pos] <= 0, -diff[pos], 0), minlength=n_stairs
        )
        self.gains = 2 * np.minimum(self.gain_p, self.gain_n)
        # rank of each element within its stair and within its (stair, half), in index order
        idx = np.arange(stair_labels.shape[0])
        self.pos_stair = np.zeros_like(idx)
        self.pos_half = np.zeros_like(idx)
        self.size_stair = np.bincount(js, minlength=n_stairs)
        key = np.where(pos, stair_labels * 2 + half, -1)
        self.size_half = np.bincount(key[pos], minlength=2 * n_stairs).reshape(n_stairs, 2)
        for arr, grp in ((self.pos_stair, stair_labels), (self.pos_half, key)):
            order = np.lexsort((idx, grp))
            g = grp[order]
            starts = np.r_[0, np.flatnonzero(g[1:] != g[:-1]) + 1]
            run = np.arange(g.shape[0]) - np.repeat(starts, np.diff(np.r_[starts, g.shape[0]]))
            arr[order] = run

    def features(self, rows: np.ndarray) -> np.ndarray:
        """Index of each row in Ω (the table engine's per-row feature)."""
        return self.ref.index_of(rows)

    def binning(self, k: int, cuts: np.ndarray) -> Binning:
        split, n_cuts = _plan(self.gains, k, self.has_zero, cuts)
        is_split = np.zeros(self.n_st, dtype=bool)
        is_split[split] = True
        sizes = np.where(
            is_split[:, None],
            self.size_half,
            np.c_[self.size_stair, np.zeros(self.n_st, dtype=np.int64)],
        )
        n_chunks = np.where(sizes >= 2, n_cuts + 1, np.minimum(sizes, 1))
        n_chunks[~is_split, 1] = 0
        offsets = np.r_[0, np.cumsum(n_chunks.reshape(-1))[:-1]].reshape(self.n_st, 2)
        n_bins = int(n_chunks.sum()) + int(self.has_zero)
        labels = np.full(self.stairs.shape[0], n_bins - 1, dtype=np.int64)
        pos = self.stairs >= 0
        j = self.stairs[pos]
        h = np.where(is_split[j], self.half[pos], 0)
        position = np.where(is_split[j], self.pos_half[pos], self.pos_stair[pos])
        labels[pos] = offsets[j, h] + _chunk_of(position, sizes[j, h], n_chunks[j, h])
        p_binned = (
            np.bincount(labels, weights=self.ref.table, minlength=n_bins) if self.p_known else None
        )
        return Binning(
            n_bins=n_bins,
            n_bins_requested=k,
            p_binned=p_binned,
            kind="adaptive",
            split_stairs=tuple(split),
            gains=self.gains.copy(),
            _features=self.ref.index_of,
            _labels=labels.__getitem__,
            _check=self.ref.check,
        )


# ---------------------------------------------------------------------- row engine (any Ω)
class _Features:
    """Per-row features of the row engine; the chunk hash is computed on first use only."""

    def __init__(self, rows: np.ndarray, stair: np.ndarray, half: np.ndarray, seed: int) -> None:
        self.rows, self.stair, self.half, self.seed = rows, stair, half, seed
        self._hash: np.ndarray | None = None

    def chunk_hash(self) -> np.ndarray:
        if self._hash is None:
            self._hash = hash_rows(self.rows, self.seed)
        return self._hash


class _RowSet:
    """A finite set of rows with exact membership (hash lookup, verified row by row)."""

    def __init__(self, rows: np.ndarray) -> None:
        h = hash_rows(rows)
        order = np.argsort(h, kind="stable")
        self.hashes = h[order]
        self.rows = rows[order]

    def contains(self, rows: np.ndarray) -> np.ndarray:
        if self.hashes.shape[0] == 0 or rows.shape[0] == 0:
            return np.zeros(rows.shape[0], dtype=bool)
        h = hash_rows(rows)
        order = np.argsort(h)
        pos = np.empty(h.shape[0], dtype=np.int64)
        pos[order] = np.searchsorted(self.hashes, h[order])  # sorted queries: cache friendly
        pos = np.minimum(pos, self.hashes.shape[0] - 1)
        hit = self.hashes[pos] == h
        same = np.zeros(rows.shape[0], dtype=bool)
        same[hit] = (self.rows[pos[hit]] == rows[hit]).all(axis=1)
        bad = np.flatnonzero(hit & ~same)
        if bad.size:  # a hash collision: resolve those rows exactly
            known = {r.tobytes() for r in self.rows}
            same[bad] = [rows[i].tobytes() in known for i in bad]
        return same


class _RowEngine:
    """B*_k from sampled rows only; Ω is never enumerated and rows are never indexed."""

    def __init__(
        self,
        ref: CategoricalReference | None,
        rows: np.ndarray,
        ref_rows: np.ndarray | None,
        chunk_seed: int,
    ) -> None:
        self.ref = ref
        self.chunk_seed = chunk_seed
        self.n_st = ref.n_stairs if ref is not None else 1
        self.has_zero = ref is not None
        self.p_known = ref_rows is None
        m = rows.shape[0]
        if self.p_known:
            assert ref is not None
            stair = ref.stair_of(rows)
            keep = np.flatnonzero(stair >= 0)
            first, inv, cnt = group_rows(rows[keep])
            g_rows = rows[keep][first]
            g_st = stair[keep][first]
            h = ref.stair_probs[g_st]
            in_n = cnt / m - h >= 0  # p − q̂ ≤ 0
            self.finite_is_n = True
            n_n = np.bincount(g_st[in_n], minlength=self.n_st)
            c_n = np.bincount(g_st[in_n], weights=cnt[in_n], minlength=self.n_st)
            c_st = np.bincount(g_st, weights=cnt, minlength=self.n_st)
            masses = ref.stair_masses
            self.p_n = n_n * ref.stair_probs
            self.p_p = masses - self.p_n
            self.gain_p = self.p_p - (c_st - c_n) / m
            self.gain_n = c_n / m - self.p_n
            self.finite_rows, self.finite_stairs = g_rows[in_n], g_st[in_n]
            fit_in = np.zeros(m, dtype=bool)
            fit_in[keep] = in_n[inv]
            fit_stair = stair
        else:
            assert ref_rows is not None
            m1 = ref_rows.shape[0]
            both = np.concatenate([ref_rows, rows])
            stair = ref.stair_of(both) if ref is not None else np.zeros(both.shape[0], np.int64)
            first, inv, _ = group_rows(both)
            n_g = first.shape[0]
            c_ref = np.bincount(inv[:m1], minlength=n_g)
            c_mod = np.bincount(inv[m1:], minlength=n_g)
            g_st = stair[first]
            diff = c_ref / m1 - c_mod / m
            pos = g_st >= 0
            in_p = pos & (diff > 0)
            self.finite_is_n = False
            js = np.where(pos, g_st, 0)
            self.gain_p = np.bincount(js, weights=np.where(in_p, diff, 0), minlength=self.n_st)
            self.gain_n = np.bincount(
                js, weights=np.where(pos & ~in_p, -diff, 0), minlength=self.n_st
            )
            self.finite_rows, self.finite_stairs = both[first][in_p], g_st[in_p]
            fit_in = in_p[inv[m1:]]
            fit_stair = stair[m1:]
        self.gains = 2 * np.minimum(np.maximum(self.gain_p, 0), np.maximum(self.gain_n, 0))
        self._fit_rows = rows
        self._fit_features = self._make_features(rows, fit_stair, fit_in)
        self._finite_set: _RowSet | None = None
        self._finite_chunk: np.ndarray | None = None

    @property
    def finite(self) -> _RowSet:
        """The finite half as a set of rows (built on first use: only other rows need it)."""
        if self._finite_set is None:
            self._finite_set = _RowSet(self.finite_rows)
        return self._finite_set

    def _make_features(self, rows: np.ndarray, stair: np.ndarray, in_set: np.ndarray) -> _Features:
        half = in_set.astype(np.int64) if self.finite_is_n else (~in_set).astype(np.int64)
        return _Features(rows, stair, half, self.chunk_seed)

    def features(self, rows: np.ndarray) -> _Features:
        """Per-row stair, half and (lazily) chunk hash; computed once per set of rows."""
        if rows is self._fit_rows:
            return self._fit_features
        stair = (
            self.ref.stair_of(rows)
            if self.ref is not None
            else np.zeros(rows.shape[0], dtype=np.int64)
        )
        in_set = np.zeros(rows.shape[0], dtype=bool)
        pos = np.flatnonzero(stair >= 0)
        in_set[pos] = self.finite.contains(rows[pos])
        return self._make_features(rows, stair, in_set)

    def binning(self, k: int, cuts: np.ndarray) -> Binning:
        split, n_cuts = _plan(self.gains, k, self.has_zero, cuts)
        is_split = np.zeros(self.n_st, dtype=bool)
        is_split[split] = True
        n_chunks = n_cuts + 1
        n_chunks[~is_split, 1] = 0
        offsets = np.r_[0, np.cumsum(n_chunks.reshape(-1))[:-1]].reshape(self.n_st, 2)
        n_bins = int(n_chunks.sum()) + int(self.has_zero)
        zero_label = n_bins - 1

        def labels(features: _Features) -> np.ndarray:
            stair, half = features.stair, features.half
            out = np.full(stair.shape[0], zero_label, dtype=np.int64)
            pos = stair >= 0
            j = stair[pos]
            h = np.where(is_split[j], half[pos], 0)
            if (n_chunks > 1).any():
                nc = n_chunks[j, h].astype(np.uint64)
                out[pos] = offsets[j, h] + (features.chunk_hash()[pos] % nc).astype(np.int64)
            else:
                out[pos] = offsets[j, h]
            return out

        p_binned = None
        if self.p_known:
            assert self.ref is not None
            p_binned = np.zeros(n_bins)
            if self._finite_chunk is None:
                self._finite_chunk = hash_rows(self.finite_rows, self.chunk_seed)
            fin_chunk = self._finite_chunk
            probs = self.ref.stair_probs
            masses = self.ref.stair_masses
            for j in range(self.n_st):
                fj = self.finite_stairs == j
                if not is_split[j]:
                    nc = n_chunks[j, 0]
                    p_binned[offsets[j, 0] : offsets[j, 0] + nc] = masses[j] / nc
                    continue
                for hh in (0, 1):
                    nc = n_chunks[j, hh]
                    in_fin = (
                        np.bincount((fin_chunk[fj] % np.uint64(nc)).astype(np.int64), minlength=nc)
                        * probs[j]
                    )
                    if hh == 1:  # N_j is the finite set: exact
                        vals = in_fin
                    else:  # P_j = Ω_j \ N_j: the hash splits Ω_j evenly, up to O(√(nc/|Ω_j|))
                        vals = np.clip(masses[j] / nc - in_fin, 0, None)
                    p_binned[offsets[j, hh] : offsets[j, hh] + nc] = vals
            p_binned /= p_binned.sum()
        return Binning(
            n_bins=n_bins,
            n_bins_requested=k,
            p_binned=p_binned,
            kind="adaptive",
            split_stairs=tuple(split),
            gains=self.gains.copy(),
            _features=self.features,
            _labels=labels,
            _check=self.ref.check if self.ref is not None else None,
        )


def max_bins(
    p: CategoricalReference | None, *, adaptive: bool, n_rows: int | None = None
) -> tuple[int, str]:
    """The largest granularity k the space (or, without a reference, the data) allows, and why.

    * random binning: |Ω| = c**L, the finest partition of Ω;
    * adaptive binning B*_k: |Ω⁺| + 1, one bin per element of the support plus the zero-stair bin
      (the zero stair is never split);
    * no reference (two-sample mode with ``p=None``): Ω is known only through the pooled rows, so
      their number.

    References
    ----------
    .. [1] F. Regol, A. Kroon and M. Coates (2023). Evaluation of Categorical Generative Models --
       Bridging the Gap Between Real and Synthetic Data. IEEE International Conference on Acoustics,
       Speech and Signal Processing (ICASSP). arXiv:2210.16405.
    """
    if p is None:
        assert n_rows is not None
        return int(n_rows), "the number of pooled sample rows; Ω is known only through them"
    if adaptive:
        limit = p.support_size + 1
        return limit, (
            f"|Ω⁺| + 1 = {limit}: one bin per element of the support and the zero-stair bin"
        )
    return p.size, f"|Ω| = {p.n_categories}^{p.length} = {p.size}, the number of elements of Ω"


def limit_message(name: str, k: int, limit: int, why: str) -> str:
    """The error for a granularity above :func:`max_bins` (shared by the builders and the CLI)."""
    return f"`{name}`={k} is above the finest partition: it must be <= {limit} ({why})."


def check_k(
    k: Any,
    p: CategoricalReference | None,
    *,
    adaptive: bool,
    name: str = "n_bins",
    n_rows: int | None = None,
) -> int:
    """Validate a granularity: an int ≥ 1 and at most :func:`max_bins` (a ValueError naming it)."""
    k = check_int(k, name, low=1)
    limit, why = max_bins(p, adaptive=adaptive, n_rows=n_rows)
    if k > limit:
        raise ValueError(limit_message(name, k, limit, why))
    return k


def draw_cuts(rng: np.random.Generator, n_stairs: int, n: int) -> np.ndarray:
    """``n`` extra cuts (none when ``n`` ≤ 0), each in one of the ``2 * n_stairs`` stair halves.

    Examples
    --------
    >>> import numpy as np
    >>> draw_cuts(np.random.default_rng(0), 2, 3).shape
    (3,)
    """
    return rng.integers(0, 2 * n_stairs, size=max(n, 0))


#: Rule references on spaces up to this size are enumerated into a table, so that extra cuts and
#: the random baseline use exact bin masses (hash chunks of Ω_j are only approximately even).
TABLE_LIMIT = 2**20


def make_engine(
    ref: CategoricalReference | None,
    rows: np.ndarray,
    *,
    ref_rows: np.ndarray | None = None,
    chunk_seed: int = 0,
    force_rows: bool = False,
) -> _TableEngine | _RowEngine:
    """Fit the sign split of B*_k from q̂ (rows) against p (or p̂ from ``ref_rows``)."""
    if ref is not None and not force_rows and not ref.is_table and ref.size <= TABLE_LIMIT:
        ref = ref.as_table()
    if ref is not None and ref.is_table and not force_rows:
        assert ref.table is not None
        assert ref.stair_labels is not None
        size = ref.table.shape[0]
        qw = np.bincount(ref.index_of(rows), minlength=size) / rows.shape[0]
        if ref_rows is None:
            pw = ref.table
        else:
            pw = np.bincount(ref.index_of(ref_rows), minlength=size) / ref_rows.shape[0]
        return _TableEngine(ref.stair_labels, ref.n_stairs, ref, pw, qw, True, ref_rows is None)
    return _RowEngine(ref, rows, ref_rows, chunk_seed)


# ---------------------------------------------------------------------- public builders
@positional_to_keyword("n_bins", "seed", n_positional=2)
def adaptive_binning(
    p: CategoricalReference,
    samples: Any,
    *,
    n_bins: int,
    seed: SeedLike = None,
) -> Binning:
    """The data-dependent binning B*_k of Regol, Kroon & Coates, built from samples of q.

    Parameters
    ----------
    p : CategoricalReference
        The reference with its S positive stairs (s = S + 1 levels with the zero stair).
    samples : array-like, shape (m, L)
        Rows drawn from q (q̂ is their empirical distribution).
    n_bins : int
        The granularity k, k ≥ s. k = s: the stairs plus the zero bin; s < k ≤ 2s − 1: the
        k − s stairs with the largest splitting gains g_j = 2 min(P, N) are split by the sign of
        p − q̂;
        k ≥ 2s: all stairs split, plus k − (2s − 1) extra cuts on uniformly chosen halves.
        At most |Ω⁺| + 1 (one bin per element of the support plus the zero-stair bin).
    seed : int, Generator or None
        The extra cuts (k ≥ 2s).

    Returns
    -------
    Binning

    Raises
    ------
    TypeError
        If ``p`` is not a :class:`CategoricalReference`.
    ValueError
        If ``n_bins`` is below s or above |Ω⁺| + 1, or for invalid ``samples``.

    Notes
    -----
    B*_k is chosen from the same q̂ it is then used to test, so binned statistics computed on
    ``samples`` are biased upward (see :func:`granularity` and its ``split`` option).

    References
    ----------
    .. [1] F. Regol, A. Kroon and M. Coates (2023). Evaluation of Categorical Generative Models --
       Bridging the Gap Between Real and Synthetic Data. IEEE International Conference on Acoustics,
       Speech and Signal Processing (ICASSP). arXiv:2210.16405.

    Examples
    --------
    >>> from modelcompare import adaptive_binning, stair_distribution
    >>> p = stair_distribution(6, 6, 3, 2.0)
    >>> x = p.sample(1000, seed=0)
    >>> b = adaptive_binning(p, x, n_bins=5, seed=0)
    >>> b.n_bins, b.counts(x).tolist()
    (5, [82, 338, 348, 232, 0])
    """
    p = check_reference(p, "p")
    k = check_k(n_bins, p, adaptive=True)
    rows = p.check(samples)
    rng, _ = check_seed(seed)
    chunk_seed = int(rng.integers(2**62))
    cuts = draw_cuts(rng, p.n_stairs, k - (2 * p.n_stairs + 1))
    return make_engine(p, rows, chunk_seed=chunk_seed).binning(k, cuts)


@positional_to_keyword("n_bins", "seed", n_positional=1)
def random_binning(p: CategoricalReference, *, n_bins: int, seed: SeedLike = None) -> Binning:
    """The random-binning baseline: k = ``n_bins`` bins that ignore p and q.

    For a table reference Ω is shuffled and cut into k bins of ⌊|Ω|/k⌋ elements (the last takes the
    remainder), exactly as the authors do. Otherwise rows go to bin ``hash(row, seed) mod k`` and
    p^B is taken as 1/k per bin (exact up to a relative error of order √(k/|Ω⁺|)).

    Parameters
    ----------
    p : CategoricalReference
        The reference (only Ω and, for tables, p^B are used).
    n_bins : int
        Number of bins k, at most |Ω| = c**L.
    seed : int, Generator or None
        The shuffle of Ω or the hash seed.

    Returns
    -------
    Binning

    Raises
    ------
    TypeError
        If ``p`` is not a :class:`CategoricalReference`.
    ValueError
        If ``n_bins`` is above |Ω|.

    References
    ----------
    .. [1] F. Regol, A. Kroon and M. Coates (2023). Evaluation of Categorical Generative Models --
       Bridging the Gap Between Real and Synthetic Data. IEEE International Conference on Acoustics,
       Speech and Signal Processing (ICASSP). arXiv:2210.16405.

    Examples
    --------
    >>> from modelcompare import random_binning, stair_distribution
    >>> b = random_binning(stair_distribution(6, 6, 3, 2.0), n_bins=4, seed=0)
    >>> b.kind, b.p_binned.round(3).tolist()
    ('random', [0.263, 0.235, 0.225, 0.278])
    """
    p = check_reference(p, "p")
    k = check_k(n_bins, p, adaptive=False)
    rng, _ = check_seed(seed)
    if not p.is_table and p.size <= TABLE_LIMIT:
        p = p.as_table()
    if p.is_table:
        assert p.table is not None
        size = p.table.shape[0]
        width = size // k
        labels = np.empty(size, dtype=np.int64)
        labels[rng.permutation(size)] = np.minimum(np.arange(size) // width, k - 1)
        p_binned = np.bincount(labels, weights=p.table, minlength=k)
        return Binning(
            n_bins=k,
            n_bins_requested=k,
            p_binned=p_binned,
            kind="random",
            _features=p.index_of,
            _labels=labels.__getitem__,
            _check=p.check,
        )
    hseed = int(rng.integers(2**62))

    def labels_fn(rows: np.ndarray) -> np.ndarray:
        return (hash_rows(rows, hseed) % np.uint64(k)).astype(np.int64)

    return Binning(
        n_bins=k,
        n_bins_requested=k,
        p_binned=np.full(k, 1.0 / k),
        kind="hash",
        _features=lambda rows: rows,
        _labels=labels_fn,
        _check=p.check,
    )
