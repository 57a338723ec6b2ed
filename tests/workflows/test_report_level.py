"""The report reads its own level, and gives one answer per claim."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest

from modelcompare import ConditionalGaussianModel, validate_posterior
from modelcompare.workflows import report_from_arrays
from modelcompare.workflows._report import render_html

pytest.importorskip("matplotlib")

CHECKS = ["sbc", "global_coverage", "pit_independence", "local_coverage"]


@pytest.fixture(scope="module")
def pairs():
    model = ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(400, seed=0)
    return model, theta, x


def _levels(text):
    """Every level a text states, as ``alpha = <number>``."""
    return {float(v) for v in re.findall(r"alpha = ([0-9.e-]+\d)", text)}


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
def test_a_report_states_its_own_level_everywhere(pairs, alpha):
    model, theta, x = pairs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = validate_posterior(
            model.exact_flow(scale_factor=1.3),
            theta,
            x,
            checks=CHECKS,
            n_posterior_samples=50,
            alpha=alpha,
            seed=0,
        )
    assert report.alpha == alpha
    assert _levels(report.summary()) == {alpha}
    page = render_html(report, alpha=report.alpha)
    assert _levels(page) == {alpha}
    data = report.to_dict(include_arrays=False)
    assert data["alpha"] == alpha
    assert _levels(data["summary"]) == {alpha}
    assert data["failures"] == report.failures(alpha)
    # the level B was planned for lets each resampling check reach it
    assert all(f <= alpha for f in report.settings["pvalue_floors"].values())
    json.dumps(data, allow_nan=True)


def test_another_level_at_read_time_is_stated(pairs):
    model, theta, x = pairs
    report = validate_posterior(
        model.exact_flow(), theta, x, checks=["sbc", "global_coverage"], seed=0, alpha=0.01
    )
    text = report.summary(0.1)
    assert "not at the level the report was planned for (0.01)" in text
    assert "not at the level" not in report.summary()


def test_the_arrays_report_plans_at_its_level(pairs):
    _model, theta, x = pairs
    pit = np.random.default_rng(0).uniform(size=theta.shape)
    at = {
        a: report_from_arrays(
            pit_values=pit, x=x, checks=["local_coverage"], alpha=a, seed=0
        ).settings["n_resamples_planned"]["local_coverage"]
        for a in (0.05, 0.01)
    }
    assert at[0.01] > at[0.05]
