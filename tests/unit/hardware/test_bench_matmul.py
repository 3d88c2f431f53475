"""The matrix-multiply benchmark core on tiny sizes (no timing assertions), and the hardware data files."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.formats import FORMATS
from app.hardware import matmul
from app.hardware.datafiles import DataFileError, load_measured, load_published, load_training

RESULT_FIELDS = {"library", "format", "label", "size", "tflops", "seconds", "products_timed"}
DOCUMENT_FIELDS = {"kind", "source", "device", "device_type", "date", "host", "versions", "operation", "results",
                   "skipped"}
H200_SOURCE = ("reported for reference by the project lead, who measured it on one NVIDIA H200 with torch 2.11 (CUDA) "
               "on 2026-11-30")


@pytest.fixture(autouse=True)
def short_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matmul, "SAMPLE_SECONDS", 0.001)


def _check_document(document: dict[str, Any]) -> None:
    assert set(document) == DOCUMENT_FIELDS
    assert document["kind"] == "matmul_throughput"
    assert document["source"].startswith("measured by")
    assert document["versions"]["numpy"]
    for result in document["results"]:
        assert set(result) == RESULT_FIELDS
        assert result["tflops"] > 0 and result["seconds"] > 0 and result["products_timed"] > 1


def test_numpy_fp64_and_fp32_on_a_tiny_size() -> None:
    document = matmul.measure("cpu", (32,), with_torch=False)
    _check_document(document)
    assert [(r["library"], r["format"], r["size"]) for r in document["results"]] == [
        ("numpy", "float64", 32), ("numpy", "float32", 32)]
    assert document["versions"]["torch"] is None
    json.dumps(document, allow_nan=False)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs the [torch] extra")
def test_torch_fp32_on_cpu() -> None:
    document = matmul.measure("cpu", (32,), with_torch=True)
    _check_document(document)
    measured = {(r["library"], r["format"]) for r in document["results"]}
    skipped = {(s["library"], s["format"]) for s in document["skipped"]}
    assert ("torch", "float32") in measured
    assert measured | skipped >= {("torch", f) for f in matmul.TORCH_FORMATS["cpu"]}
    assert document["versions"]["torch"]


def test_best_seconds_times_at_least_one_product() -> None:
    calls = []
    seconds, timed = matmul.best_seconds(lambda: calls.append(1), lambda: None)
    assert seconds > 0
    assert len(calls) == timed + 1  # and one warm-up


@pytest.mark.parametrize(("device", "device_type", "slug"), [
    ("NVIDIA H200", "cuda", "nvidia-h200"),
    ("NVIDIA A100-SXM4-80GB", "cuda", "nvidia-a100-sxm4-80gb"),
    ("Intel(R) Xeon(R) Processor (CPU)", "cpu", "cpu-intel-xeon-processor"),
    ("AMD EPYC 9654 96-Core Processor (CPU)", "cpu", "cpu-amd-epyc-9654-96-core-processor"),
])
def test_device_slugs(device: str, device_type: str, slug: str) -> None:
    assert matmul.device_slug(device, device_type) == slug


def test_cli_writes_a_file_the_page_reads(tmp_path: Path) -> None:
    out = tmp_path / "measured" / "here.json"
    assert cli.main(["hardware-bench", "--no-torch", "--size", "16", "--out", str(out)]) == 0
    _check_document(json.loads(out.read_text()))
    (read,) = load_measured(out.parent)
    assert read.measured_here and read.name == "here.json"


def test_cli_refuses_cuda_without_a_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    if matmul.default_device() == "cuda":
        pytest.skip("this machine has a GPU")
    assert cli.main(["hardware-bench", "--device", "cuda"]) == 2
    assert "GPU" in capsys.readouterr().err


def test_cli_refuses_bad_sizes() -> None:
    with pytest.raises(SystemExit):
        cli.main(["hardware-bench", "--size", "0"])


# -- the data files the hardware page shows ----------------------------------------------------------------------


def test_published_peaks_are_well_formed() -> None:
    accelerators = load_published()
    assert len({a.id for a in accelerators}) == len(accelerators)
    for accelerator in accelerators:
        for peak in accelerator.peaks:
            assert peak.format in FORMATS
            assert peak.dense > 0 and peak.unit in ("TFLOP/s", "TOPS") and peak.source
            if peak.sparse is not None:  # 2:4 structured sparsity doubles the dense figure
                assert peak.sparse == pytest.approx(2 * peak.dense, rel=0.01)


def test_published_a100_and_h100_figures() -> None:
    by_id = {a.id: a for a in load_published()}
    a100, h100 = by_id["a100-sxm"], by_id["h100-sxm"]
    assert [(f, a100.peak_for(f).dense) for f in ("float32", "tfloat32", "float16", "bfloat16")] == [  # type: ignore[union-attr]
        ("float32", 19.5), ("tfloat32", 156), ("float16", 312), ("bfloat16", 312)]
    assert h100.peak_for("float64").dense == 67  # type: ignore[union-attr]  # FP64 products use the tensor cores
    assert h100.peak_for("float8_e4m3fn").dense == 1978.9  # type: ignore[union-attr]
    assert a100.peak_for("float8_e4m3fn") is None


def test_measured_files() -> None:
    files = {f.name: f for f in load_measured()}
    reported = files["h200-reported-2026-11-30.json"]
    assert reported.document["source"] == H200_SOURCE and not reported.measured_here
    assert [(r["format"], r["tflops"]) for r in reported.document["results"]] == [
        ("float32", 51), ("tfloat32", 367), ("float16", 731), ("bfloat16", 779), ("float8_e4m3fn", 1407)]
    ours = [f for f in files.values() if f.measured_here]
    assert ours, "the CPU measurement of this project's machine is missing"
    for file in ours:
        _check_document(file.document)


def test_training_files_have_the_documented_fields() -> None:
    for document in load_training():
        assert document["recipes"]


def test_a_broken_measurement_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text('{"kind": "matmul_throughput"}')
    with pytest.raises(DataFileError, match="broken.json"):
        load_measured(tmp_path)
    (tmp_path / "broken.json").write_text("not json")
    with pytest.raises(DataFileError, match="broken.json"):
        load_measured(tmp_path)
