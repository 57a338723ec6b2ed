"""Scores of the posterior's draws: recovery, contraction and z-scores per parameter (no test)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from modelcompare._foundation.results import Result, result_class
from modelcompare.workflows._checks._base import Check, ReportInputs

__all__ = ["CHECK", "ReportScores"]

#: The columns of :attr:`ReportScores.table`, one row per parameter.
COLUMNS = ("parameter", "nrmse", "r_squared", "contraction", "z_mean", "z_sd")


@result_class
class ReportScores(Result):
    """Per-parameter scores of the posterior's draws at the calibration x's.

    Attributes
    ----------
    statistic : float
        The largest normalised RMSE over the parameters (the worst recovery).
    pvalue : float
        NaN: a score has no p-value (it never enters the verdict).
    nrmse, r_squared : numpy.ndarray, shape (m,)
        RMSE of the posterior mean over the prior's sd, and R², from
        :func:`~modelcompare.parameter_recovery` (``normalize="std"``).
    contraction : numpy.ndarray, shape (m,)
        Median posterior contraction 1 − Var_post / Var_prior
        (:func:`~modelcompare.posterior_contraction`).
    z_mean, z_sd : numpy.ndarray, shape (m,)
        Mean and sd of the posterior z-scores (0 and 1 under calibration, for Gaussian-like
        posteriors).
    """

    statistic: float
    pvalue: float
    nrmse: np.ndarray
    r_squared: np.ndarray
    contraction: np.ndarray
    z_mean: np.ndarray
    z_sd: np.ndarray

    _repr_fields = ("statistic",)

    @property
    def table(self) -> Any:
        """A pandas DataFrame, one row per parameter, with the :data:`COLUMNS`."""
        import pandas as pd

        m = self.nrmse.shape[0]
        data = {"parameter": [f"θ_{j + 1}" for j in range(m)]}
        data |= {name: getattr(self, name) for name in COLUMNS[1:]}
        return pd.DataFrame(data, columns=list(COLUMNS))


def run(inputs: ReportInputs, rng: np.random.Generator) -> ReportScores:
    """Recovery and contraction of draws at the calibration x's (the prior's moments from θ)."""
    from modelcompare.posterior import parameter_recovery, posterior_contraction

    draws = np.asarray(inputs.sampler.sample(inputs.sample_x, inputs.n_draws, rng), dtype=float)
    recovery = parameter_recovery(draws, inputs.theta, normalize="std")
    contraction = posterior_contraction(draws, inputs.theta)
    return ReportScores(
        statistic=float(np.max(recovery.nrmse)),
        pvalue=math.nan,
        nrmse=recovery.nrmse,
        r_squared=recovery.r_squared,
        contraction=contraction.median_contraction,
        z_mean=contraction.z_mean,
        z_sd=contraction.z_sd,
    )


def draw(fig: Any, result: ReportScores) -> None:
    """Normalised RMSE and contraction per parameter, as bars."""
    a, b = fig.subplots(1, 2)
    labels = [f"θ_{j + 1}" for j in range(result.nrmse.shape[0])]
    a.bar(labels, result.nrmse)
    a.set_ylabel("RMSE / prior sd")
    b.bar(labels, result.contraction)
    b.set_ylabel("median contraction")


CHECK = Check(
    name="scores",
    tests=(
        "how well θ is recovered: RMSE over the prior sd, R², contraction and z-scores "
        "(a score, not a test)"
    ),
    reading=(
        "Scores, not tests: a small normalised RMSE and a contraction near 1 mean θ is well "
        "learned; z-scores of mean 0 and sd 1 agree with calibration. Calibration is judged "
        "by the tests above."
    ),
    needs=("draws",),
    run=run,
    draw=draw,
    score=True,
)
