"""Flow adapters: zuko (real), nflows and sbi (duck-typed fakes that mimic their APIs), the base
distribution check, the Rosenblatt transform of a Gaussian mixture and the float32 finite-difference
self-check."""

from __future__ import annotations

import math
import types

import numpy as np
import pytest
from scipy import stats

from modelcompare import (
    ConditionalGaussianModel,
    NflowsFlow,
    SbiFlow,
    ZukoFlow,
    as_flow,
    check_flow,
    global_coverage_test,
    pit,
)

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


class FakeStandardNormal:
    """Mimics ``nflows.distributions.StandardNormal``; ``scale`` != 1 makes a wrong base."""

    def __init__(self, width: int = 2, scale: float = 1.0) -> None:
        self._shape = torch.Size([width])
        self.scale = scale

    def log_prob(self, inputs, context=None):
        z = inputs / self.scale
        k = inputs.shape[-1]
        return -0.5 * (z**2).sum(-1) - 0.5 * k * math.log(2 * math.pi) - k * math.log(self.scale)


class FakeNflows(torch.nn.Module):
    """Mimics ``nflows.flows.Flow``: ``log_prob`` embeds the context, ``_transform`` does not."""

    def __init__(self, base=None) -> None:
        super().__init__()
        self._distribution = FakeStandardNormal() if base is None else base
        self.mu = torch.nn.Parameter(
            torch.tensor([3.0, -2.0], dtype=torch.float64), requires_grad=False
        )
        self.sd = torch.tensor([2.0, 0.5], dtype=torch.float64)
        self.a = torch.tensor([[0.8, 0.1], [-0.3, 0.5]], dtype=torch.float64)
        self.b = torch.tensor([[0.2, 0.0], [0.1, -0.2]], dtype=torch.float64)

    def _embedding_net(self, x):  # sbi's standardising layer lives in the embedding net
        return (x - self.mu) / self.sd

    def _transform(self, inputs, context):
        log_s = context @ self.b.T
        z = (inputs - context @ self.a.T) * torch.exp(-log_s)
        return z, -log_s.sum(-1)

    def log_prob(self, inputs, context):
        z, lad = self._transform(inputs, context=self._embedding_net(context))
        return -0.5 * (z**2).sum(-1) - z.shape[-1] * 0.5 * math.log(2 * math.pi) + lad

    def sample(self, num_samples, context):
        c = self._embedding_net(context)
        eps = torch.randn(c.shape[0], num_samples, 2, dtype=torch.float64)
        return (c @ self.a.T)[:, None] + torch.exp(c @ self.b.T)[:, None] * eps


class FakeSbiEstimator:
    """Mimics sbi 0.27's ``NFlowsFlow`` estimator, including its raw-context ``inverse_transform``."""

    def __init__(self, base=None) -> None:
        self.net = FakeNflows(base)

    def inverse_transform(self, input, condition):
        return self.net._transform(input, context=condition)[0]  # the sbi pitfall: no embedding

    def log_prob(self, input, condition):
        s, n, m = input.shape
        return self.net.log_prob(input.reshape(-1, m), context=condition.repeat(s, 1)).reshape(s, n)

    def sample(self, sample_shape, condition):
        return self.net.sample(int(np.prod(sample_shape)), context=condition).transpose(0, 1)


class FakePosterior:
    def __init__(self) -> None:
        self.posterior_estimator = FakeSbiEstimator()


def _simulate_from(flow, n, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal([3.0, -2.0], [2.0, 0.5], size=(n, 2))
    theta = flow.sample(x, 1, seed=seed)[:, 0]
    return theta, x


def test_nflows_and_sbi_adapters_pass_the_self_check():
    fake = FakeNflows()
    theta, x = _simulate_from(NflowsFlow(fake), 10, 0)
    assert check_flow(NflowsFlow(fake), theta, x, atol=1e-8).passed
    post = FakePosterior()
    adapter = as_flow(post)
    assert isinstance(adapter, SbiFlow)
    assert adapter.kind == "nflows"
    res = check_flow(adapter, theta, x, atol=1e-8)
    assert res.passed
    assert res.logdet_method == "flow"


def test_sbi_raw_context_latent_fails_and_biases_the_pit():
    post = FakePosterior()
    adapter = SbiFlow(post)
    est = post.posterior_estimator

    class RawContext:  # what sbi's inverse_transform gives
        def to_latent(self, t, c):
            return est.inverse_transform(torch.as_tensor(t), torch.as_tensor(c)).numpy()

        def log_prob(self, t, c):
            return adapter.log_prob(t, c)

    theta, x = _simulate_from(adapter, 2000, 1)
    assert not check_flow(RawContext(), theta[:10], x[:10]).passed
    assert global_coverage_test(pit(adapter, theta, x)).pvalue > 0.01
    assert global_coverage_test(pit(RawContext(), theta, x)).pvalue < 1e-6


def test_sampling_shapes_and_seeds():
    adapter = SbiFlow(FakePosterior())
    x = np.zeros((4, 2))
    a, b = adapter.sample(x, 6, seed=3), adapter.sample(x, 6, seed=3)
    assert a.shape == (4, 6, 2)
    np.testing.assert_array_equal(a, b)
    assert NflowsFlow(FakeNflows()).sample(x, 5, seed=0).shape == (4, 5, 2)


def _zuko_flow():
    zuko = pytest.importorskip("zuko")
    with torch.random.fork_rng(devices=[]):  # no global seeding leaks out
        torch.manual_seed(0)
        return zuko.flows.MAF(2, 3, transforms=2, hidden_features=[16])


def test_zuko_adapter_latent_pit_and_self_check():
    net = _zuko_flow()
    flow = as_flow(net)
    assert isinstance(flow, ZukoFlow)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 3))
    theta = flow.sample(x, 1, seed=1)[:, 0]
    assert check_flow(flow, theta[:10], x[:10]).passed
    with torch.no_grad():
        z = net(torch.as_tensor(x, dtype=torch.float32)).transform(
            torch.as_tensor(theta, dtype=torch.float32)
        )
    np.testing.assert_allclose(
        pit(flow, theta, x), torch.special.ndtr(z).double().numpy(), atol=1e-6
    )
    np.testing.assert_array_equal(flow.sample(x[:3], 4, seed=2), flow.sample(x[:3], 4, seed=2))


def test_sbi_adapter_with_zuko_backed_estimator():
    net = _zuko_flow()
    mu, sd = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([2.0, 2.0, 0.5])

    class ZukoEstimator:  # mimics sbi's ZukoFlow: embedding net outside the zuko flow
        def __init__(self) -> None:
            self.net = net
            self._embedding_net = lambda c: (c - mu) / sd

        def inverse_transform(self, input, condition):
            return self.net(self._embedding_net(condition)).transform(input)

        def log_prob(self, input, condition):
            return self.net(self._embedding_net(condition)).log_prob(input)

        def sample(self, shape, condition):
            return self.net(self._embedding_net(condition)).sample(shape)

    flow = as_flow(ZukoEstimator())
    assert isinstance(flow, SbiFlow)
    assert flow.kind == "zuko"
    x = np.random.default_rng(1).normal(size=(10, 3))
    theta = flow.sample(x, 1, seed=0)[:, 0]
    assert check_flow(flow, theta, x).passed


def test_as_flow_rejects_unknown():
    with pytest.raises(
        TypeError, match=r"^`obj` must be a flow with `to_latent\(theta, x\)`.*got int"
    ):
        as_flow(42)
    with pytest.raises(TypeError, match="`obj` must be a flow"):
        as_flow(None)


# -- the base distribution must be N(0, I_m) ---------------------------------------------------


class MADEMoGWrapper:  # named like sbi's `made` base: a conditional mixture, no width, no context
    def log_prob(self, inputs, context=None):
        if context is None:
            raise ValueError("context needed")
        return inputs.sum(-1)


def test_non_gaussian_bases_are_refused_with_the_base_named():
    zuko = pytest.importorskip("zuko")
    with pytest.raises(TypeError, match=r"BoxUniform.*not a standard normal.*zuko_ncsf"):
        as_flow(zuko.flows.NCSF(2, 1, transforms=1, hidden_features=[4]))
    wide = zuko.flows.MAF(2, 1, transforms=1, hidden_features=[4])
    wide.base = zuko.lazy.UnconditionalDistribution(
        zuko.distributions.DiagNormal, torch.zeros(2), 2 * torch.ones(2), buffer=True
    )
    with pytest.raises(TypeError, match=r"DiagNormal.*differs from N\(0, I_2\)"):
        as_flow(wide)
    with pytest.raises(TypeError, match=r"MADEMoGWrapper.*sbi's `made`"):
        as_flow(FakeSbiEstimator(base=MADEMoGWrapper()))
    with pytest.raises(TypeError, match="FakeStandardNormal"):
        NflowsFlow(FakeNflows(base=FakeStandardNormal(scale=1.5)))


def test_wrong_width_is_refused():
    est = FakeSbiEstimator(base=FakeStandardNormal(width=3))
    est.input_shape = torch.Size([2])
    with pytest.raises(ValueError, match="models 2 parameters but its base"):
        as_flow(est)
    flow = NflowsFlow(FakeNflows())
    assert flow.n_params == 2
    with pytest.raises(ValueError, match=r"3 columns but the flow's base is N\(0, I_2\)"):
        flow.to_latent(np.zeros((4, 3)), np.zeros((4, 2)))


def test_estimators_without_an_exact_latent_are_refused():
    class VectorFieldEstimator:  # like sbi's flow-matching / score estimators
        net = torch.nn.Linear(2, 2)
        input_shape = torch.Size([2])

        def log_prob(self, input, condition):
            raise NotImplementedError

    with pytest.raises(TypeError, match="neither a normalising flow"):
        as_flow(VectorFieldEstimator())


# -- the exact Rosenblatt transform of sbi's mixture density network --------------------------


class FakeMDN(torch.nn.Module):
    """Mimics sbi's ``MixtureDensityEstimator``: fixed mixture parameters, a θ z-score and its log-det.

    The mixture does not depend on x except through a shift of the means; ``log_prob`` is the exact
    normalised mixture density in float64 (sbi's own adds ε to the precision's diagonal).
    """

    def __init__(self, logits, means, precision_factors, shift=(0.0, 0.0), scale=(1.0, 1.0)):
        super().__init__()
        f64 = torch.float64
        self.net = torch.nn.Linear(2, 2).double()  # only its dtype is used
        self.logits = torch.as_tensor(logits, dtype=f64)
        self.means = torch.as_tensor(means, dtype=f64)
        a = torch.as_tensor(precision_factors, dtype=f64)
        self.precisions = a.transpose(-2, -1) @ a
        self.shift = torch.as_tensor(shift, dtype=f64)
        self.scale = torch.as_tensor(scale, dtype=f64)
        self.input_shape = torch.Size([self.means.shape[-1]])

    def get_uncorrected_mog(self, condition):
        n = condition.shape[0]
        means = self.means[None] + 0.1 * condition[:, None, :1]
        return types.SimpleNamespace(
            logits=self.logits.expand(n, -1),
            means=means,
            precisions=self.precisions.expand(n, -1, -1, -1),
        )

    def _transform_input(self, theta):
        return (theta - self.shift) / self.scale

    def _log_det_jacobian_forward(self, theta, transformed):
        return -torch.log(self.scale).sum()

    def log_prob(self, input, condition):
        mog = self.get_uncorrected_mog(condition)
        t = self._transform_input(input.double())
        comps = torch.distributions.MultivariateNormal(
            mog.means, precision_matrix=mog.precisions
        ).log_prob(t.unsqueeze(-2))
        lp = torch.logsumexp(torch.log_softmax(mog.logits, -1) + comps, -1)
        return lp + self._log_det_jacobian_forward(input, t)

    def sample(self, sample_shape, condition):
        mog = self.get_uncorrected_mog(condition)
        mix = torch.distributions.MixtureSameFamily(
            torch.distributions.Categorical(logits=mog.logits),
            torch.distributions.MultivariateNormal(mog.means, precision_matrix=mog.precisions),
        )
        return mix.sample(sample_shape) * self.scale + self.shift


A1 = [[1.5, -0.7], [0.0, 2.0]]  # upper-triangular precision factors, as in sbi
A2 = [[0.8, 0.9], [0.0, 0.6]]


def _two_component_mdn():
    return FakeMDN(
        [0.3, -0.2], [[-1.0, 0.5], [1.2, -0.4]], [A1, A2], shift=(0.5, -1.0), scale=(2.0, 0.5)
    )


def test_mdn_one_component_is_the_gaussian_cholesky_map():
    est = FakeMDN([0.0], [[0.3, -0.6]], [A1], shift=(0.5, -1.0), scale=(2.0, 0.5))
    flow = as_flow(est)
    assert isinstance(flow, SbiFlow)
    assert flow.kind == "mdn"
    rng = np.random.default_rng(0)
    theta, x = rng.normal(size=(20, 2)), rng.normal(size=(20, 2))
    z, logdet = flow.latent_and_logdet(theta, x)
    a = np.array(A1)
    chol = np.linalg.cholesky(np.linalg.inv(a.T @ a))
    t = (theta - [0.5, -1.0]) / [2.0, 0.5]
    mu = np.array([0.3, -0.6]) + 0.1 * x[:, :1]
    np.testing.assert_allclose(z, np.linalg.solve(chol, (t - mu).T).T, atol=1e-12)
    expected = -np.log(np.diag(chol)).sum() - np.log([2.0, 0.5]).sum()
    np.testing.assert_allclose(logdet, expected, atol=1e-12)
    assert check_flow(flow, theta, x, atol=1e-10).passed


def test_mdn_two_components_exact_marginal_and_density():
    flow = SbiFlow(_two_component_mdn())
    rng = np.random.default_rng(1)
    theta, x = rng.normal(size=(30, 2)) * 2, rng.normal(size=(30, 2))
    z = flow.to_latent(theta, x)
    # z_1 = Φ⁻¹ of the first coordinate's marginal mixture CDF, in closed form
    w = np.exp([0.3, -0.2]) / np.exp([0.3, -0.2]).sum()
    sd1 = [np.sqrt(np.linalg.inv(np.array(a).T @ np.array(a))[0, 0]) for a in (A1, A2)]
    t1 = (theta[:, 0] - 0.5) / 2.0
    mu1 = np.array([-1.0, 1.2])[None] + 0.1 * x[:, :1]
    cdf = (w * stats.norm.cdf((t1[:, None] - mu1) / sd1)).sum(1)
    np.testing.assert_allclose(z[:, 0], stats.norm.ppf(cdf), atol=1e-10)
    # log N(z) + log|det| is the mixture density (the flow's own log-determinant) ...
    assert check_flow(flow, theta, x, atol=1e-10).passed

    class FiniteDiff:  # ... and so is the finite-difference Jacobian of z: z itself is right
        dtype = np.float64

        def to_latent(self, t, c):
            return flow.to_latent(t, c)

        def log_prob(self, t, c):
            return flow.log_prob(t, c)

    res = check_flow(FiniteDiff(), theta, x, atol=1e-6)
    assert res.passed
    assert res.logdet_method == "finite differences"


def test_mdn_pit_is_uniform_on_its_own_draws_and_finite_in_the_tails():
    flow = SbiFlow(_two_component_mdn())
    x = np.random.default_rng(2).normal(size=(3000, 2))
    theta = flow.sample(x, 1, seed=3)[:, 0]
    p = pit(flow, theta, x)
    assert p.shape == (3000, 2)
    for j in range(2):
        assert stats.kstest(p[:, j], "uniform").pvalue > 0.01
    assert abs(stats.spearmanr(p[:, 0], p[:, 1]).statistic) < 0.06
    assert global_coverage_test(p).pvalue > 0.01
    far = np.array([[60.0, -40.0], [-80.0, 30.0]])
    z = flow.to_latent(far, np.zeros((2, 2)))
    assert np.all(np.isfinite(z))
    assert z[0, 0] > 8
    assert z[1, 0] < -8


# -- the finite-difference self-check at float32 ----------------------------------------------


class Float32Affine:
    """A correct float32 torch affine flow offering only ``to_latent`` and ``log_prob``."""

    def __init__(self, as_numpy64: bool = False) -> None:
        model = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
        self.model = model
        self.k = torch.tensor(model.posterior_mean_matrix, dtype=torch.float32)
        self.chol = torch.linalg.cholesky(torch.tensor(model.posterior_cov, dtype=torch.float32))
        self.as_numpy64 = as_numpy64
        if as_numpy64:  # hides its precision in float64 outputs, declares it instead
            self.dtype = torch.float32

    def _z(self, t, c):
        t = torch.as_tensor(t, dtype=torch.float32)
        c = torch.as_tensor(c, dtype=torch.float32)
        return torch.linalg.solve_triangular(self.chol, (t - c @ self.k.T).T, upper=False).T

    def to_latent(self, t, c):
        z = self._z(t, c)
        return z.double().numpy() if self.as_numpy64 else z

    def log_prob(self, t, c):
        z = self._z(t, c)
        logdet = torch.log(torch.diagonal(self.chol)).sum()
        return -0.5 * (z**2).sum(1) - math.log(2 * math.pi) - logdet


@pytest.mark.parametrize("as_numpy64", [False, True])
def test_finite_differences_suit_a_float32_flow(as_numpy64):
    flow = Float32Affine(as_numpy64)
    theta, x = flow.model.simulate(10, seed=1)
    res = check_flow(flow, theta, x)
    assert res.logdet_method == "finite differences"
    assert res.passed
    assert res.statistic < 5e-5
