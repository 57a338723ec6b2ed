"""Global calibration: the PIT, its uniformity (KS, PP bands), SBC ranks and their ECDF test, HPD and
TARP coverage, the global PIT-independence test, the posterior-draw metrics, the prior-predictive
misspecification test and the calibration findings that explain a failed SBC."""
