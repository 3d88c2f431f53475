"""/learn/hardware through TestClient: the published and measured tables come from the data files."""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi.testclient import TestClient
from markupsafe import escape

from app.hardware.datafiles import DATA_DIR, load_measured, load_published, load_training
from app.web.learn.hardware_page import FAMILIES, as_published, throughput


def test_published_table_shows_every_accelerator_and_figure(client: TestClient) -> None:
    response = client.get("/learn/hardware")
    assert response.status_code == 200
    html = response.text
    assert 'data-badge="published">published peak<' in html
    for accelerator in load_published():
        assert f'data-accelerator="{accelerator.id}"' in html
        for peak in accelerator.peaks:
            assert f'data-format="{peak.format}" data-dense="{peak.dense}"' in html
            assert str(escape(peak.source)) in html
    assert "with sparsity" in html and "dense" in html


def test_measured_tables_come_from_the_files(client: TestClient) -> None:
    html = client.get("/learn/hardware").text
    for file in load_measured():
        section = html.split(f'data-measured="{file.name}"')[1].split("</article>")[0]
        assert file.document["source"] in section
        badge = "measured" if file.measured_here else "reported"
        assert f'data-badge="{badge}"' in section
        for result in file.document["results"]:
            assert f'data-format="{result["format"]}" data-size="{result["size"]}"' in section
            assert throughput(result["tflops"]) in section


def test_reported_h200_figures_beside_the_published_peak(client: TestClient) -> None:
    html = client.get("/learn/hardware").text
    section = html.split('data-measured="h200-reported-2026-11-30.json"')[1].split("</article>")[0]
    assert ("reported for reference by the project lead, who measured it on one NVIDIA H200 with torch 2.11 (CUDA) "
            "on 2026-11-30") in section
    for words in ("median of 20 timed products", "CUDA events after 3 warm-up products", "torch._scaled_mm"):
        assert words in section
    bf16 = section.split('data-format="bfloat16"')[1].split("</tr>")[0]
    assert ">779<" in bf16 and "989.4" in bf16 and ">79%<" in bf16  # 779 / 989.4


def test_training_measurements_or_how_to_make_them(client: TestClient) -> None:
    html = client.get("/learn/hardware").text
    files = load_training()
    if files:
        for document in files:
            assert f'data-training="{document["device"]}"' in html
    else:
        assert "data-no-training" in html and "mean time of a whole training step" in html


def test_page_links_to_the_formats_and_has_no_inline_script(client: TestClient) -> None:
    html = client.get("/learn/hardware").text
    for format_id in ("float64", "float32", "tfloat32", "float16", "bfloat16", "float8_e4m3fn"):
        assert f'href="/visualise/{format_id}"' in html
    assert re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html) is None
    assert " style=" not in html


def test_number_formats() -> None:
    assert [throughput(x) for x in (1407, 51, 0.0541234, 0.2, 779.4, 12.345)] == [
        "1,407", "51", "0.0541", "0.2", "779", "12.3"]
    assert [as_published(x) for x in (9.7, 1978.9, 125)] == ["9.7", "1,978.9", "125"]


def _b200() -> dict[str, Any]:
    """The B200 as the data file has it, read directly rather than through the loader the page uses."""
    document = json.loads((DATA_DIR / "published_peaks.json").read_text(encoding="utf-8"))
    return next(a for a in document["accelerators"] if a["id"] == "b200-sxm")


def _row(html: str, family: str) -> list[str]:
    """The cells of one row of the published table, one per accelerator in the data file's order."""
    row = html.split(f'<tr data-family="{family}">')[1].split("</tr>")[0]
    return row.split("<td")[1:]


def test_b200_column_shows_every_dense_and_sparse_figure(client: TestClient) -> None:
    html = client.get("/learn/hardware").text
    b200 = _b200()
    assert b200["device_names"] == ["NVIDIA B200"]
    column = [a.id for a in load_published()].index("b200-sxm")
    family_of = {format_id: family for family, format_ids in FAMILIES for format_id in format_ids}
    assert {peak["format"] for peak in b200["peaks"]} >= {"float4_e2m1fn", "float6_e2m3fn", "float8_e4m3fn"}
    for peak in b200["peaks"]:
        assert peak["source"].strip(), peak
        assert peak["sparse"] is None or peak["sparse"] == 2 * peak["dense"], peak
        cell = _row(html, family_of[peak["format"]])[column]
        assert f'data-format="{peak["format"]}" data-dense="{peak["dense"]}">{as_published(peak["dense"])}' in cell
        if peak["sparse"] is not None:
            assert f"{as_published(peak['sparse'])} with sparsity" in cell
        assert str(escape(peak["source"])) in html


def test_fp6_and_fp4_rows_show_a_dash_where_there_is_no_figure(client: TestClient) -> None:
    html = client.get("/learn/hardware").text
    for family, format_ids in FAMILIES[-2:]:
        assert family in ("FP6", "FP4")
        assert f'<a href="/visualise/{format_ids[0]}">{family}</a>' in html
        for accelerator, cell in zip(load_published(), _row(html, family), strict=True):
            has_peak = any(p.format in format_ids for p in accelerator.peaks)
            assert ("data-dense=" in cell) is has_peak and ("—" in cell) is not has_peak, (family, accelerator.id)


def test_matrix_unit_sentence_comes_from_the_data(client: TestClient) -> None:
    html = client.get("/learn/hardware").text
    paragraph = html.split("data-engines")[1].split("</p>")[0]
    for format_id, attribute in (("float64", "data-fp64-matrix"), ("float32", "data-fp32-matrix")):
        listed = paragraph.split(attribute)[1].split("</span>")[0]
        with_matrix_peak = [a for a in load_published()
                            if any(p.format == format_id and p.engine == "tensor" for p in a.peaks)]
        assert with_matrix_peak, format_id
        for accelerator in load_published():
            assert (accelerator.name in listed) is (accelerator in with_matrix_peak), (format_id, accelerator.id)
    text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    assert re.search(r"NVIDIA[- ]only|only (on )?NVIDIA|only NVIDIA", text, re.IGNORECASE) is None
    assert any(p.format == "tfloat32" for a in load_published() if a.maker != "NVIDIA" for p in a.peaks)


def test_block_scaled_fp4_is_explained_with_links(client: TestClient) -> None:
    html = client.get("/learn/hardware").text
    paragraph = html.split("data-block-formats")[1].split("</p>")[0]
    assert "NVFP4" in paragraph and "16" in paragraph and "E4M3" in paragraph
    assert "MXFP4" in paragraph and "32" in paragraph and "E8M0" in paragraph
    for href in ("/visualise/float4_e2m1fn", "/learn/quantisation"):
        assert f'href="{href}' in paragraph
        assert client.get(href).status_code == 200


def _accelerator(accelerator_id: str) -> dict[str, Any]:
    document = json.loads((DATA_DIR / "published_peaks.json").read_text(encoding="utf-8"))
    return next(a for a in document["accelerators"] if a["id"] == accelerator_id)


def test_mi300x_fp32_shows_its_vector_figure_beside_the_matrix_one(client: TestClient) -> None:
    fp32 = [p for p in _accelerator("mi300x")["peaks"] if p["format"] == "float32"]
    assert sorted((p["engine"], p["dense"]) for p in fp32) == [("tensor", 163.4), ("vector", 163.4)]
    column = [a.id for a in load_published()].index("mi300x")
    cell = _row(client.get("/learn/hardware").text, "FP32")[column]
    assert cell.count('data-dense="163.4">163.4') == 2 and ">vector<" in cell and ">matrix<" in cell


def test_b200_tf32_is_nvidias_per_gpu_figure() -> None:
    tf32 = next(p for p in _b200()["peaks"] if p["format"] == "tfloat32")
    assert (tf32["dense"], tf32["sparse"]) == (1100, 2200) and "per-GPU table" in tf32["source"]


def test_rtx_4090_quotes_each_accumulator_and_measurements_compare_with_fp32_accumulation(client: TestClient) -> None:
    rtx = next(a for a in load_published() if a.id == "rtx-4090")
    fp16 = {p.accumulate: p.dense for p in rtx.peaks if p.format == "float16"}
    assert fp16 == {"float16": 330.3, "float32": 165.2}
    assert rtx.peak_for("float16").dense == 165.2  # the lab's matrix products accumulate in FP32
    column = [a.id for a in load_published()].index("rtx-4090")
    cell = _row(client.get("/learn/hardware").text, "FP16")[column]
    assert "330.3 <small class=\"engine\">FP16 accumulation</small>" in cell
    assert "165.2 <small class=\"engine\">FP32 accumulation</small>" in cell
