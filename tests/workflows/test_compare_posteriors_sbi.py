"""compare_posteriors on real sbi posteriors.

- A bounded prior: the log score is sbi's own normalised ``log_prob`` (mass leaking outside the
  prior renormalised per x), not the density estimator's.
- Two training budgets on a Gaussian model with a known posterior: the comparison prefers the
  larger budget, as the ranking against the exact posterior and C2ST against exact draws do.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator

import numpy as np
import pytest

import modelcompare as mc

torch = pytest.importorskip("torch")
pytest.importorskip("sbi")
pytestmark = pytest.mark.torch

MAX_EPOCHS_WARNING = r"Maximum number of epochs `max_num_epochs=\d+` reached"


@contextlib.contextmanager
def _quiet_torch(seed: int) -> Iterator[None]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.random.fork_rng(devices=[]), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=MAX_EPOCHS_WARNING, category=UserWarning)
            torch.manual_seed(seed)
            yield
    finally:
        torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """sbi writes `sbi-logs/` into the working folder: train inside a temporary one."""
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp_path_factory.mktemp("sbi"))
        yield


def _npe(prior, theta, x, *, seed: int, epochs: int, model: str = "maf"):
    from sbi.inference import NPE
    from sbi.neural_nets import posterior_nn

    with _quiet_torch(seed):
        builder = posterior_nn(model=model, hidden_features=16, num_transforms=2)
        inference = NPE(prior=prior, density_estimator=builder, show_progress_bars=False)
        t = torch.as_tensor(theta, dtype=torch.float32)
        xx = torch.as_tensor(x, dtype=torch.float32)
        estimator = inference.append_simulations(t, xx).train(
            max_num_epochs=epochs, show_train_summary=False
        )
        return inference.build_posterior(estimator)


@pytest.mark.slow  # about 35 s on a shared two-core machine (sbi training and leakage sampling)
def test_bounded_prior_uses_the_normalised_log_prob(workdir) -> None:
    from sbi.utils import BoxUniform

    rng = np.random.default_rng(0)
    theta = rng.uniform(-1, 1, size=(360, 2))
    x = theta + 0.5 * rng.standard_normal(theta.shape)
    prior = BoxUniform(-torch.ones(2), torch.ones(2))
    posterior = _npe(prior, theta[:300], x[:300], seed=0, epochs=10)
    estimator = posterior.posterior_estimator
    th, xx = theta[300:], x[300:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = mc.compare_posteriors(posterior, estimator, th, xx, seed=0)
        again = mc.compare_posteriors(posterior, estimator, th, xx, seed=0)
    np.testing.assert_array_equal(result.differences, again.differences)  # seeded correction
    # d_n = −log(in-prior mass at x_n) > 0: the renormalised density is larger inside the box
    assert (result.differences > 0).all()
    with torch.no_grad():
        expected = [
            float(
                posterior.log_prob(
                    torch.as_tensor(th[i : i + 1], dtype=torch.float32),
                    x=torch.as_tensor(xx[i], dtype=torch.float32),
                )
            )
            - float(
                estimator.log_prob(
                    torch.as_tensor(th[i : i + 1], dtype=torch.float32).unsqueeze(0),
                    condition=torch.as_tensor(xx[i : i + 1], dtype=torch.float32),
                )
            )
            for i in range(3)
        ]
    # both estimate the same leakage by 10 000 rejection draws: they agree to MC accuracy
    np.testing.assert_allclose(result.differences[:3], expected, atol=0.05)


def _mdn(theta, x, *, seed: int, epochs: int = 10):
    """NPE with a one-component mixture density network: its family holds the true posterior."""
    from sbi.inference import NPE
    from sbi.neural_nets import posterior_nn

    prior = torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))
    with _quiet_torch(seed):
        builder = posterior_nn(model="mdn", hidden_features=16, num_components=1)
        inference = NPE(prior=prior, density_estimator=builder, show_progress_bars=False)
        t = torch.as_tensor(theta, dtype=torch.float32)
        xx = torch.as_tensor(x, dtype=torch.float32)
        return inference.append_simulations(t, xx).train(
            max_num_epochs=epochs, stop_after_epochs=epochs, learning_rate=1e-3
        )


def _c2st_to_exact(model, estimator, x_o, *, n: int = 1000) -> float:
    """Mean C2ST accuracy of the estimator's draws against exact posterior draws at each x_o."""
    accuracies = []
    for i, xo in enumerate(x_o):
        reference = model.exact_flow().sample(xo[None], n, seed=i)[0]
        with _quiet_torch(i), torch.no_grad():
            cond = torch.as_tensor(xo[None], dtype=torch.float32)
            draws = estimator.sample((n,), condition=cond)[:, 0].double().numpy()
        accuracies.append(mc.c2st(reference, draws, seed=i).statistic)
    return float(np.mean(accuracies))


@pytest.mark.slow  # about 15 s of CPU (two fits, six C2STs); the study is in benchmarks/
def test_larger_budget_is_preferred(workdir) -> None:
    """NPE on 10³ against 10⁴ simulations of θ ~ N(0, I₂), x = θ + ε, ten epochs each: the
    comparison prefers the larger budget, as C2ST against exact posterior draws does.

    The density estimators are scored: with sbi's Gaussian prior no mass leaks outside the
    support, so their log_prob is the normalised posterior density.
    """
    model = mc.ConditionalGaussianModel(noise_cov=0.5 * np.eye(2))
    theta, x = model.simulate(11_000, seed=1)
    small = _mdn(theta[:1000], x[:1000], seed=1)
    large = _mdn(theta[1000:], x[1000:], seed=2)
    th, xx = model.simulate(2000, seed=2)
    result = mc.compare_posteriors(large, small, th, xx, seed=0)
    assert result.statistic > 0
    assert result.decision(0.05)
    to_exact = mc.rank_posteriors(
        {"exact": model.exact_flow(), "large": large, "small": small}, th, xx, seed=0
    )
    assert to_exact.names == ["exact", "large", "small"]
    x_o = model.simulate(3, seed=3)[1]
    accuracy_small = _c2st_to_exact(model, small, x_o)
    accuracy_large = _c2st_to_exact(model, large, x_o)
    assert accuracy_large < accuracy_small
