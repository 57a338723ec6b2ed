"""Known reference distributions p on Ω = {0..c-1}^L with their level sets ("stairs").

A reference carries, for each *positive* stair j, its size n_j (a Python int: it may exceed int64) and
its per-element probability h_j, and can tell the stair of any row. The zero stair (p = 0) is label
``-1``. Three representations:

* a table over Ω (small spaces; ``layout="index"`` is the authors' 6^6 stair);
* a rule testable on one row (``layout="sort"``), never enumerating Ω;
* a user function returning p for rows, plus its level sets (:meth:`CategoricalReference.from_function`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.validation import (
    as_numpy,
    check_choice,
    check_fraction,
    check_int,
    check_positive,
)
from modelcompare.categorical._space import (
    MAX_INDEX_SIZE,
    check_probabilities,
    check_rows,
    index_to_rows,
    row_dtype,
    rows_to_index,
)

__all__ = ["CategoricalReference", "distances", "perturb", "stair_distribution"]

_LAYOUTS = ("index", "sort")


@dataclass(frozen=True, eq=False)
class CategoricalReference:
    """A known distribution p on sequences of ``length`` categories, with its stairs (level sets).

    Build one with :func:`stair_distribution`, :meth:`from_table` or :meth:`from_function`.

    Attributes
    ----------
    n_categories, length : int
        c and L; Ω = {0..c-1}^L.
    stair_sizes : tuple of int
        |Ω_j| of each positive stair, highest probability first (Python ints, exact at any scale).
    stair_probs : numpy.ndarray
        Per-element probability h_j on each positive stair.
    layout : str
        ``"index"``, ``"table"``, ``"sort"`` or ``"function"``.
    table : numpy.ndarray or None
        p over Ω in ``itertools.product`` order (table layouts only).
    stair_labels : numpy.ndarray or None
        Stair of each element of Ω, ``-1`` for the zero stair (table layouts only).

    Examples
    --------
    >>> from modelcompare import stair_distribution
    >>> p = stair_distribution(6, 6, 3, 2.0)
    >>> p.n_stairs, p.size, p.stair_sizes, p.layout
    (3, 46656, (240, 240, 240), 'index')
    """

    n_categories: int
    length: int
    stair_sizes: tuple[int, ...]
    stair_probs: np.ndarray
    layout: str
    table: np.ndarray | None = field(default=None, repr=False)
    stair_labels: np.ndarray | None = field(default=None, repr=False)
    _stair_fn: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)
    _sampler: Callable[[int, np.random.Generator], np.ndarray] | None = field(
        default=None, repr=False
    )

    # ------------------------------------------------------------------ properties
    @property
    def n_stairs(self) -> int:
        """S, the number of positive stairs (the paper's s = S + 1 counts the zero stair)."""
        return len(self.stair_sizes)

    @property
    def size(self) -> int:
        """|Ω| = c**L as an exact Python int."""
        return self.n_categories**self.length

    @property
    def support_size(self) -> int:
        """|Ω⁺|, the number of elements with p > 0."""
        return sum(self.stair_sizes)

    @property
    def stair_masses(self) -> np.ndarray:
        """p(Ω_j) of each positive stair."""
        return np.array([n * h for n, h in zip(self.stair_sizes, self.stair_probs)], dtype=float)

    @property
    def is_table(self) -> bool:
        """True when p is held as a table over Ω (rows can be indexed)."""
        return self.table is not None

    def __repr__(self) -> str:
        return (
            f"CategoricalReference(c={self.n_categories}, L={self.length}, layout={self.layout!r}, "
            f"n_stairs={self.n_stairs}, stair_sizes={list(self.stair_sizes)})"
        )

    # ------------------------------------------------------------------ row methods
    def check(self, samples: Any, name: str = "samples") -> np.ndarray:
        """Validate rows against this space (``(m, L)``, categories in ``0..c-1``).

        In table layouts a 1-D integer array is read as indices into Ω (product order).
        """
        if self.is_table and not hasattr(samples, "columns"):
            arr = as_numpy(samples, name)
            if arr.ndim == 1 and arr.dtype.kind in "iu":
                if arr.size and (arr.min() < 0 or arr.max() >= self.size):
                    msg = f"`{name}` indices must lie in 0..{self.size - 1}; got {arr.min()}..{arr.max()}."
                    raise ValueError(msg)
                return index_to_rows(arr, self.n_categories, self.length)
            samples = arr
        return check_rows(samples, name, n_categories=self.n_categories, length=self.length)

    def index_of(self, rows: np.ndarray) -> np.ndarray:
        """Product-order index of each row (table layouts only)."""
        return rows_to_index(rows, self.n_categories)

    def stair_of(self, rows: np.ndarray) -> np.ndarray:
        """Stair label of each row: ``0..S-1`` for positive stairs, ``-1`` for the zero stair."""
        if self.stair_labels is not None:
            return self.stair_labels[self.index_of(rows)]
        assert self._stair_fn is not None
        return np.asarray(self._stair_fn(rows), dtype=np.int64)

    def prob(self, rows: np.ndarray) -> np.ndarray:
        """p of each row."""
        if self.table is not None:
            return self.table[self.index_of(rows)]
        stair = self.stair_of(rows)
        out = np.zeros(rows.shape[0])
        pos = stair >= 0
        out[pos] = self.stair_probs[stair[pos]]
        return out

    def sample(self, n_samples: int, *, seed: SeedLike = None) -> np.ndarray:
        """Draw ``n_samples`` rows from p without any array of size |Ω| beyond the table itself.

        Returns
        -------
        numpy.ndarray, shape (n_samples, L)
        """
        n_samples = check_int(n_samples, "n_samples", low=1)
        rng, _ = check_seed(seed)
        if self.table is not None:
            idx = rng.choice(self.table.shape[0], size=n_samples, p=self.table)
            return index_to_rows(idx, self.n_categories, self.length)
        if self._sampler is None:
            msg = "this reference has no sampler; pass `sampler=` to CategoricalReference.from_function."
            raise ValueError(msg)
        return check_rows(
            self._sampler(n_samples, rng),
            "sampler output",
            n_categories=self.n_categories,
            length=self.length,
        )

    def as_table(self) -> CategoricalReference:
        """The same reference held as a table over Ω (enumerates Ω: small spaces only)."""
        if self.is_table:
            return self
        if self.size > 2**26:
            msg = f"|Ω| = {self.n_categories}^{self.length} is too large to hold as a table."
            raise ValueError(msg)
        rows = index_to_rows(np.arange(self.size), self.n_categories, self.length)
        stairs = self.stair_of(rows)
        table = np.zeros(self.size)
        pos = stairs >= 0
        table[pos] = self.stair_probs[stairs[pos]]
        ref = CategoricalReference.from_table(
            table, self.n_categories, self.length, stairs=stairs, layout=self.layout
        )
        if ref.stair_sizes != self.stair_sizes:
            msg = f"the stair rule yields sizes {ref.stair_sizes}, not the declared {self.stair_sizes}."
            raise ValueError(msg)
        return ref

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_table(
        cls,
        p: Any,
        n_categories: int,
        length: int,
        *,
        stairs: Any = None,
        layout: str = "table",
    ) -> CategoricalReference:
        """A reference given as a probability table over Ω (``itertools.product`` order).

        Parameters
        ----------
        p : array-like, shape (c**L,) or (c,) * L
            Probabilities; non-negative, summing to 1 (within 1e-9). A table of shape
            ``(c,) * L`` is read in C order, which is the ``itertools.product`` order.
        n_categories, length : int
            c and L.
        stairs : array-like of int, optional
            Stair label per element (``-1`` where p = 0). By default the level sets of p, highest
            probability first. Given stairs must be level sets (p constant on each).
        """
        c = check_int(n_categories, "n_categories", low=1)
        L = check_int(length, "length", low=1)
        size = c**L
        if size >= MAX_INDEX_SIZE or size > 2**31:
            msg = f"|Ω| = {c}^{L} is too large for a table; use a rule layout or from_function."
            raise ValueError(msg)
        table = check_probabilities(p, "p", tol=1e-9, table_shape=(c,) * L)
        if table.shape[0] != size:
            msg = f"`p` must have c**L = {size} entries; got {table.shape[0]}."
            raise ValueError(msg)
        if stairs is None:
            values = np.unique(table[table > 0])[::-1]
            labels = np.full(size, -1, dtype=np.int64)
            pos = table > 0
            labels[pos] = np.searchsorted(-values, -table[pos])
        else:
            labels = _check_labels(stairs, "stairs")
            if labels.shape[0] != size:
                msg = f"`stairs` must have {size} entries; got {labels.shape[0]}."
                raise ValueError(msg)
            if ((labels < 0) != (table == 0)).any():
                msg = "`stairs` must be -1 exactly where p = 0."
                raise ValueError(msg)
            n_st = int(labels.max()) + 1 if labels.size else 0
            if set(np.unique(labels[labels >= 0]).tolist()) != set(range(n_st)):
                msg = "`stairs` labels must be 0..S-1 with every stair non-empty."
                raise ValueError(msg)
            values = np.zeros(n_st)
            for j in range(n_st):
                v = table[labels == j]
                if np.ptp(v) > 1e-12 * v.max():
                    msg = f"`stairs` must be level sets of p; p is not constant on stair {j}."
                    raise ValueError(msg)
                values[j] = v[0]
        sizes = tuple(int(s) for s in np.bincount(labels[labels >= 0], minlength=len(values)))
        return cls(c, L, sizes, np.asarray(values, dtype=float), layout, table, labels)

    @classmethod
    def from_function(
        cls,
        prob: Callable[[np.ndarray], Any],
        levels: Mapping[float, int] | Sequence[tuple[float, int]],
        n_categories: int,
        length: int,
        *,
        sampler: Callable[[int, np.random.Generator], Any] | None = None,
    ) -> CategoricalReference:
        """A reference given by a function returning p for rows, together with its level sets.

        Parameters
        ----------
        prob : callable
            ``prob(rows) -> probabilities`` for an ``(m, L)`` integer array.
        levels : mapping or sequence of (probability, size)
            Every positive value p takes and how many elements of Ω take it (Python ints may exceed
            int64). Σ probability·size must be 1.
        n_categories, length : int
            c and L.
        sampler : callable, optional
            ``sampler(m, rng) -> rows`` drawing from p (needed only for :meth:`sample`).
        """
        c = check_int(n_categories, "n_categories", low=1)
        L = check_int(length, "length", low=1)
        items = list(levels.items()) if isinstance(levels, Mapping) else list(levels)
        if not items:
            msg = "`levels` must name at least one positive level."
            raise ValueError(msg)
        items.sort(key=lambda kv: -float(kv[0]))
        values = np.array([float(v) for v, _ in items])
        sizes = tuple(int(n) for _, n in items)
        if (values <= 0).any() or min(sizes) < 1:
            msg = "`levels` must have positive probabilities and sizes."
            raise ValueError(msg)
        total = math.fsum(v * n for v, n in zip(values.tolist(), sizes))
        if abs(total - 1.0) > 1e-9:
            msg = f"`levels` must have total mass Σ probability·size = 1; got {total:.12g}."
            raise ValueError(msg)
        if sum(sizes) > c**L:
            msg = f"`levels` sizes add up to more than |Ω| = {c}^{L}."
            raise ValueError(msg)

        def stair_fn(rows: np.ndarray) -> np.ndarray:
            pr = np.asarray(prob(rows), dtype=float).reshape(-1)
            out = np.full(pr.shape[0], -1, dtype=np.int64)
            pos = pr > 0
            j = np.clip(np.searchsorted(-values, -pr[pos]), 0, len(values) - 1)
            jl = np.clip(j - 1, 0, len(values) - 1)
            pick = np.where(np.abs(values[jl] - pr[pos]) < np.abs(values[j] - pr[pos]), jl, j)
            if not np.allclose(values[pick], pr[pos], rtol=1e-9, atol=0):
                msg = "`prob` returned a value that is not one of `levels`."
                raise ValueError(msg)
            out[pos] = pick
            return out

        return cls(c, L, sizes, values, "function", None, None, stair_fn, sampler)


def _check_labels(stairs: Any, name: str) -> np.ndarray:
    arr = as_numpy(stairs, name)
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        msg = f"`{name}` must hold integer stair labels; got dtype {arr.dtype}."
        raise TypeError(msg)
    if arr.dtype.kind == "f" and (not np.isfinite(arr).all() or (arr != np.round(arr)).any()):
        msg = f"`{name}` must hold integer stair labels (-1 for p = 0); got non-integer values."
        raise ValueError(msg)
    return np.array(arr, dtype=np.int64).reshape(-1)


def check_reference(p: Any, name: str = "p") -> CategoricalReference:
    """Return ``p`` if it is a :class:`CategoricalReference`, else raise a TypeError naming it."""
    if not isinstance(p, CategoricalReference):
        msg = (
            f"`{name}` must be a CategoricalReference (stair_distribution, "
            f"CategoricalReference.from_table or .from_function); got {type(p).__name__}."
        )
        raise TypeError(msg)
    return p


# ---------------------------------------------------------------------- the stair distribution
def _heights(n_stairs: int, ratio: float) -> np.ndarray:
    return np.linspace(1.0, ratio, n_stairs)[::-1]  # highest stair first


def _sort_stairs(rows: np.ndarray, c: int) -> np.ndarray:
    m = rows.shape[0]
    perm = np.empty(m, dtype=bool)
    block = 1 << 16
    for start in range(0, m, block):  # O(block·L) scratch memory
        chunk = rows[start : start + block]
        if c <= 63:
            bits = np.left_shift(np.uint64(1), chunk.astype(np.uint64))
            perm[start : start + block] = np.bitwise_or.reduce(bits, axis=1) == np.uint64(2**c - 1)
        else:
            srt = np.sort(chunk, axis=1)
            perm[start : start + block] = (srt == np.arange(c)).all(axis=1)
    out = np.full(m, -1, dtype=np.int64)
    out[perm] = np.where(rows[perm, 0] < rows[perm, -1], 0, 1)
    return out


def _sort_sampler(c: int, high_mass: float) -> Callable[[int, np.random.Generator], np.ndarray]:
    def sample(m: int, rng: np.random.Generator) -> np.ndarray:
        base = np.broadcast_to(np.arange(c, dtype=row_dtype(c)), (m, c))
        rows = rng.permuted(base, axis=1)
        want_high = rng.random(m) < high_mass
        # swapping x[0] and x[L-1] is a bijection between the two halves: still uniform within one
        swap = want_high != (rows[:, 0] < rows[:, -1])
        first = rows[swap, 0].copy()
        rows[swap, 0] = rows[swap, -1]
        rows[swap, -1] = first
        return rows

    return sample


def stair_distribution(
    n_categories: int,
    length: int,
    n_stairs: int,
    ratio: float = 2.0,
    *,
    layout: str = "index",
    positive_fraction: float | None = None,
) -> CategoricalReference:
    """The stair distribution of Regol, Kroon & Coates (2023).

    Parameters
    ----------
    n_categories, length : int
        c and L.
    n_stairs : int
        S, the number of **positive** stairs. The paper's s = S + 1 also counts the zero stair.
    ratio : float
        Height ratio between the highest and the lowest positive stair (heights ``linspace(1, ratio,
        S)``, highest first).
    layout : {"index", "sort"}
        ``"index"``: the authors' index ranges over the product-order enumeration of Ω (stair 1 =
        indices [0, n), ...), held as a table, for the 6^6 reproduction. ``"sort"`` (L = c, S = 2): a
        rule on rows. The support is the permutations of 0..c-1; those with x[0] < x[L-1] form the
        high stair and the others the low stair. Nothing is enumerated, so it works at 20^20.
    positive_fraction : float, optional
        |Ω⁺|/|Ω| for the index layout; defaults to c!/c^c when L = c and is required otherwise.

    Returns
    -------
    CategoricalReference

    Notes
    -----
    Index layout: U⁺ = int(positive_fraction·|Ω|) (exactly c! by default), stair sizes ⌊U⁺/S⌋ with
    the remainder on the highest stair, p = h_j / Σ n_j h_j on stair j and 0 on the zero stair. With
    c = L = 6, S = 3 and ratio 2 the stairs are 240/240/240 with p = 2/1080, 1.5/1080, 1/1080. With
    c = L = 6, S = 2 and ratio 3 the "sort" layout is the generative-model stair of the paper (the "sort"
    data set of Regol & Coates' gmcd).

    References
    ----------
    .. [1] F. Regol, A. Kroon, M. Coates. Evaluation of Categorical Generative Models - Bridging the
       Gap Between Real and Synthetic Data. ICASSP 2023 (arXiv:2210.16405).

    Examples
    --------
    >>> p = stair_distribution(6, 6, 3, 2.0)
    >>> p.stair_sizes, round(float(p.stair_masses[0]), 4)
    ((240, 240, 240), 0.4444)
    """
    c = check_int(n_categories, "n_categories", low=1)
    L = check_int(length, "length", low=1)
    S = check_int(n_stairs, "n_stairs", low=1)
    ratio = check_positive(ratio, "ratio")
    if ratio < 1:
        msg = f"`ratio` must be >= 1 (highest over lowest stair); got {ratio}."
        raise ValueError(msg)
    layout = check_choice(layout, "layout", _LAYOUTS)
    if positive_fraction is not None:
        positive_fraction = check_positive(positive_fraction, "positive_fraction")
    if layout == "sort":
        if c != L or S != 2:
            msg = (
                f"layout 'sort' needs L = c and n_stairs = 2 (`length`, `n_categories`, "
                f"`n_stairs`); got c={c}, L={L}, n_stairs={S}."
            )
            raise ValueError(msg)
        if positive_fraction is not None:
            msg = "`positive_fraction` is fixed to c!/c^c by the 'sort' layout; leave it None."
            raise ValueError(msg)
        h = _heights(S, ratio)
        half = math.factorial(c) // 2
        probs = h / (half * h.sum())
        return CategoricalReference(
            c,
            L,
            (half, half),
            probs,
            "sort",
            None,
            None,
            lambda rows: _sort_stairs(rows, c),
            _sort_sampler(c, float(probs[0] * half)),
        )
    if L * math.log2(c) > 31:  # before computing c**L, which alone can take minutes
        msg = (
            f"layout 'index' needs a table over Ω; |Ω| = `n_categories`^`length` = {c}^{L} is "
            "too large (at most 2^31). Use layout='sort'."
        )
        raise ValueError(msg)
    size = c**L
    if positive_fraction is None:
        if c != L:
            msg = "`positive_fraction` is required when L != c (the default c!/c^c needs L = c)."
            raise ValueError(msg)
        n_pos = math.factorial(c)
    else:
        if not 0 < positive_fraction <= 1:
            msg = f"`positive_fraction` must be in (0, 1]; got {positive_fraction}."
            raise ValueError(msg)
        n_pos = int(positive_fraction * size)
    if n_pos < S:
        msg = f"the support ({n_pos} elements) is smaller than `n_stairs` = {S}."
        raise ValueError(msg)
    h = _heights(S, ratio)
    n = n_pos // S
    sizes = [n] * (S - 1) + [n_pos - (S - 1) * n]
    sizes = sizes[::-1]  # reversed with the heights: the highest stair takes the remainder
    probs = h / float(np.dot(sizes, h))
    table = np.zeros(size)
    labels = np.full(size, -1, dtype=np.int64)
    start = 0
    for j, nj in enumerate(sizes):
        table[start : start + nj] = probs[j]
        labels[start : start + nj] = j
        start += nj
    return CategoricalReference(c, L, tuple(sizes), probs, "index", table, labels)


# ---------------------------------------------------------------------- perturbations
def distances(p: CategoricalReference, q: CategoricalReference) -> dict[str, float]:
    """ℓ1, TV (= ℓ1/2) and ℓ2 distances between two table distributions on the same Ω.

    Parameters
    ----------
    p, q : CategoricalReference
        Table references on the same Ω.

    Returns
    -------
    dict
        ``{"l1": ..., "tv": ..., "l2": ...}``.

    Examples
    --------
    >>> from modelcompare import perturb, stair_distribution
    >>> from modelcompare.categorical import distances
    >>> p = stair_distribution(6, 6, 3, 2.0)
    >>> d = distances(p, perturb(p, l1=0.2, seed=3))
    >>> round(d["l1"], 4), round(d["tv"], 4), round(d["l2"], 4)
    (0.2, 0.1, 0.0126)
    """
    check_reference(p, "p")
    check_reference(q, "q")
    if p.table is None or q.table is None or p.table.shape != q.table.shape:
        msg = "`p` and `q` must be table distributions on the same Ω."
        raise ValueError(msg)
    d = q.table - p.table
    l1 = float(np.abs(d).sum())
    return {"l1": l1, "tv": 0.5 * l1, "l2": float(np.sqrt(np.dot(d, d)))}


def perturb(
    p: CategoricalReference,
    *,
    l1: float | None = None,
    tv: float | None = None,
    add_frac: float = 0.30,
    null_frac: float = 0.001,
    seed: SeedLike = None,
) -> CategoricalReference:
    """A perturbation q of a table reference p at a chosen distance (the authors' ``errFunct``).

    Mass l1/2 is added and l1/2 removed, so ‖p − q‖₁ = ``l1`` and d_TV(p, q) = l1/2 exactly.

    Parameters
    ----------
    p : CategoricalReference
        A table reference (``layout="index"`` or ``from_table``).
    l1 : float
        The ℓ1 distance ‖p − q‖₁ (the authors' ``e``). The paper's "d_TV(p, q_i) = 0, 0.1, 0.15,
        0.2" are these ℓ1 distances: the TVs are half as large.
    tv : float
        Convenience alternative: ``l1 = 2 * tv``. Give exactly one of ``l1`` and ``tv``.
    add_frac, null_frac : float
        The authors' b = 30 % and null = 0.1 % as fractions. a = |Ω⁺|·(add_frac − null_frac)
        support elements are touched: ⌊a/2⌋ receive +e_add, the next int(a − ⌊a/2⌋) receive
        −e_rem, and the first int((|Ω| − |Ω⁺|)·null_frac) zero-probability elements receive +e_add,
        with e_add = (l1/2)/(n_add⁺ + n_add⁰) and e_rem = (l1/2)/n_rem.
    seed : int, Generator or None
        Draws the random permutation of the support.

    Returns
    -------
    CategoricalReference
        q as a table (layout ``"table"``; its stairs are q's own level sets).

    Raises
    ------
    ValueError
        If the removal would make some mass negative (``l1`` too large for ``add_frac``).

    References
    ----------
    .. [1] F. Regol, A. Kroon and M. Coates (2023). Evaluation of Categorical Generative Models --
       Bridging the Gap Between Real and Synthetic Data. IEEE International Conference on Acoustics,
       Speech and Signal Processing (ICASSP). arXiv:2210.16405.

    Examples
    --------
    >>> from modelcompare import perturb, stair_distribution
    >>> p = stair_distribution(6, 6, 3, 2.0)
    >>> q = perturb(p, tv=0.05, seed=3)
    >>> q.layout, round(float(abs(q.table - p.table).sum()), 6)
    ('table', 0.1)
    """
    check_reference(p, "p")
    if p.table is None:
        msg = "`perturb` needs a table reference (layout='index' or from_table)."
        raise ValueError(msg)
    if (l1 is None) == (tv is None):
        msg = "give exactly one of `l1` and `tv` (tv = l1 / 2)."
        raise ValueError(msg)
    e = (
        2.0 * check_positive(tv, "tv", allow_zero=True)
        if tv is not None
        else (check_positive(l1, "l1", allow_zero=True))
    )
    add_frac = check_fraction(add_frac, "add_frac", closed=True)
    null_frac = check_fraction(null_frac, "null_frac", closed=True)
    if not null_frac < add_frac:
        msg = (
            f"`null_frac` must be below `add_frac` (0 <= null_frac < add_frac <= 1); got "
            f"null_frac={null_frac}, add_frac={add_frac}."
        )
        raise ValueError(msg)
    rng, _ = check_seed(seed)
    table = p.table
    pos = np.flatnonzero(table > 0)
    zero = np.flatnonzero(table == 0)
    a = pos.size * (add_frac - null_frac)
    n_add_pos = math.floor(a / 2)
    n_rem = int(a - math.floor(a / 2))
    n_add_zero = int(zero.size * null_frac)
    if n_rem < 1 or n_add_pos + n_add_zero < 1:
        msg = "the support is too small for this perturbation (no element to move mass from/to)."
        raise ValueError(msg)
    q = table.copy()
    if e > 0:
        e_add = (e / 2) / (n_add_pos + n_add_zero)
        e_rem = (e / 2) / n_rem
        perm = rng.permutation(pos)
        q[perm[:n_add_pos]] += e_add
        q[perm[n_add_pos : n_add_pos + n_rem]] -= e_rem
        q[zero[:n_add_zero]] += e_add
        if (q < -1e-12).any():
            msg = f"`l1`={e} is too large: the removal makes some mass negative (max is ~{2 * n_rem * table[pos].min():.4g})."
            raise ValueError(msg)
        q = np.clip(q, 0.0, None)
        q /= q.sum()
    return CategoricalReference.from_table(q, p.n_categories, p.length)
