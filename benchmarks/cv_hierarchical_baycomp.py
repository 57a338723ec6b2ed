"""The hierarchical correlated t-test without Stan against baycomp's ``HierarchicalTest`` (Stan).

Three inputs (8 data sets × 10 splits of two models: a small, a clear and no difference) go to
baycomp's ``HierarchicalTest(a, b, rope, runs=1, nsamples=5000)`` (pystan 3.10, 4 chains, in a
temporary directory because it writes ``last-sample.pickle`` there) and to
:func:`modelcompare.bayesian_hierarchical_ttest` with the same ROPE and 4 × 5000 draws. baycomp's
difference is b − a, so its ``(p_left, p_rope, p_right)`` is read as (P(a better), P(rope),
P(b better)).

Run: ``OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/cv_hierarchical_baycomp.py``; needs
``pystan`` (in no extra); writes ``benchmarks/results/cv_hierarchical_baycomp.json``.
"""

from __future__ import annotations

import os
import tempfile
import time
import warnings
from pathlib import Path

import _harness

_harness.one_thread()

import numpy as np

import modelcompare as mc

CASES = {"small difference": 0.006, "clear difference": 0.03, "no difference": 0.0}


def main() -> None:
    args = _harness.parser(__doc__).parse_args()
    from baycomp import HierarchicalTest

    rows = []
    started = time.perf_counter()
    for k, (case, shift) in enumerate(CASES.items()):
        rng = np.random.default_rng(4 + k)
        b = 0.8 + 0.02 * rng.standard_normal((8, 10))
        a = b + rng.normal(shift, 0.01, 8)[:, None] + 0.01 * rng.standard_normal((8, 10))
        here = Path.cwd()
        with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            os.chdir(tmp)
            try:
                t0 = time.perf_counter()
                theirs = HierarchicalTest(a, b, rope=0.005, runs=1, nsamples=5000, random_state=0)
                t_stan = time.perf_counter() - t0
            finally:
                os.chdir(here)
        t0 = time.perf_counter()
        ours = mc.bayesian_hierarchical_ttest(a, b, rope=0.005, n_folds=10, seed=0)
        t_ours = time.perf_counter() - t0
        left, rope, right = theirs.probs()
        rows.append(
            [
                case,
                round(float(left), 4),
                round(ours.prob_a_better, 4),
                round(float(rope), 4),
                round(ours.prob_rope, 4),
                round(float(right), 4),
                round(ours.prob_a_worse, 4),
                round(t_stan, 1),
                round(t_ours, 1),
            ]
        )
        print(*rows[-1])
    result = _harness.record(
        "cv_hierarchical_baycomp",
        title="Hierarchical t-test: the numpy Gibbs sampler against baycomp's Stan model",
        part="cv",
        script=__file__,
        columns=[
            "case",
            "baycomp P(a better)",
            "ours",
            "baycomp P(rope)",
            "ours",
            "baycomp P(b better)",
            "ours",
            "baycomp s",
            "ours s",
        ],
        rows=rows,
        meaning="The three posterior probabilities (a better, practically equivalent, b better; ROPE "
        "±0.005) of baycomp's `HierarchicalTest` (Stan, 4 chains × 5000 draws) and of "
        "`bayesian_hierarchical_ttest` (Gibbs in numpy, 4 chains × 5000 draws) on the same "
        "scores, and the seconds each took (baycomp's include compiling the model the first "
        "time). Both are Monte Carlo estimates; they agree within a few hundredths.",
        notes=f"Total run time {time.perf_counter() - started:.0f} s.",
    )
    _harness.save(args, result)


if __name__ == "__main__":
    main()
