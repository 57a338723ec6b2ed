"""Every example in the subcommands' ``--help`` texts runs on the shipped data as written.

The convention, in each command's docstring (inside a ``\\b`` paragraph, which click prints as it
is): an example is one line ``$ modelcompare ...`` (no trailing backslash: the docs page, which
renders these texts, would drop it), and a trailing ``# exits N`` states its exit code (0
otherwise). The lines after it, up to the next blank line or ``$`` line, quote what the command
prints on stdout. ``...`` elides: the quote is cut at each ``...`` into fragments, and each
fragment must appear in the printed output, in order, token for token (numbers, words and
punctuation; whitespace and line breaks aside). A number written right before ``...`` with no
space (``0.750...``) stands for any number that starts with those digits; a rounded figure is
wrong. JSON output has its keys sorted, so a quote lists them in that order.

Every subcommand the ``modelcompare`` group lists is checked, so a new one needs an example. The
examples of one subcommand run in order, in a shell, in an empty scratch directory, as a user of
the installed package would run them: a subcommand whose examples read the example data begins
them with ``$ modelcompare example-data``, which writes the files shipped in
``modelcompare.datasets`` to ``examples/data``. Files the examples write (a results table, an HTML
report) land in the scratch directory. Data files named in a command must be shipped example files
(or exist in the repository), and each subcommand's examples quote at least one figure.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from modelcompare.cli import app
from modelcompare.datasets import DEFAULT_DIRECTORY, data_path, example_files

ROOT = Path(__file__).resolve().parents[2]
HAS_TORCH = importlib.util.find_spec("torch") is not None

# numbers (1, 0.5585, 1.74e-11), words (pvalue, seed_used, T_z1), the ellipsis, any other character
_TOKEN = re.compile(r"\.\.\.|…|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|[^\W\d]\w*|\S")
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_EXIT_CODE = re.compile(r"\s+#\s*exits\s+(\d+)\s*$")
_DATA_FILE = re.compile(r"\.(npy|npz|csv|tsv|parquet|ya?ml|json|pkl|pickle)$")
_OUTPUT_OPTIONS = ("--out", "--html")  # their values are files the command writes
WRITE_DATA = "modelcompare example-data"


@dataclass(frozen=True)
class Example:
    command: str
    exit_code: int
    quoted: str


# ---------------------------------------------------------------------------------------------
# parsing the help text and comparing the quote with the output


def parse_examples(help_text: str) -> list[Example]:
    """The ``$ modelcompare ...`` examples of a help text, with their exit codes and quotes."""
    lines = help_text.splitlines()
    examples = []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if not line.startswith("$ modelcompare"):
            i += 1
            continue
        command = line[2:]
        exit_code = 0
        found = _EXIT_CODE.search(command)
        if found:
            exit_code = int(found.group(1))
            command = command[: found.start()]
        quoted = []
        i += 1
        while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith("$ "):
            quoted.append(lines[i].strip())
            i += 1
        examples.append(Example(command.strip(), exit_code, "\n".join(quoted)))
    return examples


def _fragments(quoted: str) -> list[list[tuple[str, bool]]]:
    """The quote cut at each ``...``: lists of (token, is a number prefix)."""
    fragments: list[list[tuple[str, bool]]] = [[]]
    last_end = -1
    for match in _TOKEN.finditer(quoted):
        token = match.group()
        if token in ("...", "…"):
            current = fragments[-1]
            if current and last_end == match.start() and _NUMBER.fullmatch(current[-1][0]):
                current[-1] = (current[-1][0], True)  # 0.750...: any number starting 0.750
            fragments.append([])
        else:
            fragments[-1].append((token, False))
        last_end = match.end()
    return [fragment for fragment in fragments if fragment]


def _same(expected: tuple[str, bool], token: str) -> bool:
    text, prefix = expected
    if prefix:
        return _NUMBER.fullmatch(token) is not None and token.startswith(text)
    return text == token


def _find(tokens: list[str], fragment: list[tuple[str, bool]], start: int) -> int | None:
    for i in range(start, len(tokens) - len(fragment) + 1):
        if all(_same(expected, tokens[i + j]) for j, expected in enumerate(fragment)):
            return i
    return None


def quote_mismatch(quoted: str, printed: str) -> str | None:
    """None when ``printed`` shows the ``quoted`` output, else what is not there."""
    tokens = _TOKEN.findall(printed)
    start = 0
    for fragment in _fragments(quoted):
        found = _find(tokens, fragment, start)
        if found is None:
            text = " ".join(token + ("..." if prefix else "") for token, prefix in fragment)
            printed_numbers = set(_NUMBER.findall(printed))
            wrong = [
                token
                for token, prefix in fragment
                if _NUMBER.fullmatch(token)
                and not (
                    token in printed_numbers
                    or (prefix and any(n.startswith(token) for n in printed_numbers))
                )
            ]
            note = f"; numbers the command never printed: {wrong}" if wrong else ""
            return f"not printed (in this order): {text!r}{note}"
        start = found + len(fragment)
    return None


def is_example_file(path: str) -> bool:
    """Whether ``path`` is one of the files ``modelcompare example-data`` writes."""
    where = Path(path)
    return where.parent == DEFAULT_DIRECTORY and where.name in example_files()


def reads_example_data(command: str) -> bool:
    words = shlex.split(command, comments=True)
    return any(is_example_file(word.split("=", 1)[-1]) for word in words)


def missing_files(command: str) -> list[str]:
    """Data files a command reads that are neither example files nor in the repository."""
    words = shlex.split(command, comments=True)
    missing = []
    for before, word in zip(["", *words], words):
        if before in _OUTPUT_OPTIONS or "$" in word:
            continue
        path = word.split("=", 1)[-1] if word.startswith("--") else word
        path = re.sub(r"(\.npz):\w+$", r"\1", path)
        if _DATA_FILE.search(path) and not (is_example_file(path) or (ROOT / path).is_file()):
            missing.append(path)
    return missing


# ---------------------------------------------------------------------------------------------
# the subcommands, their help texts and their examples


def _subcommands() -> list[str]:
    with click.Context(app) as ctx:
        return list(app.list_commands(ctx))


def _help(name: str) -> str:
    result = CliRunner().invoke(app, [name, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.output


def _env() -> dict[str, str]:
    env = dict(os.environ, MPLBACKEND="Agg")
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    src = str(ROOT / "src")  # the code under test, also in the subprocess
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env


def test_subcommands_are_discovered() -> None:
    names = _subcommands()
    assert {"c2st", "relative", "coverage", "granularity", "cv", "report", "sweep"} <= set(names)


@pytest.mark.parametrize("name", _subcommands())
def test_help_examples_run_and_print_what_they_quote(name: str, tmp_path: Path) -> None:
    text = _help(name)
    examples = parse_examples(text)
    assert examples, f"`modelcompare {name} --help` has no `$ modelcompare ...` example"
    bare = [line for line in text.splitlines() if line.strip().startswith("modelcompare ")]
    assert not bare, f"write examples as `$ modelcompare ...` lines: {bare}"
    assert any(_NUMBER.search(example.quoted) for example in examples), "no figure is quoted"
    if any(reads_example_data(example.command) for example in examples):
        assert examples[0].command == WRITE_DATA, f"begin the examples with `$ {WRITE_DATA}`"
    for example in examples:
        if example.command == WRITE_DATA:
            assert not example.quoted or name == "example-data", "quote no output of it here"
        else:
            assert example.command.startswith(f"modelcompare {name} "), example.command
        assert not example.command.endswith("\\"), f"write `{example.command}` on one line"
        assert not missing_files(example.command), (example.command, missing_files(example.command))
        done = subprocess.run(
            example.command,
            shell=True,
            cwd=tmp_path,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        if not HAS_TORCH and done.returncode != example.exit_code and "torch" in done.stderr:
            pytest.skip(f"`{example.command}` needs torch")
        assert done.returncode == example.exit_code, (
            f"`{example.command}` exited {done.returncode}, the help says {example.exit_code}:\n"
            + done.stderr[-3000:]
        )
        mismatch = quote_mismatch(example.quoted, done.stdout)
        assert mismatch is None, f"`{example.command}`: {mismatch}\nprinted:\n{done.stdout[:3000]}"


def test_the_sweep_help_quotes_the_shipped_config() -> None:
    lines = _help("sweep").splitlines()
    start = next(i for i, line in enumerate(lines) if "Example config (examples/data/" in line)
    path = re.search(r"\(examples/data/([\w.]+)", lines[start]).group(1)
    quoted = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        quoted.append(line)
    config = data_path(path).read_text(encoding="utf-8")
    assert len(quoted) > 3
    assert quote_mismatch("\n".join(quoted), config) is None


# ---------------------------------------------------------------------------------------------
# the helpers can fail


HELP = """\
Usage: modelcompare demo [OPTIONS]

  Example:
    $ modelcompare demo examples/data/reference.npy --seed 0 --fail-on-reject   # exits 1
    {"auc": 0.5738052742589947, ..., "pvalue": 0.000149752527069103, ..., "seed": 0,
     "statistic": 0.5585, "test": "demo", ...}

  Another:
    $ modelcompare demo --out results.csv
    $ modelcompare demo --json
    t 0.750...

Options:
  --help  Show this message and exit.
"""

PRINTED = (
    '{"auc": 0.5738052742589947, "epochs": [36, 47], "pvalue": 0.000149752527069103, '
    '"runtime_s": 1.66, "seed": 0, "statistic": 0.5585, "test": "demo", "version": "0.1.0"}\n'
)


def test_parse_examples() -> None:
    first, second, third = parse_examples(HELP)
    assert (
        first.command == "modelcompare demo examples/data/reference.npy --seed 0 --fail-on-reject"
    )
    assert first.exit_code == 1
    assert first.quoted.startswith('{"auc": 0.5738052742589947, ...')
    assert first.quoted.endswith('"test": "demo", ...}')
    assert (second.command, second.exit_code, second.quoted) == (
        "modelcompare demo --out results.csv",
        0,
        "",
    )
    assert third.quoted == "t 0.750..."


def test_quote_mismatch_accepts_the_real_figures() -> None:
    quoted = parse_examples(HELP)[0].quoted
    assert quote_mismatch(quoted, PRINTED) is None
    assert quote_mismatch("", PRINTED) is None
    # line breaks and spacing are free; a number before ... stands for its longer printed form
    assert quote_mismatch('"auc":\n   0.5738...', PRINTED) is None
    assert quote_mismatch("t 0.750...", "t 0.7503126954482318") is None


@pytest.mark.parametrize(
    ("quoted", "why"),
    [
        ('{"auc": 0.53, ..., "pvalue": 0.21, "seed": 0, "statistic": 0.52, ...}', "0.53"),
        ('{..., "pvalue": 0.000149752527069103, ..., "statistic": 0.5586, ...}', "0.5586"),
        ('{..., "statistic": 0.5585, ..., "pvalue": 0.000149752527069103, ...}', "order"),
        ('{..., "seed": 0.5585, ...}', "a figure under another key"),
        ('"auc": 0.5739...', "a wrong prefix"),
        ('"auc": 0.5738 ...', "a prefix needs the ... right after it"),
        ('"pvalue": 0.00015', "a rounded figure"),
        ('"test": "c2st"', "a wrong word"),
    ],
)
def test_quote_mismatch_catches_a_wrong_quote(quoted: str, why: str) -> None:
    assert quote_mismatch(quoted, PRINTED) is not None, why


def test_quote_mismatch_names_the_wrong_figure() -> None:
    message = quote_mismatch('"pvalue": 0.21, "seed": 0', PRINTED)
    assert message is not None
    assert "0.21" in message
    assert "never printed" in message


def test_missing_files() -> None:
    assert missing_files("modelcompare c2st examples/data/reference.npy examples/data/x.npy") == []
    assert missing_files("modelcompare c2st p.npy examples/data/rel_q.npy") == ["p.npy"]
    assert missing_files("modelcompare sweep examples/data/sweep.yaml --out results.csv") == []
    assert missing_files("modelcompare report --pit examples/data/pit.npy --html r.html") == []
    assert missing_files("modelcompare report --x-eval=path.npy") == ["path.npy"]
    assert missing_files('modelcompare sweep examples/data/sweep.yaml --out "$(mktemp)"') == []


def test_reads_example_data() -> None:
    assert reads_example_data("modelcompare cv examples/data/cv_scores.csv --n-train 90")
    assert reads_example_data("modelcompare report --pit=examples/data/pit.npy")
    assert not reads_example_data("modelcompare cv scores.csv")
    assert not reads_example_data("modelcompare example-data")
