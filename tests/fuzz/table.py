"""Run the whole catalogue and print a table of outcomes."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from tests.fuzz.cases import KNOWN_CLI_ESCAPES, KNOWN_ESCAPES, KNOWN_PATH, catalogue, quick_subset
from tests.fuzz.cli_cases import cli_catalogue, cli_commands, cli_files, run_cli_case
from tests.fuzz.runner import run_case


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="run only cases whose id contains this")
    parser.add_argument("--quick", action="store_true", help="the seeded subset of the tests")
    parser.add_argument("--cli", action="store_true", help="also run the command-line cases")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per case")
    parser.add_argument("--escapes", action="store_true", help="print only the escapes")
    parser.add_argument(
        "--update-known",
        action="store_true",
        help=f"write the escapes found to {KNOWN_PATH.name} (with --cli: the CLI ones too)",
    )
    args = parser.parse_args(argv)
    found: dict[str, str] = {}
    found_cli: dict[str, str] = {}
    os.environ.setdefault("MODELCOMPARE_MAX_MEMORY", "1G")
    cases = catalogue()
    if args.quick:
        cases = quick_subset(cases)
    cases = [c for c in cases if args.k in c.id]
    counts: dict[str, int] = {}
    width = max((len(c.id) for c in cases), default=10)
    total = time.perf_counter()
    for case in cases:
        outcome = run_case(case, timeout=args.timeout)
        counts[outcome.kind] = counts.get(outcome.kind, 0) + 1
        if not outcome.ok:
            found[case.id] = outcome.detail
        if not args.escapes or not outcome.ok:
            known = " (known)" if case.id in KNOWN_ESCAPES else ""
            print(
                f"{case.id:{width}s}  {outcome.kind:18s} {outcome.seconds:6.2f}s  "
                f"{outcome.detail}{known}",
                flush=True,
            )
    if args.cli:
        with tempfile.TemporaryDirectory() as folder:
            files = cli_files(Path(folder))
            commands = set(cli_commands())
            for case in cli_catalogue(files):
                if args.k not in case.id or (args.quick and not case.quick):
                    continue
                if case.argv[0] not in commands:
                    print(f"{case.id:{width}s}  {'skipped':18s}          no such subcommand")
                    continue
                outcome = run_cli_case(case)
                counts[f"cli {outcome.kind}"] = counts.get(f"cli {outcome.kind}", 0) + 1
                if not outcome.ok:
                    found_cli[case.id] = outcome.detail
                if not args.escapes or not outcome.ok:
                    print(
                        f"{case.id:{width}s}  {outcome.kind:18s} {outcome.seconds:6.2f}s  "
                        f"{outcome.detail}",
                        flush=True,
                    )
    if args.update_known:
        python = {**KNOWN_ESCAPES, **found} if args.k or args.quick else found
        python = {k: v for k, v in python.items() if k in found or k not in {c.id for c in cases}}
        cli = found_cli if args.cli else KNOWN_CLI_ESCAPES
        payload = {"python": dict(sorted(python.items())), "cli": dict(sorted(cli.items()))}
        KNOWN_PATH.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", "utf-8")
        print(f"wrote {len(python)} + {len(cli)} known escapes to {KNOWN_PATH}")
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
    print(f"\n{len(cases)} cases in {time.perf_counter() - total:.1f} s; {summary}")
    return 1 if any("escape" in k for k in counts) else 0


if __name__ == "__main__":
    sys.exit(main())
