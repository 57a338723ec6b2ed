"""compare_posteriors and rank_posteriors: formulas, policies, inputs and the result protocol."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import modelcompare as mc
from modelcompare.posterior.comparison._posterior_scores import energy_from_draws

MODEL = mc.ConditionalGaussianModel(noise_cov=np.eye(2))


@pytest.fixture
def pairs() -> tuple[np.ndarray, np.ndarray]:
    return MODEL.simulate(400, seed=0)


def test_statistic_is_the_mean_log_density_difference(pairs) -> None:
    theta, x = pairs
    a, b = MODEL.exact_flow(), MODEL.exact_flow(scale_factor=1.4)
    result = mc.compare_posteriors(a, b, theta, x, seed=0)
    d = a.log_prob(theta, x) - b.log_prob(theta, x)
    np.testing.assert_allclose(result.differences, d)
    assert result.statistic == pytest.approx(d.mean())
    assert result.standard_error == pytest.approx(d.std(ddof=1) / math.sqrt(d.size))
    from scipy import stats

    assert result.pvalue == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue)
    low, high = stats.ttest_1samp(d, 0.0).confidence_interval(0.9)
    assert tuple(result.confidence_interval(0.9)) == pytest.approx((low, high))
    assert result.n == 400
    assert result.scoring_rule == "log"


def test_one_sided_alternatives(pairs) -> None:
    theta, x = pairs
    a, b = MODEL.exact_flow(), MODEL.exact_flow(scale_factor=1.4)
    greater = mc.compare_posteriors(a, b, theta, x, alternative="greater", seed=0)
    less = mc.compare_posteriors(a, b, theta, x, alternative="less", seed=0)
    assert greater.pvalue < 0.01
    assert less.pvalue > 0.99
    assert greater.confidence_interval().high == math.inf
    assert less.confidence_interval().low == -math.inf


def test_bootstrap_method_is_seeded_and_close_to_t(pairs) -> None:
    theta, x = pairs
    a, b = MODEL.exact_flow(), MODEL.exact_flow(scale_factor=1.1)
    one = mc.compare_posteriors(a, b, theta, x, method="bootstrap", n_resamples=999, seed=3)
    two = mc.compare_posteriors(a, b, theta, x, method="bootstrap", n_resamples=999, seed=3)
    t = mc.compare_posteriors(a, b, theta, x, seed=3)
    assert one.to_dict() == two.to_dict()
    assert one.pvalue == pytest.approx(t.pvalue, abs=0.05)
    ci, ci_t = one.confidence_interval(), t.confidence_interval()
    assert ci.low == pytest.approx(ci_t.low, abs=0.3 * (ci_t.high - ci_t.low))


def test_energy_score_formula() -> None:
    rng = np.random.default_rng(0)
    draws = rng.normal(size=(3, 6, 2))
    theta = rng.normal(size=(3, 2))
    expected = []
    for y, t in zip(draws, theta, strict=True):
        first = np.mean(np.linalg.norm(y - t, axis=1))
        pair = sum(np.linalg.norm(y[i] - y[j]) for i in range(6) for j in range(6) if i != j)
        expected.append(pair / (2 * 6 * 5) - first)
    np.testing.assert_allclose(energy_from_draws(draws, theta), expected)


def test_energy_rule_standardises_by_the_calibration_scale(pairs) -> None:
    theta, x = pairs
    a, b = MODEL.exact_flow(), MODEL.exact_flow(scale_factor=1.4)
    base = mc.compare_posteriors(
        a, b, theta, x, scoring_rule="energy", n_posterior_samples=20, seed=1
    )

    class Scaled:  # the same estimators in units ten times smaller
        def __init__(self, flow):
            self.flow = flow

        def sample(self, x, n, seed=None):
            return 10.0 * self.flow.sample(x, n, seed=seed)

    scaled = mc.compare_posteriors(
        Scaled(a), Scaled(b), 10 * theta, x, scoring_rule="energy", n_posterior_samples=20, seed=1
    )
    np.testing.assert_allclose(scaled.differences, base.differences, rtol=1e-10, atol=1e-12)
    again = mc.compare_posteriors(
        a, b, theta, x, scoring_rule="energy", n_posterior_samples=20, seed=1
    )
    assert again.to_dict() == base.to_dict()
    assert base.seed_used == 1


def test_neg_inf_policy() -> None:
    theta = np.array([[0.0], [1.0], [2.0], [3.0]])
    x = np.zeros((4, 1))

    class Table:
        def __init__(self, values):
            self.values = np.asarray(values, dtype=float)

        def log_prob(self, theta, x):
            return self.values

    first = Table([-1.0, -np.inf, -2.0, -np.inf])
    second = Table([-1.5, -1.0, -np.inf, -np.inf])
    with pytest.warns(mc.ModelCompareWarning, match="-inf"):
        result = mc.compare_posteriors(first, second, theta, x, seed=0)
    stand_in = -2.0 - 1.0  # one nat below the smallest finite value
    np.testing.assert_allclose(result.differences, [0.5, stand_in + 1.0, -2.0 - stand_in, 0.0])
    assert (result.n_neg_inf_first, result.n_neg_inf_second) == (2, 2)
    assert math.isfinite(result.statistic)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_pos_inf_log_densities_are_refused(bad) -> None:
    class Bad:
        def log_prob(self, theta, x):
            out = np.zeros(len(theta))
            out[1] = bad
            return out

    theta, x = MODEL.simulate(5, seed=0)
    with pytest.raises(ValueError, match=r"`first.log_prob\(theta, x\)` returned .* at row 1"):
        mc.compare_posteriors(Bad(), MODEL.exact_flow(), theta, x)


def test_unnormalised_estimators_are_refused(pairs) -> None:
    theta, x = pairs

    class MCMCPosterior:  # sbi's name for a posterior with a likelihood or ratio potential
        potential_fn = None

        def log_prob(self, theta, x):
            return np.zeros(len(theta))

        def sample(self, x, n, seed=None):
            return np.zeros((len(x), n, 2))

    with pytest.raises(TypeError, match=r"`second` \(MCMCPosterior\).*up to a constant per x"):
        mc.compare_posteriors(MODEL.exact_flow(), MCMCPosterior(), theta, x)
    # the energy rule needs no density
    mc.compare_posteriors(
        MODEL.exact_flow(),
        MCMCPosterior(),
        theta,
        x,
        scoring_rule="energy",
        n_posterior_samples=5,
        seed=0,
    )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"scoring_rule": "crps"}, "`scoring_rule` must be one of"),
        ({"alternative": "bigger"}, "`alternative` must be one of"),
        ({"method": "wilcoxon"}, "`method` must be one of"),
        ({"n_resamples": 0}, "`n_resamples`"),
        ({"n_posterior_samples": 1}, "`n_posterior_samples`"),
        ({"x_eval": np.zeros((2, 3))}, "`x`, `x_eval` must have the same number of columns"),
        ({"x_eval": np.zeros((2, 2)), "n_neighbors": 1}, "`n_neighbors`"),
        ({"x_eval": np.zeros((2, 2)), "correction": "sidak"}, "`correction`"),
    ],
)
def test_options_are_validated(pairs, kwargs, match) -> None:
    theta, x = pairs
    with pytest.raises(ValueError, match=match):
        mc.compare_posteriors(MODEL.exact_flow(), MODEL.exact_flow(), theta, x, **kwargs)


class _Unscored:
    """An estimator that fails the test if the comparison scores it."""

    def log_prob(self, theta, x):
        raise AssertionError("scored before the options were validated")

    def sample(self, x, n, seed=None):
        raise AssertionError("sampled before the options were validated")


@pytest.mark.parametrize(
    ("x_eval", "error", "match"),
    [
        (np.array([[np.nan, 0.0]]), ValueError, "`x_eval` must be finite; found NaN"),
        (np.array([[0.0, np.inf]]), ValueError, "`x_eval` must be finite; found inf"),
        (np.zeros((2, 3)), ValueError, "`x`, `x_eval` must have the same number of columns"),
        (np.zeros(2), ValueError, "`x_eval` must be 2-D"),
        (np.zeros((0, 2)), ValueError, "`x_eval` needs at least 1"),
        ([], ValueError, "`x_eval` must be 2-D"),
        (np.array([["a", "b"]]), TypeError, "`x_eval` must hold numeric data"),
        ([[None, 1.0]], TypeError, "`x_eval` must hold numeric data"),
        ("points.npy", TypeError, "`x_eval` must be numeric"),
    ],
)
@pytest.mark.parametrize("scoring_rule", ["log", "energy"])
def test_bad_x_eval_is_refused_before_scoring(pairs, x_eval, error, match, scoring_rule) -> None:
    theta, x = pairs
    with pytest.raises(error, match=match):
        mc.compare_posteriors(
            _Unscored(), _Unscored(), theta, x, x_eval=x_eval, scoring_rule=scoring_rule
        )


@pytest.mark.parametrize(
    ("n_neighbors", "error", "match"),
    [
        (0, ValueError, r"`n_neighbors` must be in \[2, 400\]; got 0"),
        (-3, ValueError, r"`n_neighbors` must be in \[2, 400\]; got -3"),
        (1, ValueError, r"`n_neighbors` must be in \[2, 400\]; got 1"),
        (401, ValueError, r"`n_neighbors` must be in \[2, 400\]; got 401"),
        (2.5, TypeError, "`n_neighbors` must be an int"),
        (True, TypeError, "`n_neighbors` must be an int; got True"),
        ("10", TypeError, "`n_neighbors` must be an int"),
    ],
)
@pytest.mark.parametrize("with_points", [True, False])
def test_bad_n_neighbors_is_refused_before_scoring(
    pairs, n_neighbors, error, match, with_points
) -> None:
    theta, x = pairs
    x_eval = x[:3] if with_points else None
    with pytest.raises(error, match=match):
        mc.compare_posteriors(
            _Unscored(), _Unscored(), theta, x, x_eval=x_eval, n_neighbors=n_neighbors
        )


def test_n_neighbors_may_be_all_pairs_and_a_numpy_int(pairs) -> None:
    theta, x = pairs
    a, b = MODEL.exact_flow(), MODEL.exact_flow(scale_factor=1.5)
    full = mc.compare_posteriors(a, b, theta, x, x_eval=x[:2], n_neighbors=np.int64(400))
    assert full.n_neighbors == 400
    np.testing.assert_allclose(full.local_statistics, full.statistic)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_resamples": 10**12}, "`n_resamples`"),
        ({"n_posterior_samples": 10**7}, "`n_posterior_samples`"),
    ],
)
def test_sizes_that_cannot_fit_are_refused_at_once(pairs, kwargs, match) -> None:
    theta, x = pairs
    with pytest.raises(mc.ResourceLimitError, match=match):
        mc.compare_posteriors(_Unscored(), _Unscored(), theta, x, **kwargs)
    with pytest.raises(mc.ResourceLimitError, match=match):
        mc.rank_posteriors([_Unscored(), _Unscored()], theta, x, **kwargs)


def test_inputs_are_validated_and_not_modified(pairs) -> None:
    theta, x = pairs
    flow = MODEL.exact_flow()
    with pytest.raises(ValueError, match="`theta`, `x` must have the same number of rows"):
        mc.compare_posteriors(flow, flow, theta, x[:-1])
    with pytest.raises(TypeError, match="`first` must have a normalised `log_prob"):
        mc.compare_posteriors(object(), flow, theta, x)
    with pytest.raises(TypeError, match="`second` must have `sample"):
        mc.compare_posteriors(flow, object(), theta, x, scoring_rule="energy")
    before = theta.copy(), x.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mc.compare_posteriors(flow, flow, theta, x, x_eval=x[:3], seed=0)
    np.testing.assert_array_equal(before[0], theta)
    np.testing.assert_array_equal(before[1], x)


def test_where_map_and_protocol(pairs) -> None:
    theta, x = pairs
    result = mc.compare_posteriors(
        MODEL.exact_flow(), MODEL.exact_flow(scale_factor=2.0), theta, x, x_eval=x[:4], seed=0
    )
    assert result.where(0.05).tolist() == ["first"] * 4
    assert result.n_neighbors == math.ceil(400 ** (2 / 3))
    json.dumps(result.to_dict())
    assert repr(result).startswith("PosteriorComparisonResult(statistic=")
    plain = mc.compare_posteriors(MODEL.exact_flow(), MODEL.exact_flow(scale_factor=2.0), theta, x)
    with pytest.raises(ValueError, match="`x_eval`"):
        plain.where()
    with pytest.raises(ValueError, match="`alpha`"):
        result.where(1.5)


def test_torch_log_prob_is_accepted(pairs) -> None:
    torch = pytest.importorskip("torch")
    theta, x = pairs
    flow = MODEL.exact_flow()

    class TorchDensity:
        def log_prob(self, theta, x):
            return torch.as_tensor(flow.log_prob(theta, x), dtype=torch.float32)

    result = mc.compare_posteriors(TorchDensity(), flow, theta, x, seed=0)
    assert abs(result.statistic) < 1e-5


def test_zuko_flow_with_any_base_is_scored(pairs) -> None:
    torch = pytest.importorskip("torch")
    zuko = pytest.importorskip("zuko")
    theta, x = pairs
    _ = torch.manual_seed(0)
    ncsf = zuko.flows.NCSF(2, 2, transforms=1, hidden_features=[8])  # a box base: as_flow refuses
    with torch.no_grad():
        expected = ncsf(torch.as_tensor(x[:5], dtype=torch.float32)).log_prob(
            torch.as_tensor(np.tanh(theta[:5]), dtype=torch.float32)
        )
    result = mc.compare_posteriors(ncsf, MODEL.exact_flow(), np.tanh(theta), x, seed=0)
    exact = MODEL.exact_flow().log_prob(np.tanh(theta[:5]), x[:5])
    np.testing.assert_allclose(result.differences[:5], expected.numpy() - exact, rtol=1e-4)


# --------------------------------------------------------------------------------------------
# rank_posteriors


def test_rank_posteriors_table_and_order(pairs) -> None:
    theta, x = pairs
    flows = {
        "wide": MODEL.exact_flow(scale_factor=1.6),
        "exact": MODEL.exact_flow(),
        "narrow": MODEL.exact_flow(scale_factor=0.6),
    }
    ranking = mc.rank_posteriors(flows, theta, x, seed=0)
    assert ranking.names == ["exact", "wide", "narrow"]
    table = ranking.table
    assert list(table.columns) == [
        "first",
        "second",
        "statistic",
        "standard_error",
        "ci_low",
        "ci_high",
        "pvalue",
        "pvalue_adjusted",
    ]
    assert len(table) == 3
    row = table.iloc[0]
    pair = mc.compare_posteriors(flows[row["first"]], flows[row["second"]], theta, x, seed=0)
    assert row["statistic"] == pytest.approx(pair.statistic)
    assert row["pvalue"] == pytest.approx(pair.pvalue)
    np.testing.assert_allclose(
        table["pvalue_adjusted"], mc.adjust_pvalues(table["pvalue"], correction="holm")
    )
    assert ranking.pvalue == table["pvalue_adjusted"].min()
    assert ranking.decision(0.05) is True
    assert (table["statistic"] > 0).all()
    json.dumps(ranking.to_dict())
    intervals = ranking.confidence_intervals(0.95)
    np.testing.assert_allclose(intervals[:, 0], table["ci_low"])


def test_rank_posteriors_validates(pairs) -> None:
    theta, x = pairs
    with pytest.raises(ValueError, match="`estimators` needs at least 2"):
        mc.rank_posteriors([MODEL.exact_flow()], theta, x)
    with pytest.raises(TypeError, match="`estimators` must be a dict"):
        mc.rank_posteriors(MODEL.exact_flow(), theta, x)
    with pytest.raises(ValueError, match="`correction`"):
        mc.rank_posteriors([MODEL.exact_flow()] * 2, theta, x, correction="nope")


def test_rank_posteriors_energy_is_seeded(pairs) -> None:
    theta, x = pairs
    flows = [MODEL.exact_flow(), MODEL.exact_flow(scale_factor=1.5)]
    one = mc.rank_posteriors(flows, theta, x, scoring_rule="energy", n_posterior_samples=10, seed=4)
    two = mc.rank_posteriors(flows, theta, x, scoring_rule="energy", n_posterior_samples=10, seed=4)
    assert json.dumps(one.to_dict()) == json.dumps(two.to_dict())
    assert one.names == ["estimator_0", "estimator_1"]


def test_plot_posterior_ranking(pairs) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    theta, x = pairs
    flows = [
        MODEL.exact_flow(),
        MODEL.exact_flow(scale_factor=1.5),
        MODEL.exact_flow(offset=[1, 0]),
    ]
    ax = mc.plot_posterior_ranking(mc.rank_posteriors(flows, theta, x, seed=0))
    assert len(ax.get_yticklabels()) == 3
    assert "95 % interval" in [t.get_text() for t in ax.get_legend().get_texts()]
    with pytest.raises(TypeError, match="`result` must be a PosteriorRankingResult"):
        mc.plot_posterior_ranking({"pvalue": 0.1})


def test_ranking_is_a_collection_with_a_family_wise_test(pairs) -> None:
    from modelcompare._foundation.results import CollectionTestResult

    theta, x = pairs
    ranking = mc.rank_posteriors([MODEL.exact_flow(), MODEL.exact_flow(scale_factor=1.5)], theta, x)
    assert isinstance(ranking, CollectionTestResult)
    assert str(ranking).splitlines()[1].split()[:2] == ["first", "second"]  # the table is shown
    assert ranking.decision(ranking.pvalue) is True
    with pytest.raises(ValueError, match="`alpha`"):
        ranking.decision(2.0)


def test_plot_posterior_comparison_map(pairs) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    theta, x = pairs
    grid = np.array([(a, b) for a in (-1.0, 0.0, 1.0) for b in (-1.0, 1.0)])
    exact, wide = MODEL.exact_flow(), MODEL.exact_flow(scale_factor=2.0)
    result = mc.compare_posteriors(wide, exact, theta, x, x_eval=grid, seed=0)
    assert result.where().tolist() == ["second"] * 6
    fig, ax = plt.subplots()
    assert mc.plot_posterior_comparison(result, ax=ax) is ax
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x₁", "x₂")
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["first", "second", "neither"]
    assert legend.get_title().get_text() == "closer at α = 0.05"
    drawn = np.concatenate([c.get_offsets() for c in ax.collections])
    assert sorted(map(tuple, drawn)) == sorted(map(tuple, grid))
    assert len(fig.axes) == 2  # the colour bar
    plt.close(fig)


def test_plot_posterior_comparison_profile_and_errors(pairs) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    model = mc.ConditionalGaussianModel(noise_cov=np.eye(1))
    theta, x = model.simulate(600, seed=1)
    x_eval = np.linspace(2, -2, 5)[:, None]  # unsorted: drawn along x
    result = mc.compare_posteriors(
        model.exact_flow(), model.exact_flow(scale_factor=1.5), theta, x, x_eval=x_eval, seed=0
    )
    ax = mc.plot_posterior_comparison(result, alpha=0.01)
    assert ax.get_xlabel() == "x"
    assert "nats" in ax.get_ylabel()
    line = ax.get_lines()[0]
    np.testing.assert_array_equal(line.get_xdata(), np.sort(x_eval[:, 0]))
    np.testing.assert_allclose(line.get_ydata(), result.local_statistics[::-1])
    assert ax.get_legend().get_title().get_text() == "closer at α = 0.01"
    plt.close(ax.figure)
    with pytest.raises(TypeError, match="`result` must be a PosteriorComparisonResult"):
        mc.plot_posterior_comparison({"pvalue": 0.1})
    plain = mc.compare_posteriors(model.exact_flow(), model.exact_flow(offset=[0.1]), theta, x)
    with pytest.raises(ValueError, match="`x_eval`"):
        mc.plot_posterior_comparison(plain)
    with pytest.raises(ValueError, match="`alpha`"):
        mc.plot_posterior_comparison(result, alpha=0.0)


def test_validate_posterior_compare_with_is_a_section(pairs, tmp_path) -> None:
    theta, x = pairs
    checks = ["global_coverage", "pit_independence"]
    plain = mc.validate_posterior(MODEL.exact_flow(), theta, x, checks=checks, seed=0)
    report = mc.validate_posterior(
        MODEL.exact_flow(),
        theta,
        x,
        checks=checks,
        seed=0,
        compare_with=MODEL.exact_flow(scale_factor=2.0),
    )
    assert isinstance(report.comparison, mc.PosteriorComparisonResult)
    assert report.comparison.statistic > 0
    assert list(report.checks["name"]) == list(plain.checks["name"])
    assert report.pvalues_adjusted == plain.pvalues_adjusted
    assert report.failures(0.05) == plain.failures(0.05)
    assert "this posterior is closer" in report.summary()
    assert report.to_dict()["comparison"]["statistic"] == report.comparison.statistic
    html = report.to_html(tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="comparison"' in html
    assert plain.comparison is None
