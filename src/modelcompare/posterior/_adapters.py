"""Adapters that expose zuko flows, nflows flows and sbi posteriors through the flow protocol.

All three are duck-typed (no import of nflows or sbi is needed); torch is imported lazily. Inputs are
numpy arrays (or tensors); outputs are float64 numpy arrays. Every adapter offers ``to_latent``,
``latent_and_logdet``, ``log_prob`` (the library's own density, used by :func:`check_flow`) and
``sample(x, n, seed) -> (N, n, m)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.torch_support import import_torch
from modelcompare._foundation.validation import check_int, check_samples
from modelcompare.posterior._flows import _pair_iv

__all__ = ["NflowsFlow", "SbiFlow", "ZukoFlow", "as_flow"]


class _TorchFlow:
    """Shared torch plumbing: dtype/device of the wrapped module, no-grad numpy conversion."""

    module: Any

    def _torch(self) -> Any:
        return import_torch("the zuko/nflows/sbi flow adapters")

    def _like(self, arr: np.ndarray) -> Any:
        torch = self._torch()
        try:
            p = next(iter(self.module.parameters()))
            dtype, device = p.dtype, p.device
        except (StopIteration, AttributeError, TypeError):
            dtype, device = torch.get_default_dtype(), "cpu"
        return torch.as_tensor(arr, dtype=dtype, device=device)

    @staticmethod
    def _np(t: Any) -> np.ndarray:
        return t.detach().cpu().double().numpy()

    def to_latent(self, theta: Any, x: Any) -> np.ndarray:
        """z = T⁻¹(θ; x), shape ``(N, m)``."""
        return self.latent_and_logdet(theta, x)[0]

    def latent_and_logdet(self, theta: Any, x: Any) -> tuple[np.ndarray, np.ndarray]:
        """z and log|det ∂z/∂θ| for each row."""
        theta, x = _pair_iv(theta, x)
        torch = self._torch()
        with torch.no_grad():
            z, ladj = self._latent(self._like(theta), self._like(x))
        return self._np(z), self._np(ladj).reshape(-1)

    def sample(self, x: Any, n: int, seed: SeedLike = None) -> np.ndarray:
        """``n`` draws from q(θ | x) for each row of x: shape ``(N, n, m)``."""
        x = check_samples(x, "x", min_samples=1)
        n = check_int(n, "n", low=1)
        rng, _ = check_seed(seed)
        torch = self._torch()
        with torch.random.fork_rng(devices=[]), torch.no_grad():
            torch.manual_seed(int(rng.integers(2**63)))
            out = self._sample(self._like(x), n)
        return self._np(out)


class ZukoFlow(_TorchFlow):
    """Wrap a conditional zuko flow (a ``LazyDistribution`` such as ``zuko.flows.MAF``).

    ``flow(x)`` is a ``NormalizingFlow`` whose ``transform`` maps the sample space to the base space,
    so z = ``flow(x).transform(θ)`` is the normalising direction; the base must be N(0, I) (zuko's
    default ``DiagNormal(0, 1)``).

    Parameters
    ----------
    flow : zuko.lazy.LazyDistribution
        Called with a batch of contexts, returns a batched ``NormalizingFlow``.
    embedding : callable, optional
        Applied to x before the flow (e.g. a summary network trained with it).
    """

    def __init__(self, flow: Any, embedding: Any = None) -> None:
        self.module = flow
        self.embedding = embedding

    def _dist(self, x: Any) -> Any:
        return self.module(x if self.embedding is None else self.embedding(x))

    def _latent(self, theta: Any, x: Any) -> tuple[Any, Any]:
        return self._dist(x).transform.call_and_ladj(theta)

    def log_prob(self, theta: Any, x: Any) -> np.ndarray:
        """zuko's own log q(θ | x)."""
        theta, x = _pair_iv(theta, x)
        torch = self._torch()
        with torch.no_grad():
            return self._np(self._dist(self._like(x)).log_prob(self._like(theta)))

    def _sample(self, x: Any, n: int) -> Any:
        return self._dist(x).sample((n,)).transpose(0, 1)


class NflowsFlow(_TorchFlow):
    """Wrap an ``nflows.flows.Flow`` (or sbi's pyknos copy).

    z, log|det| = ``flow._transform(θ, context=flow._embedding_net(x))``: the context is embedded
    exactly as ``flow.log_prob`` does it.
    """

    def __init__(self, flow: Any) -> None:
        self.module = flow

    def _latent(self, theta: Any, x: Any) -> tuple[Any, Any]:
        return self.module._transform(theta, context=self.module._embedding_net(x))

    def log_prob(self, theta: Any, x: Any) -> np.ndarray:
        """nflows' own log q(θ | x)."""
        theta, x = _pair_iv(theta, x)
        torch = self._torch()
        with torch.no_grad():
            return self._np(self.module.log_prob(self._like(theta), context=self._like(x)))

    def _sample(self, x: Any, n: int) -> Any:
        return self.module.sample(n, context=x)  # nflows: (N, n, m)


class SbiFlow(_TorchFlow):
    """Wrap an sbi posterior (``DirectPosterior``) or its density estimator.

    sbi's ``NFlowsFlow.inverse_transform(θ, x)`` passes the **raw** x to the flow's transform, while
    its ``log_prob`` first applies the embedding net, which holds the x-standardising layer of the
    default NPE (``z_score_x="independent"``). Its "latent" is therefore not the latent the density
    uses. This adapter embeds the condition itself: z = ``net._transform(θ, context=net._embedding_net(x))``
    for nflows-backed estimators, and z = ``net(embedding_net(x)).transform(θ)`` for zuko-backed ones.
    :func:`check_flow` confirms it against the estimator's own ``log_prob``.

    Notes
    -----
    sbi's ``DirectPosterior`` samples by rejection inside the prior support; this adapter samples the
    untruncated estimator, which is the distribution the flow PIT refers to. With bounded priors and
    noticeable leakage, SBC/TARP on ``posterior.sample`` describe a slightly different distribution.
    """

    def __init__(self, posterior: Any) -> None:
        est = getattr(posterior, "posterior_estimator", posterior)
        self.estimator = est
        net = getattr(est, "net", None)
        if net is None:
            msg = "`posterior` must be an sbi posterior or density estimator with a `.net` flow."
            raise TypeError(msg)
        self.module = net
        if hasattr(net, "_transform") and hasattr(net, "_embedding_net"):
            self.kind = "nflows"
        else:
            self.kind = "zuko"
            emb = getattr(est, "embedding_net", None)
            self._embedding = emb if emb is not None else getattr(est, "_embedding_net", None)

    def _latent(self, theta: Any, x: Any) -> tuple[Any, Any]:
        if self.kind == "nflows":
            return self.module._transform(theta, context=self.module._embedding_net(x))
        ctx = x if self._embedding is None else self._embedding(x)
        return self.module(ctx).transform.call_and_ladj(theta)

    def log_prob(self, theta: Any, x: Any) -> np.ndarray:
        """The estimator's own log q(θ | x) (sbi signature ``log_prob(input, condition)``)."""
        theta, x = _pair_iv(theta, x)
        torch = self._torch()
        with torch.no_grad():
            lp = self.estimator.log_prob(self._like(theta).unsqueeze(0), condition=self._like(x))
        return self._np(lp).reshape(-1)

    def _sample(self, x: Any, n: int) -> Any:
        return self.estimator.sample((n,), condition=x).transpose(0, 1)


def as_flow(obj: Any) -> Any:
    """Return ``obj`` if it already has ``to_latent``; otherwise wrap a zuko, nflows or sbi object.

    Detection: a ``posterior_estimator`` attribute or an sbi estimator (``.net`` plus
    ``inverse_transform``) → :class:`SbiFlow`; ``_transform`` and ``_embedding_net`` →
    :class:`NflowsFlow`; a callable torch module returning a distribution with ``transform`` →
    :class:`ZukoFlow`.
    """
    if hasattr(obj, "to_latent"):
        return obj
    if hasattr(obj, "posterior_estimator") or (
        hasattr(obj, "net") and hasattr(obj, "inverse_transform")
    ):
        return SbiFlow(obj)
    if hasattr(obj, "_transform") and hasattr(obj, "_embedding_net"):
        return NflowsFlow(obj)
    if callable(obj) and hasattr(obj, "parameters"):
        return ZukoFlow(obj)
    msg = f"Cannot adapt {type(obj).__name__} to the flow protocol (needs `to_latent`)."
    raise TypeError(msg)
