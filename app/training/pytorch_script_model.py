"""The data and model blocks of the stand-alone PyTorch script (app/training/pytorch_script.py): the dataset's
generator, split and minibatch order, the initial weights and the model, emitted from the lab's own code and
constants (data.py, model.py) so that the script rebuilds exactly what the lab trains on."""

from __future__ import annotations

import inspect
from string import Template

from app.training import data as _data
from app.training import model as _model
from app.training.config import ResolvedConfig
from app.training.data import DatasetId
from app.training.fp8 import DEFAULT_AMAX_HISTORY_LEN
from app.training.recipes import Recipe

__all__ = ["data_source", "init_source", "model_source", "n_inputs"]

# Transformer Engine's FP8 GEMMs take 2-D inputs whose rows are a multiple of 8 and columns a multiple of 16
_FP8_ROWS, _FP8_COLUMNS = 8, 16


def n_inputs(config: ResolvedConfig) -> int:
    """The width of the dataset's points, as the runner reads it."""
    return int(_data.make_dataset(config.dataset, config.seed).x_train.shape[1])


def data_source(dataset_id: DatasetId) -> str:
    """The dataset's generator, the split, and the minibatch order, as app/training/data.py makes them."""
    info, generate = _data._GENERATORS[dataset_id]
    split = Template('''\
def make_dataset(seed: int, input_scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """x_train, y_train, x_test, y_test: float32 points, $targets."""
    rng = np.random.default_rng([seed, _DATA_STREAM])
    points, targets = $generator(rng, N_TRAIN + N_TEST)
    order = rng.permutation(N_TRAIN + N_TEST)
    x = (points[order] * input_scale).astype(np.float32)
    y = targets[order].astype(np.$y_type)
    return x[:N_TRAIN], y[:N_TRAIN], x[N_TRAIN:], y[N_TRAIN:]
''').substitute(generator=generate.__name__,
                targets="int64 labels" if info.task == "classification" else "float32 targets of shape (n, 1)",
                y_type="float32" if info.task == "regression" else "int64")
    return "\n\n\n".join([
        f"# The data: {info.name}. {info.description}\n"
        f"N_TRAIN, N_TEST = {_data.N_TRAIN}, {_data.N_TEST}\n"
        f"_DATA_STREAM, _ORDER_STREAM = {_data._DATA_STREAM}, {_data._ORDER_STREAM}"
        "  # independent numpy streams under one seed",
        inspect.getsource(generate).strip("\n"),
        split.strip("\n"),
        inspect.getsource(_data.batch_indices).strip("\n"),
    ])


def init_source() -> str:
    """MLP.init_params (app/training/model.py) as separate matrices: the same draws in the same order."""
    return f'''\
# The initial weights.
_INIT_STREAM = {_model._INIT_STREAM}


def initial_weights(seed: int) -> list[np.ndarray]:
    """Each layer's weights, (fan_in, fan_out) in float32: He-normal for ReLU layers, Glorot-normal for tanh layers
    and the output layer. Biases start at zero."""
    rng = np.random.default_rng([seed, _INIT_STREAM])
    sizes = [N_INPUTS, *[WIDTH] * DEPTH, N_OUTPUTS]
    weights = []
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        he = ACTIVATION == "relu" and i < len(sizes) - 2
        std = np.sqrt(2.0 / fan_in) if he else np.sqrt(2.0 / (fan_in + fan_out))
        weights.append(rng.normal(0.0, std, (fan_in, fan_out)).astype(np.float32))
    return weights
'''


def model_source(recipe: Recipe) -> str:
    if recipe.delayed_scaling:
        return _FP8_MODEL
    return '''\
# The model.
def build_model(device: torch.device) -> torch.nn.Sequential:
    """Linear layers with the activation between them, holding the initial weights (FP32 parameters)."""
    layers: list[torch.nn.Module] = []
    for i, w in enumerate(initial_weights(SEED)):
        if i:
            layers.append(torch.nn.ReLU() if ACTIVATION == "relu" else torch.nn.Tanh())
        linear = torch.nn.Linear(*w.shape, device=device)
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(w.T.copy()))  # nn.Linear holds (fan_out, fan_in)
            linear.bias.zero_()
        layers.append(linear)
    return torch.nn.Sequential(*layers)
'''


_FP8_MODEL = f'''\
# FP8.
# The lab emulates "FP8 hybrid, delayed scaling": E4M3 for the forward products' inputs, E5M2 for the gradients,
# per-tensor scales from an amax history of {DEFAULT_AMAX_HISTORY_LEN} steps, BF16 outputs and FP32 master weights.
# The nearest real recipe is NVIDIA Transformer Engine's DelayedScaling with Format.HYBRID, used below. It needs
# hardware with FP8 tensor cores: an NVIDIA GPU of compute capability 8.9 or more (Hopper, such as the H100 and H200;
# Ada; Blackwell), and Transformer Engine installed (pip install "transformer_engine[pytorch]").
# Transformer Engine's FP8 products take inputs whose rows are a multiple of {_FP8_ROWS} and columns a multiple of
# {_FP8_COLUMNS}, so only the hidden-to-hidden layers run in FP8 here; the first layer (2 inputs) and the output layer
# run in BF16, as real FP8 recipes keep them (the lab's emulation puts them through FP8 too).
# On other hardware, or without Transformer Engine, the script prints a note and runs the BF16 recipe instead.
FP8_AMAX_HISTORY_LEN = {DEFAULT_AMAX_HISTORY_LEN}  # the lab's; Transformer Engine's default is 1024


def fp8_engine(device: torch.device):
    """(transformer_engine.pytorch, the DelayedScaling recipe) where FP8 can run here, else None (with a note)."""
    why = None
    if device.type != "cuda":
        why = "FP8 matrix products need an NVIDIA GPU with FP8 tensor cores (Hopper, Ada or newer)"
    elif torch.cuda.get_device_capability(device) < (8, 9):
        why = f"this GPU ({{torch.cuda.get_device_name(device)}}) has no FP8 tensor cores; they need compute " \\
              "capability 8.9 or more (Hopper, Ada or newer)"
    elif DEPTH < 2 or WIDTH % {_FP8_COLUMNS} or BATCH_SIZE % {_FP8_ROWS}:
        why = "Transformer Engine's FP8 products need at least 2 hidden layers, a width that is a multiple of " \\
              "{_FP8_COLUMNS} and a batch size that is a multiple of {_FP8_ROWS}"
    else:
        try:
            import transformer_engine.pytorch as te
            from transformer_engine.common.recipe import DelayedScaling, Format
        except ImportError:
            why = 'Transformer Engine is not installed (pip install "transformer_engine[pytorch]")'
        else:
            return te, DelayedScaling(fp8_format=Format.HYBRID, amax_history_len=FP8_AMAX_HISTORY_LEN,
                                      amax_compute_algo="max", margin=0)
    print(f"Note: {{why}}, so this runs the BF16 recipe instead: BF16 products, FP32 master weights.")
    return None


def build_model(device: torch.device, fp8=None) -> torch.nn.Sequential:
    """Linear layers with the activation between them, holding the initial weights (FP32 parameters); with
    Transformer Engine, te.Linear for the hidden-to-hidden layers, which run in FP8 under te.fp8_autocast."""
    weights = initial_weights(SEED)
    layers: list[torch.nn.Module] = []
    for i, w in enumerate(weights):
        if i:
            layers.append(torch.nn.ReLU() if ACTIVATION == "relu" else torch.nn.Tanh())
        hidden = 0 < i < len(weights) - 1
        if fp8 is not None and hidden:
            linear = fp8[0].Linear(*w.shape, params_dtype=torch.float32, device=device)
        else:
            linear = torch.nn.Linear(*w.shape, device=device)
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(w.T.copy()))  # both hold (fan_out, fan_in)
            linear.bias.zero_()
        layers.append(linear)
    return torch.nn.Sequential(*layers)
'''
