"""Adapters that expose zuko flows, nflows flows and sbi estimators through the flow protocol.

All of them are duck-typed (nothing imports zuko, nflows or sbi); torch is imported lazily. Inputs
are numpy arrays (or tensors); outputs are float64 numpy arrays. Every adapter offers
``to_latent``, ``latent_and_logdet``, ``log_prob`` (the estimator's own density, used by
:func:`check_flow`), ``sample(x, n, seed) -> (N, n, m)``, ``n_params`` and ``dtype``.

The PIT maps the latent z = T⁻¹(θ; x) through the standard normal CDF, so the adapters accept only
flows whose base distribution is N(0, I_m) with m the number of parameters, and refuse any other
base (a mixture, a box) with a message naming it. sbi's mixture density network has no base at
all; :class:`SbiFlow` gives it the exact Rosenblatt transform of its Gaussian mixture instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import log_ndtr, logsumexp, ndtri_exp

from modelcompare._foundation.seeds import SeedLike, check_seed
from modelcompare._foundation.torch_support import import_torch
from modelcompare._foundation.validation import check_int, check_samples
from modelcompare.posterior._flows._flows import check_pairs

__all__ = [
    "NflowsFlow",
    "SbiFlow",
    "ZukoFlow",
    "adapt_flow",
    "adapt_sampler",
    "as_flow",
    "is_estimator",
]

_LOG_2PI = float(np.log(2 * np.pi))
#: what third-party base distributions raise when they cannot be evaluated without a context
_BASE_ERRORS = (
    ValueError,
    RuntimeError,
    TypeError,
    NotImplementedError,
    IndexError,
    AttributeError,
)

_WHY_STANDARD_NORMAL = (
    "The PIT maps the latent z = T⁻¹(θ; x) through the standard normal CDF, Φ(z_i); those values "
    "are uniform, and the diagnostics valid, only when the flow maps q(θ | x) onto N(0, I_m)."
)

_BASE_HINTS = {
    "MADEMoG": (
        "sbi's `made` models q(θ | x) as an autoregressive mixture of Gaussians (MADE-MoG), not as "
        "a flow onto N(0, I). Train `maf`, `nsf`, `mdn` or a `zuko_*` flow with a Gaussian base."
    ),
    "BoxUniform": (
        "zuko's NCSF (sbi's `zuko_ncsf`) maps circular parameters onto a uniform distribution on a "
        "box. Train a flow with a Gaussian base (`zuko_nsf`, `zuko_maf`) for these diagnostics."
    ),
}


def _describe(base: Any) -> str:
    text = repr(base)
    if len(text) > 100 or "\n" in text or text.startswith("<"):
        return type(base).__name__
    return text


def _hint(base: Any) -> str:
    for cls in type(base).__mro__:
        for key, hint in _BASE_HINTS.items():
            if key in cls.__name__:
                return " " + hint
    return ""


def _base_width(base: Any) -> int | None:
    """The number of coordinates of a torch or nflows base distribution, where it says."""
    shape = getattr(base, "event_shape", None)
    if shape is None or len(shape) == 0:
        shape = getattr(base, "_shape", None)
    if shape is None or len(shape) == 0:
        return None
    return int(np.prod(tuple(shape)))


def _probe_points(m: int) -> np.ndarray:
    """Five fixed points of R^m at which a base density is compared with N(0, I_m)."""
    return np.stack(
        [
            np.zeros(m),
            np.full(m, 0.5),
            np.where(np.arange(m) % 2 == 0, -1.5, 1.0),
            np.linspace(-3.0, 2.5, m),
            2.5 * np.eye(1, m).ravel(),
        ]
    )


class _TorchFlow:
    """Shared torch plumbing: dtype/device of the wrapped module, no-grad numpy conversion."""

    module: Any
    n_params: int | None = None
    #: the width of x the estimator is conditioned on, where it says (sbi's ``condition_shape``)
    n_conditions: int | None = None

    def _torch(self) -> Any:
        return import_torch("the zuko/nflows/sbi flow adapters")

    def _param(self) -> Any:
        try:
            return next(iter(self.module.parameters()))
        except (StopIteration, AttributeError, TypeError):
            return None

    @property
    def dtype(self) -> np.dtype:
        """The floating-point precision the wrapped network computes in (e.g. ``float32``)."""
        p = self._param()
        torch = self._torch()
        dtype = torch.get_default_dtype() if p is None else p.dtype
        return np.dtype(str(dtype).removeprefix("torch."))

    def _like(self, arr: np.ndarray) -> Any:
        torch = self._torch()
        p = self._param()
        dtype, device = (torch.get_default_dtype(), "cpu") if p is None else (p.dtype, p.device)
        return torch.as_tensor(arr, dtype=dtype, device=device)

    @staticmethod
    def _np(t: Any) -> np.ndarray:
        return t.detach().cpu().double().numpy()

    def _check_base(self, base: Any, m: int | None, owner: str) -> None:
        """Refuse a base other than N(0, I_m); ``m`` is the expected width (None: the base's own)."""
        width = _base_width(base)
        if m is not None and width is not None and width != m:
            msg = (
                f"{owner} models {m} parameters but its base distribution "
                f"{_describe(base)} has {width} coordinates. {_WHY_STANDARD_NORMAL}"
            )
            raise ValueError(msg)
        m = width if m is None else m
        if m is None:
            msg = (
                f"{owner}'s base distribution is {_describe(base)}, which does not say its width, "
                f"so it cannot be checked to be a standard normal N(0, I_m). "
                f"{_WHY_STANDARD_NORMAL}{_hint(base)}"
            )
            raise TypeError(msg)
        pts = _probe_points(m)
        reference = -0.5 * np.sum(pts**2, axis=1) - 0.5 * m * _LOG_2PI
        batch = tuple(getattr(base, "batch_shape", ()))
        torch = self._torch()
        try:
            with torch.no_grad():
                lp = base.log_prob(self._like(pts).reshape(len(pts), *([1] * len(batch)), m))
            lp = self._np(lp).reshape(len(pts), -1)
            deviation = float(np.max(np.abs(lp - reference[:, None])))
        except _BASE_ERRORS as exc:  # a conditional base, a support check, a shape error
            detail = f"evaluating its log-density on R^{m} failed ({type(exc).__name__}: {exc})"
            deviation = None
        else:
            detail = f"its log-density differs from N(0, I_{m})'s by up to {deviation:.3g}"
        if deviation is None or not deviation <= 1e-4 * (1.0 + np.max(np.abs(reference))):
            msg = (
                f"{owner}'s base distribution is {_describe(base)}, not a standard normal "
                f"N(0, I_{m}): {detail}. {_WHY_STANDARD_NORMAL}{_hint(base)}"
            )
            raise TypeError(msg)
        self.n_params = m

    def _check_width(self, theta: np.ndarray) -> None:
        if self.n_params is not None and theta.shape[1] != self.n_params:
            msg = (
                f"`theta` has {theta.shape[1]} columns but the flow's base is "
                f"N(0, I_{self.n_params})."
            )
            raise ValueError(msg)

    def _check_condition(self, x: np.ndarray) -> None:
        """Refuse an ``x`` whose width is not the one the estimator was trained on."""
        if self.n_conditions is not None and x.shape[1] != self.n_conditions:
            msg = (
                f"`x` has {x.shape[1]} columns but the estimator is conditioned on observations "
                f"of width {self.n_conditions}; pass x with the columns it was trained on."
            )
            raise ValueError(msg)

    def to_latent(self, theta: Any, x: Any) -> np.ndarray:
        """Return z = T⁻¹(θ; x), shape ``(N, m)``."""
        return self.latent_and_logdet(theta, x)[0]

    def latent_and_logdet(self, theta: Any, x: Any) -> tuple[np.ndarray, np.ndarray]:
        """Return z and log|det ∂z/∂θ| for each row."""
        theta, x = check_pairs(theta, x)
        self._check_width(theta)
        self._check_condition(x)
        torch = self._torch()
        with torch.no_grad():
            z, ladj = self._latent(self._like(theta), self._like(x))
        return self._np(z), self._np(ladj).reshape(-1)

    def sample(self, x: Any, n: int, seed: SeedLike = None) -> np.ndarray:
        """Draw ``n`` samples from q(θ | x) for each row of x: shape ``(N, n, m)``."""
        x = check_samples(x, "x", min_samples=1)
        self._check_condition(x)
        n = check_int(n, "n", low=1)
        rng, _ = check_seed(seed)
        torch = self._torch()
        with torch.random.fork_rng(devices=[]), torch.no_grad():
            torch.manual_seed(int(rng.integers(2**63)))
            out = self._sample(self._like(x), n)
        return self._np(out)


class ZukoFlow(_TorchFlow):
    """Wrap a conditional zuko flow (a ``LazyDistribution`` such as ``zuko.flows.NSF``).

    ``flow(x)`` is a ``NormalizingFlow`` whose ``transform`` maps the sample space to the base
    space, so z = ``flow(x).transform(θ)`` is the normalising direction. The base must be N(0, I)
    (zuko's default ``DiagNormal(0, 1)``); any other base raises a ``TypeError``.

    Parameters
    ----------
    flow : zuko.lazy.LazyDistribution
        Called with a batch of contexts, returns a batched ``NormalizingFlow``.
    embedding : callable, optional
        Applied to x before the flow (e.g. a summary network trained with it).

    Raises
    ------
    TypeError
        If the flow's base is not a standard normal (a ``BoxUniform``, as in ``zuko.flows.NCSF``,
        or a scaled normal), or if ``flow(x)`` is not a normalising flow.

    Examples
    --------
    >>> import numpy as np, torch, zuko
    >>> from modelcompare import ZukoFlow, check_flow
    >>> _ = torch.manual_seed(0)
    >>> flow = ZukoFlow(zuko.flows.NSF(2, 3, transforms=2, hidden_features=[8]))
    >>> x = np.random.default_rng(0).normal(size=(5, 3))
    >>> theta = flow.sample(x, 1, seed=1)[:, 0]
    >>> flow.to_latent(theta, x).shape
    (5, 2)
    >>> bool(check_flow(flow, theta, x).passed)
    True
    """

    def __init__(self, flow: Any, embedding: Any = None) -> None:
        if not callable(flow):
            msg = (
                "`flow` must be a conditional zuko flow (a LazyDistribution, called with x); "
                f"got {type(flow).__name__}."
            )
            raise TypeError(msg)
        if embedding is not None and not callable(embedding):
            msg = (
                f"`embedding` must be callable (a module applied to x) or None; got {embedding!r}."
            )
            raise TypeError(msg)
        self.module = flow
        self.embedding = embedding
        self._base_checked = False
        base_fn = getattr(flow, "base", None)
        if callable(base_fn):
            try:
                base = base_fn(None)
            except _BASE_ERRORS:  # a conditional base: checked on the first batch instead
                base = None
            if base is not None:
                self._check_base(base, None, f"The zuko flow {type(flow).__name__}")
                self._base_checked = True

    def _dist(self, x: Any) -> Any:
        dist = self.module(x if self.embedding is None else self.embedding(x))
        if not self._base_checked:
            if not (hasattr(dist, "transform") and hasattr(dist, "base")):
                msg = (
                    f"{type(self.module).__name__}(x) returned {type(dist).__name__}, not a "
                    "normalising flow with a `transform` and a `base`."
                )
                raise TypeError(msg)
            self._check_base(dist.base, None, f"The zuko flow {type(self.module).__name__}")
            self._base_checked = True
        return dist

    def _latent(self, theta: Any, x: Any) -> tuple[Any, Any]:
        return self._dist(x).transform.call_and_ladj(theta)

    def log_prob(self, theta: Any, x: Any) -> np.ndarray:
        """zuko's own log q(θ | x)."""
        theta, x = check_pairs(theta, x)
        torch = self._torch()
        with torch.no_grad():
            return self._np(self._dist(self._like(x)).log_prob(self._like(theta)))

    def _sample(self, x: Any, n: int) -> Any:
        return self._dist(x).sample((n,)).transpose(0, 1)


class NflowsFlow(_TorchFlow):
    """Wrap an ``nflows.flows.Flow`` (or sbi's copy of one).

    z, log|det| = ``flow._transform(θ, context=flow._embedding_net(x))``: the context is embedded
    exactly as ``flow.log_prob`` does it. The flow's ``_distribution`` must be nflows'
    ``StandardNormal``.

    Parameters
    ----------
    flow : nflows.flows.Flow
        A conditional flow (``context=`` in its ``log_prob``).

    Raises
    ------
    TypeError
        If the base distribution is not N(0, I), e.g. a ``MADEMoG`` mixture.

    Examples
    --------
    >>> import numpy as np, torch
    >>> from nflows.distributions import StandardNormal
    >>> from nflows.flows import Flow
    >>> from nflows.transforms import MaskedAffineAutoregressiveTransform
    >>> from modelcompare import NflowsFlow, pit
    >>> _ = torch.manual_seed(0)
    >>> maf = MaskedAffineAutoregressiveTransform(2, hidden_features=8, context_features=3)
    >>> flow = NflowsFlow(Flow(maf, StandardNormal([2])))
    >>> x = np.random.default_rng(0).normal(size=(4, 3))
    >>> pit(flow, flow.sample(x, 1, seed=0)[:, 0], x).shape
    (4, 2)
    """

    def __init__(self, flow: Any) -> None:
        self.module = flow
        base = getattr(flow, "_distribution", None)
        if base is None or not hasattr(flow, "_transform"):
            msg = (
                "`flow` must be an nflows Flow (a base distribution and a transform); "
                f"got {type(flow).__name__}."
            )
            raise TypeError(msg)
        self._check_base(base, None, f"The nflows flow {type(flow).__name__}")

    def _latent(self, theta: Any, x: Any) -> tuple[Any, Any]:
        return self.module._transform(theta, context=self.module._embedding_net(x))

    def log_prob(self, theta: Any, x: Any) -> np.ndarray:
        """nflows' own log q(θ | x)."""
        theta, x = check_pairs(theta, x)
        torch = self._torch()
        with torch.no_grad():
            return self._np(self.module.log_prob(self._like(theta), context=self._like(x)))

    def _sample(self, x: Any, n: int) -> Any:
        return self.module.sample(n, context=x)  # nflows: (N, n, m)


def _mixture_rosenblatt(
    log_weights: np.ndarray, means: np.ndarray, precisions: np.ndarray, theta: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The Rosenblatt transform of a Gaussian mixture, in the coordinate order θ_1, θ_2, ...

    z_i = Φ⁻¹(F(θ_i | θ_<i)), with F the conditional CDF of the mixture Σ_k w_k N(μ_k, P_k⁻¹): a
    mixture of the components' conditional Gaussians, weighted by w_k N(θ_<i; μ_k, Σ_k). Returns z
    of shape ``(N, m)`` and log|det ∂z/∂θ| = Σ_i [log f(θ_i | θ_<i) − log φ(z_i)] of shape ``(N,)``
    (the Jacobian is triangular with diagonal f(θ_i | θ_<i) / φ(z_i)).

    Shapes: ``log_weights`` (N, K), ``means`` (N, K, m), ``precisions`` (N, K, m, m), ``theta``
    (N, m). Each component's conditional means and standard deviations come from a Cholesky
    factor of its precision in reversed order, P = J M Mᵀ J: then L = J M⁻ᵀ J is the lower Cholesky
    factor of the covariance, u = L⁻¹(θ − μ) = J Mᵀ J (θ − μ) is the component's own Rosenblatt
    transform and L_ii its conditional standard deviations. Tails are computed in log space (log Φ
    and its inverse), so z stays finite far into them.
    """
    m = theta.shape[1]
    rev = np.linalg.cholesky(precisions[..., ::-1, ::-1])  # M, lower
    diff = (theta[:, None, :] - means)[..., ::-1]
    u = np.einsum("...ji,...j->...i", rev, diff)[..., ::-1]
    log_sd = -np.log(np.diagonal(rev, axis1=-2, axis2=-1))[..., ::-1]
    log_f = -0.5 * u**2 - 0.5 * _LOG_2PI - log_sd  # component conditional densities of θ_i | θ_<i
    prefix = np.concatenate(
        [np.zeros_like(log_f[..., :1]), np.cumsum(log_f, axis=-1)[..., :-1]], -1
    )
    log_w = log_weights[..., None] + prefix
    log_w = log_w - logsumexp(log_w, axis=1, keepdims=True)
    log_cdf = logsumexp(log_w + log_ndtr(u), axis=1)
    log_sf = logsumexp(log_w + log_ndtr(-u), axis=1)
    z = np.where(log_cdf < log_sf, ndtri_exp(np.minimum(log_cdf, 0.0)), -ndtri_exp(log_sf))
    log_dens = logsumexp(log_w + log_f, axis=1)
    logdet = np.sum(log_dens + 0.5 * z**2 + 0.5 * _LOG_2PI, axis=1)
    return z.reshape(-1, m), logdet


class SbiFlow(_TorchFlow):
    """Wrap an sbi posterior (``DirectPosterior``) or its density estimator.

    Three estimators are supported, each with its exact latent:

    - nflows-backed flows (sbi's default ``maf``, ``nsf``): z = ``net._transform(θ,
      context=net._embedding_net(x))``. sbi's own ``inverse_transform(θ, x)`` passes the **raw** x
      to the transform, while its ``log_prob`` first applies the embedding net, which holds the
      x-standardising layer (``z_score_x="independent"``); its "latent" is therefore not the latent
      the density uses, and this adapter embeds the condition itself.
    - zuko-backed flows (``zuko_maf``, ``zuko_nsf``, ...): z = ``net(embedding_net(x)).transform(θ)``.
    - the mixture density network (``mdn``, a ``MixtureDensityEstimator``): it has no base
      distribution, but its conditional Gaussian mixture q(θ | x) = Σ_k w_k(x) N(μ_k(x), Σ_k(x))
      has an exact triangular map onto N(0, I), the Rosenblatt transform
      z_i = Φ⁻¹(F(θ_i | θ_<i, x)), computed in float64 after the estimator's θ-standardisation.

    Flows whose base is not N(0, I) (``made``'s mixture, ``zuko_ncsf``'s box) and estimators
    without an exact latent (flow matching, score estimators) raise a ``TypeError``.
    :func:`check_flow` confirms the latent against the estimator's own ``log_prob``.

    Parameters
    ----------
    posterior : sbi posterior or density estimator
        Anything with a ``posterior_estimator`` attribute, or the estimator itself (an object with
        a ``net``).

    Raises
    ------
    TypeError
        If the estimator is none of the three kinds above, or its base is not N(0, I).
    ValueError
        If the base's width differs from the estimator's number of parameters.

    Notes
    -----
    sbi's ``DirectPosterior`` samples by rejection inside the prior support; this adapter samples
    the untruncated estimator, which is the distribution the flow PIT refers to. With bounded
    priors and noticeable leakage, SBC/TARP on ``posterior.sample`` describe a slightly different
    distribution.

    For the MDN the transform uses the precision matrices P_k that sbi's ``log_prob`` puts in its
    quadratic form. sbi adds ε = 1e-4 to their diagonal there but normalises each component with
    the factor before that addition, so its ``log_prob`` is a mixture with weights w_k e^(−c_k),
    c_k ≈ ε tr(Σ_k) / 2 in standardised units: it differs from the density of this transform by at
    most max_k c_k. That is about 1e-5 for a posterior much narrower than its prior, but ε m / 2
    (1e-4 for m = 2) for one as wide as the standardised prior, such as an MDN early in training:
    give :func:`check_flow` an ``atol`` above that bound for such MDNs.

    Examples
    --------
    >>> import numpy as np, torch
    >>> from sbi.neural_nets import posterior_nn
    >>> from modelcompare import SbiFlow, check_flow, pit
    >>> _ = torch.manual_seed(0)
    >>> theta_t = torch.randn(100, 2)
    >>> x_t = theta_t + 0.3 * torch.randn(100, 2)
    >>> mdn = posterior_nn(model="mdn", hidden_features=8, num_components=2)(theta_t, x_t)
    >>> flow = SbiFlow(mdn)
    >>> flow.kind
    'mdn'
    >>> x = x_t[:5].numpy()
    >>> theta = flow.sample(x, 1, seed=0)[:, 0]
    >>> pit(flow, theta, x).shape
    (5, 2)

    Untrained, each component is about N(0, I_2) in standardised units, so sbi's ``log_prob`` is
    off by about ε = 1e-4 (see the notes):

    >>> bool(check_flow(flow, theta, x, atol=2e-4).passed)
    True
    """

    def __init__(self, posterior: Any) -> None:
        est = getattr(posterior, "posterior_estimator", posterior)
        self.estimator = est
        net = getattr(est, "net", None)
        if net is None:
            msg = "`posterior` must be an sbi posterior or density estimator with a `.net` flow."
            raise TypeError(msg)
        shape = getattr(est, "input_shape", None)
        m = None if shape is None else int(np.prod(tuple(shape)))
        owner = f"The sbi estimator {type(est).__name__}"
        cond = getattr(est, "condition_shape", None)
        self.n_conditions = None if cond is None else int(np.prod(tuple(cond)))
        self.module = net
        if hasattr(est, "get_uncorrected_mog"):
            self.kind = "mdn"
            self.module = est
            self.n_params = m if m is not None else getattr(net, "features", None)
        elif hasattr(net, "_transform") and hasattr(net, "_embedding_net"):
            self.kind = "nflows"
            self._check_base(getattr(net, "_distribution", None), m, owner)
        elif hasattr(net, "transform") and callable(getattr(net, "base", None)):
            self.kind = "zuko"
            emb = getattr(est, "embedding_net", None)
            self._embedding = emb if emb is not None else getattr(est, "_embedding_net", None)
            self._check_base(net.base(None), m, owner)
        else:
            msg = (
                f"{owner} (network {type(net).__name__}) is neither a normalising flow "
                "(nflows or zuko) nor a mixture density network, so it has no exact latent "
                f"z = T⁻¹(θ; x). {_WHY_STANDARD_NORMAL} Flow-matching and score estimators "
                "define q(θ | x) through an ODE or SDE and are not supported."
            )
            raise TypeError(msg)

    def _latent(self, theta: Any, x: Any) -> tuple[Any, Any]:
        if self.kind == "nflows":
            return self.module._transform(theta, context=self.module._embedding_net(x))
        ctx = x if self._embedding is None else self._embedding(x)
        return self.module(ctx).transform.call_and_ladj(theta)

    def latent_and_logdet(self, theta: Any, x: Any) -> tuple[np.ndarray, np.ndarray]:
        """Return z and log|det ∂z/∂θ| for each row (the Rosenblatt transform for an MDN)."""
        if self.kind != "mdn":
            return super().latent_and_logdet(theta, x)
        theta, x = check_pairs(theta, x)
        self._check_width(theta)
        self._check_condition(x)
        torch = self._torch()
        est = self.estimator
        with torch.no_grad():
            cond = self._like(x)
            mog = est.get_uncorrected_mog(cond)
            raw = torch.as_tensor(theta, dtype=torch.float64, device=cond.device)
            to_std = getattr(est, "_transform_input", None)
            std = raw if to_std is None else to_std(raw)
            ladj = getattr(est, "_log_det_jacobian_forward", None)
            ladj = torch.zeros(()) if ladj is None else ladj(raw, std)
            log_w = torch.log_softmax(mog.logits.double(), dim=-1)
        z, logdet = _mixture_rosenblatt(
            self._np(log_w), self._np(mog.means), self._np(mog.precisions), self._np(std)
        )
        return z, logdet + self._np(ladj).reshape(-1)

    def log_prob(self, theta: Any, x: Any) -> np.ndarray:
        """The estimator's own log q(θ | x) (sbi signature ``log_prob(input, condition)``)."""
        theta, x = check_pairs(theta, x)
        self._check_width(theta)
        self._check_condition(x)
        torch = self._torch()
        with torch.no_grad():
            lp = self.estimator.log_prob(self._like(theta).unsqueeze(0), condition=self._like(x))
        return self._np(lp).reshape(-1)

    def _sample(self, x: Any, n: int) -> Any:
        return self.estimator.sample((n,), condition=x).transpose(0, 1)


def _is_sbi_estimator(obj: Any) -> bool:
    return (
        hasattr(obj, "net")
        and hasattr(obj, "log_prob")
        and (hasattr(obj, "inverse_transform") or hasattr(obj, "input_shape"))
    )


def as_flow(obj: Any) -> Any:
    """Return ``obj`` if it already has ``to_latent``; otherwise wrap a zuko, nflows or sbi object.

    Detection: a ``posterior_estimator`` attribute or an sbi estimator (a ``.net`` and a
    ``log_prob`` plus ``inverse_transform`` or ``input_shape``) → :class:`SbiFlow`;
    ``_transform`` and ``_embedding_net`` → :class:`NflowsFlow`; a callable torch module returning
    a normalising flow → :class:`ZukoFlow`. Every wrapped flow's base is checked to be N(0, I_m),
    the distribution the PIT's Φ assumes.

    Parameters
    ----------
    obj : object
        A flow with ``to_latent`` (returned as is), a zuko flow, an nflows flow, an sbi posterior
        or an sbi density estimator.

    Returns
    -------
    object
        An object with ``to_latent``, ``log_prob`` and ``sample``.

    Raises
    ------
    TypeError
        If ``obj`` cannot be adapted, or its base distribution is not a standard normal (sbi's
        ``made`` and ``zuko_ncsf``, for example).
    ValueError
        If the base is standard normal but of the wrong width.

    Examples
    --------
    >>> import numpy as np, torch, zuko
    >>> from modelcompare import as_flow, pit
    >>> _ = torch.manual_seed(0)
    >>> flow = as_flow(zuko.flows.MAF(2, 1, transforms=1, hidden_features=[8]))
    >>> x = np.linspace(-1, 1, 6)[:, None]
    >>> p = pit(flow, flow.sample(x, 1, seed=0)[:, 0], x)
    >>> p.shape, bool(((p > 0) & (p < 1)).all())
    ((6, 2), True)
    >>> try:
    ...     as_flow(zuko.flows.NCSF(2, 1))
    ... except TypeError as err:
    ...     print(str(err)[:68])
    The zuko flow NCSF's base distribution is BoxUniform(low: torch.Size
    """
    return adapt_flow(obj, "obj")


def adapt_flow(obj: Any, name: str = "flow") -> Any:
    """:func:`as_flow` for the argument ``name`` of a caller: its refusal names that argument.

    Raises
    ------
    TypeError
        If ``obj`` is none of the objects :func:`as_flow` adapts, or its base is not N(0, I_m).
    ValueError
        If the base is standard normal but of the wrong width.
    """
    if hasattr(obj, "to_latent"):
        return obj
    adapter = _adapter(obj)
    if adapter is None:
        msg = (
            f"`{name}` must be a flow with `to_latent(theta, x)`, or a zuko flow, an nflows flow, "
            f"an sbi posterior or an sbi density estimator to wrap; got {type(obj).__name__}."
        )
        raise TypeError(msg)
    return adapter(obj)


def adapt_sampler(obj: Any, name: str = "flow") -> Any:
    """The posterior behind argument ``name`` as an object with ``sample(x, n, seed)``.

    A flow with ``to_latent``, or an object whose only offer is ``sample(x, n, seed)``, is returned
    as it is; an sbi, zuko or nflows estimator is wrapped by :func:`adapt_flow`. sbi's posteriors
    have a ``sample`` of their own with another signature, ``sample(sample_shape, x=...)``, so they
    are always wrapped (and refused when their base is not N(0, I), as by :func:`as_flow`).

    Raises
    ------
    TypeError
        As :func:`adapt_flow`, for an estimator it cannot wrap.
    """
    if hasattr(obj, "to_latent") or (hasattr(obj, "sample") and not is_estimator(obj)):
        return obj
    return adapt_flow(obj, name)


def is_estimator(obj: Any) -> bool:
    """Whether ``obj`` is an sbi, nflows or zuko estimator that :func:`as_flow` wraps."""
    return _adapter(obj) is not None


def _adapter(obj: Any) -> Any:
    if hasattr(obj, "posterior_estimator") or _is_sbi_estimator(obj):
        return SbiFlow
    if hasattr(obj, "_transform") and hasattr(obj, "_embedding_net"):
        return NflowsFlow
    if callable(obj) and hasattr(obj, "parameters"):
        return ZukoFlow
    return None
