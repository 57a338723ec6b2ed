"""Running many tests: ``run_many``, resumable sweeps, power studies and the sweep-config runner."""

from modelcompare._foundation.task_seeds import canonical_json, config_key, task_seed
from modelcompare.experiments._config import SWEEP_TESTS, ConfigError, load_config, run_config
from modelcompare.experiments._power import PowerStudyResult, power_study
from modelcompare.experiments._run_many import run_many
from modelcompare.experiments._sweep import run_sweep

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
