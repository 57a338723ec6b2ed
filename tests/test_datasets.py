"""The example data shipped in the package: the loaders, the files and ``modelcompare example-data``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from modelcompare import datasets
from modelcompare.cli import app

ROOT = Path(__file__).resolve().parents[1]


def test_every_shipped_file_is_listed_and_small() -> None:
    names = datasets.example_files()
    assert {"reference.npy", "samples.npy", "cv_scores.csv", "sweep.yaml", "x_eval.npy"} <= set(
        names
    )
    total = sum(datasets.data_path(name).stat().st_size for name in names)
    assert total < 300_000  # small files only; the case-study arrays stay in the repository


def test_the_loaders_return_the_files() -> None:
    reference, samples = datasets.load_two_samples()
    np.testing.assert_array_equal(reference, np.load(datasets.data_path("reference.npy")))
    np.testing.assert_array_equal(samples, np.load(datasets.data_path("samples.npy")))
    p, q, data = datasets.load_relative_fit()
    assert p.shape == q.shape == data.shape == (400, 2)
    # Q is the closer model: its mean is nearer the data's
    assert np.linalg.norm(q.mean(0) - data.mean(0)) < np.linalg.norm(p.mean(0) - data.mean(0))
    pit, x, x_eval = datasets.load_coverage()
    assert pit.shape == x.shape == (500, 2)
    assert ((pit >= 0) & (pit <= 1)).all()
    assert x_eval.shape == (3, 2)
    draws = datasets.load_categorical()
    assert draws.shape == (5000, 6)
    assert draws.min() >= 0
    assert draws.max() <= 5
    scores = datasets.load_cv_scores()
    assert scores.shape == (4, 100)
    assert scores.index.name == "model"
    assert ((scores >= 0) & (scores <= 1)).all().all()
    posterior = datasets.load_posterior_comparison()
    assert posterior["logq_first"].shape == (200,)
    assert posterior["draws_second"].shape == (200, 10, 2)


def test_the_loaders_return_fresh_arrays() -> None:
    first, _ = datasets.load_two_samples()
    first[:] = 0.0
    again, _ = datasets.load_two_samples()
    assert again.any()


def test_samples_csv_holds_the_same_draws() -> None:
    import pandas as pd

    table = pd.read_csv(datasets.data_path("samples.csv"))
    np.testing.assert_allclose(table.to_numpy(), datasets.load_two_samples()[1])


def test_data_path_names_the_argument() -> None:
    with pytest.raises(ValueError, match="name must be one of"):
        datasets.data_path("missing.npy")


def test_write_example_data(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b"
    written = datasets.write_example_data(target)
    assert [p.name for p in written] == datasets.example_files()
    for path in written:
        assert path.read_bytes() == datasets.data_path(path.name).read_bytes()
    assert sorted(p.name for p in target.iterdir()) == datasets.example_files()  # no leftovers
    datasets.write_example_data(target)  # again: replaced in place
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="directory must be a directory"):
        datasets.write_example_data(tmp_path / "file")


def test_the_command_writes_the_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["example-data"])
    assert result.exit_code == 0, result.output
    n = len(datasets.example_files())
    assert result.output.strip() == f"wrote {n} files to examples/data"
    assert (tmp_path / "examples" / "data" / "reference.npy").is_file()
    result = CliRunner().invoke(app, ["example-data", "elsewhere"])
    assert result.exit_code == 0
    assert (tmp_path / "elsewhere" / "sweep.yaml").is_file()


def test_importing_datasets_loads_nothing_heavy() -> None:
    code = (
        "import sys, modelcompare.datasets as d; d.example_files(); "
        "print(' '.join(m for m in ('numpy', 'pandas', 'sklearn', 'scipy') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip() == ""
