"""``modelcompare compare-generators``: the library's result, the page, folders, exit codes."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from modelcompare import compare_generators
from modelcompare.cli import app
from modelcompare.datasets import data_path

DATA = data_path("reference.npy").parent  # the example files shipped in the package
ARGS = [str(DATA / f"rel_{k}.npy") for k in ("p", "q", "ref")]


def _run(*args: str):
    return CliRunner().invoke(app, ["compare-generators", *args])


def test_json_matches_the_library() -> None:
    out = _run(*ARGS, "--seed", "0", "--json", "--alpha", "0.01")
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    res = compare_generators(*(np.load(p) for p in ARGS), seed=0)
    assert [r["pvalue"] for r in payload["table"]] == list(res.table["pvalue"])
    assert payload["verdict"] == res.verdict(0.01)
    assert payload["reject"] is True
    assert payload["test"] == "compare-generators"


def test_table_page_and_gate(tmp_path) -> None:
    pytest.importorskip("jinja2")
    page = tmp_path / "g.html"
    out = _run(*ARGS, "--names", "p,q", "--seed", "0", "--html", str(page), "--fail-on-reject")
    assert out.exit_code == 1  # a row rejects: the gate fails
    assert "q is closer to the reference" in out.stdout
    assert "Bonferroni" in out.stdout
    assert "multiplied by 8 (Bonferroni)" in page.read_text(encoding="utf-8")


def test_folders_of_images(tmp_path) -> None:
    image = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(0)
    folders = []
    for name in ("a", "b", "r"):
        folder = tmp_path / name
        folder.mkdir()
        for i in range(30):
            image.fromarray(rng.integers(0, 256, (5, 5), dtype=np.uint8)).save(folder / f"{i}.png")
        folders.append(str(folder))
    out = _run(*folders, "--seed", "1", "--json")
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    assert payload["n"] == [30, 30, 30]
    assert payload["n_features"] == 25


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--names", "a"], "--names"),
        (["--names", "a,a"], "--names"),
        (["--n-locations", "0"], "--n-locations"),
    ],
)
def test_bad_options_exit_2(extra, match) -> None:
    out = _run(*ARGS, *extra)
    assert out.exit_code == 2
    assert match in out.output


def test_a_missing_file_is_a_data_error(tmp_path) -> None:
    out = _run(str(tmp_path / "none.npy"), *ARGS[1:])
    assert out.exit_code == 3
    assert "Error" in out.output
