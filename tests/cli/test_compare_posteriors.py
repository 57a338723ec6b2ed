"""``modelcompare compare-posteriors`` on the shipped arrays: table, JSON, exit codes, errors."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

import modelcompare as mc
from modelcompare.cli import app
from modelcompare.datasets import data_path

DATA = data_path("reference.npy").parent  # the example files shipped in the package
LOGQ = [str(DATA / "posterior_logq_first.npy"), str(DATA / "posterior_logq_second.npy")]
DRAWS = [str(DATA / "posterior_draws_first.npy"), str(DATA / "posterior_draws_second.npy")]
THETA = str(DATA / "posterior_theta.npy")


def _run(*args: str):
    return CliRunner().invoke(app, ["compare-posteriors", *args])


def test_log_rule_json_matches_the_library() -> None:
    out = _run(*LOGQ, "--seed", "0", "--json")
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    d = np.load(LOGQ[0]).astype(float) - np.load(LOGQ[1]).astype(float)
    assert payload["statistic"] == np.float64(d.mean())
    assert payload["test"] == "compare-posteriors"
    assert payload["seed_used"] == 0


def test_energy_rule_matches_the_library_and_gates() -> None:
    out = _run(*DRAWS, "--scoring-rule", "energy", "--theta", THETA, "--seed", "0", "--json")
    payload = json.loads(out.stdout)
    draws = [np.load(p).astype(float) for p in DRAWS]
    theta = np.load(THETA).astype(float)

    class Stored:
        def __init__(self, y):
            self.y = y

        def sample(self, x, n, seed=None):
            return self.y

    result = mc.compare_posteriors(
        Stored(draws[0]),
        Stored(draws[1]),
        theta,
        np.zeros((len(theta), 1)),
        scoring_rule="energy",
        n_posterior_samples=draws[0].shape[1],
        seed=0,
    )
    assert payload["statistic"] == result.statistic
    gate = _run(
        *DRAWS, "--scoring-rule", "energy", "--theta", THETA, "--alpha", "0.05", "--fail-on-reject"
    )
    assert gate.exit_code == 1
    assert "reject H0 at 0.05" in gate.stdout


def test_bad_inputs_exit_with_one_line() -> None:
    out = _run(LOGQ[0], DRAWS[0])
    assert out.exit_code == 3
    assert "SECOND must hold log-densities of shape (N,)" in out.output
    missing = _run(*DRAWS, "--scoring-rule", "energy")
    assert missing.exit_code == 2
    assert "--theta is required" in missing.output
