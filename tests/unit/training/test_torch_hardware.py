"""The hardware measurement writes its data file; run here on CPU with a tiny model (CI has no GPU)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from app.training.torch_hardware import HARDWARE_RECIPES, main  # noqa: E402


def test_writes_step_time_and_memory_per_recipe_with_device_date_and_version(tmp_path):
    out = tmp_path / "hardware" / "training_cpu.json"
    main(["--out", str(out), "--device", "cpu", "--width", "8", "--depth", "1", "--batch-size", "16",
          "--steps", "2", "--warmup", "1"])
    result = json.loads(out.read_text())
    assert result["device_type"] == "cpu" and result["torch_version"] and result["date"]
    assert result["model"]["n_params"] == 2 * 8 + 8 + 8 * 2 + 2
    assert list(result["recipes"]) == list(HARDWARE_RECIPES)
    for row in result["recipes"].values():
        assert row["step_time_ms"] > 0 and row["peak_memory_bytes"] is None
    assert result["recipes"]["tf32"]["matmul_format"] == "float32"
