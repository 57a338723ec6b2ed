"""``import modelcompare`` and ``modelcompare --help`` load none of the heavy dependencies."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("sklearn", "scipy", "pandas", "joblib", "torch", "matplotlib", "threadpoolctl")


def _loaded_after(code: str) -> list[str]:
    probe = f"import sys\n{code}\nprint('LOADED:', *(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return done.stdout.rsplit("LOADED:", 1)[1].split()


@pytest.mark.parametrize(
    "code",
    [
        "import modelcompare",
        "import modelcompare; modelcompare.__all__; modelcompare.__version__",
        "from modelcompare.cli import app\ntry:\n    app(['--help'])\nexcept SystemExit:\n    pass",
    ],
)
def test_light_import(code: str) -> None:
    assert _loaded_after(code) == []


def test_names_load_on_first_use() -> None:
    loaded = _loaded_after("import modelcompare; modelcompare.corrected_ttest")
    assert "scipy" in loaded
    assert "torch" not in loaded
    assert "matplotlib" not in loaded


def test_every_public_name_resolves() -> None:
    import modelcompare

    missing = [name for name in modelcompare.__all__ if not hasattr(modelcompare, name)]
    assert missing == []
    assert set(modelcompare.__all__) <= set(dir(modelcompare))
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        modelcompare.not_a_name  # noqa: B018
