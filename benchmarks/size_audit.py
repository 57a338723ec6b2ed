"""How often does each test cry wolf? Every public test's size at α = 0.01, 0.05, 0.1 under H0.

Each public test of modelcompare (the list comes from the public API: :func:`public_tests`) is
run R times at its defaults on data drawn under its own null, in two scenarios its users meet
(Gaussian and a heavy-tailed or non-Gaussian one), and its rejection rate is read at the three
levels from the same R p-values (or, for a test that plans its resamples for its level, from one
run per level). Peers sit beside a test on the same data where they install: sbi 0.27
(``check_sbc`` read as users read it and with Bonferroni, ``check_tarp``, ``LC2ST``,
``LC2ST_NF``, ``calc_misspecification_mmd``), BayesFlow 2.1 (``classifier_two_sample_test``,
``calibration_log_gamma``), arviz-stats 0.8 (the PIT-ECDF band), the naive paired t-test on
repeated CV scores and the naive "FID(P, R) < FID(Q, R)". A second table gives power at one
matched alternative.

Verdict, allowing for multiplicity: a cell (test, scenario, level) over-rejects when the one-sided
binomial p-value of its count under the level, P(K ≥ k | R, α), is below 0.05 / (number of
cells): Bonferroni across every cell of the table. A cell below the level by the same rule reads
"conservative".

Resumable: the audit is a :func:`modelcompare.experiments.run_sweep` of tasks of 40 replicates
each, saved as they finish under ``benchmarks/results/raw/size_audit.csv.parts``; a rerun skips
them, and the reduced run's tasks are the full run's first ones.

Run, in an environment with the peers (BayesFlow 2.1 declares Python ≥ 3.12 and is installed
without its pins on 3.11, as for benchmarks/bayesflow_agreement.py):
    python3 -m venv /tmp/audit && /tmp/audit/bin/pip install torch==2.13.0
    /tmp/audit/bin/pip install torch==2.13.0 "keras>=3.15" matplotlib networkx pandas scipy \
        seaborn sympy tqdm -e ".[dev,audit]"
    /tmp/audit/bin/pip install --no-deps --ignore-requires-python bayesflow==2.1.0
    OMP_NUM_THREADS=1 /tmp/audit/bin/python benchmarks/size_audit.py --quick      # minutes
    OMP_NUM_THREADS=1 /tmp/audit/bin/python benchmarks/size_audit.py --n-jobs 2   # about 1 h
    python benchmarks/size_audit.py --tabulate  # the tables from the finished tasks
    python benchmarks/size_audit.py --render    # docs/size_audit.md from the results only
A peer that is not installed leaves its column out.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import functools
import inspect
import json
import platform
import typing
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "size_audit.json"
RAW = ROOT / "benchmarks" / "results" / "raw" / "size_audit.csv"
PAGE = ROOT / "docs" / "size_audit.md"
LEVELS = (0.01, 0.05, 0.1)
FAMILY = 0.05  # the family-wise level of the verdict across all cells

# ----------------------------------------------------------------------------------------------
# the public tests


def public_tests() -> list[str]:
    """Every public test of ``modelcompare``: the functions of ``__all__`` that return a test
    result (a p-value), or whose name ends in ``_test``."""
    import modelcompare as mc
    from modelcompare._foundation.results import CollectionTestResult, TestResult

    out = []
    for name in mc.__all__:
        fn = getattr(mc, name)
        if not inspect.isfunction(fn):
            continue
        try:
            returned = typing.get_type_hints(fn).get("return")
        except Exception:  # noqa: BLE001 - an unresolvable hint is read as no test result
            returned = None
        members = typing.get_args(returned) or (returned,)
        is_test = any(
            isinstance(t, type) and issubclass(t, TestResult | CollectionTestResult)
            for t in members
        )
        if is_test or name.endswith("_test"):
            out.append(name)
    return sorted(out)


# ----------------------------------------------------------------------------------------------
# null scenarios: seed -> p-value (or a dict of column -> p-value for a test and its peers)

Null = Callable[[int], dict[str, float]]


def _data_rng(seed: int) -> np.random.Generator:
    """The data's generator: a stream apart from ``default_rng(seed)``, which the test under audit
    draws its own randomness from when given ``seed`` (the same stream would couple the two: a
    jittered rank drawn from the bits that drew the rank is not uniform)."""
    return np.random.default_rng([seed, 2**31])


def _gauss(rng: np.random.Generator, n: int, d: int = 2, shift: float = 0.0) -> np.ndarray:
    return rng.normal(shift, 1.0, size=(n, d))


def _heavy(rng: np.random.Generator, n: int, d: int = 2, shift: float = 0.0) -> np.ndarray:
    return shift + rng.standard_t(3, size=(n, d))


SAMPLERS = {"gaussian": _gauss, "student-t(3)": _heavy}


def _c2st(kind: str, shift: float = 0.0) -> Null:
    """``c2st`` at its defaults (MLP classifier) on n = 300 per sample, and BayesFlow's C2ST."""

    def run(seed: int) -> dict[str, float]:
        import modelcompare as mc

        rng = _data_rng(seed)
        x, y = SAMPLERS[kind](rng, 300), SAMPLERS[kind](rng, 300, shift=shift)
        return {"ours": mc.c2st(x, y, seed=seed).pvalue} | _bayesflow_c2st(x, y, seed)

    return run


def _bayesflow_c2st(x: np.ndarray, y: np.ndarray, seed: int) -> dict[str, float]:
    """BayesFlow 2.1's ``classifier_two_sample_test`` at its defaults (5-fold MLP): the only
    p-value it gives without retraining, its conformal AUC test (``return_metric_only=False``)."""
    try:
        from bayesflow.diagnostics.metrics import classifier_two_sample_test
    except ImportError:
        return {}
    res = classifier_two_sample_test(x, y, return_metric_only=False, seed=seed)
    return {"BayesFlow 2.1 C2ST (conformal)": float(res["conformal_p_value"])}


def _relative(name: str, kind: str, **options: Any) -> Null:
    """x and y equally far from z by symmetry (means +0.5 and -0.5 along the first axis)."""

    def run(seed: int) -> dict[str, float]:
        import modelcompare as mc

        rng = _data_rng(seed)
        draw = SAMPLERS[kind]
        shift = np.array([0.5, 0.0])
        x, y, z = draw(rng, 200) + shift, draw(rng, 200) - shift, draw(rng, 200)
        out = {"ours": getattr(mc, name)(x, y, z, seed=seed, **options).pvalue}
        if name == "rel_fid":
            # the naive comparison claims "x is closer" whenever FID(x, z) < FID(y, z), a coin
            # flip here: read as p = 0 when it makes the claim and 1 otherwise
            closer = mc.fid(x, z).value < mc.fid(y, z).value
            out["naive FID(P,R) < FID(Q,R)"] = 0.0 if closer else 1.0
        return out

    return run


def _rel_fssd(kind: str) -> Null:
    def run(seed: int) -> dict[str, float]:
        import modelcompare as mc
        from modelcompare.densities import IsotropicNormal

        rng = _data_rng(seed)
        z = SAMPLERS[kind](rng, 300)
        p, q = (
            IsotropicNormal(np.array([0.5, 0.0]), 1.0),
            IsotropicNormal(np.array([-0.5, 0.0]), 1.0),
        )
        return {"ours": mc.rel_fssd(p, q, z, seed=seed).pvalue}

    return run


def _exact_pairs(kind: str, n: int, rng: np.random.Generator) -> tuple[Any, Any, Any]:
    """Calibration pairs with an exact posterior: the conjugate Gaussian model and its exact flow,
    or, when ``kind`` names a non-Gaussian prior, x drawn from Student-t(3) and θ from that same
    flow given x. The joint p(x) q(θ | x) has q as its exact posterior, under the non-Gaussian
    prior ∫ p(x) q(θ | x) dx."""
    import modelcompare as mc

    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(n, seed=int(rng.integers(2**31)))
    if "non-Gaussian prior" in kind:
        x = 2.0 * _heavy(rng, n)
        theta = model.exact_flow().sample(x, 1, seed=int(rng.integers(2**31)))[:, 0]
    return model, theta, x


def _pit_null(kind: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """PIT values of an exact posterior (:func:`_exact_pairs`) and their x."""
    import modelcompare as mc

    model, theta, x = _exact_pairs(kind, n, rng)
    return mc.pit(model.exact_flow(), theta, x), x


def _size(kind: str) -> int:
    return 100 if "n = 100" in kind else (500 if "n = 500" in kind else 300)


def _posterior(name: str, kind: str, scale_factor: float = 1.0) -> Null:
    """A posterior check at its defaults on pairs with an exact posterior (or, with
    ``scale_factor`` > 1, a posterior that many times too wide: an alternative)."""

    def run(seed: int) -> dict[str, Any]:
        import modelcompare as mc

        rng = _data_rng(seed)
        n = _size(kind)
        model, theta, x = _exact_pairs(kind, n, rng)
        flow = model.exact_flow(scale_factor=scale_factor)
        if name in ("global_coverage_test", "pit_independence_test"):
            pit = mc.pit(flow, theta, x)
            if name == "pit_independence_test":
                return {"ours": mc.pit_independence_test(pit).pvalue}
            return {"ours": mc.global_coverage_test(pit, seed=seed).pvalue} | _arviz_pit_bands(pit)
        if name in ("local_coverage_test", "local_independence_test"):
            pit, x_eval = mc.pit(flow, theta, x), np.zeros((1, 2))
            return {"ours": getattr(mc, name)(pit, x, x_eval, seed=seed).pvalue}
        if name in ("sbc_test", "sbc_log_gamma"):
            s = 100
            if kind == "uniform ranks":
                ranks, peers = rng.integers(0, s + 1, size=(1000, 2)), {}
            else:
                draws = flow.sample(x, s, seed=seed + 1)
                ranks = np.sum(draws < theta[:, None, :], axis=1)
                peers = _bayesflow_log_gamma(draws, theta) if name == "sbc_log_gamma" else {}
            out = {"ours": getattr(mc, name)(ranks, s, seed=seed).pvalue} | peers
            return out | (_sbi_check_sbc(ranks, s) if name == "sbc_test" else {})
        if name in ("sbc", "tarp", "hpd_coverage"):
            res = getattr(mc, name)(flow, theta, x, n_posterior_samples=50, seed=seed)
            out = {"ours": res.pvalue}
            if name == "sbc":
                ranks = mc.sbc_ranks(flow, theta, x, n_posterior_samples=50, seed=seed + 1)
                out |= _sbi_check_sbc(ranks, 50)
            if name == "tarp":
                out |= _sbi_check_tarp(flow.sample(x, 50, seed=seed + 1), theta, seed)
            return out
        if name == "hpd_coverage_test":
            # log q of S exact draws and of the truth: exchangeable under H0
            log_q = (
                rng.standard_normal((n, 51))
                if kind == "exchangeable"
                else -rng.gamma(2.0, size=(n, 51))
            )
            return {"ours": mc.hpd_coverage_test(log_q[:, 1:], log_q[:, 0], seed=seed).pvalue}
        if name == "misspecification_test":
            draw = SAMPLERS["gaussian" if kind == "exact flow" else "student-t(3)"]
            x_obs, x_sim = draw(rng, 1), draw(rng, 200)
            res = mc.misspecification_test(x_obs, x_sim, seed=seed)
            return {"ours": res.pvalue} | _sbi_misspecification_mmd(x_obs, x_sim, seed)
        if name in ("compare_posteriors", "rank_posteriors"):
            # one estimator against itself under the energy rule: E[d] = 0, d is draw noise
            if name == "compare_posteriors":
                res = mc.compare_posteriors(
                    flow, flow, theta, x, scoring_rule="energy", n_posterior_samples=20, seed=seed
                )
            else:
                res = mc.rank_posteriors(
                    [flow, flow], theta, x, scoring_rule="energy", n_posterior_samples=20, seed=seed
                )
            return {"ours": res.pvalue}
        if name == "validate_posterior":
            # it plans its resamples for its level: one report per audited level, each read at
            # its own level ("any check fails"), coded as p = 0 (rejects) or 1 per level
            fails = [
                bool(mc.validate_posterior(flow, theta, x, alpha=a, seed=seed).failures())
                for a in LEVELS
            ]
            return {"ours": _decisions(fails)}
        raise KeyError(name)

    return run


def _arviz_pit_bands(pit: np.ndarray) -> dict[str, Any]:
    """arviz-stats' PIT-ECDF simultaneous band (``ecdf_pit``, 1000 simulations, its default
    generator) per parameter, at each level: 'any' rejects when an ECDF leaves its band at
    ``ci_prob = 1 − α``, 'Bonferroni' at ``1 − α / m``. Coded per level as p = 0 or 1."""
    try:
        from arviz_stats.ecdf_utils import compute_ecdf
    except ImportError:
        return {}
    n, m = pit.shape
    grid = np.arange(1, n) / n
    ecdfs = [compute_ecdf(pit[:, j], grid) for j in range(m)]

    def outside(ci_prob: float) -> bool:
        lower, upper = _arviz_band(n, round(ci_prob, 6))
        return any(bool(np.any((e < lower) | (e > upper))) for e in ecdfs)

    return {
        "arviz-stats 0.8 PIT-ECDF band (any)": _decisions(outside(1 - a) for a in LEVELS),
        "arviz-stats 0.8 PIT-ECDF band (Bonferroni)": _decisions(
            outside(1 - a / m) for a in LEVELS
        ),
    }


@functools.lru_cache(maxsize=64)
def _arviz_band(n: int, ci_prob: float) -> tuple[np.ndarray, np.ndarray]:
    """``ecdf_pit``'s band for n values: it depends on n and ``ci_prob`` only (its default
    generator is seeded), so it is computed once, exactly as ``ecdf_pit`` computes it."""
    from arviz_stats.ecdf_utils import ecdf_pit

    _, _, lower, upper = ecdf_pit(np.linspace(0.0, 1.0, n), ci_prob, 1000)
    return lower, upper


def _bayesflow_log_gamma(draws: np.ndarray, theta: np.ndarray) -> dict[str, Any]:
    """BayesFlow 2.1's ``calibration_log_gamma`` on the same draws, at ``quantile = α`` for each
    level, read as its docstring says: log γ < 0 rejects (any parameter). Coded as p = 0 or 1."""
    try:
        from bayesflow.diagnostics.metrics import calibration_log_gamma
    except ImportError:
        return {}
    rejects = [
        bool(np.any(calibration_log_gamma(draws, theta, quantile=a)["values"] < 0)) for a in LEVELS
    ]
    return {"BayesFlow 2.1 calibration_log_gamma (any)": _decisions(rejects)}


def _sbi_check_sbc(ranks: np.ndarray, s: int) -> dict[str, float]:
    """sbi's check_sbc KS p-values (its ``check_uniformity_frequentist``, which check_sbc
    reports as ``ks_pvals``), read as users read them (any parameter rejects) and with
    Bonferroni. check_sbc's C2ST part is left out: it reports no p-value."""
    try:
        import torch
        from sbi.diagnostics.sbc import check_uniformity_frequentist
    except ImportError:
        return {}
    p = check_uniformity_frequentist(torch.as_tensor(ranks, dtype=torch.float32), s).numpy()
    p = np.asarray(p, dtype=float)
    return {
        "sbi 0.27 check_sbc (any)": float(p.min()),
        "sbi 0.27 check_sbc (Bonferroni)": float(min(1.0, p.min() * p.size)),
    }


def _sbi_check_tarp(draws: np.ndarray, theta: np.ndarray, seed: int) -> dict[str, float]:
    """sbi's ``check_tarp`` KS p-value (ECP values against the levels, as two samples), from
    ``run_tarp``'s own computation (``_run_tarp``: min-max z-scoring, N // 10 bins, references
    uniform over the box of θ) on the same θ, x and posterior draws."""
    try:
        import torch
        from sbi.diagnostics.tarp import _run_tarp, check_tarp, get_tarp_references
    except ImportError:
        return {}
    torch.manual_seed(seed)
    thetas = torch.as_tensor(theta, dtype=torch.float32)
    samples = torch.as_tensor(draws, dtype=torch.float32).transpose(0, 1)  # (S, N, m)
    ecp, alpha = _run_tarp(samples, thetas, get_tarp_references(thetas), z_score_theta=True)
    return {"sbi 0.27 check_tarp": float(check_tarp(ecp, alpha)[1])}


def _sbi_misspecification_mmd(x_obs: np.ndarray, x: np.ndarray, seed: int) -> dict[str, float]:
    """sbi's ``calc_misspecification_mmd`` in data space at its defaults (biased MMD, 1000
    shuffles) on the same observation and simulations."""
    try:
        import torch
        from sbi.diagnostics.misspecification import calc_misspecification_mmd
    except ImportError:
        return {}
    torch.manual_seed(seed)
    p, _ = calc_misspecification_mmd(
        torch.as_tensor(x_obs, dtype=torch.float32), torch.as_tensor(x, dtype=torch.float32)
    )
    return {"sbi 0.27 calc_misspecification_mmd": float(p)}


_LC2ST_B = 39  # null classifiers per replicate, ours and sbi's (defaults: 100), to fit the host


def _lc2st(kind: str, scale_factor: float = 1.0) -> Null:
    """``lc2st_nf`` at x₀ = 0 on N = 200 calibration pairs (:func:`_exact_pairs`) with the exact
    flow (its MLP classifier, B null classifiers), and sbi's ``LC2ST_NF`` and ``LC2ST`` on the same
    pairs, flow and B; ``scale_factor`` widens the flow (an alternative)."""

    def run(seed: int) -> dict[str, float]:
        import modelcompare as mc

        rng = _data_rng(seed)
        model, theta, x = _exact_pairs(kind, 200, rng)
        flow, x0 = model.exact_flow(scale_factor=scale_factor), np.zeros((1, 2))
        res = mc.lc2st_nf(flow, theta, x, x0, n_resamples=_LC2ST_B, n_eval=200, seed=seed)
        return {"ours": res.pvalue} | _sbi_lc2st(flow, theta, x, x0, seed)

    return run


def _sbi_lc2st(flow: Any, theta: Any, x: Any, x0: Any, seed: int) -> dict[str, float]:
    """sbi's ``LC2ST_NF`` (given the exact flow's inverse map) and plain ``LC2ST`` (given the
    flow's draws at each x and at x₀), both with their default MLP classifier."""
    try:
        import torch
        from sbi.diagnostics.lc2st import LC2ST, LC2ST_NF
    except ImportError:
        return {}
    chol = torch.as_tensor(flow.scale, dtype=torch.float32)

    def inverse(th: Any, xs: Any) -> Any:
        mean = torch.as_tensor(flow.mean(xs.numpy()), dtype=torch.float32)
        return torch.linalg.solve_triangular(chol, (th - mean).T, upper=False).T

    f32 = lambda a: torch.as_tensor(np.asarray(a), dtype=torch.float32)
    common = {
        "prior_samples": f32(theta),
        "xs": f32(x),
        "posterior_samples": f32(flow.sample(x, 1, seed=seed + 1)[:, 0]),
        "num_trials_null": _LC2ST_B,
        "seed": seed,
    }
    out = {}
    torch.manual_seed(seed)
    nf = LC2ST_NF(
        **common,
        flow_inverse_transform=inverse,
        flow_base_dist=torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2)),
        num_eval=200,
    )
    nf.train_under_null_hypothesis(verbosity=0)
    nf.train_on_observed_data(verbosity=0)
    out["sbi 0.27 LC2ST_NF"] = float(nf.p_value(f32(x0)))
    torch.manual_seed(seed)
    plain = LC2ST(**common)
    plain.train_under_null_hypothesis(verbosity=0)
    plain.train_on_observed_data(verbosity=0)
    theta0 = f32(flow.sample(x0, 200, seed=seed + 2)[0])
    out["sbi 0.27 LC2ST"] = float(plain.p_value(theta0, f32(x0)))
    return out


# ----------------------------------------------------------------------------------------------
# power at one matched alternative, ours beside the peer, so that "valid but powerless" shows


def _shifted_observation(seed: int) -> dict[str, float]:
    """One Gaussian observation shifted by 3 (per coordinate) from 200 Gaussian simulations."""
    import modelcompare as mc

    rng = _data_rng(seed)
    x_obs, x_sim = _gauss(rng, 1, shift=3.0), _gauss(rng, 200)
    res = mc.misspecification_test(x_obs, x_sim, seed=seed)
    return {"ours": res.pvalue} | _sbi_misspecification_mmd(x_obs, x_sim, seed)


_WIDE = "posterior 1.3× too wide, n = 300"


def power_entries() -> dict[str, tuple[str, Null, int]]:
    """Test -> (the matched alternative, its data, replicates)."""
    wide = lambda name: (_WIDE, _posterior(name, "exact flow", scale_factor=1.3), 160)
    return {
        "c2st": ("means 0.3 apart per coordinate, n = 300", _c2st("gaussian", shift=0.3), 120),
        "sbc": wide("sbc"),
        "tarp": wide("tarp"),
        "sbc_log_gamma": wide("sbc_log_gamma"),
        "global_coverage_test": wide("global_coverage_test"),
        "misspecification_test": (
            "x_obs shifted by 3 sd per coordinate",
            _shifted_observation,
            160,
        ),
        "lc2st_nf": (
            f"posterior 1.3× too wide, N = 200, B = {_LC2ST_B}",
            _lc2st("exact flow", scale_factor=1.3),
            120,
        ),
    }


def _cv(name: str, kind: str) -> Null:
    """Two models of equal expected score (benchmarks/cv_size_study.py): 10 x 10-fold CV."""

    def run(seed: int) -> dict[str, float]:
        from cv_size_study import simulate_scores  # benchmarks/ is on the path when run

        import modelcompare as mc

        a, b, n_train, n_test = simulate_scores(
            1, 100 if kind == "n = 100" else 300, 10, 10, seed=seed
        )
        a, b = a[:, 0], b[:, 0]
        if name == "corrected_ttest":
            out = {"ours": mc.corrected_ttest(a, b, n_train=n_train, n_test=n_test).pvalue}
            out["naive paired t-test (scipy)"] = float(stats.ttest_rel(a, b).pvalue)
            return out
        if name == "compare_models":
            res = mc.compare_models({"a": a, "b": b}, n_train=n_train, n_test=n_test)
            return {"ours": res.pvalue}
        raise KeyError(name)

    return run


def _datasets(name: str, kind: str) -> Null:
    """Three models exchangeable on each of 20 data sets (H0 of the tests across data sets):
    a score per data set plus iid noise per model, Gaussian or heavy-tailed."""

    def run(seed: int) -> dict[str, float]:
        import modelcompare as mc

        rng = _data_rng(seed)
        base = rng.normal(0.8, 0.05, size=(20, 1))
        noise = (
            rng.normal(0, 0.01, (20, 3))
            if kind == "gaussian"
            else rng.standard_t(3, (20, 3)) * 0.01
        )
        res = getattr(mc, name)(base + noise)
        if name == "nemenyi_test":  # the smallest pairwise p-value: any pair called different
            return {"ours": float(np.nanmin(np.asarray(res.pvalues, dtype=float)))}
        return {"ours": res.pvalue}

    return run


def _closeness(name: str, kind: str) -> Null:
    """Samples of exactly the reference distribution (H0 of the two-sided closeness mode)."""

    def run(seed: int) -> dict[str, float]:
        import modelcompare as mc

        rng = _data_rng(seed)
        k = 10 if kind == "uniform, 10 bins" else 30
        p = np.full(k, 1.0 / k) if kind == "uniform, 10 bins" else rng.dirichlet(np.ones(k))
        counts = rng.multinomial(500, p)
        if name == "closeness_test":
            res = mc.closeness_test(p, counts, mode="mc", n_resamples=199, seed=seed)
        else:
            res = mc.two_sample_closeness_test(
                rng.multinomial(500, p), counts, n_resamples=199, seed=seed
            )
        return {"ours": res.pvalue}

    return run


def _dietterich(name: str, kind: str) -> Null:
    """Dietterich's (1998) tests under their own nulls. McNemar: two fixed classifiers with the
    same error rate, each right on a test row independently (``"80 % / 80 %"``) or with
    correlated errors (``"correlated errors"``). The 5×2cv tests: two models whose ten scores share
    each fold's difficulty and differ by exchangeable noise (Gaussian or heavy-tailed)."""

    def run(seed: int) -> dict[str, float]:
        import modelcompare as mc

        rng = _data_rng(seed)
        if name == "mcnemar_test":
            y = rng.integers(0, 2, 300)
            right_a = rng.random(300) < 0.8
            if kind == "correlated errors":
                right_b = np.where(rng.random(300) < 0.5, right_a, rng.random(300) < 0.8)
            else:
                right_b = rng.random(300) < 0.8
            pred_a, pred_b = np.where(right_a, y, 1 - y), np.where(right_b, y, 1 - y)
            res = mc.mcnemar_test(y_true=y, y_pred_a=pred_a, y_pred_b=pred_b)
            return {"ours": res.pvalue} | _mlxtend_mcnemar(y, pred_a, pred_b)
        fold = rng.normal(0.8, 0.03, size=10)
        noise = rng.normal(size=(2, 10)) if kind == "gaussian" else rng.standard_t(3, (2, 10))
        a, b = fold + 0.01 * noise[0], fold + 0.01 * noise[1]
        return {"ours": getattr(mc, name)(a, b).pvalue}

    return run


def _mlxtend_mcnemar(y: np.ndarray, pred_a: np.ndarray, pred_b: np.ndarray) -> dict[str, float]:
    """mlxtend's ``mcnemar`` at its defaults (χ² with continuity correction) on the same table."""
    try:
        from mlxtend.evaluate import mcnemar, mcnemar_table
    except ImportError:
        return {}
    _, p = mcnemar(mcnemar_table(y_target=y, y_model1=pred_a, y_model2=pred_b))
    return {"mlxtend 0.25 mcnemar": float(p)}


@dataclasses.dataclass(frozen=True)
class Entry:
    """A public test's audit: its null scenarios and replicates, or why it is not run here."""

    scenarios: dict[str, Null] = dataclasses.field(default_factory=dict)
    replicates: int = 800
    quick: int = 400
    reason: str = ""


def _two(make: Callable[[str], Null], kinds: tuple[str, str], **kw: Any) -> Entry:
    return Entry({k: make(k) for k in kinds}, **kw)


_REL = ("gaussian", "student-t(3)")
_PIT = ("exact flow", "exact flow, non-Gaussian prior")


def entries() -> dict[str, Entry]:
    """The audit of every public test (a test missing here fails ``tests/test_size_audit.py``)."""
    post = lambda name, kinds=_PIT, **kw: _two(lambda k: _posterior(name, k), kinds, **kw)
    return {
        "c2st": _two(_c2st, _REL, replicates=400, quick=40),
        "rel_mmd": _two(lambda k: _relative("rel_mmd", k), _REL, quick=240),
        "rel_kid": _two(lambda k: _relative("rel_kid", k), _REL, quick=240),
        "rel_fid": _two(lambda k: _relative("rel_fid", k), _REL, quick=240),
        "rel_ume": _two(lambda k: _relative("rel_ume", k), _REL, quick=160),
        "rel_fssd": _two(_rel_fssd, _REL, quick=160),
        "global_coverage_test": post("global_coverage_test"),
        "pit_independence_test": post("pit_independence_test"),
        "local_coverage_test": post("local_coverage_test", quick=120),
        "local_independence_test": post("local_independence_test", quick=120),
        "sbc_test": post("sbc_test", ("exact flow", "uniform ranks")),
        "sbc_log_gamma": post(
            "sbc_log_gamma", ("exact flow", "uniform ranks"), replicates=400, quick=120
        ),
        "sbc": post("sbc", quick=160),
        "tarp": post("tarp", quick=160),
        "hpd_coverage": post("hpd_coverage", quick=160),
        "hpd_coverage_test": post("hpd_coverage_test", ("exchangeable", "exchangeable, skewed")),
        "misspecification_test": post(
            "misspecification_test", ("exact flow", "student-t(3)"), quick=120
        ),
        "compare_posteriors": post("compare_posteriors", quick=160),
        "rank_posteriors": post("rank_posteriors", quick=120),
        "corrected_ttest": _two(lambda k: _cv("corrected_ttest", k), ("n = 100", "n = 300")),
        "compare_models": _two(lambda k: _cv("compare_models", k), ("n = 100", "n = 300")),
        "friedman_test": _two(lambda k: _datasets("friedman_test", k), _REL),
        "wilcoxon_holm_test": _two(lambda k: _datasets("wilcoxon_holm_test", k), _REL),
        "nemenyi_test": _two(lambda k: _datasets("nemenyi_test", k), _REL),
        "mcnemar_test": _two(
            lambda k: _dietterich("mcnemar_test", k), ("80 % / 80 %", "correlated errors")
        ),
        "paired_ttest_5x2cv": _two(lambda k: _dietterich("paired_ttest_5x2cv", k), _REL),
        "combined_ftest_5x2cv": _two(lambda k: _dietterich("combined_ftest_5x2cv", k), _REL),
        "compare_models_report": Entry(
            reason="runs friedman_test, then nemenyi_test or wilcoxon_holm_test, and the Bayesian "
            "views; each is audited in its own rows"
        ),
        "compare_generators": Entry(
            reason="a Bonferroni family of rel_ume, rel_mmd, rel_kid and rel_fid in both "
            "directions, each audited in its own rows; Bonferroni keeps the family at or below α"
        ),
        "closeness_test": _two(
            lambda k: _closeness("closeness_test", k),
            ("uniform, 10 bins", "Dirichlet, 30 bins"),
            quick=240,
        ),
        "two_sample_closeness_test": _two(
            lambda k: _closeness("two_sample_closeness_test", k),
            ("uniform, 10 bins", "Dirichlet, 30 bins"),
            quick=240,
        ),
        "lc2st_nf": _two(
            _lc2st,
            tuple(f"{k}, N = 200, B = {_LC2ST_B}" for k in _PIT),
            replicates=160,
            quick=40,
        ),
        "validate_posterior": post("validate_posterior", replicates=400, quick=40),
        "calibration_findings": Entry(
            reason="reads the report's tests; it has no p-value of its own to audit"
        ),
    }


# ----------------------------------------------------------------------------------------------
# running, resuming, the verdict


CHUNK = 40  # replicates per task of the sweep; every R above is a multiple of it
BASE_SEED = 20261206  # the sweep's base seed: a resumed run draws the same replicates


def audit_task(test: str, scenario: str, chunk: int, seed: int) -> dict[str, str]:
    """One task of the sweep: CHUNK replicates of one cell, each column's values as JSON.

    ``test`` is a public test (its null ``scenario``) or ``power:<test>`` (its alternative)."""
    if test.startswith("power:"):
        null = power_entries()[test.removeprefix("power:")][1]
    else:
        null = entries()[test].scenarios[scenario]
    columns: dict[str, list[Any]] = {}
    for replicate in np.random.SeedSequence(seed).generate_state(CHUNK):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for col, p in null(int(replicate) % 2**31).items():
                columns.setdefault(col, []).append(np.round(np.asarray(p, float), 6).tolist())
    return {col: json.dumps(values) for col, values in columns.items()}


def _configs(quick: bool, only: list[str] | None) -> list[dict[str, Any]]:
    cells = [
        (name, scenario, entry.quick if quick else entry.replicates)
        for name, entry in entries().items()
        for scenario in entry.scenarios
    ]
    cells += [
        (f"power:{name}", alternative, reps)
        for name, (alternative, _, reps) in power_entries().items()
    ]
    return [
        {"test": name, "scenario": scenario, "chunk": chunk}
        for name, scenario, reps in cells
        if not only or name.removeprefix("power:") in only
        for chunk in range(-(-reps // CHUNK))
    ]


def run_audit(quick: bool, only: list[str] | None = None, n_jobs: int = 1) -> Any:
    """Run the missing tasks through :func:`modelcompare.experiments.run_sweep` (each finished
    task is saved at once, so an interrupted audit resumes where it stopped); return the table of
    every task on disk, this run's and earlier ones'."""
    import pandas as pd

    from modelcompare.experiments import run_sweep

    frame = run_sweep(
        audit_task, _configs(quick, only), out=RAW, seed=BASE_SEED, n_jobs=n_jobs, progress=True
    )
    failed = frame[frame["error"].notna()]
    for _, row in failed.iterrows():
        print(f"failed: {row['test']} | {row['scenario']} | {row['chunk']}: {row['error']}")
    # every task finished so far (an --only run keeps the other cells' rows)
    return pd.read_csv(RAW) if RAW.exists() else frame


def cells(frame: Any) -> dict[tuple[str, str], dict[str, np.ndarray]]:
    """(test, scenario) -> column -> values of all its replicates, in chunk order."""
    out: dict[tuple[str, str], dict[str, np.ndarray]] = {}
    frame = frame[frame["error"].isna()].sort_values("chunk")
    meta = {"test", "scenario", "chunk", "key", "seed", "base_seed", "error", "warnings"}
    for (test, scenario), group in frame.groupby(["test", "scenario"], sort=True):
        columns = [c for c in group.columns if c not in meta and c != "runtime_s"]
        cell = {}
        for col in columns:
            values = [json.loads(v) for v in group[col] if isinstance(v, str)]
            if values:
                cell[col] = np.asarray([x for chunk in values for x in chunk], dtype=float)
        out[(str(test), str(scenario))] = cell
    return out


def _decisions(rejects: Any) -> list[float]:
    """Decisions made at each level, coded as p-values the table reads: 0 rejects, 1 does not."""
    return [0.0 if r else 1.0 for r in rejects]


def _ours_first(cols: dict[str, np.ndarray]) -> list[str]:
    return sorted(cols, key=lambda c: (c != "ours", c))


def _rejections(values: np.ndarray) -> list[int]:
    """Rejections at each level: p ≤ α, or, for a column planned per level (one value per level
    per replicate, 0 = rejects), that level's decisions."""
    if values.ndim == 2:
        return [int(np.sum(values[:, i] <= a)) for i, a in enumerate(LEVELS)]
    return [int(np.sum(values <= a)) for a in LEVELS]


def _wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def table(found: dict[tuple[str, str], dict[str, np.ndarray]]) -> dict[str, Any]:
    """Rows (test, scenario, method, R, rate at each level, verdict) of the null cells (from
    :func:`cells`; ``power:`` cells are left to :func:`power_rows`) and the stated reasons."""
    found = {key: cols for key, cols in found.items() if not key[0].startswith("power:")}
    n_cells = max(1, sum(1 for cols in found.values() if "ours" in cols) * len(LEVELS))
    bound = FAMILY / n_cells
    rows = []
    for (name, scenario), cols in sorted(found.items()):
        for col in _ours_first(cols):
            values = np.asarray(cols[col], dtype=float)
            r, counts = len(values), _rejections(values)
            rates = [round(k / r, 4) for k in counts]
            verdicts = []
            for a, k in zip(LEVELS, counts, strict=True):
                if stats.binom.sf(k - 1, r, a) < bound:
                    verdicts.append(f"over at {a:g}")
                elif stats.binom.cdf(k, r, a) < bound:
                    verdicts.append(f"conservative at {a:g}")
            lo, hi = _wilson(counts[1], r)
            rows.append(
                [
                    name,
                    scenario,
                    "modelcompare" if col == "ours" else col,
                    r,
                    *rates,
                    f"[{max(lo, 0.0) + 0.0:.3f}, {hi:.3f}]",
                    "; ".join(verdicts) or "within tolerance",
                ]
            )
    stated = {name: e.reason for name, e in entries().items() if e.reason}
    return {"rows": rows, "stated": stated, "bound": bound, "n_cells": n_cells}


def power_rows(found: dict[tuple[str, str], dict[str, np.ndarray]]) -> list[list[Any]]:
    """(test, alternative, method, R, rejection rate at each level) of the ``power:`` cells."""
    rows = []
    for (key, alternative), cols in sorted(found.items()):
        if not key.startswith("power:"):
            continue
        for col in _ours_first(cols):
            values = np.asarray(cols[col], dtype=float)
            rates = [round(k / len(values), 4) for k in _rejections(values)]
            method = "modelcompare" if col == "ours" else col
            rows.append([key.removeprefix("power:"), alternative, method, len(values), *rates])
    return rows


REASONS = {
    # why a test of ours is outside tolerance, read with the page
    "rel_fssd": (
        "over its level on Student-t(3) data (about 29 % at 0.05). Its null is the asymptotic "
        "normal law of the FSSD difference (Jitkrittum et al. 2018), whose variance estimate "
        "needs finite fourth moments of the Stein features; with Gaussian models those are "
        "linear in z, and t(3) has no fourth moment. On heavy-tailed data use `rel_ume` or "
        "`rel_mmd` (bounded kernel features), which hold their level here."
    ),
}


CONSERVATIVE = {
    # why a test of ours rejects less often than its level: valid, at a cost in power
    "c2st": (
        "below its level at 0.1 on Student-t(3) data (5 %; 6.75 % on Gaussian data). Its "
        "p-value inflates the variance of the folds' summed statistic by Nadeau and Bengio's "
        "1 + k·n_test/n_train for the overlap of the training sets, a correction that errs on "
        "the conservative side (the anti-conservative binomial test is what it replaces)."
    ),
    "combined_ftest_5x2cv": (
        "below its level in both scenarios. Alpaydın's (1999) combined F statistic is "
        "conservative by design (his own simulations show it), trading size for a steadier "
        "decision than the 5×2cv t-test, which holds its level here."
    ),
    "mcnemar_test": (
        "slightly below its level at 0.1 with independent errors: its default is the χ² test "
        "with Edwards' continuity correction (as mlxtend's), which is conservative; "
        "`exact=True` gives the exact binomial test."
    ),
    "rel_fid": (
        "below its level on Student-t(3) data, at its level on Gaussian data: valid but "
        "conservative on heavy tails."
    ),
    "rel_kid": (
        "below its level on Student-t(3) data, at its level on Gaussian data: valid but "
        "conservative on heavy tails."
    ),
    "local_coverage_test": (
        "its default B = 100 gives each parameter's p-value a floor of 1/101, and the test "
        "combines the m = 2 parameters by Bonferroni, so its p-value cannot fall below "
        "2/101 ≈ 0.02 and it cannot reject at 0.01 (pass `n_resamples` ≥ 199·m for that level; "
        "the report plans B for its level)."
    ),
}


PEERS = {
    # what each peer column is and how to read it, shown under the table
    "sbi 0.27 check_sbc": (
        "sbi 0.27.0's `check_sbc` KS p-values, one per parameter (its "
        "`check_uniformity_frequentist`: a continuous one-sample KS test of the discrete ranks), "
        "computed from the same ranks as ours. '(any)' rejects when any parameter's p-value is "
        "at most α, as its output is usually read; '(Bonferroni)' when the smallest is at most "
        "α / m. Its C2ST part reports no p-value and is left out."
    ),
    "sbi 0.27 check_tarp": (
        "sbi 0.27.0's `check_tarp` KS p-value, from `run_tarp`'s own computation (min-max "
        "z-scoring, N // 10 bins, references uniform over the box of θ) on the same θ, x and "
        "posterior draws. It compares the ECP curve with the level grid as two samples, so its "
        "p-value is near 1 for any roughly diagonal curve: read it with the power table."
    ),
    "sbi 0.27 calc_misspecification_mmd": (
        "sbi 0.27.0's `calc_misspecification_mmd` in data space at its defaults (biased MMD, "
        "1000 shuffles), on the same observation and simulations."
    ),
    "sbi 0.27 LC2ST_NF": (
        "sbi 0.27.0's `LC2ST_NF` (its default MLP classifier) at x₀ = 0, given the exact flow's "
        "inverse map and Gaussian base, on the same pairs, with the same number of null "
        "classifiers B and evaluation draws as ours. Both run with B = 39 instead of their "
        "default 100 to fit the host, so p-values are coarse (steps of 1/40; ours cannot go "
        "below 0.025, so its rate at 0.01 is 0 by construction); sbi's "
        "p-value is the share of null statistics above the observed one and can be 0, ours "
        "adds one to both counts."
    ),
    "sbi 0.27 LC2ST": (
        "sbi 0.27.0's plain `LC2ST` (its default MLP classifier) on the same pairs and B, given "
        "one draw of the exact flow per x and 200 draws at x₀ to evaluate on. Its null "
        "classifiers are trained on permuted data, not on draws of a known base, and its p-value "
        "can be 0 like `LC2ST_NF`'s."
    ),
    "BayesFlow 2.1 C2ST": (
        "BayesFlow 2.1.0's `classifier_two_sample_test` at its defaults (5-fold cross-validated "
        "MLP with early stopping) on the same two samples. By default it returns an accuracy and "
        "no p-value; the column is its conformal AUC test (Bansal et al. 2026), which it adds "
        "with `return_metric_only=False` and which needs no retraining. Its permutation p-values "
        "retrain the classifier per permutation and are not run. Each fold's conformal test is "
        "one-sided, and the five are combined as min(1, 2 · mean p): on two samples whose means "
        "are 1.0 apart per coordinate (seed 0), one fold's statistic came out with the opposite "
        "sign (−5.9), and the combined p-value was 2e-10 with the samples in one order and 0.4 "
        "with them swapped. Read its rows with the power table."
    ),
    "BayesFlow 2.1 calibration_log_gamma": (
        "BayesFlow 2.1.0's `calibration_log_gamma` on the same posterior draws, run at "
        "`quantile = α` for each level (its null: 1000 simulated uniform-rank γ values) and read "
        "as its docstring says: log γ < 0 rejects, here when any parameter's does. Each level is "
        "its own run, so the column holds a decision per level."
    ),
    "arviz-stats 0.8 PIT-ECDF band": (
        "arviz-stats 0.8.0's simultaneous PIT-ECDF band (`ecdf_utils.ecdf_pit`, 1000 "
        "simulations, its default seeded generator: the band depends only on n and the level), "
        "the band its PIT-ECDF plots draw, on the same PIT values as ours. '(any)' rejects when "
        "any parameter's ECDF leaves its band at `ci_prob = 1 − α`; '(Bonferroni)' uses "
        "`1 − α / m`. arviz-stats 0.8.0 is the newest release for Python 3.11; it has no "
        "uniformity p-value of its own."
    ),
    "naive paired t-test": (
        "scipy's `ttest_rel` on the same 10 × 10-fold CV scores, treating the 100 scores as "
        "independent: the test Nadeau and Bengio (2003) correct."
    ),
    "mlxtend 0.25 mcnemar": (
        "mlxtend 0.25.0's `mcnemar` at its defaults (χ² with continuity correction) on the same "
        "2 × 2 table as ours. Where the discordant counts are equal it gives χ² = 1 / (b + c) "
        "instead of 0. Its 5×2cv tests (`paired_ttest_5x2cv`, `combined_ftest_5x2cv`) train the "
        "estimators themselves, so they cannot run on these score arrays; on the same splits "
        "they give our p-values exactly (`cross_validate_5x2(splits='mlxtend')`, tested in the "
        "suite), so their size is ours."
    ),
    "naive FID": (
        "the comparison 'x is closer to z than y is' read from FID(x, z) < FID(y, z) alone, as "
        "leaderboards do: coded p = 0 when it makes the claim and 1 otherwise. At equal fit it "
        "claims a winner half of the time at every level."
    ),
}


NOT_INSTALLED = {
    # peers the users reach for that cannot run on this host, and why
    "arviz 1.x": ("needs Python ≥ 3.12; its PIT-ECDF band is arviz-stats' (audited above, 0.8.0)"),
}


def _versions() -> dict[str, str]:
    """The versions the peers ran with, recorded beside the rows."""
    from importlib import metadata

    out = {}
    for dist in ("sbi", "bayesflow", "keras", "arviz-stats", "torch", "scikit-learn", "scipy"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def _short_cells(found: dict[tuple[str, str], dict[str, np.ndarray]]) -> list[str]:
    """The null cells with fewer replicates than the full audit plans."""
    short = []
    for name, entry in entries().items():
        for scenario in entry.scenarios:
            have = len(found.get((name, scenario), {}).get("ours", []))
            if have < entry.replicates:
                short.append(f"{name} ({scenario}): {have} of {entry.replicates}")
    return short


def write_results(
    found: dict[tuple[str, str], dict[str, np.ndarray]], command: str
) -> dict[str, Any]:
    t = table(found)
    columns = [
        "test",
        "null scenario",
        "method",
        "R",
        "α = 0.01",
        "α = 0.05",
        "α = 0.1",
        "95% Wilson at 0.05",
        "verdict",
    ]
    rows = t["rows"] + [
        [name, "—", "not run", 0, None, None, None, "", reason]
        for name, reason in sorted(t["stated"].items())
    ]
    short = _short_cells(found)
    size = (
        "full: every cell has the replicates planned"
        if not short
        else "partial, cells short of the planned replicates: " + "; ".join(short)
    )
    result = {
        "slug": "size_audit",
        "title": "How often does each test cry wolf?",
        "part": "audit",
        "script": "benchmarks/size_audit.py",
        "command": command,
        "machine": f"{platform.machine()}, one thread (OMP_NUM_THREADS=1), shared 2-core host",
        "date": datetime.date.today().isoformat(),
        "load": None,
        "transcribed": False,
        "meaning": (
            "The share of R replicates under each test's own null in which it rejects at α. "
            "A valid test reads about α; a rate well above α means false alarms. The verdict "
            f"flags a rate above its level only when the binomial tail P(K ≥ k | R, α) is below "
            f"0.05 / {t['n_cells']} (Bonferroni over every cell of ours), so chance excursions "
            "among many cells are not flagged; 'conservative' flags the other tail alike. "
            "Peers run on the same null data, beside the test they stand in for."
        ),
        "columns": columns,
        "rows": rows,
        "notes": "\n\n".join(
            [
                f"Size: {size}. Replicates R per cell are listed; at R = 800 the Wilson interval "
                "at 0.05 is about ±1.5 points. Fewer where a replicate is slow: `c2st` (R = 400: "
                "BayesFlow's peer trains 5 networks per replicate), `sbc_log_gamma` (R = 400: "
                "BayesFlow's peer simulates its null at each level), `validate_posterior` "
                "(R = 400: three reports per replicate, one per level) and `lc2st_nf` (R = 160: "
                "about 8 s per replicate with both sbi peers). `validate_posterior` plans its "
                "resamples for its level, so each level is its own report, read at that level "
                "('any check fails'). Tests without a row state why. Peers not run: "
                + "; ".join(f"{k} ({v})" for k, v in NOT_INSTALLED.items())
                + ".",
                "**Over their level:**",
                "\n".join(f"- **{k}:** {v}" for k, v in REASONS.items()),
                "**Below their level** (valid, at a cost in power):",
                "\n".join(f"- **{k}:** {v}" for k, v in CONSERVATIVE.items()),
                (
                    "Each test under audit gets the replicate's seed, and its data come from a "
                    "separate stream (`default_rng([seed, 2**31])`): drawing the data from the very "
                    "stream the test draws its own randomness from couples the two, and made "
                    "`sbc_test` reject 8 % of exactly uniform ranks at 0.05 in a first run of this "
                    "audit."
                ),
            ]
        ),
        "peers": PEERS,
        "versions": _versions(),
        "power": {
            "meaning": (
                "The share of R replicates in which each test rejects at α under one matched "
                "alternative, ours beside the peer on the same data. A peer that holds its level "
                "above but rejects rarely here is valid but powerless. Compare rates only between "
                "methods that hold their level in the table above: one that is over its level "
                "there buys part of its power here with false alarms."
            ),
            "columns": ["test", "alternative", "method", "R", *columns[4:7]],
            "rows": power_rows(found),
        },
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return result


# ----------------------------------------------------------------------------------------------
# the docs page


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def _power_section(power: dict[str, Any] | None) -> list[str]:
    if not power or not power["rows"]:
        return []
    return [
        "## Power at one alternative",
        "",
        power["meaning"],
        "",
        "| " + " | ".join(power["columns"]) + " |",
        "|" + "---|" * len(power["columns"]),
        *["| " + " | ".join(_cell(v) for v in row) + " |" for row in power["rows"]],
        "",
    ]


def render(result: dict[str, Any]) -> str:
    """docs/size_audit.md from the results file alone."""
    head = "| " + " | ".join(result["columns"]) + " |"
    rule = "|" + "---|" * len(result["columns"])
    body = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in result["rows"]]
    return "\n".join(
        [
            "# How often does each test cry wolf?",
            "",
            (
                "<!-- generated by `python benchmarks/size_audit.py --render` from "
                "benchmarks/results/size_audit.json; do not edit -->"
            ),
            "",
            (
                "Every public test of modelcompare, run under its own null hypothesis at its "
                "defaults, and the share of runs in which it rejects at three levels, with the tools "
                "users would otherwise reach for beside it on the same data."
            ),
            "",
            result["meaning"],
            "",
            head,
            rule,
            *body,
            "",
            result["notes"],
            "",
            "## The peers",
            "",
            *[f"- **{k}:** {v}" for k, v in result.get("peers", {}).items()],
            "",
            "Versions: "
            + ", ".join(f"{k} {v}" for k, v in result.get("versions", {}).items())
            + ".",
            "",
            *_power_section(result.get("power")),
            f"Produced by `{result['command']}` on {result['date']} ({result['machine']}).",
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the reduced size (minutes)")
    parser.add_argument("--render", action="store_true", help="only write the docs page")
    parser.add_argument(
        "--tabulate", action="store_true", help="only rebuild the results from the tasks on disk"
    )
    parser.add_argument("--only", nargs="*", help="audit only these tests")
    parser.add_argument("--n-jobs", type=int, default=1, help="worker processes (joblib)")
    args = parser.parse_args()
    if args.render:
        PAGE.write_text(render(json.loads(RESULTS.read_text("utf-8"))), "utf-8")
        return
    import os
    import sys

    import pandas as pd

    # the workers import this module by name: benchmarks/ and src/ on their path
    bench = str(ROOT / "benchmarks")
    sys.path.insert(0, bench)
    paths = [str(ROOT / "src"), bench, os.environ.get("PYTHONPATH", "")]
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    os.environ.setdefault("KERAS_BACKEND", "torch")  # BayesFlow's peer columns
    import size_audit

    if args.tabulate:
        frame = pd.read_csv(RAW)
    else:
        frame = size_audit.run_audit(args.quick, args.only, args.n_jobs)
    command = "python benchmarks/size_audit.py" + (" --quick" if args.quick else "")
    result = size_audit.write_results(size_audit.cells(frame), command)
    PAGE.write_text(render(result), "utf-8")
    import _harness

    _harness.regenerate()  # the benchmarks page shows this table too


if __name__ == "__main__":
    main()
