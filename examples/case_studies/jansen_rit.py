"""The stochastic Jansen–Rit neural mass model (JRNMM), its prior and summary features.

The model of a cortical column (Jansen & Rit 1995) in its stochastic form (Ableidinger,
Buckwar & Hinterleitner 2017): three populations, pyramidal cells, excitatory and inhibitory
interneurons, with post-synaptic potentials X₀, X₁, X₂ and their derivatives X₃, X₄, X₅,

    dX₀ = X₃ dt,   dX₁ = X₄ dt,   dX₂ = X₅ dt,
    dX₃ = [A a S(X₁ − X₂)              − 2a X₃ − a² X₀] dt + s₃ dW₃,
    dX₄ = [A a (μ + C₂ S(C₁ X₀))       − 2a X₄ − a² X₁] dt + σ  dW₄,
    dX₅ = [B b C₄ S(C₃ X₀)             − 2b X₅ − b² X₂] dt + s₅ dW₅,

with S(v) = v_max / (1 + exp(r (v₀ − v))), C₁ = C, C₂ = 0.8 C, C₃ = C₄ = 0.25 C. The recorded
signal is the pyramidal cells' membrane potential X₁ − X₂, amplified by the gain g in decibels
(10^{g/10}) and centred. θ = (C, μ, σ, g), as in Rodrigues et al. (2021, HNPE), whose uniform
prior, 8-second recordings at 128 Hz after a 2-second burn-in, and 33 log power spectral
densities as summary features this module follows.

Integrator: the Strang splitting of Ableidinger et al. (2017, Sec. 4). The SDE is the sum of a
linear part, three critically damped oscillators driven by noise, which is solved exactly
(X ↦ e^{Mh} X plus a Gaussian of covariance ∫₀ʰ e^{Mu} ΣΣᵀ e^{Mᵀu} du), and a non-linear part
that moves only the derivatives by functions of the potentials, solved exactly by one Euler
step; a step is half a non-linear step, a linear step, half a non-linear step. It keeps the
oscillators' damping and noise exact at any step size, where Euler–Maruyama does not.

This file belongs to the case study, not to the ``modelcompare`` package.

References
----------
Jansen, B. H. & Rit, V. G. (1995). Electroencephalogram and visual evoked potential generation
in a mathematical model of coupled cortical columns. Biol. Cybern. 73, 357–366.
doi:10.1007/BF00199471.

Ableidinger, M., Buckwar, E. & Hinterleitner, H. (2017). A stochastic version of the Jansen and
Rit neural mass model: analysis and numerics. J. Math. Neurosci. 7, 8.
doi:10.1186/s13408-017-0046-4.

Rodrigues, P., Moreau, T., Louppe, G. & Gramfort, A. (2021). HNPE: leveraging global parameters
for neural posterior estimation. NeurIPS. arXiv:2102.06477.
"""

from __future__ import annotations

import numpy as np
from scipy import integrate, signal

__all__ = [
    "FS",
    "N_FEATURES",
    "PARAMETER_NAMES",
    "PRIOR_HIGH",
    "PRIOR_LOW",
    "STANDARD",
    "sample_prior",
    "simulate",
    "simulate_summaries",
    "summaries",
]

#: θ = (C, μ, σ, g): connectivity, mean and standard deviation of the input, gain in dB.
PARAMETER_NAMES = ("C", "μ", "σ", "g")
#: The uniform prior of HNPE's JRNMM example.
PRIOR_LOW = np.array([10.0, 50.0, 100.0, -20.0])
PRIOR_HIGH = np.array([250.0, 500.0, 5000.0, 20.0])
#: Jansen & Rit's standard column, at 0 dB.
STANDARD = np.array([135.0, 220.0, 2000.0, 0.0])

FS = 128  # recorded samples per second
N_FEATURES = 33  # log power spectral densities at 0, 2, ..., 64 Hz
_T, _BURN_IN, _SUBSTEPS = 8.0, 2.0, 8  # seconds recorded, seconds dropped, steps per sample
_H = 1.0 / (FS * _SUBSTEPS)  # the integrator's step, 1/1024 s
# the fixed constants of the model (Jansen & Rit 1995; noise levels of Ableidinger et al. 2017)
_A, _B, _a, _b = 3.25, 22.0, 100.0, 50.0
_V0, _VMAX, _R = 6.0, 5.0, 0.56
_S3, _S5 = 0.01, 1.0


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return _VMAX / (1.0 + np.exp(_R * (_V0 - v)))


def _oscillator(rate: float, h: float) -> tuple[np.ndarray, np.ndarray]:
    """e^{Mh} and the covariance of unit noise over h for x'' = −2k x' − k² x + dW (x, x')."""
    decay = np.exp(-rate * h)
    flow = decay * np.array([[1.0 + rate * h, h], [-(rate**2) * h, 1.0 - rate * h]])

    def column(u: float) -> np.ndarray:  # e^{Mu} applied to the noise direction (0, 1)
        return np.exp(-rate * u) * np.array([u, 1.0 - rate * u])

    def entry(i: int, j: int) -> float:
        return integrate.quad(lambda u: column(u)[i] * column(u)[j], 0.0, h)[0]

    off_diagonal = entry(0, 1)
    cov = np.array([[entry(0, 0), off_diagonal], [off_diagonal, entry(1, 1)]])
    return flow, cov


_FLOW_A, _COV_A = _oscillator(_a, _H)
_FLOW_B, _COV_B = _oscillator(_b, _H)
_CHOL_A, _CHOL_B = np.linalg.cholesky(_COV_A), np.linalg.cholesky(_COV_B)


def _check_theta(theta: np.ndarray) -> np.ndarray:
    theta = np.asarray(theta, dtype=float)
    if theta.ndim == 1:
        theta = theta[None]
    if theta.ndim != 2 or theta.shape[1] != 4:
        msg = f"`theta` must have shape (n, 4) for (C, μ, σ, g); got {theta.shape}."
        raise ValueError(msg)
    if not np.all(np.isfinite(theta)):
        msg = "`theta` must be finite."
        raise ValueError(msg)
    if np.any(theta[:, 2] < 0):
        msg = "`theta`'s σ (third column) must be non-negative."
        raise ValueError(msg)
    return theta


def simulate(theta: np.ndarray, seed: int | np.random.Generator | None = None) -> np.ndarray:
    """Recorded signals of the JRNMM at θ = (C, μ, σ, g): shape (n, 1024), 8 s at 128 Hz.

    Each row is 10^{g/10} (X₁ − X₂), centred, after a 2-second burn-in from a standard normal
    start, integrated by Strang splitting with step 1/1024 s and kept at every 8th step.

    Examples
    --------
    >>> x = simulate(STANDARD, seed=0)
    >>> x.shape
    (1, 1024)
    """
    theta = _check_theta(theta)
    rng = np.random.default_rng(seed)
    n = len(theta)
    c, mu, sigma, gain = theta.T
    state = rng.standard_normal((n, 6))
    n_steps = round((_T + _BURN_IN) / _H)
    keep_from = round(_BURN_IN / _H)
    out = np.empty((n, int(_T * FS)))
    half = 0.5 * _H

    def nonlinear(s: np.ndarray, dt: float) -> None:
        # moves only the derivatives, by functions of the potentials: exact as one Euler step
        s[:, 3] += dt * _A * _a * _sigmoid(s[:, 1] - s[:, 2])
        s[:, 4] += dt * _A * _a * (mu + 0.8 * c * _sigmoid(c * s[:, 0]))
        s[:, 5] += dt * _B * _b * 0.25 * c * _sigmoid(0.25 * c * s[:, 0])

    noise_scale = np.array([_S3, 1.0, _S5])
    for step in range(n_steps):
        nonlinear(state, half)
        xi = rng.standard_normal((2, n, 3)) * noise_scale
        xi[:, :, 1] *= sigma
        for k, (flow, chol) in enumerate(
            [(_FLOW_A, _CHOL_A), (_FLOW_A, _CHOL_A), (_FLOW_B, _CHOL_B)]
        ):
            x_k, v_k = state[:, k], state[:, k + 3]
            new_x = flow[0, 0] * x_k + flow[0, 1] * v_k + chol[0, 0] * xi[0, :, k]
            new_v = (
                flow[1, 0] * x_k
                + flow[1, 1] * v_k
                + chol[1, 0] * xi[0, :, k]
                + chol[1, 1] * xi[1, :, k]
            )
            state[:, k], state[:, k + 3] = new_x, new_v
        nonlinear(state, half)
        after = step + 1 - keep_from
        if after > 0 and after % _SUBSTEPS == 0:
            out[:, after // _SUBSTEPS - 1] = state[:, 1] - state[:, 2]
    out *= (10.0 ** (gain / 10.0))[:, None]
    return out - out.mean(axis=1, keepdims=True)


def summaries(x: np.ndarray) -> np.ndarray:
    """HNPE's summary features: log₁₀ of the Welch power spectral density, 33 bins to 64 Hz.

    Welch's method with 64-sample Hann segments at 128 Hz, half overlapping.

    Examples
    --------
    >>> summaries(simulate(STANDARD, seed=0)).shape
    (1, 33)
    """
    x = np.atleast_2d(np.asarray(x, dtype=float))
    _, psd = signal.welch(x, fs=FS, nperseg=2 * (N_FEATURES - 1), axis=-1)
    return np.log10(psd + 1e-300)


def simulate_summaries(
    theta: np.ndarray, seed: int | np.random.Generator | None = None, chunk: int = 2_000
) -> np.ndarray:
    """Summary features of simulations at θ, simulated ``chunk`` rows at a time (n, 33)."""
    theta = _check_theta(theta)
    rng = np.random.default_rng(seed)
    parts = [
        summaries(simulate(theta[i : i + chunk], seed=rng)) for i in range(0, len(theta), chunk)
    ]
    return np.concatenate(parts)


def sample_prior(n: int, seed: int | np.random.Generator | None = None) -> np.ndarray:
    """``n`` draws of θ from HNPE's uniform prior, shape (n, 4)."""
    rng = np.random.default_rng(seed)
    return PRIOR_LOW + (PRIOR_HIGH - PRIOR_LOW) * rng.random((n, 4))
