"""Fuzz catalogue: every public function of modelcompare fed bad and unusual inputs.

The catalogue lives in ``tests/fuzz/`` (see its ``__init__``); this script runs it in full and
prints a table of outcomes::

    python benchmarks/fuzz_catalogue.py            # the Python cases
    python benchmarks/fuzz_catalogue.py --cli      # the command-line cases too
    python benchmarks/fuzz_catalogue.py -k c2st    # cases whose id contains "c2st"
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fuzz.table import main

if __name__ == "__main__":
    sys.exit(main())
