"""Edges of the newer callables, each tried as a new user would (one case per edge).

The Python cases run through :func:`tests.fuzz.runner.run_case` (an error naming the user's own
argument, or a result flagged ``degenerate``); the command-line cases through
:func:`tests.fuzz.cli_cases.run_cli_case` (one ``Error:`` line and the right exit code). What
the protocol cannot see (a check that must run, a warning that must be given) is asserted
beside them in ``tests/test_fuzz_edges.py``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from tests.fuzz.cases import Case
from tests.fuzz.cli_cases import CliCase
from tests.fuzz.data import _normal, _posterior_pair, _uniform
from tests.fuzz.mutations import _torch, _with

REPORT = "workflows.report_from_arrays"


def _draws(n: int = 60) -> tuple[np.ndarray, np.ndarray]:
    flow, _wrong, theta, x = _posterior_pair(n)
    return flow.sample(x, 20, seed=1), theta


def _contraction_overflow() -> dict[str, Any]:
    draws, theta = _draws()
    return {"posterior_samples": draws, "theta": theta * 1e300}


def _recovery_constant() -> dict[str, Any]:
    draws, theta = _draws()
    theta = theta.copy()
    theta[:, 0] = 0.1  # its std is rounding error, about 1e-17, not 0
    return {"posterior_samples": draws, "theta": theta, "normalize": "std"}


def _report_torch() -> dict[str, Any]:
    draws, theta = _draws()
    return {"posterior_samples": _torch(draws), "theta": theta, "checks": ["tarp"], "seed": 0}


def _report_nan_draws() -> dict[str, Any]:
    draws, theta = _draws()
    return {"posterior_samples": _with(draws, math.nan), "theta": theta, "seed": 0}


def _report_complex_draws() -> dict[str, Any]:
    draws, theta = _draws()
    return {"posterior_samples": draws + 0j, "theta": theta, "seed": 0}


def _report_rows() -> dict[str, Any]:
    ranks = np.random.default_rng(0).integers(0, 21, size=(50, 2))
    return {"pit_values": _uniform(80), "ranks": ranks, "n_posterior_samples": 20, "seed": 0}


def _report_x_eval_width() -> dict[str, Any]:
    return {
        "pit_values": _uniform(80),
        "x": _normal(80),
        "x_eval": _normal(2, d=3, seed=5),
        "n_resamples": 10,
        "seed": 0,
    }


def _compare(**kw: Any) -> dict[str, Any]:
    first, second, theta, x = _posterior_pair()
    return {"first": first, "second": second, "theta": theta, "x": x, "seed": 0, **kw}


def _validate_compare_with() -> dict[str, Any]:
    flow, _wrong, theta, x = _posterior_pair()
    return {"flow": flow, "theta": theta, "x": x, "checks": ["sbc"], "compare_with": 3, "seed": 0}


def _log_gamma(n: int, s: int, b: int) -> dict[str, Any]:
    ranks = np.random.default_rng(0).integers(0, s + 1, size=(n, 2))
    return {"ranks": ranks, "n_posterior_samples": s, "n_resamples": b, "seed": 0}


def edge_cases() -> list[Case]:
    """The Python edges, as catalogue cases."""
    return [
        Case(
            "posterior_contraction",
            "edge:theta_overflows",
            _contraction_overflow,
            ("theta",),
            degenerate=True,
        ),
        Case(
            "parameter_recovery",
            "edge:std_of_constant_column",
            _recovery_constant,
            ("theta",),
            degenerate=True,
        ),
        Case(REPORT, "edge:draws_requires_grad", _report_torch, ("posterior_samples",)),
        Case(REPORT, "edge:nan_draws", _report_nan_draws, ("posterior_samples",), must_fail=True),
        Case(
            REPORT,
            "edge:complex_draws",
            _report_complex_draws,
            ("posterior_samples",),
            must_fail=True,
        ),
        Case(
            REPORT,
            "edge:pit_and_rank_rows",
            _report_rows,
            ("pit_values", "ranks"),
            must_fail=True,
        ),
        Case(REPORT, "edge:x_eval_width", _report_x_eval_width, ("x_eval",), must_fail=True),
        Case(
            "compare_posteriors",
            "edge:correction_without_x_eval",
            lambda: _compare(correction="bogus"),
            ("correction",),
            must_fail=True,
        ),
        Case(
            "compare_posteriors",
            "edge:complex_theta",
            lambda: {**_compare(), "theta": _compare()["theta"] + 0j},
            ("theta",),
            must_fail=True,
        ),
        Case(
            "compare_posteriors",
            "edge:energy_overflow",
            lambda: {**_compare(scoring_rule="energy"), "theta": _compare()["theta"] * 1e300},
            ("theta",),
            must_fail=True,
        ),
        Case(
            "validate_posterior",
            "edge:compare_with_not_an_estimator",
            _validate_compare_with,
            ("compare_with",),
            must_fail=True,
        ),
        Case(
            "sbc_log_gamma",
            "edge:one_row",
            lambda: _log_gamma(1, 20, 99),
            ("ranks",),
            must_fail=True,
        ),
        Case(
            "sbc_log_gamma",
            "edge:time_guard",
            lambda: _log_gamma(100, 10**6, 10**5),
            ("n_resamples", "n_posterior_samples"),
            must_fail=True,
        ),
    ]


def edge_cli_files(folder: Path) -> dict[str, str]:
    """The data files of the command-line edges; returns name -> path."""
    rng = np.random.default_rng(0)
    arrays = {
        "logq": rng.normal(size=40),
        "logq_one": rng.normal(size=1),
        "logq_complex": rng.normal(size=40) + 1j,
        "reference": rng.normal(size=(2, 30, 2)),
        "at_reference_wide": rng.normal(size=(2, 30, 3)),
        "at_reference_nan": _with(rng.normal(size=(2, 30, 2)), math.nan),
    }
    out = {}
    for name, value in arrays.items():
        path = folder / f"{name}.npy"
        np.save(path, value)
        out[name] = str(path)
    zero = folder / "zero.npy"
    zero.write_bytes(b"")
    out["zero"] = str(zero)
    return out


def edge_cli_cases(f: dict[str, str]) -> list[CliCase]:
    """The command-line edges, on the files of :func:`edge_cli_files`."""
    at_ref = "--posterior-samples-at-reference"
    return [
        CliCase(
            "cli compare-posteriors:edge:zero_bytes", ("compare-posteriors", f["zero"], f["logq"])
        ),
        CliCase(
            "cli compare-posteriors:edge:one_row",
            ("compare-posteriors", f["logq_one"], f["logq_one"]),
        ),
        CliCase(
            "cli compare-posteriors:edge:complex",
            ("compare-posteriors", f["logq_complex"], f["logq"]),
        ),
        CliCase(
            "cli report:edge:reference_width",
            ("report", "--reference", f["reference"], at_ref, f["at_reference_wide"]),
        ),
        CliCase(
            "cli report:edge:reference_nan",
            ("report", "--reference", f["reference"], at_ref, f["at_reference_nan"]),
        ),
        CliCase("cli report:edge:no_inputs", ("report",), codes=(2,)),
    ]
