"""The Jansen–Rit simulator of the case study: known properties of the model and its integrator."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import linalg, signal

from tests.case_studies import load_case_study

ROOT = Path(__file__).resolve().parents[2]


jr = load_case_study("jansen_rit")


def _at(g: float, n: int = 1) -> np.ndarray:
    theta = np.tile(jr.STANDARD, (n, 1))
    theta[:, 3] = g
    return theta


def test_the_standard_column_oscillates_in_the_alpha_band() -> None:
    x = jr.simulate(_at(0.0, 20), seed=0)
    freqs, psd = signal.welch(x, fs=jr.FS, nperseg=256)
    peak = freqs[1:][np.argmax(psd.mean(axis=0)[1:])]
    assert 8.0 <= peak <= 12.0


def test_g_is_a_gain_in_decibels() -> None:
    gains = np.array([0.0, -20.0, -7.5, 10.0])
    theta = np.tile(jr.STANDARD, (len(gains), 1))
    theta[:, 3] = gains
    # row k draws the same noise in both calls, so only the gain differs
    loud, quiet = jr.simulate(theta, seed=3), jr.simulate(_at(0.0, len(gains)), seed=3)
    np.testing.assert_allclose(loud, 10 ** (gains[:, None] / 10) * quiet, rtol=1e-10, atol=1e-12)
    # the log-PSD summaries move by 2 g / 10 at every frequency
    shift = jr.summaries(loud) - jr.summaries(quiet)
    np.testing.assert_allclose(
        shift, np.broadcast_to(2 * gains[:, None] / 10, shift.shape), atol=1e-9
    )


def test_the_same_seed_gives_the_same_signal_and_another_does_not() -> None:
    theta = jr.sample_prior(3, seed=1)
    first = jr.simulate(theta, seed=np.random.default_rng(5))  # an int or a Generator
    np.testing.assert_array_equal(first, jr.simulate(theta, seed=5))
    assert not np.allclose(first, jr.simulate(theta, seed=6))


def test_shapes_and_centred_output() -> None:
    x = jr.simulate(jr.sample_prior(4, seed=0), seed=0)
    assert x.shape == (4, 8 * jr.FS)
    np.testing.assert_allclose(x.mean(axis=1), 0.0, atol=1e-9)
    s = jr.summaries(x)
    assert s.shape == (4, jr.N_FEATURES)
    assert np.all(np.isfinite(s))


@pytest.mark.parametrize("rate", [100.0, 50.0])
def test_the_linear_step_is_exact(rate: float) -> None:
    """e^{Mh} and the noise covariance ∫ e^{Mu} e₂e₂ᵀ e^{Mᵀu} du, by Van Loan's block exponential."""
    h = 1 / 1024
    m = np.array([[0.0, 1.0], [-(rate**2), -2 * rate]])
    flow, cov = jr._oscillator(rate, h)
    np.testing.assert_allclose(flow, linalg.expm(m * h), rtol=1e-12)
    q = np.array([[0.0, 0.0], [0.0, 1.0]])
    block = linalg.expm(np.block([[-m, q], [np.zeros((2, 2)), m.T]]) * h)
    van_loan = block[2:, 2:].T @ block[:2, 2:]
    np.testing.assert_allclose(cov, van_loan, rtol=1e-8, atol=1e-18)


def test_the_prior_is_hnpes_box() -> None:
    theta = jr.sample_prior(5000, seed=0)
    assert np.all(theta >= jr.PRIOR_LOW)
    assert np.all(theta <= jr.PRIOR_HIGH)
    np.testing.assert_allclose(jr.PRIOR_LOW, [10, 50, 100, -20])
    np.testing.assert_allclose(jr.PRIOR_HIGH, [250, 500, 5000, 20])


@pytest.mark.parametrize(
    ("theta", "match"),
    [
        (np.ones((3, 3)), r"shape \(n, 4\)"),
        (np.array([[135.0, 220.0, np.nan, 0.0]]), "finite"),
        (np.array([[135.0, 220.0, -1.0, 0.0]]), "σ"),
    ],
)
def test_bad_theta_is_refused_by_name(theta: np.ndarray, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        jr.simulate(theta, seed=0)
