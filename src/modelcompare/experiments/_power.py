"""``power_study``: rejection rates with binomial confidence intervals, built on ``run_many``."""

from __future__ import annotations

import functools
import itertools
import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from modelcompare._foundation.errors import ModelCompareWarning
from modelcompare._foundation.resources import check_memory
from modelcompare._foundation.results import CollectionResult, result_class
from modelcompare._foundation.seeds import SeedLike
from modelcompare._foundation.task_seeds import config_key
from modelcompare._foundation.validation import check_choice, check_fraction, check_int
from modelcompare.experiments._run_many import check_flag, check_n_jobs, run_many
from modelcompare.experiments._sweep import run_sweep

__all__ = ["PowerStudyResult", "power_study"]

CI_METHODS = {"clopper-pearson": "exact", "wilson": "wilson"}
_TASK_BYTES = 1024  # a generous estimate of one trial's config, seed and result row


@result_class
class PowerStudyResult(CollectionResult):
    """Result of :func:`power_study`.

    Attributes
    ----------
    power : numpy.ndarray
        Rejection rate (p ≤ alpha) per row of ``table``.
    table : pandas.DataFrame
        One row per setting and significance level: the setting's entries, ``significance``,
        ``n_trials`` (trials that ran), ``n_failed``, ``n_rejected``, ``power``, ``power_low``,
        ``power_high`` (the binomial confidence interval).
    pvalues : pandas.DataFrame
        One row per trial (the :func:`run_many` table): setting, ``trial``, ``pvalue``,
        ``statistic``, ``seed``, ``error``...
    significance : tuple of float
        The levels alpha.
    confidence_level : float
        Level of the intervals.
    ci_method : str
        ``"clopper-pearson"`` or ``"wilson"``.
    seed_used : int
        Base seed of the study.
    """

    power: np.ndarray
    table: Any
    pvalues: Any
    significance: tuple[float, ...]
    n_trials: int
    confidence_level: float
    ci_method: str
    seed_used: int

    _repr_fields: ClassVar[tuple[str, ...]] = ("n_trials", "significance", "ci_method")


def _pvalue_of(out: Any) -> tuple[float, float]:
    if isinstance(out, Mapping):
        p, stat = out.get("pvalue"), out.get("statistic", math.nan)
    elif hasattr(out, "pvalue"):
        p, stat = out.pvalue, getattr(out, "statistic", math.nan)
    else:
        p, stat = out, math.nan
    try:
        p = float(p)
    except (TypeError, ValueError):
        msg = f"the test must return a p-value (a float, or an object with `pvalue`); got {out!r}."
        raise TypeError(msg) from None
    if not 0.0 <= p <= 1.0:  # also catches NaN
        msg = f"the test returned an invalid p-value {p!r}."
        raise ValueError(msg)
    try:
        stat = float(stat)
    except (TypeError, ValueError):
        stat = math.nan
    return p, stat


def _power_trial(
    test: Callable[..., Any], simulate: Callable[..., Any], *, trial: int, seed: int, **setting: Any
) -> dict[str, float]:
    """One trial: simulate with one child stream, test with another; return p-value and statistic."""
    sim_seq, test_seq = np.random.SeedSequence(seed).spawn(2)
    data = simulate(**setting, seed=np.random.default_rng(sim_seq))
    test_seed = int(test_seq.generate_state(1, np.uint64)[0] >> np.uint64(1))
    if isinstance(data, Mapping):
        out = test(**data, seed=test_seed)
    elif isinstance(data, tuple | list):
        out = test(*data, seed=test_seed)
    else:
        out = test(data, seed=test_seed)
    pvalue, statistic = _pvalue_of(out)
    return {"pvalue": pvalue, "statistic": statistic}


def _check_names(setting: Mapping[Any, Any], where: str) -> None:
    bad = [k for k in setting if not isinstance(k, str)]
    if bad:
        msg = (
            f"`{where}` has non-string key(s) {bad[:3]!r}; the keys are keyword arguments of "
            "`simulate`, so they must be str."
        )
        raise TypeError(msg)


def _warn_empty_settings(empty: list[dict[str, Any]], n_settings: int, trials: Any) -> None:
    """Warn that the settings in ``empty`` had no trial that ran: their power is NaN."""
    if not empty:
        return
    errors = trials["error"].dropna()
    first = errors.iloc[0] if len(errors) else "no error recorded"
    if len(empty) == n_settings:
        what = f"every trial failed ({len(trials)} of {len(trials)}), so the power is NaN"
    else:
        shown = ", ".join(repr(e) for e in empty[:3]) + (", ..." if len(empty) > 3 else "")
        what = (
            f"every trial failed for {len(empty)} of {n_settings} settings ({shown}), so their "
            "power is NaN"
        )
    msg = (
        f"power_study: {what}; the first trial's error: {first} (every trial's error is in "
        "`result.pvalues['error']`)."
    )
    warnings.warn(msg, ModelCompareWarning, stacklevel=3)


def _settings_list(settings: Any) -> list[dict[str, Any]]:
    if settings is None:
        return [{}]
    if isinstance(settings, Mapping):  # a grid: every value is a list of levels (or one level)
        _check_names(settings, "settings")
        names = list(settings)
        axes = [v if isinstance(v, list | tuple | np.ndarray) else [v] for v in settings.values()]
        empty = [name for name, axis in zip(names, axes, strict=True) if len(axis) == 0]
        if empty:
            msg = (
                f"`settings` grid has no levels for {empty[0]!r}: every value must be a level or "
                "a non-empty list of levels (an empty list would leave nothing to simulate)."
            )
            raise ValueError(msg)
        return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*axes)]
    if isinstance(settings, Sequence) and not isinstance(settings, str | bytes):
        out = []
        for i, s in enumerate(settings):
            if not isinstance(s, Mapping):
                msg = f"`settings[{i}]` must be a dict of `simulate` arguments; got {type(s).__name__}."
                raise TypeError(msg)
            _check_names(s, f"settings[{i}]")
            out.append(dict(s))
        if not out:
            msg = "`settings` is an empty list: give at least one setting, or None for one run."
            raise ValueError(msg)
        return out
    msg = (
        "`settings` must be a list of dicts, a dict of lists (a grid) or None; "
        f"got {type(settings).__name__}."
    )
    raise TypeError(msg)


def power_study(
    test: Callable[..., Any],
    simulate: Callable[..., Any],
    *,
    n_trials: int,
    alpha: float | Sequence[float] = 0.05,
    settings: Sequence[Mapping[str, Any]] | Mapping[str, Any] | None = None,
    seed: SeedLike = None,
    n_jobs: int | None = None,
    progress: bool = False,
    confidence_level: float = 0.95,
    ci_method: str = "clopper-pearson",
    out: str | os.PathLike[str] | None = None,
) -> PowerStudyResult:
    """Estimate a test's rejection rate (size under H0, power under H1) by simulation.

    Parameters
    ----------
    test : callable
        ``test(*data, seed=int)`` returns a result with ``pvalue`` (or a float p-value), e.g.
        ``functools.partial(c2st, classifier="logistic")``.
    simulate : callable
        ``simulate(**setting, seed=Generator)`` returns the test's data: a tuple (positional
        arguments), a dict (keyword arguments) or one array.
    n_trials : int
        Simulated data sets per setting.
    alpha : float or sequence of float
        Significance level(s); H0 is rejected iff p ≤ alpha.
    settings : list of dict, dict of lists, or None
        The settings to simulate: a list of ``simulate`` argument dicts, or a grid (a dict whose
        values are lists of levels; all combinations are run). None runs ``simulate(seed=...)``.
    seed : int, numpy.random.Generator or None
        Base seed; trial t of a setting gets the child seed of the config ``{**setting, "trial": t}``.
    n_jobs, progress
        As in :func:`run_many` (joblib; ``parallel_config(backend="dask")`` sends trials to Dask).
    confidence_level : float
        Level of the binomial confidence interval of each rejection rate.
    ci_method : {"clopper-pearson", "wilson"}
        Exact Clopper–Pearson (conservative) or Wilson score interval
        (:meth:`scipy.stats.BinomTestResult.proportion_ci`).
    out : path or None
        Make the study resumable: trials are saved as in :func:`run_sweep`.

    Returns
    -------
    PowerStudyResult
        ``power`` and the tidy ``table`` (per setting and level), and the per-trial ``pvalues``.

    Raises
    ------
    ValueError
        An empty ``settings`` grid or list, a level outside (0, 1) (NaN included), ``n_jobs=0``.
    TypeError
        Non-callable ``test``/``simulate``, non-string setting names, a non-bool ``progress``.

    Warns
    -----
    ModelCompareWarning
        When every trial of a setting failed (or every trial of the study): that setting's
        ``power`` is NaN; the warning quotes the first trial's error.

    Notes
    -----
    Each trial splits its child seed into two streams, one for ``simulate`` and one for ``test``.
    The simulated data depend only on the base seed, the setting and the trial number, so two
    studies with the same seed and settings test **the same data sets** (common random numbers),
    which makes their power comparison paired. Trials whose simulation or test raises, or whose
    p-value is not in [0, 1], count in ``n_failed`` and not in ``n_trials``.

    The vocabulary follows :func:`scipy.stats.power` (``power``, ``pvalues``, ``significance``).

    Examples
    --------
    >>> from scipy import stats
    >>> from modelcompare import power_study
    >>> def normal_mean(shift, seed):
    ...     return seed.normal(shift, 1.0, size=30)
    >>> def ttest(x, seed):
    ...     return stats.ttest_1samp(x, 0.0)
    >>> res = power_study(ttest, normal_mean, n_trials=100, settings={"shift": [0.0, 0.8]}, seed=0)
    >>> size, power = res.power
    >>> bool(size < 0.15), bool(power > 0.9)
    (True, True)
    """
    from scipy.stats import binomtest

    n_trials = check_int(n_trials, "n_trials", low=1)
    levels = (alpha,) if np.ndim(alpha) == 0 else tuple(alpha)  # type: ignore[arg-type]
    if not levels:
        msg = "`alpha` must be a level in (0, 1) or a non-empty list of levels."
        raise ValueError(msg)
    levels = tuple(check_fraction(a, "alpha") for a in levels)
    confidence_level = check_fraction(confidence_level, "confidence_level")
    ci_method = check_choice(ci_method, "ci_method", tuple(CI_METHODS))
    if not callable(test) or not callable(simulate):
        msg = "`test` and `simulate` must be callables."
        raise TypeError(msg)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_flag(progress, "progress")
    setting_list = _settings_list(settings)
    for i, s in enumerate(setting_list):
        if "trial" in s or "seed" in s:
            msg = (
                f"`settings[{i}]` may not use the names `trial` or `seed`; they are set per trial."
            )
            raise ValueError(msg)
    setting_keys = [config_key(s) for s in setting_list]
    if len(set(setting_keys)) != len(setting_keys):
        msg = "`settings` holds the same setting twice."
        raise ValueError(msg)
    # one task record (a small dict and its result row) per trial and setting
    check_memory(len(setting_list) * n_trials * _TASK_BYTES, "the trial list", "n_trials")
    configs = [{**s, "trial": t} for s in setting_list for t in range(n_trials)]
    fn = functools.partial(_power_trial, test, simulate)
    if out is None:
        trials = run_many(fn, configs, n_jobs=n_jobs, seed=seed, progress=progress)
    else:
        trials = run_sweep(fn, configs, out=out, seed=seed, n_jobs=n_jobs, progress=progress)
    base = int(trials.attrs["seed_used"])

    trial_setting = [config_key({k: v for k, v in c.items() if k != "trial"}) for c in configs]
    ok = trials["error"].isna().to_numpy()
    pvals = (
        trials["pvalue"].to_numpy(dtype=float) if "pvalue" in trials else np.full(len(ok), np.nan)
    )
    rows = []
    empty = []
    for setting, skey in zip(setting_list, setting_keys, strict=True):
        mask = np.array([t == skey for t in trial_setting])
        valid = pvals[mask & ok]
        if valid.size == 0:
            empty.append(setting)
        for level in levels:
            n, k = int(valid.size), int(np.sum(valid <= level))
            if n:
                ci = binomtest(k, n).proportion_ci(confidence_level, method=CI_METHODS[ci_method])
                low, high, rate = float(ci.low), float(ci.high), k / n
            else:
                low = high = rate = math.nan
            rows.append(
                {
                    **setting,
                    "significance": level,
                    "n_trials": n,
                    "n_failed": int(mask.sum()) - n,
                    "n_rejected": k,
                    "power": rate,
                    "power_low": low,
                    "power_high": high,
                }
            )
    import pandas as pd

    table = pd.DataFrame.from_records(rows)
    _warn_empty_settings(empty, len(setting_list), trials)
    return PowerStudyResult(
        power=table["power"].to_numpy(dtype=float),
        table=table,
        pvalues=trials,
        significance=levels,
        n_trials=n_trials,
        confidence_level=confidence_level,
        ci_method=ci_method,
        seed_used=base,
    )
