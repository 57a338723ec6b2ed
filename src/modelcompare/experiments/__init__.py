"""Running many tests: ``run_many``, resumable sweeps, power studies and the sweep-config runner."""

from ._power import PowerStudyResult, power_study
from ._run_many import run_many
from ._seeds import canonical_json, config_key, task_seed
from ._sweep import run_sweep

__all__ = [
    "PowerStudyResult",
    "canonical_json",
    "config_key",
    "power_study",
    "run_many",
    "run_sweep",
    "task_seed",
]
