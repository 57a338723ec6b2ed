"""
Is one cross-validated model practically better? The Bayesian correlated t-test
===============================================================================

Two classifiers are scored on the same 10 × 10 repeated stratified folds of scikit-learn's breast
cancer data. Because the folds share training data, the naive paired t-test on the 100 score
differences is far too confident; the Bayesian correlated t-test of Corani & Benavoli (2015) uses
the Nadeau–Bengio correction of the variance and gives the posterior of the mean difference μ, a
Student-t. With a region of practical equivalence (ROPE) of ±1 point of accuracy it says how
probable it is that one model is better by more than that, that the two are practically
equivalent, or that the other is better.
"""

# %%
import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from modelcompare import bayesian_ttest, corrected_ttest, plot_posterior

X, y = load_breast_cancer(return_X_y=True)
cv = RepeatedStratifiedKFold(n_splits=10, n_repeats=10, random_state=0)  # the same splits for both
logistic = cross_val_score(make_pipeline(StandardScaler(), LogisticRegression()), X, y, cv=cv)
tree = cross_val_score(DecisionTreeClassifier(max_depth=4, random_state=0), X, y, cv=cv)
print(f"mean accuracy: logistic {logistic.mean():.4f}, tree {tree.mean():.4f}")

# 10-fold CV: each split trains on 9/10 of the rows and tests on 1/10
post = bayesian_ttest(logistic, tree, test_train_ratio=1 / 9, rope=0.01)
print(
    f"P(logistic better) = {post.prob_a_better:.3f}, P(equivalent) = {post.prob_rope:.3f}, "
    f"P(tree better) = {post.prob_a_worse:.3f}; decision at 0.95: {post.decision(0.95)}"
)
# the frequentist counterpart has the same location and scale
test = corrected_ttest(logistic, tree, test_train_ratio=1 / 9)
print(f"corrected t-test p-value {test.pvalue:.3g} (naive {test.pvalue_uncorrected:.3g})")

fig, ax = plt.subplots(figsize=(8, 4), layout="constrained")
plot_posterior(post, names=("logistic", "tree"), ax=ax)
plt.show()

# %%
# The ROPE is a domain decision in the units of the score, made before looking at the results.
# Two logistic regressions that differ only in their regularisation are practically equivalent:
# most of the posterior mass falls inside the ROPE.
weak = cross_val_score(make_pipeline(StandardScaler(), LogisticRegression(C=0.3)), X, y, cv=cv)
post = bayesian_ttest(logistic, weak, test_train_ratio=1 / 9, rope=0.01)
print(f"P(equivalent) = {post.prob_rope:.3f}; decision at 0.95: {post.decision(0.95)}")
fig, ax = plt.subplots(figsize=(8, 4), layout="constrained")
plot_posterior(post, names=("C = 1", "C = 0.3"), ax=ax)
plt.show()
