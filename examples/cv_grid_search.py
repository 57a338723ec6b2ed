"""Which grid-search candidate is really better? scikit-learn's example in three lines.

Run: ``PYTHONPATH=src python examples/cv_grid_search.py``
"""

from __future__ import annotations

import pandas as pd
from sklearn.datasets import make_moons
from sklearn.model_selection import GridSearchCV, RepeatedStratifiedKFold
from sklearn.svm import SVC

from modelcompare import bayesian_ttest, compare_models, scores_from_cv_results

X, y = make_moons(n_samples=100, noise=0.352, random_state=1)
grid = [{"kernel": ["linear"]}, {"kernel": ["poly"], "degree": [2, 3]}, {"kernel": ["rbf"]}]
cv = RepeatedStratifiedKFold(n_splits=10, n_repeats=10, random_state=0)
search = GridSearchCV(SVC(random_state=0), grid, scoring="roc_auc", cv=cv)

search.fit(X, y)
result = compare_models(
    search, X=X, y=y
)  # two-sided corrected t-test + Bayesian ROPE probabilities
with pd.option_context("display.width", 160, "display.max_columns", 20):
    print(result.table.round(3))
print("some pair differs at 0.05:", result.decision(alpha=0.05), f"(p = {result.pvalue:.3g})")

# the example's printed table: one-sided "greater" p-values, Bonferroni, best model first
print(
    compare_models(search, X=X, y=y, alternative="greater")
    .table[["model_a", "model_b", "t", "p_adjusted"]]
    .round(3)
)

best = scores_from_cv_results(search.cv_results_)  # candidates best first
post = bayesian_ttest(best.scores[0], best.scores[1], n_train=90, n_test=10, rope=0.01)
print(post, post.decision(threshold=0.95))
print(post.credible_intervals([0.5, 0.75, 0.95]))
