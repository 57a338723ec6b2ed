"""Tests of the case studies, whose code lives in examples/case_studies (not in the package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load_case_study(name: str) -> ModuleType:
    """Import ``examples/case_studies/<name>.py`` by its path, as the module ``name``."""
    path = ROOT / "examples" / "case_studies" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
