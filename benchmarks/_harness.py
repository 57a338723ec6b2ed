"""The small harness every benchmark script shares: its flags, its record of the run, its output.

A script builds its command line with :func:`parser` (the shared flags below, plus its own) and
ends with :func:`save`, which prints the table and writes it as a results file
``benchmarks/results/<slug>.json`` with the machine, the date, the load average and the versions
of the libraries recorded automatically, then regenerates BENCHMARKS.md (``benchmarks/render.py``
gives the schema). Shared flags:

``--seed``      the seed of every random choice (``--seeds`` where a script runs several)
``--repeats``   timing repeats; the best (or the median, as the script says) counts
``--quick``     a small version of the run, for a smoke test: its results go to
                ``benchmarks/out/`` (not kept), never to ``benchmarks/results/``
``--out DIR``   where to write the results file instead
``--no-save``   print the table only

Scripts run from the repository root (``python benchmarks/x.py``), one thread each
(:func:`one_thread` sets the variables before numpy is imported).
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import os
import platform
import shlex
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
SCRATCH = HERE / "out"
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
VERSIONED = ("numpy", "scipy", "scikit-learn", "torch", "sbi")
#: The library's environment variables that change what a run measures; a command shows them.
SETTINGS = ("MODELCOMPARE_NATIVE", "MODELCOMPARE_NUM_THREADS")


def one_thread() -> None:
    """One thread for BLAS and OpenMP (call before importing numpy); torch follows on import."""
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


def parser(description: str | None, *, seed: int = 0, repeats: int = 3) -> argparse.ArgumentParser:
    """An argument parser with the shared flags; add the script's own flags to it."""
    p = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--seed", type=int, default=seed, help="seed of every random choice")
    p.add_argument(
        "--repeats",
        "--repeat",  # the spelling some scripts used
        dest="repeats",
        type=int,
        default=repeats,
        help="timing repeats (default %(default)s)",
    )
    p.add_argument("--quick", action="store_true", help="a small run; results to benchmarks/out/")
    p.add_argument("--out", type=Path, default=None, help="directory of the results file")
    p.add_argument("--no-save", action="store_true", help="print the table, write nothing")
    return p


def load_average() -> float | None:
    """The 1-minute load average, or None where the system has none."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float | None:
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return round(pages * size / 2**30)


def machine() -> str:
    """The machine in words: CPU, cores, memory, system (no host name)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    memory = _memory_gib()
    parts = [_cpu(), f"{cores} cores"]
    if memory:
        parts.append(f"{memory:g} GiB")
    parts.append(f"{platform.system()} {platform.machine()}")
    return ", ".join(parts)


def versions() -> dict[str, str]:
    """Python's version and those of the libraries the figures depend on that are installed."""
    found = {"python": platform.python_version()}
    for name in ("modelcompare", *VERSIONED):
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


def command(script: str | Path, argv: list[str] | None = None) -> str:
    """The command line that reran this script with these arguments."""
    path = Path(script).resolve()
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    args = sys.argv[1:] if argv is None else argv
    settings = [
        f"{name}={shlex.quote(os.environ[name])}" for name in SETTINGS if name in os.environ
    ]
    return " ".join([*settings, "python", shown.as_posix(), *map(shlex.quote, args)])


def _render() -> Any:
    sys.path.insert(0, str(HERE))
    try:
        import render
    finally:
        sys.path.remove(str(HERE))
    return render


def record(
    slug: str,
    *,
    title: str,
    part: str,
    script: str | Path,
    columns: list[str],
    rows: list[list[Any]],
    meaning: str,
    notes: str = "",
    load: float | None = None,
    argv: list[str] | None = None,
) -> dict[str, Any]:
    """A results record of this run (see ``benchmarks/render.py`` for the schema)."""
    path = Path(script).resolve()
    result = {
        "slug": slug,
        "title": title,
        "part": part,
        "script": (path.relative_to(ROOT) if path.is_relative_to(ROOT) else path).as_posix(),
        "command": command(script, argv),
        "machine": machine(),
        "date": dt.datetime.now(dt.UTC).date().isoformat(),
        "load": load_average() if load is None else load,
        "transcribed": False,
        "meaning": meaning,
        "columns": columns,
        "rows": rows,
        "notes": notes,
        "versions": versions(),
    }
    problems = _render().validate(result)
    if problems:
        raise ValueError(f"results record {slug!r}: " + "; ".join(problems))
    return result


def save(args: argparse.Namespace, result: dict[str, Any]) -> Path | None:
    """Print the table; write the results file and regenerate the pages (see the flags)."""
    render = _render()
    print(render.table(result["columns"], result["rows"]))
    if args.no_save:
        return None
    directory = args.out or (SCRATCH if args.quick else RESULTS)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{result['slug']}.json"
    path.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")
    if directory.resolve() == RESULTS.resolve():
        regenerate()
    return path


def regenerate() -> None:
    """Rewrite BENCHMARKS.md and the documentation's page from the results files."""
    _render().main([])
    print("regenerated BENCHMARKS.md")


def previous(slug: str) -> dict[str, Any] | None:
    """The stored results record ``slug`` (its meaning and notes are kept when a script reruns)."""
    path = RESULTS / f"{slug}.json"
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def rerun(
    args: argparse.Namespace,
    slug: str,
    rows: list[list[Any]],
    *,
    script: str | Path,
    columns: list[str] | None = None,
    notes: str | None = None,
    load: float | None = None,
) -> Path | None:
    """Save a new run of the stored table ``slug``: its title, part, meaning and notes are kept.

    The columns are the stored ones unless given; ``notes`` replaces the stored notes where the
    run says something of its own.
    """
    stored = previous(slug)
    if stored is None:
        raise ValueError(f"no stored results file {slug!r}: build the record with record()")
    result = record(
        slug,
        title=stored["title"],
        part=stored["part"],
        script=script,
        columns=stored["columns"] if columns is None else columns,
        rows=rows,
        meaning=stored["meaning"],
        notes=stored["notes"] if notes is None else notes,
        load=load,
    )
    return save(args, result)


def native_engine() -> bool:
    """Whether the MLP runs on the compiled CPU kernel (``MODELCOMPARE_NATIVE=0`` picks torch)."""
    return os.environ.get("MODELCOMPARE_NATIVE", "1").strip() not in ("0", "false", "no", "off")
