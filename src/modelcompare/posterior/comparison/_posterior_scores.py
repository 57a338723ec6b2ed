"""Per-pair scores of posterior estimators: the log score and the energy score.

Both scores are positively oriented here (larger is better): the log score is log q(θ_n | x_n),
the energy score enters as −ES(q_n, θ_n). torch, sbi, nflows and zuko are never imported: their
objects are recognised by duck typing, and torch is imported only when such an object is scored.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from modelcompare._foundation.errors import ModelCompareWarning
from modelcompare._foundation.seeds import spawn
from modelcompare._foundation.torch_support import import_torch
from modelcompare._foundation.validation import as_numpy

__all__ = ["energy_scores", "log_scores", "replace_neg_inf"]

#: rows of θ scored per call of an estimator's ``log_prob``
LOG_CHUNK = 4096
#: rows per call of an sbi posterior's batched ``log_prob``: each row's leakage correction draws
#: 10 000 samples from the estimator
SBI_CHUNK = 256
#: the energy score's pairwise distance blocks hold at most this many entries (32 MB of float64)
ENERGY_BLOCK = 4_000_000

#: sbi posteriors whose ``log_prob`` is an unnormalised potential (a likelihood or a ratio times
#: the prior): their density is known only up to a constant per x
_UNNORMALISED_SBI = ("MCMCPosterior", "RejectionPosterior", "ImportanceSamplingPosterior")


def _is_torch_module(obj: Any) -> bool:
    return callable(obj) and hasattr(obj, "parameters") and hasattr(obj, "state_dict")


def _refuse_unnormalised(obj: Any, name: str) -> None:
    cls = type(obj).__name__
    unnormalised = (
        getattr(obj, "normalized", None) is False or getattr(obj, "is_normalized", None) is False
    )
    if cls in _UNNORMALISED_SBI or (
        hasattr(obj, "potential_fn")
        and not hasattr(obj, "posterior_estimator")
        and cls != "VIPosterior"
    ):
        unnormalised = True
    if unnormalised:
        msg = (
            f"`{name}` ({cls}) has a density known only up to a constant per x (an unnormalised "
            "potential, as for likelihood- or ratio-based sbi posteriors sampled by MCMC or "
            "rejection); the log score needs the normalised log q(θ | x). Use "
            "`scoring_rule='energy'`, which needs only `sample(x, n, seed)`, or a normalised "
            "estimator (sbi's NPE `DirectPosterior`, a flow)."
        )
        raise TypeError(msg)


def _torch_like(module: Any, arr: np.ndarray) -> Any:
    torch = import_torch("scoring torch posterior estimators")
    try:
        p = next(iter(module.parameters()))
        dtype, device = p.dtype, p.device
    except (StopIteration, AttributeError, TypeError):
        dtype, device = torch.get_default_dtype(), "cpu"
    return torch.as_tensor(arr, dtype=dtype, device=device)


def _log_prob_call(obj: Any, name: str, rng: np.random.Generator) -> tuple[Any, int]:
    """A function (theta, x) -> log q(θ_n | x_n) of shape (n,) for one estimator, and its chunk."""
    _refuse_unnormalised(obj, name)
    if hasattr(obj, "posterior_estimator"):  # sbi DirectPosterior: prior-support normalisation
        est = obj.posterior_estimator

        def sbi_posterior(theta: np.ndarray, x: np.ndarray) -> Any:
            # the leakage correction estimates each x's in-prior mass by sampling: seed it
            torch = import_torch("scoring sbi posteriors")
            with torch.random.fork_rng(devices=[]), torch.no_grad():
                torch.manual_seed(int(rng.integers(2**63)))
                return obj.log_prob_batched(_torch_like(est, theta), _torch_like(est, x))

        return sbi_posterior, SBI_CHUNK
    if hasattr(obj, "net") and hasattr(obj, "log_prob") and hasattr(obj, "input_shape"):

        def sbi_estimator(theta: np.ndarray, x: np.ndarray) -> Any:
            torch = import_torch("scoring sbi density estimators")
            with torch.no_grad():
                t = _torch_like(obj, theta).unsqueeze(0)
                return obj.log_prob(t, condition=_torch_like(obj, x))

        return sbi_estimator, LOG_CHUNK
    if hasattr(obj, "_transform") and hasattr(obj, "_embedding_net") and hasattr(obj, "log_prob"):

        def nflows(theta: np.ndarray, x: np.ndarray) -> Any:
            torch = import_torch("scoring nflows flows")
            with torch.no_grad():
                return obj.log_prob(_torch_like(obj, theta), context=_torch_like(obj, x))

        return nflows, LOG_CHUNK
    if _is_torch_module(obj) and not hasattr(obj, "log_prob"):  # a zuko LazyDistribution

        def zuko(theta: np.ndarray, x: np.ndarray) -> Any:
            torch = import_torch("scoring zuko flows")
            with torch.no_grad():
                return obj(_torch_like(obj, x)).log_prob(_torch_like(obj, theta))

        return zuko, LOG_CHUNK
    if callable(getattr(obj, "log_prob", None)):
        return obj.log_prob, LOG_CHUNK
    msg = (
        f"`{name}` must have a normalised `log_prob(theta, x)` for `scoring_rule='log'` (or be an "
        f"sbi posterior, an sbi density estimator, an nflows or a zuko flow); got {type(obj).__name__}."
    )
    raise TypeError(msg)


def check_log_density(obj: Any, name: str) -> None:
    """Refuse at once, naming the argument ``name``, an object with no normalised log-density."""
    _log_prob_call(obj, name, np.random.default_rng(0))


def log_scores(
    obj: Any, theta: np.ndarray, x: np.ndarray, name: str, rng: np.random.Generator
) -> np.ndarray:
    """log q(θ_n | x_n) for every pair, float64 of shape (n,); −inf allowed, NaN and +inf refused."""
    call, chunk = _log_prob_call(obj, name, rng)
    n = theta.shape[0]
    parts = []
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        out = as_numpy(call(theta[start:stop], x[start:stop]), f"{name}.log_prob(theta, x)")
        out = np.asarray(out, dtype=np.float64).reshape(-1)
        if out.shape[0] != stop - start:
            msg = (
                f"`{name}.log_prob(theta, x)` must return one value per row; got {out.shape[0]} "
                f"values for {stop - start} rows."
            )
            raise ValueError(msg)
        parts.append(out)
    values = np.concatenate(parts)
    bad = np.isnan(values) | (values == np.inf)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        msg = f"`{name}.log_prob(theta, x)` returned {values[i]} at row {i}."
        raise ValueError(msg)
    return values


def replace_neg_inf(scores: np.ndarray, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Replace log q = −inf by a finite stand-in: 1 nat below the smallest finite log-density.

    ``scores`` has shape (n, k), one column per estimator. Returns the finite scores and the count
    of −inf values per column. An estimator whose density is zero at the true θ loses that pair by
    at least one nat against every estimator with a positive density there, and ties with any other
    estimator that is zero there too.
    """
    neg_inf = np.isneginf(scores)
    counts = neg_inf.sum(axis=0).astype(int)
    if not neg_inf.any():
        return scores, counts
    finite = scores[~neg_inf]
    if finite.size == 0:
        msg = (
            f"every log-density of {', '.join(f'`{n}`' for n in names)} is -inf at the "
            "calibration pairs (`theta`, `x`): they lie outside every estimator's support."
        )
        raise ValueError(msg)
    stand_in = float(finite.min()) - 1.0
    listed = ", ".join(f"`{n}`: {c}" for n, c in zip(names, counts, strict=True) if c)
    warnings.warn(
        f"log q(θ | x) = -inf at some pairs ({listed}); each is replaced by {stand_in:.6g}, one nat "
        "below the smallest finite log-density, so that estimator loses the pair.",
        ModelCompareWarning,
        stacklevel=3,
    )
    return np.where(neg_inf, stand_in, scores), counts


def _draw(obj: Any, x: np.ndarray, n: int, rng: np.random.Generator, name: str) -> np.ndarray:
    """Draws of shape (len(x), n, m) from an estimator, seeded from ``rng``."""
    if hasattr(obj, "posterior_estimator") and hasattr(obj, "sample_batched"):  # sbi posterior
        torch = import_torch("sampling sbi posteriors")
        with torch.random.fork_rng(devices=[]), torch.no_grad():
            torch.manual_seed(int(rng.integers(2**63)))
            t = obj.sample_batched(
                (n,), x=_torch_like(obj.posterior_estimator, x), show_progress_bars=False
            )
        out = t.detach().cpu().double().numpy().transpose(1, 0, 2)
    elif not callable(getattr(obj, "sample", None)):
        msg = (
            f"`{name}` must have `sample(x, n, seed)` for `scoring_rule='energy'`; got "
            f"{type(obj).__name__}."
        )
        raise TypeError(msg)
    else:
        out = as_numpy(obj.sample(x, n, seed=int(rng.integers(2**63))), f"{name}.sample")
    out = np.asarray(out, dtype=np.float64)
    if out.ndim == 2 and n == 1:
        out = out[:, None, :]
    if out.ndim != 3 or out.shape[:2] != (x.shape[0], n):
        msg = (
            f"`{name}.sample(x, n, seed)` must return shape ({x.shape[0]}, {n}, m); got "
            f"{out.shape}."
        )
        raise ValueError(msg)
    if not np.isfinite(out).all():
        msg = f"`{name}.sample(x, n, seed)` returned NaN or inf."
        raise ValueError(msg)
    return out


def energy_from_draws(draws: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """−ES(q_n, θ_n) from draws (n, S, m) and θ (n, m), with the unbiased second term.

    ES = (1/S) Σ_s ‖Y_s − θ‖ − 1/(2S(S−1)) Σ_{s≠s'} ‖Y_s − Y_s'‖ (Gneiting & Raftery 2007, eq. 22,
    with the U-statistic for E‖Y − Y'‖). Rows are processed in blocks of at most
    :data:`ENERGY_BLOCK` distance entries.
    """
    n, s, _ = draws.shape
    if s < 2:
        msg = f"the energy score needs at least 2 draws per x; got `n_posterior_samples`={s}."
        raise ValueError(msg)
    rows = max(1, ENERGY_BLOCK // (s * s))
    out = np.empty(n)
    for start in range(0, n, rows):
        y = draws[start : start + rows]
        t = theta[start : start + rows]
        first = np.linalg.norm(y - t[:, None, :], axis=2).mean(axis=1)
        sq = np.einsum("nsm,nsm->ns", y, y)
        gram = np.einsum("nsm,nrm->nsr", y, y)
        d2 = np.maximum(sq[:, :, None] + sq[:, None, :] - 2.0 * gram, 0.0)
        spread = np.sqrt(d2).sum(axis=(1, 2)) / (2.0 * s * (s - 1))  # diagonal entries are 0
        out[start : start + rows] = spread - first
    return out


def energy_scores(
    obj: Any,
    theta: np.ndarray,
    x: np.ndarray,
    scale: np.ndarray,
    n_posterior_samples: int,
    rng: np.random.Generator,
    name: str,
    n_jobs: int | None = None,
) -> np.ndarray:
    """−ES of one estimator at every pair, θ and draws divided by ``scale`` per coordinate."""
    n = theta.shape[0]
    rows = max(1, min(n, ENERGY_BLOCK // (n_posterior_samples**2), 4096))
    starts = list(range(0, n, rows))
    children = spawn(rng, len(starts))

    def block(start: int, child: np.random.Generator) -> np.ndarray:
        sl = slice(start, start + rows)
        draws = _draw(obj, x[sl], n_posterior_samples, child, name)
        if draws.shape[2] != theta.shape[1]:
            msg = (
                f"`{name}.sample` draws have {draws.shape[2]} coordinates but `theta` has "
                f"{theta.shape[1]} columns."
            )
            raise ValueError(msg)
        return energy_from_draws(draws / scale, theta[sl] / scale)

    if n_jobs is None or n_jobs == 1 or len(starts) == 1:
        parts = [block(s, c) for s, c in zip(starts, children, strict=True)]
    else:
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=n_jobs)(
            delayed(block)(s, c) for s, c in zip(starts, children, strict=True)
        )
    return np.concatenate(parts)


def calibration_scale(theta: np.ndarray) -> np.ndarray:
    """The per-coordinate standard deviation (ddof=1) of the calibration θ; 1 where it is zero."""
    sd = theta.std(axis=0, ddof=1) if theta.shape[0] > 1 else np.ones(theta.shape[1])
    return np.where((sd > 0) & np.isfinite(sd), sd, 1.0)
