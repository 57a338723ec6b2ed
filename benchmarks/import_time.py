"""Time ``import modelcompare`` and ``modelcompare --help`` against ``import numpy``.

Each command runs in a fresh interpreter; the best of ``--repeat`` runs is reported, as ``timeit``
does, because the best run is the one least disturbed by the rest of the machine.

    python benchmarks/import_time.py --repeat 5
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import time

COMMANDS = {
    "import numpy": [sys.executable, "-c", "import numpy"],
    "import modelcompare": [sys.executable, "-c", "import modelcompare"],
    "modelcompare --help": [
        sys.executable,
        "-c",
        "from modelcompare.cli import app; app(['--help'])",
    ],
}
HEAVY = ("sklearn", "scipy", "pandas", "joblib", "torch", "matplotlib")


def best_of(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


def loaded_heavy_modules(code: str) -> list[str]:
    probe = f"import sys\n{code}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout
    return out.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, best of {args.repeat}")
    numpy = best_of(COMMANDS["import numpy"], args.repeat)
    for name, command in COMMANDS.items():
        seconds = best_of(command, args.repeat)
        print(f"{name:22s} {seconds:6.3f} s  {seconds / numpy:4.1f}x numpy")
    for code in ("import modelcompare", "from modelcompare.cli import app"):
        print(f"{code!r} loads: {loaded_heavy_modules(code) or 'none of ' + ', '.join(HEAVY)}")


if __name__ == "__main__":
    main()
