"""Small simulated size and power checks of the corrected t-test (larger: benchmarks/cv_size_study.py).

Two least-squares models on exchangeable features have exactly equal expected score; each replicate
draws a fresh data set and runs 10 × 10-fold CV. The corrected test must hold its level; the naive
test must be visibly inflated (the point of the correction).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from scipy.stats import binomtest

_PATH = Path(__file__).parents[2] / "benchmarks" / "cv_size_study.py"
sys.path.insert(0, str(_PATH.parent))  # the script imports the benchmarks' shared harness
_spec = importlib.util.spec_from_file_location("cv_size_study", _PATH)
study = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(study)

R = 200
ALPHA = 0.05


def test_size_corrected_vs_naive():
    corrected, naive = study.rejection_rates(R, 100, 10, 10, alpha=ALPHA, seed=20261201)
    assert binomtest(corrected, R, ALPHA, alternative="greater").pvalue > 0.01
    # the naive test rejects far more than alpha under H0
    assert binomtest(naive, R, ALPHA, alternative="greater").pvalue < 1e-6
    assert naive > 4 * max(corrected, 1)


def test_size_five_fold():
    corrected, _ = study.rejection_rates(R, 60, 5, 4, alpha=ALPHA, seed=7)
    assert binomtest(corrected, R, ALPHA, alternative="greater").pvalue > 0.01


def test_power_when_one_model_is_better():
    corrected, _ = study.rejection_rates(100, 200, 10, 10, shift=0.5, alpha=ALPHA, seed=11)
    assert binomtest(corrected, 100, ALPHA, alternative="greater").pvalue < 1e-6
