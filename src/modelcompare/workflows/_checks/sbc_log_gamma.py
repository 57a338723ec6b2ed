"""SBC with the ECDF log-gamma statistic (Säilynoja et al. 2022; Modrák et al. 2023)."""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcompare.workflows._checks._base import Check, ReportInputs

__all__ = ["CHECK"]

NAME = "sbc_log_gamma"


def run(inputs: ReportInputs, rng: np.random.Generator) -> Any:
    """The log-gamma test on the given ranks, or on ranks of draws at the calibration x's."""
    from modelcompare.posterior import sbc_log_gamma, sbc_ranks

    ranks, s = inputs.ranks, inputs.n_posterior_samples
    draws_rng, null_rng = rng.spawn(2)
    if ranks is None:
        s = inputs.n_draws
        ranks = sbc_ranks(
            inputs.sampler, inputs.theta, inputs.sample_x, n_posterior_samples=s, seed=draws_rng
        )
    return sbc_log_gamma(ranks, s, n_resamples=inputs.n_resamples[NAME], seed=null_rng)


CHECK = Check(
    name=NAME,
    tests=(
        "no point of the ECDF of the SBC ranks leaves its binomial band "
        "(log-gamma statistic, simultaneous over the ranks)"
    ),
    reading=(
        "log γ below the null's quantile flags a parameter whose ranks are not uniform; the "
        "statistic weighs the tails of the rank distribution more than the KS test does."
    ),
    needs=("ranks",),
    run=run,
    tests_per_point=lambda m: m,  # Holm over the m parameters, with one shared null
    local=False,
)
