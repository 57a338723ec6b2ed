"""Fuzz catalogue: every public function of modelcompare fed bad and unusual inputs.

Each case calls one public function with one argument replaced by a bad or unusual value (NaN,
inf, empty, wrong shape, strings, complex, huge, read-only, lists, DataFrames, torch tensors,
invalid options, ...). A case passes when the call ends in one of:

* a ``ValueError`` or ``TypeError`` whose message names the argument in backticks;
* a result whose p-values are finite and in [0, 1], whose non-finite statistic (if any) is
  flagged ``degenerate=True``, and that is flagged ``degenerate=True`` where the case says so;
* ``modelcompare.MissingDependencyError`` (an optional extra is not installed);

and the inputs are left as they were. Anything else is an *escape*.

The modules, by role: ``data`` (small valid inputs), ``mutations`` (the bad values, by role of
the argument), ``cases`` (a valid call of each public function, the roles of its arguments, and
the catalogue built from them), ``runner`` (running one case and classifying how it ended),
``cli_cases`` (the command-line cases) and ``table`` (the whole catalogue as a table of outcomes,
run by ``python benchmarks/fuzz_catalogue.py``). ``tests/test_fuzz.py`` runs a seeded subset of
the cases in the default suite and the whole catalogue under ``slow``.
"""

import os

os.environ.setdefault("MPLBACKEND", "Agg")
