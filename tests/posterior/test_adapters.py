"""Flow adapters: zuko (real), nflows and sbi (duck-typed fakes that mimic their APIs)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from modelcompare import (
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


class FakeNflows(torch.nn.Module):
    """Mimics ``nflows.flows.Flow``: ``log_prob`` embeds the context, ``_transform`` does not."""

    def __init__(self) -> None:
        super().__init__()
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

    def __init__(self) -> None:
        self.net = FakeNflows()

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
    with pytest.raises(TypeError, match="Cannot adapt"):
        as_flow(42)
