"""/learn/hardware through TestClient: the published and measured tables come from the data files."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from markupsafe import escape

from app.hardware.datafiles import load_measured, load_published, load_training
from app.web.hardware import as_published, throughput


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
    assert "reported in issue 5 for reference, measured on an NVIDIA H200 on 2026-11-30" in section
    bf16 = section.split('data-format="bfloat16"')[1].split("</tr>")[0]
    assert ">779<" in bf16 and "989.4" in bf16 and ">79%<" in bf16  # 779 / 989.4


def test_training_measurements_or_how_to_make_them(client: TestClient) -> None:
    html = client.get("/learn/hardware").text
    files = load_training()
    if files:
        for document in files:
            assert f'data-training="{document["device"]}"' in html
    else:
        assert "data-no-training" in html and "app.training.torch_hardware" in html


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
