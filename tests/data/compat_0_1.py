"""A script written against modelcompare 0.1's spellings, run by ``tests/test_api_compat.py``.

Every call below uses a name, argument or positional form that has since been renamed. Each must
still work and emit a ``FutureWarning`` naming the new spelling. Data are tiny, so it runs fast.
"""

import numpy as np

import modelcompare as mc

rng = np.random.default_rng(0)

# cross-validated comparison: wilcoxon_holm -> wilcoxon_holm_test, split_sizes(classifier=)
scores = rng.normal(size=(10, 3)) + np.array([0.0, 0.1, 0.5])
mc.wilcoxon_holm(scores, names=["a", "b", "c"])
mc.cv.wilcoxon_holm(scores)
mc.split_sizes(5, np.zeros((50, 1)), np.arange(50) % 2, classifier=True)

# posterior validation: PosteriorReport -> PosteriorValidationResult
assert mc.PosteriorReport is mc.PosteriorValidationResult
assert mc.workflows.PosteriorReport is mc.PosteriorValidationResult

# method= -> statistic=
ranks = rng.integers(0, 21, size=(60, 2))
mc.sbc_test(ranks, 20, method="ks")


class GaussianFlow:
    """q(θ | x) = N(x, 1): the flow interface modelcompare accepts (``sample(x, n, seed)``)."""

    def sample(self, x, n, seed=None):
        x = np.asarray(x, dtype=float)
        g = np.random.default_rng(seed)
        return x[:, None, :] + g.normal(size=(len(x), n, x.shape[1]))


theta = rng.normal(size=(40, 2))
x = theta + rng.normal(size=(40, 2))
mc.sbc(GaussianFlow(), theta, x, n_posterior_samples=20, method="ks", seed=0)

# tarp(references=) -> reference_points=
mc.tarp(GaussianFlow(), theta, x, n_posterior_samples=20, references=np.zeros((40, 2)), seed=0)

# local_coverage_test(correction=) -> combine=
pit = rng.uniform(size=(200, 2))
xs = rng.normal(size=(200, 2))
mc.local_coverage_test(
    pit, xs, [[0.0, 0.0]], regressor="knn", n_resamples=39, correction="bonferroni", seed=0
)

# report_from_arrays(draws=) -> posterior_samples=
from modelcompare.workflows import report_from_arrays

report_from_arrays(
    theta=theta, x=x, draws=GaussianFlow().sample(x, 20, seed=1), checks=["sbc"], seed=0
)

# relative tests: locations=int -> n_locations, optimize= -> optimizer=
xr, yr, zr = rng.normal(size=(3, 60, 2))
mc.rel_ume(xr, yr + 0.5, zr, locations=2, optimize=False, seed=0)


# categorical: positional k -> n_bins=, Binning.k, granularity(k_range=)
p = mc.stair_distribution(6, 6, 3, 2.0)
draws = p.sample(500, seed=1)
b = mc.adaptive_binning(p, draws, 4)
assert b.k == b.n_bins_requested
mc.random_binning(p, 4)
mc.granularity(p, draws, k_range=[4, 8], seed=0)

# categorical: 0.1's ClosenessResult, and a level given to a p-value mode (kept, with a warning)
res = mc.closeness_test(
    np.full(4, 0.25), [62, 50, 50, 38], mode="mc", alpha=0.05, n_resamples=99, seed=0
)
assert isinstance(res, mc.categorical.ClosenessResult)
assert res.alpha == 0.05
assert res.decision() == (res.pvalue <= 0.05)
assert res.threshold == res.critical_value(0.05)

# plots: axes= -> ax= (only where matplotlib is installed)
try:
    import matplotlib
except ImportError:
    matplotlib = None
if matplotlib is not None:
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = mc.global_coverage_test(rng.uniform(size=(100, 2)), seed=0)
    fig, axes = plt.subplots(1, 2)
    mc.plot_global_pp(res, axes=axes)
    plt.close("all")
