"""The posterior validation report: right verdicts on known flows, one implementation, a clean page."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

import modelcompare as mc
from modelcompare._foundation.results import TestResult

CHEAP = {"regressor": "knn", "n_resamples": 30, "n_posterior_samples": 50}


@pytest.fixture(scope="module")
def correlated() -> tuple[mc.ConditionalGaussianModel, np.ndarray, np.ndarray]:
    """A model whose posterior has a strong correlation between θ1 and θ2."""
    model = mc.ConditionalGaussianModel(
        noise_cov=np.eye(2), prior_cov=np.array([[1.0, 0.9], [0.9, 1.0]])
    )
    theta, x = model.simulate(600, seed=1)
    return model, theta, x


def _quiet(call, *args, **kwargs):  # resolution warnings of the cheap settings are expected
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mc.TooFewResamplesWarning)
        return call(*args, **kwargs)


def test_the_exact_flow_is_not_flagged(correlated) -> None:
    model, theta, x = correlated
    report = _quiet(mc.validate_posterior, model.exact_flow(), theta, x, seed=0, **CHEAP)
    assert report.failures(0.05) == []
    assert "No evidence against this posterior" in report.summary()
    ran = report.checks.dropna(subset=["pvalue"])
    assert set(ran["name"]) >= {"sbc", "tarp", "global_coverage", "pit_independence"}
    assert ((ran["pvalue"] >= 0) & (ran["pvalue"] <= 1)).all()
    for name, result in report.results.items():
        assert isinstance(result, TestResult) or name == "scores"  # a score has no test
    assert report.scores is not None


def test_right_marginals_wrong_correlation_is_flagged(correlated) -> None:
    model, theta, x = correlated
    exact = model.exact_flow()
    cov = exact.scale @ exact.scale.T
    independent = mc.AffineGaussianFlow(exact.mean_matrix, np.diag(np.sqrt(np.diag(cov))))
    report = _quiet(
        mc.validate_posterior,
        independent,
        theta,
        x,
        checks=["global_coverage", "pit_independence"],
        seed=0,
        **CHEAP,
    )
    # the first parameter's marginal is exact; the joint is not
    assert report.results["global_coverage"].pvalues[0] > 0.05
    assert "pit_independence" in report.failures(0.05)


def test_a_bias_confined_to_a_region_is_found_there() -> None:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2) * 0.5)
    theta, x = model.simulate(1500, seed=2)

    def shift(x_: np.ndarray) -> np.ndarray:  # wrong only where x1 > 1
        return np.where(x_[:, :1] > 1.0, 1.5, 0.0) * np.ones((1, 2))

    biased = model.exact_flow(offset=shift)
    x_eval = np.array([[2.0, 0.0], [-1.0, 0.0]])
    report = _quiet(
        mc.validate_posterior,
        biased,
        theta,
        x,
        x_eval=x_eval,
        checks=["local_coverage"],
        seed=0,
        regressor="knn",
        n_resamples=100,
    )
    local = report.results["local_coverage"]
    assert local.pvalues_adjusted[0] <= 0.05  # inside the region
    assert local.pvalues_adjusted[1] > 0.05  # outside it
    assert report.failures(0.05) == ["local_coverage"]


def test_checks_the_flow_cannot_run_are_skipped_with_a_reason() -> None:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(200, seed=0)
    exact = model.exact_flow()

    class LatentOnly:
        def to_latent(self, theta, x):
            return exact.to_latent(theta, x)

    report = _quiet(
        mc.validate_posterior,
        LatentOnly(),
        theta,
        x,
        checks=["sbc", "global_coverage"],
        seed=0,
    )
    skipped = dict(zip(report.checks["name"], report.checks["skipped"]))
    assert "sample" in skipped["sbc"]
    assert skipped["global_coverage"] is None  # None, not NaN, in the table


def test_same_seed_same_report_and_each_check_its_own_stream() -> None:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(200, seed=0)
    flow = model.exact_flow()
    both = mc.validate_posterior(flow, theta, x, checks=["sbc", "tarp"], seed=3, **CHEAP)
    again = mc.validate_posterior(flow, theta, x, checks=["sbc", "tarp"], seed=3, **CHEAP)
    alone = mc.validate_posterior(flow, theta, x, checks=["tarp"], seed=3, **CHEAP)

    def without_runtimes(report: mc.PosteriorValidationResult) -> str:
        rows = [
            {k: v for k, v in row.items() if k != "runtime_s"} for row in report.to_dict()["checks"]
        ]
        return json.dumps(rows)

    assert without_runtimes(both) == without_runtimes(again)
    assert both.results["tarp"].pvalue == alone.results["tarp"].pvalue


def test_bad_arguments_are_named() -> None:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(50, seed=0)
    with pytest.raises(ValueError, match="`checks`"):
        mc.validate_posterior(model.exact_flow(), theta, x, checks=["nope"])
    with pytest.raises(ValueError, match="rows"):
        mc.validate_posterior(model.exact_flow(), theta, x[:-1])
    with pytest.raises(ValueError, match="alpha"):
        mc.validate_posterior(model.exact_flow(), theta, x, checks="sbc").failures(1.5)
    with pytest.raises(ValueError, match="`regressor`"):
        mc.validate_posterior(model.exact_flow(), theta, x, checks="sbc", regressor="forest")


def test_a_classifier_regressor_skips_only_the_local_independence_check() -> None:
    # "logistic" and "mlp" fit one classifier per level: the local coverage test has them, the
    # local independence test (a regression of products) has no counterpart and is skipped
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(200, seed=0)
    checks = ["local_coverage", "local_independence"]
    kwargs = {"checks": checks, "regressor": "logistic", "n_resamples": 5, "seed": 0}
    report = _quiet(mc.validate_posterior, model.exact_flow(), theta, x, x_eval=x[:1], **kwargs)
    skipped = {o.name: o.skipped for o in report.outcomes}
    assert skipped["local_coverage"] is None
    assert "'hgb' or 'knn'" in skipped["local_independence"]


def test_c2st_against_reference_draws() -> None:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(100, seed=0)
    exact, wrong = model.exact_flow(), model.exact_flow(offset=np.array([0.6, 0.0]))
    x_o = x[:2]
    reference = [(x_o[i], exact.sample(x_o[i : i + 1], 400, seed=i)[0]) for i in range(2)]
    good = mc.validate_posterior(exact, theta, x, reference=reference, checks="c2st", seed=0)
    bad = mc.validate_posterior(wrong, theta, x, reference=reference, checks="c2st", seed=0)
    assert good.failures() == []
    assert bad.failures() == ["c2st"]
    assert bad.results["c2st"].statistics.shape == (2,)


def test_reference_draws_are_validated_before_any_check() -> None:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(40, seed=0)
    flow = model.exact_flow()
    draws = np.zeros((30, 2))
    cases = [
        ([], ValueError, "`reference` must not be empty"),
        ([(x[0], draws), (x[1],)], TypeError, r"`reference\[1\]` must be a pair \(x_o, draws\)"),
        ([(x[0, :1], draws)], ValueError, r"`reference\[0\] x_o` must have 2 values like a row"),
        ([(x[0], draws[:, :1])], ValueError, r"`reference\[0\] draws` must have 2 columns"),
        ([(x[0], draws[:1])], ValueError, r"`reference\[0\] draws` needs at least 2 rows"),
        ([(x[0], "draws")], TypeError, r"`reference\[0\] draws` must be numeric"),
    ]
    for reference, error, message in cases:
        with pytest.raises(error, match=message):
            mc.validate_posterior(flow, theta, x, reference=reference, checks="c2st")
    # x_o as a (1, d) row works as well as a (d,) vector
    report = mc.validate_posterior(
        flow, theta, x, reference=[(x[:1], flow.sample(x[:1], 40, seed=1)[0])], checks="c2st"
    )
    assert report.results["c2st"].statistics.shape == (1,)


def test_checks_and_flow_are_named_when_refused() -> None:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(40, seed=0)
    with pytest.raises(TypeError, match="`checks` must be 'all', a check name or a list"):
        mc.validate_posterior(model.exact_flow(), theta, x, checks=3)
    with pytest.raises(TypeError, match="`flow` must be a flow with `to_latent"):
        mc.validate_posterior(object(), theta, x, checks="sbc")


@pytest.fixture(scope="module")
def html_page(tmp_path_factory, correlated) -> str:
    model, theta, x = correlated
    report = _quiet(
        mc.validate_posterior, model.exact_flow(scale_factor=1.3), theta, x, seed=0, **CHEAP
    )
    path = tmp_path_factory.mktemp("report") / "report.html"
    report.to_html(path)
    report.to_json(path.with_suffix(".json"))
    json.loads(path.with_suffix(".json").read_text())
    return str(path)


def test_the_html_is_self_contained(html_page: str) -> None:
    from pathlib import Path

    text = Path(html_page).read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["'](https?:)?//""", text)
    assert "http://" not in text
    assert "https://" not in text
    assert "<link" not in text
    assert "<script" not in text
    assert text.count('src="data:image/png;base64,') >= 6
    for section in ("sbc", "tarp", "global_coverage", "pit_independence", "local_coverage"):
        assert f'id="{section}"' in text
    assert "SHA-256 of the inputs" in text
    assert "Posterior validation report" in text


def test_the_html_renders_in_chromium(html_page: str, tmp_path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("headless Chromium is not installed")
    shot = tmp_path / "report.png"
    done = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1100,1600",
            f"--screenshot={shot}",
            f"file://{html_page}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert shot.is_file(), done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line]
    assert console == []
    matplotlib = pytest.importorskip("matplotlib.image")
    pixels = matplotlib.imread(shot)
    assert pixels.std() > 0.05  # not blank


# --------------------------------------------------------------------------------------------------
# The automatic number of null resamples: every resampling check can reject at 0.05


def _local_bias(n: int) -> tuple[mc.AffineGaussianFlow, np.ndarray, np.ndarray]:
    """A flow whose mean is off by 1.5 only where x1 > 1."""
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2) * 0.5)
    theta, x = model.simulate(n, seed=2)

    def shift(x_: np.ndarray) -> np.ndarray:
        return np.where(x_[:, :1] > 1.0, 1.5, 0.0) * np.ones((1, 2))

    return model.exact_flow(offset=shift), theta, x


def test_the_automatic_b_is_the_smallest_that_can_reach_005() -> None:
    from modelcompare.workflows._validate import resamples_needed, smallest_adjusted_pvalue

    flow, theta, x = _local_bias(300)
    checks = ["global_coverage", "pit_independence", "local_coverage", "local_independence"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no resolution warning with the automatic B
        report = mc.validate_posterior(flow, theta, x, checks=checks, seed=0)
    # m = 2 covariates (1 pair), E = 5 default points, Holm across C = 4 checks
    assert report.settings["n_resamples"] == {"local_coverage": 799, "local_independence": 399}
    assert report.settings["n_resamples_auto"] is True
    for name, factors in (("local_coverage", (2, 5, 4)), ("local_independence", (1, 5, 4))):
        b = report.settings["n_resamples"][name]
        assert report.results[name].n_resamples == b
        assert (
            smallest_adjusted_pvalue(b, factors) <= 0.05 < smallest_adjusted_pvalue(b - 1, factors)
        )
        assert resamples_needed(factors) == b
    # the floor: one point, one check needs only 2 · 20 − 1 = 39 null fits; the report uses 100
    alone = mc.validate_posterior(flow, theta, x, x_eval=x[:1], checks="local_coverage", seed=0)
    assert alone.settings["n_resamples"] == {"local_coverage": 100}
    # the bound is attained: the smallest Monte Carlo p-value, corrected, is the report's
    local = report.results["local_coverage"]
    smallest = min(local.covariate_pvalues.min(axis=0) * 2)  # Bonferroni over the covariates
    assert smallest == 1 / 800 * 2  # no null statistic beats the observed one at the biased point
    assert report.pvalues_adjusted["local_coverage"] <= 0.05
    assert "local_coverage" in report.failures(0.05)


def test_too_few_resamples_warn_once_naming_the_checks_and_the_b_they_need() -> None:
    flow, theta, x = _local_bias(300)
    checks = ["global_coverage", "pit_independence", "local_coverage", "local_independence"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = mc.validate_posterior(flow, theta, x, checks=checks, n_resamples=500, seed=0)
    messages = [str(w.message) for w in caught if issubclass(w.category, mc.TooFewResamplesWarning)]
    assert len(messages) == 1, messages  # the report's warning, not one per test
    assert "local_coverage" in messages[0]
    assert "needs n_resamples >= 799" in messages[0]
    assert "local_independence" not in messages[0]  # 500 is enough for it
    assert "`n_resamples=None`" in messages[0]
    assert report.settings["n_resamples"] == {"local_coverage": 500, "local_independence": 500}
    assert report.settings["n_resamples_auto"] is False


def test_the_memory_limit_caps_the_automatic_b_with_a_warning(monkeypatch) -> None:
    flow, theta, x = _local_bias(300)
    # the null regressions' guard counts, per trial, one model of 300 float64 targets and its
    # 1 KiB generator, plus one fit's 300 rows x 99 levels x (2 + 1) columns at a time
    monkeypatch.setenv("MODELCOMPARE_MAX_MEMORY", "1M")
    with pytest.warns(mc.TooFewResamplesWarning, match="MODELCOMPARE_MAX_MEMORY") as caught:
        report = mc.validate_posterior(flow, theta, x, checks=["local_coverage"], seed=0)
    expected = (1024**2 - 300 * 99 * 3 * 8) // (300 * 8 + 1024)
    assert report.settings["n_resamples"] == {"local_coverage": expected}
    # one check, two covariates, five points: B + 1 must reach 20 * 2 * 5 = 200
    assert "needs n_resamples >= 199" in str(caught[0].message)


def test_report_defaults_flag_a_local_bias() -> None:
    flow, theta, x = _local_bias(1000)
    checks = ["sbc", "tarp", "global_coverage", "pit_independence", "local_coverage"]
    checks += ["local_independence"]
    report = mc.validate_posterior(flow, theta, x, checks=checks, seed=0)
    assert report.settings["regressor"] == "knn"
    assert report.settings["n_resamples"]["local_coverage"] == 20 * 2 * 5 * 6 - 1
    assert "local_coverage" in report.failures(0.05)
    local = report.results["local_coverage"]
    inside = local.x_eval[:, 0] > 1.0  # the default points: one lies in the biased region
    assert inside.any()
    assert not inside.all()
    assert (local.pvalues_adjusted[inside] <= 0.05).all()
    assert (local.pvalues_adjusted[~inside] > 0.05).all()


def test_the_default_points_reach_a_bias_off_the_first_principal_direction() -> None:
    # 3-D linear-Gaussian task, θ₁ biased by one posterior sd only where x₁ > 1 (19 % of the x's)
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(3))
    theta, x = model.simulate(1000, seed=0)
    sd = float(np.sqrt(model.posterior_cov[0, 0]))
    flow = model.exact_flow(offset=lambda c: np.c_[sd * (c[:, 0] > 1), 0 * c[:, :2]])
    # points spread along the first principal direction only (the 10/50/90 % quantiles of the
    # projection) all miss the region: that rule would have passed this flow
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    projection = z @ np.linalg.svd(z, full_matrices=False)[2][0]
    first_only = [
        np.argmin(np.abs(projection - q)) for q in np.quantile(projection, [0.1, 0.5, 0.9])
    ]
    assert (x[first_only, 0] < 1).all()
    report = mc.validate_posterior(flow, theta, x, checks=["local_coverage"], seed=0)
    points = report.settings["x_eval"]
    assert points.shape == (7, 3)  # the centre and ±r along three principal directions
    assert all(any((row == x).all(axis=1)) for row in points)  # calibration rows
    inside = points[:, 0] > 1
    assert inside.any()
    assert report.failures(0.05) == ["local_coverage"]
    local = report.results["local_coverage"]
    assert (local.pvalues_adjusted[inside] <= 0.05).any()
    assert (local.pvalues_adjusted[points[:, 0] < 0] > 0.05).all()  # far from the region: no
    finding = report.findings.query("kind == 'local'")
    assert len(finding) == 1
    named = re.findall(r"\(([-\d.]+),", finding["where"].iloc[0])  # the x₁ of each named point
    assert named
    assert all(float(v) > 1 for v in named)


@pytest.mark.slow
def test_the_default_report_flags_a_local_bias() -> None:
    flow, theta, x = _local_bias(1000)
    report = mc.validate_posterior(flow, theta, x, seed=0)  # every check, L-C2ST-NF included
    assert report.settings["n_resamples"] == {
        "sbc_log_gamma": 319,
        "local_coverage": 1599,
        "local_independence": 799,
        "lc2st_nf": 799,
    }
    assert "local_coverage" in report.failures(0.05)


@pytest.mark.parametrize(
    ("regressor", "independence_runs"),
    # a logistic per-level regressor: the default gradient boosting fits 99 levels x (B + 1) times
    [(mc.NearestNeighborRegressor(20), True), (mc.PerLevelRegressor(LogisticRegression()), False)],
)
def test_the_librarys_regressor_objects_run_the_report(regressor, independence_runs) -> None:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(200, seed=0)
    checks = ["local_coverage", "local_independence"]
    kwargs = {"checks": checks, "regressor": regressor, "n_resamples": 5, "seed": 0}
    report = _quiet(mc.validate_posterior, model.exact_flow(), theta, x, x_eval=x[:1], **kwargs)
    skipped = {o.name: o.skipped for o in report.outcomes}
    assert skipped["local_coverage"] is None
    assert (skipped["local_independence"] is None) == independence_runs
    if independence_runs:
        assert report.results["local_independence"].regressor == "knn-20"


def test_report_output_paths_and_flags_are_checked_first(tmp_path) -> None:
    model = mc.ConditionalGaussianModel(noise_cov=np.eye(2))
    theta, x = model.simulate(50, seed=0)
    report = mc.validate_posterior(model.exact_flow(), theta, x, checks="sbc", seed=0)
    for write in (report.to_json, report.to_html):
        with pytest.raises(ValueError, match="`path` must be a file to write, not the existing"):
            write(tmp_path)
        with pytest.raises(ValueError, match=r"`path`'s folder .* does not exist"):
            write(tmp_path / "missing" / "report.out")
        with pytest.raises(TypeError, match="`path` must be a file path"):
            write(3)
    with pytest.raises(TypeError, match="`include_arrays` must be True or False"):
        report.to_dict(include_arrays="no")
    with pytest.raises(TypeError, match="`include_arrays`"):
        report.to_json(tmp_path / "r.json", include_arrays="no")
