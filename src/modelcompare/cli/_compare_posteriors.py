"""``modelcompare compare-posteriors``: which of two posterior estimators is closer, from arrays."""

from __future__ import annotations

import time
from typing import Any

import click
import numpy as np

from modelcompare._foundation.io import DataError, read_matrix
from modelcompare.cli import _options as options
from modelcompare.cli._common import emit, handle_errors

_MIN_PAIRS = 3  # compare_posteriors' smallest calibration set


class _StoredLogDensities:
    """An estimator whose log q(θ_n | x_n) were computed beforehand, one per calibration pair.

    The library scores the pairs in order, in consecutive chunks: each call returns the next rows.
    """

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self._next = 0

    def log_prob(self, theta: Any, x: Any) -> np.ndarray:
        start = self._next
        self._next += len(theta)
        return self.values[start : self._next]


class _StoredDraws:
    """An estimator whose S draws per calibration pair were made beforehand, shape (N, S, m)."""

    def __init__(self, draws: np.ndarray) -> None:
        self.draws = draws
        self._next = 0

    def sample(self, x: Any, n: int, seed: Any = None) -> np.ndarray:
        start = self._next
        self._next += len(x)
        return self.draws[start : self._next]


def _load(path: str, name: str) -> np.ndarray:
    if path.endswith(".npy"):
        try:
            arr = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:  # EOFError: an empty file, not Ctrl-C
            msg = f"cannot read {name} {path!r}: {exc or 'the file is empty'}"
            raise DataError(msg) from None
    else:
        arr = read_matrix(path)
    if arr.dtype.kind not in "biuf":  # complex would lose its imaginary part in silence
        msg = f"{name} {path!r} must hold real numbers; got dtype {arr.dtype}."
        raise DataError(msg)
    return arr


@click.command("compare-posteriors")
@click.argument("first")
@click.argument("second")
@options.scoring_rule()
@options.theta(help="True θ, shape (N, m): the energy rule.")
@options.alternative()
@options.method(choices=("t", "bootstrap"), default="t")
@options.n_resamples(default=1999)
@options.common_options()
@handle_errors
def compare_posteriors_command(
    first: str,
    second: str,
    scoring_rule: str,
    theta: str | None,
    alternative: str,
    method: str,
    n_resamples: int,
    opts: options.CommonOptions,
) -> None:
    """Is posterior estimator FIRST closer to the true posterior than SECOND?

    For --scoring-rule log, FIRST and SECOND are .npy files of shape (N,): each estimator's
    normalised log q(θ_n | x_n) at N held-out simulations (θ_n, x_n). For --scoring-rule energy
    they hold draws of shape (N, S, m) from q(· | x_n), and --theta gives the true θ_n (N, m),
    whose standard deviations standardise the energy score. The statistic is the mean paired
    score difference, positive when FIRST is closer (log rule: an estimate of
    E_x[KL(p‖q_second) − KL(p‖q_first)] in nats); the p-value is that of the paired t-test (or
    the bootstrap-t with --method bootstrap). -inf log-densities lose their pair (a finite
    stand-in one nat below the smallest finite value).

    \b
    Example (on the example data: the exact posterior against one 1.5 times wider):
      $ modelcompare example-data
      $ modelcompare compare-posteriors examples/data/posterior_logq_first.npy examples/data/posterior_logq_second.npy --seed 0
      test                 compare-posteriors
      scoring rule         log
      statistic             0.30267
      ...
      closer                first

    \b
    The energy rule from draws, as a gate (exit code 1 when H0 is rejected at --alpha):
      $ modelcompare compare-posteriors examples/data/posterior_draws_first.npy examples/data/posterior_draws_second.npy --scoring-rule energy --theta examples/data/posterior_theta.npy --seed 0 --alpha 0.05 --json
      {"alpha": 0.05, ..., "pvalue": 0.0343..., "reject": true, ..., "scoring_rule": "energy", ...}
    """
    from modelcompare import compare_posteriors

    started = time.perf_counter()
    a, b = _load(first, "FIRST"), _load(second, "SECOND")
    if scoring_rule == "log":
        for name, arr in (("FIRST", a), ("SECOND", b)):
            if arr.ndim != 1:
                msg = f"{name} must hold log-densities of shape (N,); got shape {arr.shape}."
                raise DataError(msg)
        if a.shape != b.shape:
            msg = f"FIRST and SECOND must have the same length; got {a.shape[0]} and {b.shape[0]}."
            raise DataError(msg)
        n = a.shape[0]
        th = np.zeros((n, 1))
        est_a: Any = _StoredLogDensities(np.asarray(a, dtype=float))
        est_b: Any = _StoredLogDensities(np.asarray(b, dtype=float))
        n_draws = 2
    else:
        if theta is None:
            msg = "--theta is required with --scoring-rule energy."
            raise click.UsageError(msg)
        th = _load(theta, "--theta")
        for name, arr in (("FIRST", a), ("SECOND", b)):
            if arr.ndim != 3:
                msg = f"{name} must hold draws of shape (N, S, m); got shape {arr.shape}."
                raise DataError(msg)
        if a.shape != b.shape or th.ndim != 2 or th.shape != (a.shape[0], a.shape[2]):
            msg = (
                f"FIRST and SECOND must have the same shape (N, S, m) and --theta shape (N, m); "
                f"got {a.shape}, {b.shape} and {th.shape}."
            )
            raise DataError(msg)
        n, n_draws = a.shape[0], a.shape[1]
        est_a = _StoredDraws(np.asarray(a, dtype=float))
        est_b = _StoredDraws(np.asarray(b, dtype=float))
    if n < _MIN_PAIRS:  # said here: the log rule's θ is a stand-in the user never gave
        msg = f"FIRST and SECOND need at least {_MIN_PAIRS} calibration pairs (rows); got {n}."
        raise DataError(msg)
    result = compare_posteriors(
        est_a,
        est_b,
        th,
        np.zeros((n, 1)),
        scoring_rule=scoring_rule,
        alternative=alternative,
        method=method,
        n_resamples=n_resamples,
        n_posterior_samples=n_draws,
        seed=opts.seed,
    )
    ci = result.confidence_interval()
    rows = [
        ("scoring rule", result.scoring_rule),
        ("statistic", result.statistic),
        ("95% CI", f"[{ci.low:.4g}, {ci.high:.4g}]"),
        ("pvalue", result.pvalue),
        ("n", result.n),
        ("-inf (first, second)", f"{result.n_neg_inf_first}, {result.n_neg_inf_second}"),
        ("closer", "first" if result.statistic > 0 else "second"),
    ]
    emit(
        opts,
        test="compare-posteriors",
        result=result,
        params={
            "scoring_rule": scoring_rule,
            "alternative": alternative,
            "method": method,
            "n_resamples": n_resamples,
        },
        seed=result.seed_used,
        started=started,
        rows=rows,
    )
