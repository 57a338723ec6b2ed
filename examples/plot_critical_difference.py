"""
Comparing many models over many data sets: critical-difference diagrams
=======================================================================

To compare k models over N data sets, Demšar (*Statistical Comparisons of Classifiers over
Multiple Data Sets*, JMLR 2006) ranks the models on every data set and tests "all models perform
alike" with Friedman's test on the average ranks; post-hoc tests then say which pairs differ, and a
critical-difference diagram draws the average ranks with bars joining the models that are not
significantly different. Two post-hoc tests are shown: Nemenyi's, which compares every rank
difference with one critical difference, and Wilcoxon signed-rank tests with Holm's correction
(Benavoli, Corani & Mangili, JMLR 2016), which use the scores themselves. Each "data set" here is
a synthetic classification problem; each score is a model's 5-fold cross-validated accuracy on it.
"""

# %%
import warnings

import matplotlib.pyplot as plt
import pandas as pd
from sklearn.datasets import make_classification
from sklearn.dummy import DummyClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

from modelcompare import friedman_test, nemenyi_test, plot_critical_difference, wilcoxon_holm_test

models = {
    "logistic": make_pipeline(StandardScaler(), LogisticRegression()),
    "5-NN": make_pipeline(StandardScaler(), KNeighborsClassifier(5)),
    "naive Bayes": GaussianNB(),
    "tree, depth 3": DecisionTreeClassifier(max_depth=3, random_state=0),
    "RBF SVM": make_pipeline(StandardScaler(), SVC()),
    "majority class": DummyClassifier(),  # a floor every model should beat
}
rows = {}
for i in range(20):  # 20 data sets of varied difficulty: one score per model per data set
    X, y = make_classification(
        n_samples=300, n_features=8 + i % 4 * 4, n_informative=4 + i % 3, random_state=i
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        rows[f"data set {i}"] = {
            name: cross_val_score(model, X, y, cv=5).mean() for name, model in models.items()
        }
scores = pd.DataFrame.from_dict(rows, orient="index")  # data sets × models; columns name models
print(scores.round(3).head().to_string())

# %%
# First the omnibus test: do the models differ at all? Only then are the post-hoc tests read.
friedman = friedman_test(scores)
print(f"Friedman χ²_F = {friedman.statistic:.2f}, p-value {friedman.pvalue:.2g}")
nemenyi = nemenyi_test(scores, alpha=0.05)  # the level fixes the critical difference
wilcoxon = wilcoxon_holm_test(scores)
print(f"Nemenyi critical difference {nemenyi.threshold:.2f}; cliques {nemenyi.cliques()}")
print(f"Wilcoxon–Holm cliques at 0.05: {wilcoxon.cliques(0.05)}")

fig, axes = plt.subplots(2, 1, figsize=(9, 5.5), layout="constrained")
plot_critical_difference(nemenyi, ax=axes[0])
plot_critical_difference(wilcoxon, alpha=0.05, ax=axes[1])
plt.show()

# %%
# Here both post-hoc tests find the same groups: the RBF SVM is better than every other model,
# the majority-class floor worse, and the four models in between are not told apart. Nemenyi's
# critical difference grows with the number of models and shrinks only as 1/√N, so with few data
# sets it is conservative; the Wilcoxon–Holm tests use the size of the score differences, not only
# their ranks. Folds of one data set are not data sets: ranks over the folds of a single problem
# give invalid, tiny p-values (use :func:`modelcompare.corrected_ttest` for that).
