"""FID at d = 2048: our ``"eigh"`` route against its floor and against the published formulas.

On the same features (n rows of each sample, d columns; the feature extractors are not needed:
only the distance computation is compared), single-threaded, in one run:

- **floor**: the operations the ``"eigh"`` route cannot avoid, timed one by one: two covariances
  XᵀX (centred), a Cholesky factor, two triangular products Lᵀ C L, one symmetric eigenvalue
  problem (values only);
- **ours**: ``modelcompare.fid(x, z)`` (default ``method="eigh"``), input checks included;
- **clean-fid / pytorch-fid**: their ``frechet_distance`` / ``calculate_frechet_distance`` written
  out from the published code (``np.cov``, then ``scipy.linalg.sqrtm(sigma1.dot(sigma2),
  disp=False)``, retried with 1e-6 on both diagonals when not finite, real part); the two
  packages share this code, so it is timed once;
- **torchmetrics**: ``_compute_fid`` written out (float64 torch covariances, then
  ``torch.linalg.eigvals(sigma1 @ sigma2).sqrt().real.sum()``).

Run:  ``python benchmarks/fid_speed.py [--n 10000] [--d 2048] [--skip-slow]``.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable
from typing import Any

import _harness

_harness.one_thread()

import numpy as np
import scipy.linalg

from modelcompare import fid

SLUG = "generative-01-fid-at-d-2048-the-eigh"
FLOOR_NAMES = {
    "covariance x": "covariance x (XᵀX)",
    "covariance z": "covariance z",
    "cholesky": "Cholesky",
    "triangular products": "two triangular products",
    "symmetric eigenvalues": "symmetric eigenvalues",
}


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def floor_ops(x: np.ndarray, z: np.ndarray) -> dict[str, float]:
    """Seconds of each unavoidable step of the eigh route."""
    xc = (x - x.mean(0)) / np.sqrt(len(x) - 1.0)
    zc = (z - z.mean(0)) / np.sqrt(len(z) - 1.0)
    cx, t_cx = _timed(lambda: xc.T @ xc)
    cz, t_cz = _timed(lambda: zc.T @ zc)
    low, t_chol = _timed(lambda: scipy.linalg.cholesky(cz, lower=True, check_finite=False))
    half, t_tr1 = _timed(lambda: scipy.linalg.blas.dtrmm(1.0, low, cx, side=0, lower=1, trans_a=1))
    inner, t_tr2 = _timed(lambda: scipy.linalg.blas.dtrmm(1.0, low, half, side=1, lower=1))
    _, t_eig = _timed(lambda: scipy.linalg.eigh(inner, eigvals_only=True, check_finite=False))
    return {
        "covariance x": t_cx,
        "covariance z": t_cz,
        "cholesky": t_chol,
        "triangular products": t_tr1 + t_tr2,
        "symmetric eigenvalues": t_eig,
    }


def clean_fid(x: np.ndarray, z: np.ndarray) -> float:
    """clean-fid's ``frechet_distance`` (= pytorch-fid's ``calculate_frechet_distance``)."""
    mu1, sigma1 = np.mean(x, axis=0), np.cov(x, rowvar=False)
    mu2, sigma2 = np.mean(z, axis=0), np.cov(z, rowvar=False)
    diff = mu1 - mu2
    with warnings.catch_warnings():  # scipy ≥ 1.16 deprecates `disp`, which the packages pass
        warnings.simplefilter("ignore", DeprecationWarning)
        covmean, _ = scipy.linalg.sqrtm(sigma1.dot(sigma2), disp=False)
    if not np.isfinite(covmean).all():
        offset = np.eye(sigma1.shape[0]) * 1e-6
        covmean = scipy.linalg.sqrtm((sigma1 + offset).dot(sigma2 + offset))
    covmean = covmean.real
    return float(diff.dot(diff) + np.trace(sigma1) + np.trace(sigma2) - 2 * np.trace(covmean))


def torchmetrics_fid(x: np.ndarray, z: np.ndarray) -> float:
    """torchmetrics' ``_compute_fid`` on float64 sums, as ``FrechetInceptionDistance`` keeps them."""
    import torch

    def moments(a: np.ndarray) -> tuple[Any, Any]:
        t = torch.from_numpy(a)
        n = t.shape[0]
        mean = t.sum(0) / n
        cov = (t.T @ t - n * torch.outer(mean, mean)) / (n - 1)
        return mean, cov

    mu1, sigma1 = moments(x)
    mu2, sigma2 = moments(z)
    a = (mu1 - mu2).square().sum(dim=-1)
    b = sigma1.trace() + sigma2.trace()
    c = torch.linalg.eigvals(sigma1 @ sigma2).sqrt().real.sum(dim=-1)
    return float(a + b - 2 * c)


def _features(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Inception-like features: non-negative, correlated, with a decaying spectrum."""
    rng = np.random.default_rng(seed)
    mix = rng.normal(size=(d, d)) * (np.arange(1, d + 1) ** -0.5)[:, None]
    x = np.abs(rng.normal(size=(n, d)) @ mix)
    z = np.abs(rng.normal(size=(n, d)) @ mix * 1.05 + 0.01)
    return x, z


def main() -> None:
    parser = _harness.parser(__doc__)
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--d", type=int, default=2048)
    parser.add_argument("--skip-slow", action="store_true", help="leave out the sqrtm/eigvals")
    args = parser.parse_args()
    if args.quick:
        args.n, args.d = 1000, 256
    from threadpoolctl import threadpool_limits

    x, z = _features(args.n, args.d, args.seed)
    with threadpool_limits(1):
        import torch

        torch.set_num_threads(1)
        parts = floor_ops(x, z)
        floor = sum(parts.values())
        ours, t_ours = _timed(lambda: fid(x, z).value)
        rows = [('**ours, `fid(x, z)` (`method="eigh"`)**', t_ours, ours)]
        if not args.skip_slow:
            ref, t_clean = _timed(lambda: clean_fid(x, z))
            rows.append(("clean-fid / pytorch-fid (`sqrtm`)", t_clean, ref))
            tm, t_tm = _timed(lambda: torchmetrics_fid(x, z))
            rows.append(("torchmetrics (`eigvals`)", t_tm, tm))
    print(f"n = {args.n}, d = {args.d}, one thread; load {os.getloadavg()}")
    for name, sec in parts.items():
        print(f"  floor: {name:<24s} {sec:8.2f} s")
    print(f"  floor total                     {floor:8.2f} s")
    scale = float(np.trace(np.cov(x, rowvar=False)) + np.trace(np.cov(z, rowvar=False)))
    table = [
        [f"floor: {FLOOR_NAMES[name]}", f"{sec:.2f}", None, None, None]
        for name, sec in parts.items()
    ]
    table.append(["**floor total**", f"**{floor:.2f}**", "1.00", None, None])
    for name, sec, value in rows:
        gap = (value - ours) / scale
        print(
            f"  {name:<32s} {sec:8.2f} s  {sec / floor:6.2f}× floor  {sec / t_ours:6.2f}× ours"
            f"  FID {value:.10g}  (− ours)/(tr C_x + tr C_z) = {gap:.1e}"
        )
        table.append(
            [
                name,
                f"{sec:.2f}",
                f"{sec / floor:.2f}",
                f"{sec / t_ours:.2f}",
                f"{gap:.1e}".replace("-", "−", 1 if gap < 0 else 0),
            ]
        )
    _harness.rerun(args, SLUG, table, script=__file__)


if __name__ == "__main__":
    main()
