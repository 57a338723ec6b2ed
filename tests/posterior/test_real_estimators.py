"""The flow adapters on real, briefly trained sbi, zuko and nflows estimators.

Each estimator is trained once per module on a few hundred simulations of θ ~ U(-2, 2)²,
x = θ + 0.3 ε, for a few epochs; the tests then check that :func:`as_flow` wraps it, that the latent
agrees with the estimator's own density (:func:`check_flow`) and that the PIT has the right shape
and lies strictly inside (0, 1). Estimators without a standard normal base are refused.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Iterator

import numpy as np
import pytest

from modelcompare import SbiFlow, ZukoFlow, as_flow, check_flow, pit

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

N_TRAIN, N_CAL, N_CHECK = 400, 200, 10
#: sbi warns when training stops at `max_num_epochs` before its early-stopping rule fires; these
#: tests stop early on purpose.
MAX_EPOCHS_WARNING = r"Maximum number of epochs `max_num_epochs=\d+` reached"
#: sbi's MDN adds this to its precision matrices' diagonal in `log_prob` (see SbiFlow's notes).
MDN_EPSILON = 1e-4


@contextlib.contextmanager
def _quiet_torch(seed: int) -> Iterator[None]:
    """One torch thread (the machine is shared), a private seeded RNG, no leaked global state."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            yield
    finally:
        torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def data() -> dict[str, np.ndarray]:
    """Training and calibration pairs; ``x5`` adds three pure-noise columns (for embeddings)."""
    rng = np.random.default_rng(2024)
    n = N_TRAIN + N_CAL
    theta = rng.uniform(-2.0, 2.0, size=(n, 2))
    x = theta + 0.3 * rng.standard_normal((n, 2))
    x5 = np.column_stack([x, rng.standard_normal((n, 3))])
    return {"theta": theta, "x": x, "x5": x5}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """sbi writes `sbi-logs/` into the working folder: train inside a temporary one."""
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp_path_factory.mktemp("sbi"))
        yield


def _train_sbi(
    data: dict[str, np.ndarray], model: str, seed: int, x_key: str = "x", **kwargs: object
):
    pytest.importorskip("sbi")
    from sbi.inference import NPE
    from sbi.neural_nets import posterior_nn
    from sbi.utils import BoxUniform

    theta = torch.as_tensor(data["theta"][:N_TRAIN], dtype=torch.float32)
    x = torch.as_tensor(data[x_key][:N_TRAIN], dtype=torch.float32)
    start = time.perf_counter()
    with _quiet_torch(seed), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=MAX_EPOCHS_WARNING, category=UserWarning)
        prior = BoxUniform(-2 * torch.ones(2), 2 * torch.ones(2))
        builder = posterior_nn(model=model, hidden_features=16, **kwargs)
        inference = NPE(prior=prior, density_estimator=builder, show_progress_bars=False)
        estimator = inference.append_simulations(theta, x).train(
            max_num_epochs=20, show_train_summary=False
        )
        posterior = inference.build_posterior(estimator)
    return posterior, time.perf_counter() - start


def _embedding(d_in: int) -> object:
    return torch.nn.Sequential(torch.nn.Linear(d_in, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))


SBI_FLOWS = {
    "maf": {"num_transforms": 2},  # sbi's default NPE estimator (nflows)
    "nsf": {"num_transforms": 2},
    "zuko_maf": {"num_transforms": 2},
}


@pytest.fixture(scope="module", params=sorted(SBI_FLOWS))
def sbi_flow(request, data, workdir):
    posterior, seconds = _train_sbi(data, request.param, 1, **SBI_FLOWS[request.param])
    return request.param, posterior, seconds


@pytest.fixture(scope="module")
def sbi_zuko_nsf_embedding(data, workdir):
    with _quiet_torch(2):
        emb = _embedding(5)
    return _train_sbi(data, "zuko_nsf", 2, x_key="x5", num_transforms=2, embedding_net=emb)


@pytest.fixture(scope="module")
def sbi_mdn(data, workdir):
    return _train_sbi(data, "mdn", 3, num_components=3)


def _fit(flow_dist, params, theta, x, steps: int = 150) -> None:
    """A few Adam steps of maximum likelihood; ``flow_dist(x)`` returns log q(θ | x) by ``lp``."""
    opt = torch.optim.Adam(params, lr=3e-3)
    th = torch.as_tensor(theta, dtype=torch.float32)
    xx = torch.as_tensor(x, dtype=torch.float32)
    for _ in range(steps):
        idx = torch.randint(0, len(th), (128,))
        loss = -flow_dist(th[idx], xx[idx]).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


@pytest.fixture(scope="module")
def nflows_maf(data):
    pytest.importorskip("nflows")
    from nflows.distributions import StandardNormal
    from nflows.flows import Flow
    from nflows.transforms import (
        CompositeTransform,
        MaskedAffineAutoregressiveTransform,
        ReversePermutation,
    )

    start = time.perf_counter()
    with _quiet_torch(3):
        layers = []
        for _ in range(2):
            layers += [
                MaskedAffineAutoregressiveTransform(2, hidden_features=16, context_features=2),
                ReversePermutation(2),
            ]
        net = Flow(CompositeTransform(layers), StandardNormal([2]))
        _fit(
            lambda t, c: net.log_prob(t, context=c),
            net.parameters(),
            data["theta"][:N_TRAIN],
            data["x"][:N_TRAIN],
        )
    return net.eval(), time.perf_counter() - start


@pytest.fixture(scope="module", params=["plain", "embedding"])
def zuko_nsf(request, data):
    zuko = pytest.importorskip("zuko")
    start = time.perf_counter()
    with _quiet_torch(4):
        if request.param == "plain":
            emb, x_key = None, "x"
            flow = zuko.flows.NSF(2, 2, transforms=2, hidden_features=[16, 16])
            params = list(flow.parameters())
        else:
            emb, x_key = _embedding(5), "x5"
            flow = zuko.flows.NSF(2, 3, transforms=2, hidden_features=[16, 16])
            params = [*flow.parameters(), *emb.parameters()]

        def log_q(t, c):
            return flow(c if emb is None else emb(c)).log_prob(t)

        _fit(log_q, params, data["theta"][:N_TRAIN], data[x_key][:N_TRAIN])
    adapter = as_flow(flow.eval()) if emb is None else ZukoFlow(flow.eval(), embedding=emb.eval())
    return request.param, adapter, x_key, time.perf_counter() - start


def _check_and_pit(flow, data, x_key: str = "x", atol: float = 1e-4):
    """check_flow on N_CHECK calibration pairs, then the PIT of the whole calibration set."""
    theta, x = data["theta"][N_TRAIN:], data[x_key][N_TRAIN:]
    res = check_flow(flow, theta[:N_CHECK], x[:N_CHECK], atol=atol)
    assert res.passed, f"check_flow error {res.statistic:.3g}"
    assert res.logdet_method == "flow"
    p = pit(flow, theta, x)
    assert p.shape == (N_CAL, 2)
    assert np.all((p > 0) & (p < 1))
    np.testing.assert_array_equal(flow.sample(x[:3], 4, seed=0), flow.sample(x[:3], 4, seed=0))
    assert flow.sample(x[:3], 4, seed=0).shape == (3, 4, 2)
    return res


#: nflows' LU transform (in sbi's `nsf`) samples through a torch function that torch deprecates.
@pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated:UserWarning")
def test_sbi_flows(sbi_flow, data):
    name, posterior, _ = sbi_flow
    flow = as_flow(posterior)
    assert isinstance(flow, SbiFlow)
    assert flow.kind == ("zuko" if name.startswith("zuko") else "nflows")
    assert flow.n_params == 2
    assert flow.dtype == np.float32
    _check_and_pit(flow, data)


def test_sbi_zuko_nsf_with_an_embedding_net(sbi_zuko_nsf_embedding, data):
    posterior, _ = sbi_zuko_nsf_embedding
    flow = as_flow(posterior)
    assert flow.kind == "zuko"
    _check_and_pit(flow, data, x_key="x5")


def test_bare_nflows_maf(nflows_maf, data):
    net, _ = nflows_maf
    _check_and_pit(as_flow(net), data)


def test_bare_zuko_nsf(zuko_nsf, data):
    _, flow, x_key, _ = zuko_nsf
    assert isinstance(flow, ZukoFlow)
    _check_and_pit(flow, data, x_key=x_key)


def test_sbi_mdn_exact_rosenblatt_transform(sbi_mdn, data):
    posterior, _ = sbi_mdn
    flow = as_flow(posterior)
    assert flow.kind == "mdn"
    theta, x = data["theta"][N_TRAIN:], data["x"][N_TRAIN:]
    # sbi's MDN log_prob adds ε to each precision's diagonal in the quadratic form but not in the
    # normaliser, so it is sub-normalised by c_k = ½(log det(AᵀA + εI) − log det AᵀA) ≤ ½ ε tr Σ_k
    # per component: no exact flow can agree with it better than that.
    est = posterior.posterior_estimator
    with torch.no_grad():
        mog = est.get_uncorrected_mog(torch.as_tensor(x[:N_CHECK], dtype=torch.float32))
        a = mog.precision_factors.double()
        c = 0.5 * (torch.logdet(mog.precisions.double()) - torch.logdet(a.mT @ a))
    c_max = float(c.max())
    assert 0 < c_max < 2 * MDN_EPSILON  # ½ ε tr Σ_k, with tr Σ_k near 2 after a short training
    res = _check_and_pit(flow, data, atol=c_max + 1e-5)
    assert res.statistic >= float(c.min()) - 1e-5

    class FiniteDiff:  # finite differences of z itself: checks z, not just its log-determinant
        dtype = flow.dtype

        def to_latent(self, t, c):
            return flow.to_latent(t, c)

        def log_prob(self, t, c):
            return flow.log_prob(t, c)

    fd = check_flow(FiniteDiff(), theta[:N_CHECK], x[:N_CHECK], atol=c_max + 1e-5)
    assert fd.passed
    assert fd.logdet_method == "finite differences"


@pytest.mark.parametrize(
    ("model", "base"),
    [("made", "MADEMoGWrapper"), ("zuko_ncsf", "BoxUniform")],
)
def test_sbi_non_gaussian_bases_are_refused(model, base, data, workdir):
    pytest.importorskip("sbi")
    from sbi.neural_nets import posterior_nn

    theta = torch.as_tensor(data["theta"][:100], dtype=torch.float32)
    x = torch.as_tensor(data["x"][:100], dtype=torch.float32)
    with _quiet_torch(5):
        estimator = posterior_nn(model=model, hidden_features=8)(theta, x)
    with pytest.raises(TypeError, match=rf"{base}.*not a standard normal N\(0, I_2\)"):
        as_flow(estimator)


@pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated:UserWarning")
def test_validate_posterior_takes_an_sbi_posterior_as_it_is(sbi_flow, data):
    """sbi's posteriors have a `sample` of their own: the report must adapt them, not call it."""
    from modelcompare import validate_posterior

    _, posterior, _ = sbi_flow
    theta, x = data["theta"][N_TRAIN:], data["x"][N_TRAIN:]
    report = validate_posterior(
        posterior, theta, x, checks=["sbc", "global_coverage"], n_posterior_samples=20, seed=0
    )
    assert list(report.checks["skipped"]) == [None, None]
    assert np.all(np.isfinite(report.checks["pvalue"]))


def test_sbc_and_tarp_adapt_an_unwrapped_sbi_posterior(sbi_mdn, data) -> None:
    from modelcompare import hpd_coverage, sbc, sbc_ranks, tarp

    posterior, _ = sbi_mdn
    theta, x = data["theta"][N_TRAIN:][:40], data["x"][N_TRAIN:][:40]
    ranks = sbc_ranks(posterior, theta, x, n_posterior_samples=10, seed=0)
    assert ranks.shape == (40, 2)
    assert np.array_equal(
        ranks, sbc_ranks(as_flow(posterior), theta, x, n_posterior_samples=10, seed=0)
    )
    assert 0 <= sbc(posterior, theta, x, n_posterior_samples=10, seed=0).pvalue <= 1
    assert 0 <= tarp(posterior, theta, x, n_posterior_samples=10, seed=0).pvalue <= 1
    hpd = hpd_coverage(posterior, theta, x, n_posterior_samples=10, seed=0)
    same = hpd_coverage(as_flow(posterior), theta, x, n_posterior_samples=10, seed=0)
    assert hpd.pvalue == same.pvalue


def test_an_sbi_posterior_refuses_x_of_the_wrong_width(sbi_mdn, data) -> None:
    from modelcompare import sbc

    posterior, _ = sbi_mdn
    theta, x = data["theta"][N_TRAIN:][:10], data["x"][N_TRAIN:][:10]
    wide = np.column_stack([x, x])
    with pytest.raises(ValueError, match=r"`x` has 4 columns .* width 2"):
        pit(as_flow(posterior), theta, wide)
    with pytest.raises(ValueError, match="`x` has 4 columns"):
        sbc(posterior, theta, wide, n_posterior_samples=5, seed=0)
