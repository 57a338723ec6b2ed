"""Cross-check of the local coverage test against cde-diagnostics 0.3 (Zhao et al.'s package).

cde-diagnostics does not install cleanly (it declares the deprecated ``sklearn`` name and imports
xgboost without declaring it), so install it apart and stub xgboost:

    pip install --no-deps --target /tmp/cde cde-diagnostics==0.3
    OMP_NUM_THREADS=1 PYTHONPATH=src:/tmp/cde python benchmarks/posterior_cde_crosscheck.py

With the same deterministic kNN classifier injected into its ``classifier_dict``, a level grid strictly
inside (0, 1) and pre-standardised x, T_i(x₀) must equal ours; its p-value (#{T_b > T}/B on the
global ``np.random`` stream) is reproduced by feeding the same uniforms to our regressor; and its
``global_test`` statistic is the sum over evaluation points of ours.
"""

from __future__ import annotations

import sys
import types

import _harness

_harness.one_thread()

import numpy as np

from modelcompare import (
    ConditionalGaussianModel,
    NearestNeighborRegressor,
    local_coverage_test,
    pit,
)

SLUG = "posterior-07-agreement-with-cde-diagnostics-and-arviz"
COLUMNS = [
    "x₀",
    "covariate",
    "T ours",
    "T cde-diagnostics",
    "p cde-diagnostics",
    "p ours, its stream and rule",
    "p ours (+1 rule, own stream)",
]


def main() -> None:
    args = _harness.parser(__doc__).parse_args()
    xgb = types.ModuleType("xgboost")
    xgb.XGBClassifier = lambda **kw: None  # only referenced in cde-diagnostics' classifier table
    sys.modules.setdefault("xgboost", xgb)
    from cde_diagnostics import classifiers
    from cde_diagnostics.global_test import global_test
    from cde_diagnostics.local_test import local_test
    from sklearn.neighbors import KNeighborsClassifier

    rows = []
    k = 150
    classifiers.classifier_dict["kNN150"] = KNeighborsClassifier(n_neighbors=k)
    model = ConditionalGaussianModel(0.5 * np.array([[1.0, 0.8], [0.8, 1.0]]))
    theta, x = model.simulate(1000, seed=0)
    flow = model.exact_flow(offset=lambda c: np.column_stack([1.0 * (c[:, 0] > 1), 0 * c[:, 0]]))
    p = pit(flow, theta, x)
    xs = (x - x.mean(0)) / x.std(0)
    x0 = np.array([[2.0, 2.0], [-1.0, -1.0], [0.5, 0.5]])
    x0s = (x0 - x.mean(0)) / x.std(0)
    grid = np.linspace(0.05, 0.95, 19)
    ours = local_coverage_test(
        p, xs, x0s, levels=grid, regressor=NearestNeighborRegressor(k), n_resamples=100, seed=0
    )
    b = 10 if args.quick else 50
    for e in range(len(x0)):
        for i in range(2):
            np.random.seed(100 * e + i)  # noqa: NPY002 - cde-diagnostics draws from the global stream
            p_cde, t_cde = local_test(
                xs,
                p[:, i],
                x0s[e : e + 1],
                alphas=grid,
                clf_name="kNN150",
                n_trials=b,
                return_T=True,
            )
            legacy = np.random.RandomState(100 * e + i)
            reg = NearestNeighborRegressor(k)
            t_null = []
            for _ in range(b):
                u = legacy.uniform(size=len(xs))
                r = reg.fit(xs, u, grid, 0).predict(x0s[e : e + 1])[0]
                t_null.append(np.mean((r - grid) ** 2))
            p_same_stream = np.mean(np.array(t_null) > ours.statistics[i, e])
            print(
                f"x0={x0[e]} z{i + 1}: T ours={ours.statistics[i, e]:.10f} cde={t_cde:.10f} "
                f"| p cde={p_cde:.3f}, ours on its stream with its rule={p_same_stream:.3f}, "
                f"ours (+1 rule, own stream)={ours.covariate_pvalues[i, e]:.3f}"
            )
            rows.append(
                [
                    str(x0[e].tolist()),
                    f"z{i + 1}",
                    f"{ours.statistics[i, e]:.10f}",
                    f"{t_cde:.10f}",
                    f"{p_cde:.3f}",
                    f"{p_same_stream:.3f}",
                    f"{ours.covariate_pvalues[i, e]:.3f}",
                ]
            )
    np.random.seed(7)  # noqa: NPY002
    _, g_cde = global_test(
        xs, p[:, 0], x0s, alphas=grid, clf_name="kNN150", n_trials=2, return_T=True
    )
    print(f"global statistic z1: ours={ours.global_statistics[0]:.10f} cde={g_cde:.10f}")
    rows.append(
        ["all (global test)", "z1", f"{ours.global_statistics[0]:.10f}", f"{g_cde:.10f}"]
        + [None] * 3
    )
    _harness.rerun(args, SLUG, rows, script=__file__, columns=COLUMNS)


if __name__ == "__main__":
    main()
