"""FD, FD∞, CMMD and precision/recall/density/coverage against their references."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from modelcompare import cmmd, fd, fd_infinity, fid, prdc

# -- CMMD ------------------------------------------------------------------------------------------


def _cmmd_reference(x: np.ndarray, y: np.ndarray) -> float:
    """google-research/cmmd ``distance.mmd``, transcribed from jax to numpy line by line."""
    sigma, scale = 10, 1000
    x_sqnorms = np.diag(np.matmul(x, x.T))
    y_sqnorms = np.diag(np.matmul(y, y.T))
    gamma = 1 / (2 * sigma**2)
    k_xx = np.mean(
        np.exp(
            -gamma
            * (-2 * np.matmul(x, x.T) + np.expand_dims(x_sqnorms, 1) + np.expand_dims(x_sqnorms, 0))
        )
    )
    k_xy = np.mean(
        np.exp(
            -gamma
            * (-2 * np.matmul(x, y.T) + np.expand_dims(x_sqnorms, 1) + np.expand_dims(y_sqnorms, 0))
        )
    )
    k_yy = np.mean(
        np.exp(
            -gamma
            * (-2 * np.matmul(y, y.T) + np.expand_dims(y_sqnorms, 1) + np.expand_dims(y_sqnorms, 0))
        )
    )
    return scale * (k_xx + k_yy - 2 * k_xy)


def _unit(a: np.ndarray) -> np.ndarray:
    return a / np.linalg.norm(a, axis=1, keepdims=True)


def test_cmmd_equals_reference() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(150, 32)) + 0.3
    z = rng.normal(size=(170, 32))
    expected = _cmmd_reference(_unit(x), _unit(z))
    res = cmmd(x, z)
    assert res.value == pytest.approx(expected, rel=1e-10)
    assert cmmd(x, z, chunk_size=7).value == pytest.approx(expected, rel=1e-10)
    # without the normalisation, on the raw rows
    assert cmmd(x / 10, z / 10, normalize=False).value == pytest.approx(
        _cmmd_reference(x / 10, z / 10), rel=1e-10
    )


def test_cmmd_known_values_and_errors() -> None:
    a = np.random.default_rng(1).normal(size=(50, 4))
    assert cmmd(a, a).value == pytest.approx(0.0, abs=1e-12)
    # {e1, e2} against {-e1, -e2}: the within means are (1 + exp(-2/200))/2 each and the cross
    # mean (exp(-4/200) + exp(-2/200))/2, so CMMD = 1000 (1 - exp(-4/200))
    e = np.eye(3)[:2]
    assert cmmd(e, -e).value == pytest.approx(1000 * (1 - np.exp(-4 / 200)), rel=1e-12)
    with pytest.raises(ValueError, match="row of zeros"):
        cmmd(np.zeros((3, 2)), a[:, :2])
    with pytest.raises(ValueError, match="`bandwidth`"):
        cmmd(a, a, bandwidth=-1.0)


def test_cmmd_standard_error_matches_the_spread() -> None:
    """The delta-method standard error against the spread over independent replicates."""
    rng = np.random.default_rng(2)
    values, ses = [], []
    for _ in range(60):
        res = cmmd(rng.normal(size=(120, 6)) * 3 + 1.0, rng.normal(size=(120, 6)) * 3)
        values.append(res.value)
        ses.append(res.std_error)
    assert np.mean(ses) == pytest.approx(np.std(values, ddof=1), rel=0.3)
    lo, hi = res.confidence_interval(0.9)
    assert lo < res.value < hi


# -- precision, recall, density, coverage ----------------------------------------------------------


def _prdc_package():
    if importlib.util.find_spec("prdc") is None:
        pytest.skip("prdc is not installed")
    from prdc import compute_prdc

    return compute_prdc


@pytest.mark.parametrize(("k", "chunk"), [(5, None), (3, 17), (1, 64)])
def test_prdc_equals_the_prdc_package(k: int, chunk: int | None) -> None:
    compute_prdc = _prdc_package()
    rng = np.random.default_rng(3)
    real = rng.normal(size=(300, 8))
    fake = 1.2 * rng.normal(size=(250, 8)) + 0.3
    expected = compute_prdc(real_features=real, fake_features=fake, nearest_k=k)
    res = prdc(fake, real, nearest_k=k, chunk_size=chunk, n_subsets=0)
    for metric in ("precision", "recall", "density", "coverage"):
        assert getattr(res, metric) == pytest.approx(expected[metric], abs=1e-12), metric


def test_prdc_known_cases() -> None:
    rng = np.random.default_rng(4)
    real = rng.normal(size=(400, 2))
    same = prdc(real, real, n_subsets=0)
    # each point lies in its own ball (distance 0 < radius): all four are 1 or more
    assert (same.precision, same.recall, same.coverage) == (1.0, 1.0, 1.0)
    assert same.density >= 1.0
    far = prdc(real + 100.0, real, n_subsets=0)
    assert (far.precision, far.recall, far.density, far.coverage) == (0.0, 0.0, 0.0, 0.0)


def test_prdc_errors_and_interval() -> None:
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(40, 3)), rng.normal(size=(40, 3))
    with pytest.raises(ValueError, match="`nearest_k`"):
        prdc(a[:4], b, nearest_k=5)
    with pytest.raises(ValueError, match="`n_subsets`"):
        prdc(a, b, n_subsets=1)
    res = prdc(a, b, n_subsets=0)
    with pytest.raises(ValueError, match="no standard errors"):
        res.confidence_interval("recall")
    res = prdc(a, b, n_subsets=5, seed=0)
    assert res.to_dict() == prdc(a, b, n_subsets=5, seed=0).to_dict()
    lo, hi = res.confidence_interval("precision")
    assert 0.0 <= lo <= res.precision <= hi <= 1.0
    with pytest.raises(ValueError, match="`metric`"):
        res.confidence_interval("fidelity")


def test_prdc_standard_error_matches_the_spread() -> None:
    """Half-sample (delete-d jackknife) errors against the spread over independent replicates."""
    rng = np.random.default_rng(6)
    values, ses = [], []
    for _ in range(40):
        res = prdc(
            rng.normal(size=(200, 3)) * 1.3, rng.normal(size=(200, 3)), n_subsets=10, seed=rng
        )
        values.append([res.precision, res.recall, res.density, res.coverage])
        ses.append(list(res.std_errors.values()))
    ratio = np.mean(ses, axis=0) / np.std(values, axis=0, ddof=1)
    assert np.all((ratio > 0.6) & (ratio < 1.6)), ratio


@pytest.mark.gpu
def test_prdc_gpu_equals_cpu() -> None:
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    rng = np.random.default_rng(7)
    a, b = rng.normal(size=(3000, 64)), rng.normal(size=(2500, 64)) * 1.1
    cpu = prdc(a, b, n_subsets=0)
    gpu = prdc(a, b, n_subsets=0, device="cuda")
    for metric in ("precision", "recall", "density", "coverage"):
        assert getattr(gpu, metric) == pytest.approx(getattr(cpu, metric), abs=2e-3)


# -- FD and FD∞ ------------------------------------------------------------------------------------


def test_fd_is_fid_with_a_standard_error() -> None:
    rng = np.random.default_rng(8)
    x, z = rng.normal(size=(300, 5)) + 0.5, rng.normal(size=(300, 5))
    res = fd(x, z, n_resamples=40, seed=0)
    assert res.value == fid(x, z).value
    assert res.mean_term == fid(x, z).mean_term
    assert res.std_error > 0
    assert fd(x, z, n_resamples=40, seed=0).std_error == res.std_error
    assert np.isnan(fd(x, z, n_resamples=0).std_error)


def test_fd_standard_error_matches_the_spread() -> None:
    rng = np.random.default_rng(9)
    values, ses = [], []
    for _ in range(40):
        res = fd(
            rng.normal(size=(200, 4)) + 0.4, rng.normal(size=(200, 4)), n_resamples=40, seed=rng
        )
        values.append(res.value)
        ses.append(res.std_error)
    assert np.mean(ses) == pytest.approx(np.std(values, ddof=1), rel=0.3)


def test_fd_infinity_is_chong_forsyth_regression() -> None:
    """FD∞ is the intercept of the least-squares line of FD_N on 1/N (the reference's formula)."""
    linear_model = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng(10)
    x, z = rng.normal(size=(1000, 6)) + 0.3, rng.normal(size=(1000, 6))
    res = fd_infinity(x, z, sizes=[200, 400, 600, 800, 1000], n_resamples=0, seed=0)
    inv = 1.0 / res.sizes.reshape(-1, 1)
    reg = linear_model.LinearRegression().fit(inv, res.fd_values.reshape(-1, 1))
    assert res.value == pytest.approx(reg.predict(np.array([[0.0]]))[0, 0], rel=1e-9)
    assert res.slope == pytest.approx(reg.coef_[0, 0], rel=1e-9)
    # at N = n_x the subset is all of x (shuffled): FD_N is the full FD
    assert res.fd_values[-1] == pytest.approx(fid(x, z).value, rel=1e-9)


def test_fd_infinity_removes_the_bias() -> None:
    """Same distribution (population FD = 0): FD_n is biased up, FD∞ much less."""
    rng = np.random.default_rng(11)
    d = 20
    fd_n, fd_inf = [], []
    for _ in range(8):
        x, z = rng.normal(size=(1500, d)), rng.normal(size=(1500, d))
        fd_n.append(fid(x, z).value)
        fd_inf.append(fd_infinity(x, z, subsample_reference=True, n_resamples=0, seed=rng).value)
    assert np.mean(fd_n) > 0.02
    assert abs(np.mean(fd_inf)) < 0.25 * np.mean(fd_n)


def test_fd_infinity_errors_and_interval() -> None:
    rng = np.random.default_rng(12)
    x, z = rng.normal(size=(100, 3)), rng.normal(size=(80, 3))
    with pytest.raises(ValueError, match="`sizes`"):
        fd_infinity(x, z, sizes=[50])
    with pytest.raises(ValueError, match="`sizes`"):
        fd_infinity(x, z, sizes=[50, 90], subsample_reference=True)
    with pytest.raises(ValueError, match="`sizes`"):
        fd_infinity(x, z, sizes=[1.5, 3.0])
    res = fd_infinity(x, z, sizes=[40, 70, 100], n_resamples=10, seed=0)
    lo, hi = res.confidence_interval()
    assert lo < res.value < hi
    assert res.std_error > 0


def test_prdc_memory_is_bounded_by_the_block() -> None:
    """Peak memory stays near one block of distances, far below one n × n matrix."""
    import tracemalloc

    rng = np.random.default_rng(13)
    n = 6000
    x, z = rng.normal(size=(n, 4)), rng.normal(size=(n, 4))
    tracemalloc.start()
    try:
        prdc(x, z, n_subsets=0, chunk_size=256)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.2 * n * n * 8  # one n × n float64 matrix is 288 MB
