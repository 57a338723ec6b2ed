"""Statistic, variance, p-value and power criterion shared by Rel-UME and Rel-FSSD.

Both tests reduce to two paired feature matrices ``F_P`` (n × m_P) and ``F_Q`` (n × m_Q) whose rows
share the reference draw z_i (Jitkrittum et al. 2018). Everything the test needs is a handful of
sums over rows, so the feature matrices never have to exist in full: the callers accumulate

- ``s_P = Σᵢ F_P[i]`` and ``s_Q`` (the per-feature sums),
- ``Σᵢ ‖F_P[i]‖²`` and ``Σᵢ ‖F_Q[i]‖²``,
- ``Σᵢ aᵢ²``, ``Σᵢ aᵢbᵢ``, ``Σᵢ bᵢ²`` with ``aᵢ = F_P[i]·m_P`` and ``bᵢ = F_Q[i]·m_Q``,

chunk by chunk, and :func:`stats_from_sums` turns them into Û², ζ̂ and ν̂.
"""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np
from scipy.stats import norm

from modelcompare._foundation.errors import DegenerateDataWarning

__all__ = [
    "SUM_SQRT_VAR_TOL",
    "PairedStats",
    "criterion_and_grad",
    "guarded_pvalue",
    "stats_from_features",
    "stats_from_sums",
]

#: ν̂ is treated as degenerate when √max(ν̂, 0) is at most this.
SUM_SQRT_VAR_TOL = 1e-6


class PairedStats(NamedTuple):
    """Estimates from the paired feature sums (all on the 1/n, not √n, scale except ``statistic``)."""

    n: int
    u2_p: float
    u2_q: float
    zeta2_p: float
    zeta2_q: float
    zeta_pq: float
    variance: float
    mean_p: np.ndarray
    mean_q: np.ndarray

    @property
    def statistic(self) -> float:
        """``√n (Û²_P − Û²_Q)``."""
        return math.sqrt(self.n) * (self.u2_p - self.u2_q)

    def criterion(self, reg: float) -> float:
        """The reference code's power criterion ``(Û²_P − Û²_Q) / √(ν̂ + reg)``."""
        return (self.u2_p - self.u2_q) / math.sqrt(max(self.variance + reg, 1e-300))


def stats_from_sums(
    n: int,
    sum_p: np.ndarray,
    sum_q: np.ndarray,
    sumsq_p: float,
    sumsq_q: float,
    sum_aa: float,
    sum_ab: float,
    sum_bb: float,
) -> PairedStats:
    """Û², ζ̂ and ν̂ of the paired test (Jitkrittum et al. 2018) from row sums.

    Parameters
    ----------
    n : int
        Number of paired rows.
    sum_p, sum_q : numpy.ndarray
        ``Σᵢ F_P[i]`` and ``Σᵢ F_Q[i]`` (any shape; flattened).
    sumsq_p, sumsq_q : float
        ``Σᵢ ‖F_P[i]‖²`` and ``Σᵢ ‖F_Q[i]‖²``.
    sum_aa, sum_ab, sum_bb : float
        ``Σᵢ aᵢ²``, ``Σᵢ aᵢbᵢ``, ``Σᵢ bᵢ²`` with ``aᵢ = F_P[i]·m_P``, ``bᵢ = F_Q[i]·m_Q``.
    """
    sp = np.ravel(sum_p)
    sq = np.ravel(sum_q)
    nn1 = n * (n - 1.0)
    u2_p = (float(sp @ sp) - sumsq_p) / nn1
    u2_q = (float(sq @ sq) - sumsq_q) / nn1
    mp = sp / n
    mq = sq / n
    mp2 = float(mp @ mp)
    mq2 = float(mq @ mq)
    zeta2_p = 4.0 * (sum_aa / n - mp2 * mp2)
    zeta2_q = 4.0 * (sum_bb / n - mq2 * mq2)
    zeta_pq = 4.0 * (sum_ab / n - mp2 * mq2)
    variance = zeta2_p - 2.0 * zeta_pq + zeta2_q
    return PairedStats(n, u2_p, u2_q, zeta2_p, zeta2_q, zeta_pq, variance, mp, mq)


def stats_from_features(fp: np.ndarray, fq: np.ndarray) -> PairedStats:
    """:func:`stats_from_sums` for feature matrices held in full (n × m each)."""
    n = fp.shape[0]
    sp = fp.sum(axis=0)
    sq = fq.sum(axis=0)
    a = fp @ (sp / n)
    b = fq @ (sq / n)
    return stats_from_sums(
        n, sp, sq, float(np.sum(fp * fp)), float(np.sum(fq * fq)), a @ a, a @ b, b @ b
    )


def guarded_pvalue(statistic: float, variance: float, *, stacklevel: int = 3) -> tuple[float, bool]:
    """One-sided normal p-value ``P(N(0, ν̂) > statistic)`` with the degenerate-variance guard.

    Returns ``(pvalue, degenerate)``. When ν̂ is not finite or ``√max(ν̂, 0) ≤ 1e-6`` the p-value is
    1.0, ``degenerate`` is True and a :class:`DegenerateDataWarning` is issued.
    """
    if not (math.isfinite(variance) and math.isfinite(statistic)) or (
        math.sqrt(max(variance, 0.0)) <= SUM_SQRT_VAR_TOL
    ):
        warnings.warn(
            f"the variance estimate of the relative test is not positive (ν̂ = {variance:.3g}): "
            "P, Q and R may be identical, or the locations may be far from the data, or the "
            "width too small. The normal approximation does not hold; returning p = 1.",
            DegenerateDataWarning,
            stacklevel=stacklevel,
        )
        return 1.0, True
    return float(norm.sf(statistic, loc=0.0, scale=math.sqrt(variance))), False


def criterion_and_grad(
    fp: np.ndarray, fq: np.ndarray, reg: float
) -> tuple[float, np.ndarray, np.ndarray]:
    """Power criterion and its gradient with respect to every feature entry.

    Parameters
    ----------
    fp, fq : numpy.ndarray
        Feature matrices of shape ``(n, m_P)`` and ``(n, m_Q)`` (rows paired).
    reg : float
        The regulariser inside the square root.

    Returns
    -------
    crit : float
        ``(Û²_P − Û²_Q) / √(ν̂ + reg)``.
    grad_p, grad_q : numpy.ndarray
        ``∂crit/∂F_P`` and ``∂crit/∂F_Q``, same shapes as the inputs.

    Notes
    -----
    With ``aᵢ = F_P[i]·m_P``, ``bᵢ = F_Q[i]·m_Q`` and ``cᵢ = aᵢ − bᵢ``, the variance is
    ``ν̂ = 4 Var_n(c)`` (because mean(a) = ‖m_P‖²), so

    - ``∂ν̂/∂F_P[i] = (8/n) [(cᵢ − c̄) m_P + g_P]`` with ``g_P = (1/n) Σₖ (cₖ − c̄) F_P[k]``,
    - ``∂Û²_P/∂F_P[i] = 2 (s_P − F_P[i]) / (n(n−1))``,

    and the same with a minus sign for Q.
    """
    n = fp.shape[0]
    sp = fp.sum(axis=0)
    sq = fq.sum(axis=0)
    mp = sp / n
    mq = sq / n
    a = fp @ mp
    b = fq @ mq
    nn1 = n * (n - 1.0)
    u2_p = (float(sp @ sp) - float(np.sum(fp * fp))) / nn1
    u2_q = (float(sq @ sq) - float(np.sum(fq * fq))) / nn1
    c = a - b
    cc = c - c.mean()
    nu = 4.0 * float(cc @ cc) / n
    denom = max(nu + reg, 1e-300)
    alpha = 1.0 / math.sqrt(denom)
    diff = u2_p - u2_q
    crit = diff * alpha
    beta = diff / (2.0 * denom * math.sqrt(denom))
    gp = (fp.T @ cc) / n
    gq = (fq.T @ cc) / n
    grad_p = (2.0 * alpha / nn1) * (sp[None, :] - fp)
    grad_p -= (8.0 * beta / n) * (cc[:, None] * mp[None, :] + gp[None, :])
    grad_q = (-2.0 * alpha / nn1) * (sq[None, :] - fq)
    grad_q += (8.0 * beta / n) * (cc[:, None] * mq[None, :] + gq[None, :])
    return crit, grad_p, grad_q
