"""The command-line cases: bad input must exit 2 or 3 with one `Error:` line."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from tests.fuzz.data import _cat_samples, _scores
from tests.fuzz.mutations import _with
from tests.fuzz.runner import Outcome


@dataclasses.dataclass(frozen=True)
class CliCase:
    """``modelcompare <argv>`` on bad input: must exit 2 or 3 with one ``Error:`` line."""

    id: str
    argv: tuple[str, ...]
    quick: bool = False
    # environment variables set for the run, and the exit codes it may end with
    env: tuple[tuple[str, str], ...] = ()
    codes: tuple[int, ...] = (2, 3)


def cli_files(folder: Path) -> dict[str, str]:
    """Write the data files the command-line cases read; returns name -> path."""
    rng = np.random.default_rng(0)
    files: dict[str, Any] = {
        "good": rng.normal(size=(40, 2)),
        "good3": rng.normal(size=(40, 3)),
        "nan": _with(rng.normal(size=(40, 2)), math.nan),
        "empty": np.zeros((0, 2)),
        "one_d": rng.normal(size=40),
        "three_d": rng.normal(size=(4, 5, 2)),
        "complex": rng.normal(size=(40, 2)) + 1j,
        "strings": np.array([["a", "b"]] * 10),
        "pit": rng.random((80, 2)),
        "pit_bad": rng.random((80, 2)) * 3,
        "x": rng.normal(size=(80, 2)),
        "cat": _cat_samples(200),
        "cat_bad": np.full((20, 4), 99),
        "scores_nan": np.vstack([_scores()[0], _with(_scores()[1], math.nan)]),
        "huge": rng.normal(size=(40, 2)) * 1e300,
        "draws_m1": rng.normal(size=(40, 20, 1)),
    }
    out: dict[str, str] = {}
    for name, value in files.items():
        path = folder / f"{name}.npy"
        np.save(path, value)
        out[name] = str(path)
    corrupt = folder / "corrupt.npy"
    corrupt.write_bytes(b"\x93NUMPY garbage that is not an array")
    out["corrupt"] = str(corrupt)
    zero = folder / "zero.npy"
    zero.write_bytes(b"")
    out["zero"] = str(zero)
    pickled = folder / "garbage.pkl"
    pickled.write_bytes(b"not a pickle")
    out["garbage_pickle"] = str(pickled)
    out["missing"] = str(folder / "missing.npy")
    scores = folder / "scores.csv"
    scores.write_text("model,s1,s2,s3\na,0.8,0.9,0.85\nb,0.7,zz,0.75\n", encoding="utf-8")
    out["scores_bad"] = str(scores)
    one = folder / "scores_one.csv"
    one.write_text("model,s1\na,0.8\n", encoding="utf-8")
    out["scores_one"] = str(one)
    config = folder / "sweep.json"
    config.write_text('{"tests": [{"test": "nope", "x": "ref"}]}', encoding="utf-8")
    out["sweep_bad"] = str(config)
    not_json = folder / "sweep_broken.json"
    not_json.write_text("{not json", encoding="utf-8")
    out["sweep_broken"] = str(not_json)
    huge_folds = folder / "sweep_huge.json"
    huge_folds.write_text(
        json.dumps(
            {
                "data": {"ref": out["good"], "alt": out["good"]},
                "tests": [{"test": "c2st", "x": "ref", "y": "alt", "options": {"hidden": [10**9]}}],
            }
        ),
        encoding="utf-8",
    )
    out["sweep_huge"] = str(huge_folds)
    good = folder / "good.npy"
    truncated = folder / "truncated.npy"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    objects = folder / "objects.npy"
    np.save(objects, np.array([[1.0, None]] * 40, dtype=object), allow_pickle=True)
    for name, path in (("truncated", truncated), ("objects", objects)):
        sweep = folder / f"sweep_{name}.json"
        test = {"test": "c2st", "x": "ref", "y": "alt", "options": {"classifier": "logistic"}}
        sweep.write_text(
            json.dumps({"data": {"ref": str(good), "alt": str(path)}, "tests": [test]}),
            encoding="utf-8",
        )
        out[f"sweep_{name}"] = str(sweep)
        out[f"sweep_{name}_out"] = str(folder / f"sweep_{name}.csv")
    # an `out` that a running sweep holds: this process, alive while the case runs
    locked = folder / "sweep_locked.csv"
    lock = locked.with_name(locked.name + ".lock")
    lock.write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid()}), "utf-8")
    out["sweep_locked_out"] = str(locked)
    out["sweep_good"] = str(folder / "sweep_good.json")
    test = {"test": "c2st", "x": "ref", "y": "alt", "options": {"classifier": "logistic"}}
    Path(out["sweep_good"]).write_text(
        json.dumps({"data": {"ref": str(good), "alt": str(good)}, "tests": [test]}), "utf-8"
    )
    return out


def cli_catalogue(f: dict[str, str]) -> list[CliCase]:
    """The command-line cases, on the files of :func:`cli_files`."""
    good, pit, x = f["good"], f["pit"], f["x"]
    cases = [
        CliCase("cli c2st:hidden=1e9", ("c2st", good, good, "--hidden", "1000000000"), quick=True),
        CliCase("cli c2st:nan", ("c2st", good, f["nan"], "--classifier", "logistic")),
        CliCase("cli c2st:width", ("c2st", good, f["good3"], "--classifier", "logistic")),
        CliCase("cli c2st:empty", ("c2st", good, f["empty"])),
        CliCase("cli c2st:one_d", ("c2st", f["one_d"], good)),
        CliCase("cli c2st:three_d", ("c2st", f["three_d"], good)),
        CliCase("cli c2st:complex", ("c2st", f["complex"], good)),
        CliCase("cli c2st:strings", ("c2st", f["strings"], good)),
        CliCase("cli c2st:corrupt", ("c2st", f["corrupt"], good)),
        CliCase("cli c2st:missing", ("c2st", f["missing"], good)),
        CliCase("cli c2st:hidden=abc", ("c2st", good, good, "--hidden", "abc")),
        CliCase("cli c2st:hidden=0", ("c2st", good, good, "--hidden", "0")),
        CliCase("cli c2st:n_folds=1e6", ("c2st", good, good, "--n-folds", "1000000")),
        CliCase("cli c2st:seed=-1", ("c2st", good, good, "--seed", "-1")),
        CliCase("cli c2st:alpha=nan", ("c2st", good, good, "--alpha", "nan")),
        CliCase(
            "cli relative:nan", ("relative", good, good, f["nan"], "--test", "mmd"), quick=True
        ),
        CliCase("cli relative:width", ("relative", good, good, f["good3"], "--test", "mmd")),
        CliCase(
            "cli relative:locations=1e9", ("relative", good, good, good, "--n-locations", "10**9")
        ),
        CliCase(
            "cli relative:locations=1000000",
            ("relative", good, good, good, "--n-locations", "1000000", "--optimizer", "none"),
        ),
        CliCase(
            "cli relative:n_resamples=1e12",
            ("relative", good, good, good, "--test", "fid", "--n-resamples", "1000000000000"),
        ),
        CliCase("cli relative:bandwidth=nan", ("relative", good, good, good, "--bandwidth", "nan")),
        CliCase(
            "cli coverage:n_levels=1e6", ("coverage", pit, x, "--n-levels", "1000000"), quick=True
        ),
        CliCase(
            "cli coverage:n_resamples=1e12",
            ("coverage", pit, x, "--x-eval", x, "--n-resamples", "1000000000000"),
        ),
        CliCase("cli coverage:pit_out_of_range", ("coverage", f["pit_bad"], x)),
        CliCase("cli coverage:rows", ("coverage", pit, good)),
        CliCase("cli coverage:x_eval_width", ("coverage", pit, x, "--x-eval", f["good3"])),
        CliCase("cli coverage:nan", ("coverage", f["nan"], good)),
        CliCase(
            "cli granularity:k_max=1e6",
            (
                "granularity",
                f["cat"],
                "--reference",
                "stairs:c=4,L=4,stairs=2",
                "--n-bins-max",
                "1000000",
            ),
            quick=True,
        ),
        CliCase(
            "cli granularity:bad_categories",
            ("granularity", f["cat_bad"], "--reference", "stairs:c=4,L=4,stairs=2"),
        ),
        CliCase(
            "cli granularity:bad_reference",
            ("granularity", f["cat"], "--reference", "stairs:c=x"),
        ),
        CliCase(
            "cli granularity:huge_reference",
            ("granularity", f["cat"], "--reference", "stairs:c=1000000,L=1000000,stairs=2"),
        ),
        CliCase(
            "cli granularity:n_resamples=1e12",
            (
                "granularity",
                f["cat"],
                "--reference",
                "stairs:c=4,L=4,stairs=2",
                "--mode",
                "mc",
                "--n-resamples",
                "1000000000000",
            ),
        ),
        CliCase(
            "cli cv:bad_cell",
            ("cv", f["scores_bad"], "--n-train", "90", "--n-test", "10"),
            quick=True,
        ),
        CliCase("cli cv:one_split", ("cv", f["scores_one"], "--n-train", "90", "--n-test", "10")),
        CliCase("cli cv:missing", ("cv", f["missing"], "--n-train", "90", "--n-test", "10")),
        CliCase(
            "cli cv:n_train=nan", ("cv", f["scores_bad"], "--n-train", "nan", "--n-test", "10")
        ),
        CliCase("cli sweep:bad_test", ("sweep", f["sweep_bad"]), quick=True),
        CliCase("cli sweep:broken", ("sweep", f["sweep_broken"])),
        CliCase("cli sweep:n_jobs=0", ("sweep", f["sweep_bad"], "--n-jobs", "0")),
        CliCase("cli sweep:missing", ("sweep", f["missing"])),
        CliCase("cli report:missing", ("report", "--pit", f["missing"]), quick=True),
        CliCase("cli report:corrupt", ("report", "--pit", f["corrupt"])),
        CliCase("cli report:pit_out_of_range", ("report", "--pit", f["pit_bad"])),
        CliCase("cli report:nan", ("report", "--pit", f["nan"])),
        CliCase("cli report:checks=bogus", ("report", "--pit", pit, "--checks", "bogus")),
        CliCase("cli report:rows", ("report", "--pit", pit, "--x", good)),
        CliCase(
            "cli report:n_resamples=1e12",
            ("report", "--pit", pit, "--x", x, "--x-eval", x, "--n-resamples", "1000000000000"),
        ),
        CliCase("cli report:ranks_no_s", ("report", "--ranks", f["cat"])),
        CliCase("cli report:zero_bytes", ("report", "--pit", f["zero"])),
        CliCase(
            "cli report:garbage_pickle",
            ("report", "--flow-pickle", f["garbage_pickle"], "--theta", good, "--x", good),
        ),
        CliCase(
            "cli report:draws_width",
            ("report", "--posterior-samples", f["draws_m1"], "--theta", good),
        ),
        CliCase(
            "cli sweep:truncated_data",
            ("sweep", f["sweep_truncated"], "--out", f["sweep_truncated_out"], "-q"),
            quick=True,
            codes=(3,),
        ),
        CliCase(
            "cli sweep:object_data",
            ("sweep", f["sweep_objects"], "--out", f["sweep_objects_out"], "-q"),
            codes=(3,),
        ),
        CliCase(
            "cli sweep:out_locked",
            ("sweep", f["sweep_good"], "--out", f["sweep_locked_out"], "-q"),
            codes=(3,),
        ),
    ]
    # an invalid memory limit is refused at start-up, by every subcommand, before any work
    invalid_limit = {
        "c2st": ("c2st", good, good, "--classifier", "logistic"),
        "relative": ("relative", good, good, good),
        "coverage": ("coverage", "--pit", pit),
        "granularity": ("granularity", f["cat"], "--n-categories", "4"),
        "cv": ("cv", f["scores_one"], "--n-train", "90", "--n-test", "10"),
        "sweep": ("sweep", f["sweep_good"], "--out", f["sweep_locked_out"] + ".x.csv"),
        "report": ("report", "--pit", pit),
    }
    for command, argv in invalid_limit.items():
        cases.append(
            CliCase(
                f"cli {command}:MODELCOMPARE_MAX_MEMORY=lots",
                argv,
                quick=command == "granularity",
                env=(("MODELCOMPARE_MAX_MEMORY", "lots"),),
                codes=(2,),
            )
        )
    return cases


class _Names(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> str:
        return key


def cli_case_ids() -> list[tuple[str, bool]]:
    """The ids of the command-line cases and whether each is in the quick set."""
    return [(c.id, c.quick) for c in cli_catalogue(_Names())]


CLI_MEMORY = 4 * 1024**3
CLI_TIMEOUT = 60.0


def _limit_memory() -> None:  # runs in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (CLI_MEMORY, CLI_MEMORY))


def cli_commands() -> list[str]:
    from modelcompare.cli import app

    return list(app.list_commands(None))  # type: ignore[arg-type]


def run_cli_case(case: CliCase, *, timeout: float = CLI_TIMEOUT) -> Outcome:
    """Run one command-line case in a subprocess under a memory cap and a timeout."""
    import modelcompare

    src = str(Path(modelcompare.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": src, "OMP_NUM_THREADS": "1", "MODELCOMPARE_DEBUG": "0"}
    env.update(case.env)
    command = [sys.executable, "-c", "from modelcompare.cli import app; app()", *case.argv]
    start = time.perf_counter()
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            preexec_fn=_limit_memory,  # the child caps its own address space
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Outcome("escape", f"timeout after {timeout:g} s", time.perf_counter() - start)
    seconds = time.perf_counter() - start
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error")]
    if done.returncode not in case.codes:
        tail = (done.stderr.strip().splitlines() or [""])[-1][:160]
        return Outcome("escape", f"exit {done.returncode}: {tail}", seconds)
    if "Traceback" in done.stderr:
        tail = done.stderr.strip().splitlines()[-1][:160]
        return Outcome("escape", f"traceback: {tail}", seconds)
    if len(errors) != 1:
        return Outcome("escape", f"{len(errors)} Error lines: {done.stderr[:160]!r}", seconds)
    return Outcome("error", f"exit {done.returncode}: {errors[0][:160]}", seconds)
