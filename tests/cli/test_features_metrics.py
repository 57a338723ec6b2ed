"""`modelcompare features`, `modelcompare metrics` and `modelcompare relative --features`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

pytest.importorskip("torch")
Image = pytest.importorskip("PIL.Image")

from modelcompare.cli import app

EXTRACTOR = '''
def mean_rows(batch):
    """(N, 3, H, W) in [0, 1] -> (N, H): the mean of each row of pixels."""
    return batch.mean(dim=(1, 3))
'''


def _folder(path: Path, n: int, shift: int, seed: int) -> Path:
    path.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    for i in range(n):
        img = np.clip(rng.integers(0, 200, size=(12, 12, 3)) + shift, 0, 255).astype(np.uint8)
        Image.fromarray(img).save(path / f"{i}.png")
    return path


@pytest.fixture
def setup(tmp_path: Path) -> dict[str, str]:
    ext = tmp_path / "ext.py"
    ext.write_text(EXTRACTOR, encoding="utf-8")
    return {
        "p": str(_folder(tmp_path / "p", 80, 50, 1)),
        "q": str(_folder(tmp_path / "q", 80, 0, 2)),
        "r": str(_folder(tmp_path / "r", 80, 0, 3)),
        "ext": f"{ext}:mean_rows",
        "tmp": str(tmp_path),
    }


def _run(args: list[str]) -> tuple[int, str, str]:
    res = CliRunner().invoke(app, args)
    return res.exit_code, res.stdout, res.stderr


def test_features_then_metrics(setup: dict[str, str]) -> None:
    out = str(Path(setup["tmp"]) / "p.npz")
    code, stdout, _ = _run(
        ["features", setup["p"], "--extractor", setup["ext"], "--out", out, "--json", "--quiet"]
    )
    assert code == 0, stdout
    info = json.loads(stdout)
    assert (info["n_images"], info["d"], info["extractor"]) == (80, 12, setup["ext"])
    code, stdout, stderr = _run(
        [
            "metrics",
            out,
            setup["r"],
            "--features",
            setup["ext"],
            "--metrics",
            "fd,kid,cmmd,prdc",
            "--n-resamples",
            "10",
            "--n-subsets",
            "4",
            "--seed",
            "0",
            "--json",
            "--quiet",
        ]
    )
    assert code == 0, stderr
    res = json.loads(stdout)
    assert res["extractor"] == setup["ext"]
    assert res["n_images"] == {"generated": 80, "reference": 80}
    assert res["fd"]["value"] > 0
    assert res["fd"]["std_error"] > 0
    assert {"precision", "recall", "density", "coverage"} <= set(res["prdc"])
    assert res["cmmd"]["value"] > 0


def test_relative_reads_folders_and_caches(setup: dict[str, str]) -> None:
    cache = str(Path(setup["tmp"]) / "cache")
    args = [
        "relative",
        setup["p"],
        setup["q"],
        setup["r"],
        "--features",
        setup["ext"],
        "--test",
        "mmd",
        "--cache-dir",
        cache,
        "--seed",
        "0",
        "--json",
        "--quiet",
    ]
    code, stdout, stderr = _run(args)
    assert code == 0, stderr
    res = json.loads(stdout)
    assert res["pvalue"] < 0.05
    assert res["params"]["features"]["n_images"] == {"p": 80, "q": 80, "ref": 80}
    assert len(list(Path(cache).glob("*.npz"))) == 3
    code, again, _ = _run(args)
    assert json.loads(again)["statistic"] == res["statistic"]


def test_images_need_an_extractor(setup: dict[str, str]) -> None:
    code, _, stderr = _run(["metrics", setup["p"], setup["r"]])
    assert code == 2
    assert "holds images" in stderr
    assert "--features" in stderr


def test_different_extractors_are_refused(setup: dict[str, str], tmp_path: Path) -> None:
    from modelcompare.features import FeatureSet

    a = FeatureSet(np.zeros((5, 2)), "inception", "x", 5, {}).save(tmp_path / "a.npz")
    b = FeatureSet(np.ones((5, 2)), "dinov2", "y", 5, {}).save(tmp_path / "b.npz")
    code, _, stderr = _run(["metrics", str(a), str(b)])
    assert code == 2
    assert "different extractors" in stderr


def test_missing_extractor_file(setup: dict[str, str]) -> None:
    code, _, stderr = _run(["features", setup["p"], "--extractor", "nope.py:f", "--out", "x.npz"])
    assert code == 3
    assert "no such file" in stderr
