"""Independence of the PIT covariates: global and local tests."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from modelcompare import (
    AffineGaussianFlow,
    ConditionalGaussianModel,
    TooFewResamplesWarning,
    global_coverage_test,
    local_coverage_test,
    local_independence_test,
    pit,
    pit_independence_test,
)

MODEL = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
NOCORR = AffineGaussianFlow(
    MODEL.posterior_mean_matrix, np.diag(np.sqrt(np.diag(MODEL.posterior_cov)))
)
X0 = np.array([[0.0, 0.0], [2.0, 2.0]])


def _ok_rate(k: int, r: int, alpha: float) -> bool:
    return stats.binomtest(k, r, alpha, alternative="greater").pvalue > 0.01


@pytest.mark.parametrize("method", ["spearman", "kendall", "chi2"])
def test_global_independence_size(method):
    flow = MODEL.exact_flow()
    reps, rej = 60, 0
    for seed in range(reps):
        theta, x = MODEL.simulate(300, seed=seed)
        rej += pit_independence_test(pit(flow, theta, x), statistic=method).pvalue <= 0.05
    assert _ok_rate(rej, reps, 0.05)


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")  # small B on purpose
def test_nocorr_passes_marginals_fails_independence():
    for seed in range(5):
        theta, x = MODEL.simulate(1000, seed=seed)
        p = pit(NOCORR, theta, x)
        assert global_coverage_test(p, seed=0).pvalue > 0.01  # exact marginals
        res = pit_independence_test(p)
        assert res.pvalue < 1e-10
        assert res.statistics[0] > 0.5
        assert pit_independence_test(p, statistic="chi2").pvalue < 1e-10
    # local: the marginal LCT is blind (rejects at about its size), the product regression is not
    reps, lct_rej, ind_rej = 20, 0, 0
    for seed in range(reps):
        theta, x = MODEL.simulate(1000, seed=200 + seed)
        p = pit(NOCORR, theta, x)
        lct = local_coverage_test(
            p, x, X0[:1], levels=19, regressor="knn", n_resamples=50, seed=seed
        )
        lct_rej += lct.pvalues[0] <= 0.05
        ind = local_independence_test(p, x, X0, regressor="knn", n_resamples=50, seed=seed)
        ind_rej += bool(np.all(ind.pvalues <= 1 / 51 + 1e-12) and np.all(ind.regression > 0.4))
    assert _ok_rate(lct_rej, reps, 0.05)
    assert ind_rej == reps


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")  # small B on purpose
def test_local_independence_size_knn():
    flow = MODEL.exact_flow()
    reps, rej = 40, np.zeros(2, int)
    for seed in range(reps):
        theta, x = MODEL.simulate(400, seed=300 + seed)
        res = local_independence_test(
            pit(flow, theta, x), x, X0, regressor="knn", n_resamples=40, seed=seed
        )
        rej += res.pvalues <= 0.05
    assert all(_ok_rate(int(k), reps, 0.05) for k in rej)


@pytest.mark.filterwarnings("ignore::modelcompare.TooFewResamplesWarning")  # small B on purpose
def test_local_independence_hgb_and_formulas():
    theta, x = MODEL.simulate(600, seed=5)
    p = pit(NOCORR, theta, x)
    with pytest.warns(TooFewResamplesWarning, match="smallest attainable"):
        local_independence_test(
            p, x, X0, n_resamples=19, seed=1, eval_correction="holm", regressor="knn"
        )
    res = local_independence_test(
        p, x, X0, n_resamples=19, seed=1, eval_correction="holm", regressor="hgb"
    )
    assert res.regressor == "hgb"
    assert res.statistics.shape == (1, 2)
    np.testing.assert_allclose(res.statistics, res.regression**2)
    expected = (1 + (res.null_statistics[:, None, :] >= res.statistics[None]).sum(0)) / 20
    np.testing.assert_allclose(res.pair_pvalues, expected)
    assert np.all(res.pvalues <= 1 / 20 + 1e-12)
    assert res.statistic == res.statistics.max()
    assert res.pvalue == min(1, 2 * res.pvalues.min()) == res.pvalues_adjusted.min()
    again = local_independence_test(p, x, X0, n_resamples=19, seed=1, eval_correction="holm")
    np.testing.assert_array_equal(res.pair_pvalues, again.pair_pvalues)


def test_three_covariates_pairs_and_symmetry():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(800, 3))
    z[:, 2] = 0.6 * z[:, 0] + 0.8 * z[:, 2]
    p = stats.norm.cdf(z)
    res = pit_independence_test(p)
    assert res.pairs == [(0, 1), (0, 2), (1, 2)]
    assert res.pvalues[1] < 1e-10
    assert res.pvalues[0] > 1e-3
    assert res.pvalue == pytest.approx(min(1, 3 * res.pvalues.min()))
    assert res.pvalue == res.pvalues_adjusted.min()
    assert res.decision(0.05)
    swapped = pit_independence_test(p[:, [2, 1, 0]], pairs=[(2, 0)])
    assert swapped.statistics[0] == pytest.approx(res.statistics[1])
    with pytest.raises(ValueError, match="at least 2 columns"):
        pit_independence_test(p[:, :1])
    with pytest.raises(ValueError, match="distinct column"):
        pit_independence_test(p, pairs=[(0, 0)])
