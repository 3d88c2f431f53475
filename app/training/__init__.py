"""The training core: tiny numpy models and data, precision emulation, recipes, loss scalers, the runner.

Imports numpy, ml_dtypes, the standard library and app.formats only; never the web layer.
"""

from app.training.config import LIMITS, ConfigError, ResolvedConfig, TrainConfig
from app.training.data import DATASETS, make_dataset
from app.training.model import MLP
from app.training.recipes import RECIPES, Recipe, bytes_per_param, memory_for_model
from app.training.runner import DEFAULT_CONFIG, run, stream
from app.training.scenarios import SCENARIOS, Scenario

__all__ = [
    "DATASETS",
    "DEFAULT_CONFIG",
    "LIMITS",
    "MLP",
    "RECIPES",
    "SCENARIOS",
    "ConfigError",
    "Recipe",
    "ResolvedConfig",
    "Scenario",
    "TrainConfig",
    "bytes_per_param",
    "make_dataset",
    "memory_for_model",
    "run",
    "stream",
]
