"""Running many tests: ``run_many``, resumable sweeps, power studies and the sweep-config runner."""

from ._config import SWEEP_TESTS, ConfigError, load_config, run_config
from ._power import PowerStudyResult, power_study
from ._run_many import run_many
from ._seeds import canonical_json, config_key, task_seed
from ._sweep import run_sweep

__all__ = [
    "SWEEP_TESTS",
    "ConfigError",
    "PowerStudyResult",
    "canonical_json",
    "config_key",
    "load_config",
    "power_study",
    "run_config",
    "run_many",
    "run_sweep",
    "task_seed",
]
