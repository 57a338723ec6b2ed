"""Time ``import modelcompare`` and ``modelcompare --help`` against ``import numpy``.

Each command runs in a fresh interpreter; the best of ``--repeats`` runs is reported, as ``timeit``
does, because the best run is the one least disturbed by the rest of the machine.

    python benchmarks/import_time.py --repeats 5
"""

from __future__ import annotations

import subprocess
import sys
import time

import _harness

SLUG = "package-01-import-time"
COMMANDS = {
    "import numpy": [sys.executable, "-c", "import numpy"],
    "import modelcompare": [sys.executable, "-c", "import modelcompare"],
    "modelcompare --help": [
        sys.executable,
        "-c",
        "from modelcompare.cli import app; app(['--help'])",
    ],
}
TARGETS = {"import modelcompare": "≤ 3×", "modelcompare --help": "≤ 5×"}
HEAVY = ("sklearn", "scipy", "pandas", "joblib", "torch", "matplotlib")
MEANING = """\
`import modelcompare` loads only the package's own lazy table of names (scientific-python SPEC 1):
each public name imports its part on first use, so scikit-learn, scipy, pandas, joblib, torch and
matplotlib load only when a function that needs them runs. `modelcompare --help` imports click and
the subcommands' option tables, not their implementations.

Each command runs in a fresh interpreter; the best of the repeats counts (the run least disturbed
by the rest of the machine), and it is compared with `import numpy` timed in the same run, which
every use of the library needs anyway."""


def best_of(command: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
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
    args = _harness.parser(__doc__, repeats=5).parse_args()
    repeats = 2 if args.quick else args.repeats
    numpy = best_of(COMMANDS["import numpy"], repeats)
    rows = []
    for name, command in COMMANDS.items():
        seconds = numpy if name == "import numpy" else best_of(command, repeats)
        rows.append(
            [f"`{name}`", f"{seconds:.3f} s", f"{seconds / numpy:.1f}", TARGETS.get(name, "")]
        )
    loaded = {
        code: loaded_heavy_modules(code)
        for code in ("import modelcompare", "from modelcompare.cli import app")
    }
    if any(loaded.values()):
        notes = "Heavy modules loaded: " + "; ".join(f"`{c}`: {m}" for c, m in loaded.items())
    else:
        notes = (
            "Neither command loads " + ", ".join(HEAVY) + " (checked by the script and by "
            "`tests/test_light_import.py`)."
        )
    result = _harness.record(
        SLUG,
        title="Import time",
        part="package",
        script=__file__,
        columns=["command", f"best of {repeats}", "× `import numpy`", "target"],
        rows=rows,
        meaning=MEANING,
        notes=notes,
    )
    _harness.save(args, result)


if __name__ == "__main__":
    main()
