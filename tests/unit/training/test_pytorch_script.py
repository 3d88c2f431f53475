"""The "take it home" PyTorch scripts: their data and initial weights are the lab's, and on a CPU their losses are the
torch backend's (app/training/torch_backend.py), bit for bit.

CI installs the [torch] extra (`make test`); a checkout without it skips this module.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from app.training import DATASETS, MLP, RECIPES, SCENARIOS, ConfigError, TrainConfig  # noqa: E402
from app.training.data import batch_indices, make_dataset  # noqa: E402
from app.training.pytorch_script import pytorch_script, script_filename  # noqa: E402
from app.training.torch_backend import run_torch  # noqa: E402

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"
STEPS = 6  # the scripts' --steps: a few steps, each on its own minibatch
_STEP = re.compile(r"step +(\d+)  loss (\S+)(?:  scale (\S+))?(  skipped)?")
_FINAL = re.compile(r"final (train|test) loss (\S+)")


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Tiny models: one thread, as the scripts' process gets (OMP_NUM_THREADS=1), so both sum in the same order."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _namespace(script: str) -> dict[str, object]:
    """The script's definitions, run as a module that is not __main__ (so it trains nothing)."""
    namespace: dict[str, object] = {"__name__": "take_home"}
    exec(compile(script, "take_home.py", "exec"), namespace)  # noqa: S102 - our own generated code, under test
    return namespace


@pytest.mark.parametrize("dataset", list(DATASETS))
def test_the_scripts_data_and_minibatches_are_the_labs_for_every_dataset_and_several_seeds(dataset):
    ns = _namespace(pytorch_script(TrainConfig(dataset=dataset, recipes=("fp32",)), "fp32"))
    for seed in (0, 1, 12345, 2**32 - 1):
        for scale in {1.0, *(s.input_scale for s in SCENARIOS.values())}:
            lab = make_dataset(dataset, seed, input_scale=scale)
            ours = ns["make_dataset"](seed, scale)  # type: ignore[operator]
            for mine, theirs in zip(ours, (lab.x_train, lab.y_train, lab.x_test, lab.y_test), strict=True):
                assert mine.dtype == theirs.dtype and mine.shape == theirs.shape
                np.testing.assert_array_equal(mine, theirs)
        ours_batches = ns["batch_indices"](len(lab.x_train), 100, seed)  # type: ignore[operator]
        lab_batches = batch_indices(len(lab.x_train), 100, seed)
        for _ in range(12):  # past the first epoch's end (1024 rows)
            np.testing.assert_array_equal(next(ours_batches), next(lab_batches))


@pytest.mark.parametrize("settings", [
    {},
    {"activation": "tanh", "depth": 1, "width": 5},
    {"dataset": "blobs", "depth": 3, "width": 64},
    {"dataset": "wave", "activation": "tanh", "depth": 6, "width": 7},
], ids=["relu", "tanh-shallow", "three-classes-deep", "regression-tanh-deepest"])
def test_the_scripts_initial_weights_are_the_labs(settings):
    for seed in (0, 3, 2**32 - 1):
        config = TrainConfig(recipes=("fp32",), seed=seed, **settings)
        resolved = config.resolved()
        info = DATASETS[resolved.dataset]
        mlp = MLP(2, resolved.width, resolved.depth, info.n_outputs, resolved.activation)
        lab_weights, lab_biases = mlp.views(mlp.init_params(seed))
        ours = _namespace(pytorch_script(config, "fp32"))["initial_weights"](seed)  # type: ignore[operator]
        assert len(ours) == len(lab_weights)
        for mine, theirs in zip(ours, lab_weights, strict=True):
            assert mine.dtype == np.float32
            np.testing.assert_array_equal(mine, theirs)
        assert not any(b.any() for b in lab_biases)  # the script's biases start at zero, as the lab's


def test_every_recipe_has_a_script_that_parses_and_names_its_settings():
    config = TrainConfig(scenario="tiny_gradients", learning_rate=0.003, seed=41)
    for recipe_id in RECIPES:
        script = pytorch_script(config, recipe_id, page="/train?scenario=tiny_gradients")
        ast.parse(script)
        assert f'RECIPE = "{recipe_id}"' in script and "SEED = 41" in script and "LEARNING_RATE = 0.003" in script
        assert "LOSS_WEIGHT = 2.0 ** -18" in script  # the scenario's, which the page does not show
        assert "import app" not in script and "from app" not in script
        assert ("GradScaler(" in script) == (RECIPES[recipe_id].loss_scaling != "none")
        autocast = RECIPES[recipe_id].compute in ("float16", "bfloat16", "float8_e4m3fn")
        assert ("with torch.autocast(" in script) == autocast
    assert script_filename("bf16") == "precision_lab_bf16.py"


@pytest.mark.slow  # writes a script per scenario and recipe and runs ruff over them
def test_every_script_passes_the_projects_linter(tmp_path):
    """Scripts a learner reads: held to the repository's own style (pyproject.toml's ruff rules)."""
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.skip("ruff is not installed beside this Python")
    configs = [TrainConfig(scenario=s) for s in SCENARIOS] + [TrainConfig(dataset="wave", activation="tanh")]
    for n, config in enumerate(configs):
        for recipe_id in RECIPES:
            script = pytorch_script(config, recipe_id, page="/train")
            (tmp_path / f"{n}_{script_filename(recipe_id)}").write_text(script, encoding="utf-8")
    done = subprocess.run([str(ruff), "check", "--no-cache", "--config", str(PYPROJECT), str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout


def test_a_script_is_refused_as_the_demo_refuses_its_settings():
    with pytest.raises(ConfigError, match="steps must be at most"):
        pytorch_script(TrainConfig(steps=10**6), "fp32")
    with pytest.raises(ConfigError, match="Unknown recipe"):
        pytorch_script(TrainConfig(), "fp12")  # type: ignore[arg-type]


# The scripts run in a process that has only torch and numpy (the lab's package cannot be imported there), one
# after another, each as __main__ with its own command line; one process, so that torch is imported once.
_DRIVER = textwrap.dedent("""\
    import contextlib, importlib.abc, io, json, runpy, sys

    class NoLab(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "app" or name.startswith("app."):
                raise ImportError("a take-home script must not import the lab")

    sys.meta_path.insert(0, NoLab())
    outputs = {}
    steps, *paths = sys.argv[1:]
    for path in paths:
        sys.argv = [path, "--steps", steps, "--device", "cpu", "--print-every", "1"]
        with contextlib.redirect_stdout(io.StringIO()) as out:
            runpy.run_path(path, run_name="__main__")
        outputs[path] = out.getvalue()
    print(json.dumps(outputs))
""")


def _run_scripts(directory: Path, scripts: dict[str, str]) -> dict[str, str]:
    """What each script (by name, its source) printed."""
    paths = {name: directory / f"{name}.py" for name in scripts}
    for name, path in paths.items():
        path.write_text(scripts[name], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-I", "-c", _DRIVER, str(STEPS), *map(str, paths.values())],
        cwd=directory, capture_output=True, text=True, timeout=600,
        env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    return {name: printed[str(path)] for name, path in paths.items()}


def _parse(output: str) -> dict[str, object]:
    steps = [_STEP.fullmatch(line) for line in output.splitlines() if line.startswith("step")]
    assert all(steps), output
    finals = dict(m.groups() for line in output.splitlines() if (m := _FINAL.match(line)))
    return {
        "loss": [np.float32(m[2]) for m in steps if m],
        "loss_scale": [float(m[3]) for m in steps if m and m[3]],
        "skipped_steps": [int(m[1]) for m in steps if m and m[4]],
        "final_loss": np.float32(finals["train"]), "test_loss": np.float32(finals["test"]),
    }


# Scripts and backend run the same torch operations on the same float32 arrays in the same order, on the same CPU
# with one thread: their losses are equal, not close (the printed %.9g reads back as the same float32). The FP16
# cases start from a loss scale that overflows, so that the skipped steps and the backing off are compared too.
CASES = {
    "fp32": TrainConfig(recipes=("fp32",), steps=STEPS),
    "bf16": TrainConfig(recipes=("bf16",), dataset="wave", activation="tanh", steps=STEPS),
    "fp16_dynamic_scaling": TrainConfig(scenario="large_activations", recipes=("fp16_dynamic_scaling",), steps=STEPS),
    "fp16_static_scaling": TrainConfig(scenario="large_activations", recipes=("fp16_static_scaling",), steps=STEPS,
                                       static_loss_scale=2.0**12),
    "fp16_no_scaling": TrainConfig(scenario="tiny_gradients", recipes=("fp16_no_scaling",), steps=STEPS),
    "bf16_no_master": TrainConfig(scenario="small_updates", recipes=("bf16_no_master",), optimizer="sgd",
                                  learning_rate=0.05, steps=STEPS),
}


FP8_CASE = TrainConfig(recipes=("fp8_hybrid_delayed",), steps=STEPS)


@pytest.fixture(scope="module")
def printed(tmp_path_factory) -> dict[str, str]:
    scripts = {recipe_id: pytorch_script(config, recipe_id) for recipe_id, config in CASES.items()}
    scripts["fp8_hybrid_delayed"] = pytorch_script(FP8_CASE, "fp8_hybrid_delayed")
    return _run_scripts(tmp_path_factory.mktemp("take_home"), scripts)


@pytest.mark.slow  # runs every recipe's script in a fresh process and trains it again in torch
@pytest.mark.parametrize("recipe_id", list(CASES))
def test_the_scripts_losses_on_a_cpu_are_the_torch_backends(printed, recipe_id):
    config = CASES[recipe_id]
    ours = _parse(printed[recipe_id])
    backend = run_torch(config)["recipes"][recipe_id]
    assert len(ours["loss"]) == STEPS  # type: ignore[arg-type]
    assert ours["loss"] == [np.float32(loss) for loss in backend["loss"]]
    assert ours["final_loss"] == np.float32(backend["final_loss"])
    assert ours["test_loss"] == np.float32(backend["test_loss"])
    assert ours["skipped_steps"] == backend["skipped_steps"]
    if RECIPES[recipe_id].loss_scaling != "none":
        assert ours["loss_scale"] == backend["loss_scale"]
    if recipe_id == "fp16_dynamic_scaling":
        assert ours["skipped_steps"] and len(set(ours["loss_scale"])) > 1  # the scaler did back off here


@pytest.mark.slow  # runs every recipe's script in a fresh process and trains BF16 in torch
def test_the_fp8_script_says_why_it_runs_bf16_on_a_cpu_and_then_trains_as_bf16(printed):
    output = printed["fp8_hybrid_delayed"]
    assert output.startswith("Note: FP8 matrix products need an NVIDIA GPU")
    bf16 = run_torch(TrainConfig(recipes=("bf16",), steps=STEPS))["recipes"]["bf16"]
    assert _parse(output)["loss"] == [np.float32(loss) for loss in bf16["loss"]]
