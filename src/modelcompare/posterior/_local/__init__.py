"""Local tests, at given observations x: the local coverage test (Zhao et al. 2021), L-C2ST
(Linhart et al. 2023), the local PIT-independence test, their regressors, classifiers and shared
checks."""
