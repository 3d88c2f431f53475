"""The training core: tiny numpy models and data, precision emulation, recipes, loss scalers, the runner.

Imports numpy, ml_dtypes, the standard library and app.formats only; never the web layer.
"""

from app.training.config import (
    LIMITS,
    ConfigError,
    ResolvedConfig,
    TrainConfig,
    as_activation_id,
    as_dataset_id,
    as_optimizer_id,
    as_recipe_id,
    as_scenario_id,
)
from app.training.data import DATASETS, DatasetId, make_dataset
from app.training.gather import gather
from app.training.memory_calc import (
    BYTES_PER_GB,
    BYTES_PER_GIB,
    MAX_DEVICES,
    MAX_PARAMS,
    WEIGHT_FORMATS,
    ZERO_STAGES,
    MemoryReport,
    memory_report,
    optimizer_named,
    parse_devices,
    parse_param_count,
    parse_zero_stage,
    recipe_named,
    weight_format_named,
)
from app.training.model import ACTIVATIONS, MLP, ActivationId
from app.training.optim import OPTIMIZERS, OptimizerId
from app.training.pytorch_script import pytorch_script, script_filename
from app.training.recipes import RECIPES, Recipe, RecipeId, bytes_per_param, memory_for_model
from app.training.run_shape import HISTOGRAM_SNAPSHOTS
from app.training.runner import COLLAPSE, DEFAULT_CONFIG, run, stream
from app.training.scenarios import SCENARIOS, Scenario, ScenarioId

__all__ = [
    "COLLAPSE",
    "ACTIVATIONS",
    "BYTES_PER_GB",
    "BYTES_PER_GIB",
    "DATASETS",
    "DEFAULT_CONFIG",
    "HISTOGRAM_SNAPSHOTS",
    "LIMITS",
    "MAX_DEVICES",
    "MAX_PARAMS",
    "MLP",
    "OPTIMIZERS",
    "RECIPES",
    "SCENARIOS",
    "WEIGHT_FORMATS",
    "ZERO_STAGES",
    "ActivationId",
    "ConfigError",
    "DatasetId",
    "MemoryReport",
    "OptimizerId",
    "Recipe",
    "RecipeId",
    "ResolvedConfig",
    "Scenario",
    "ScenarioId",
    "TrainConfig",
    "as_activation_id",
    "as_dataset_id",
    "as_optimizer_id",
    "as_recipe_id",
    "as_scenario_id",
    "bytes_per_param",
    "gather",
    "make_dataset",
    "memory_for_model",
    "memory_report",
    "optimizer_named",
    "parse_devices",
    "parse_param_count",
    "parse_zero_stage",
    "pytorch_script",
    "recipe_named",
    "run",
    "script_filename",
    "stream",
    "weight_format_named",
]
