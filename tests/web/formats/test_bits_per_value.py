"""Every place that shows a format's memory takes it from the one figure of its specification, bits_per_value
(a block's scale included): GET /api/formats, the /formats table, GET /api/memory and the memory calculator's
page, and the quantisation guide's table. A new format is tested here with no new test code."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from app.formats import FORMATS
from app.formats.exact import decimal_string
from app.learn.sample_error import MEASURED_FORMATS
from app.training.memory_calc import WEIGHT_FORMATS
from app.web.learn.memory_calculator import number
from app.web.visualise.present import shown


def _row(html: str, attribute: str, value: str) -> str:
    match = re.search(rf'<tr {attribute}="{value}"(.*?)</tr>', html, re.DOTALL)
    assert match, value
    return match[1]


def test_nf4_counts_its_fp32_absmax_per_64_values_everywhere(client):
    """4 bits per code and 32/64 of a scale: 4.5 bits, as bitsandbytes stores it (before this, the format API and
    the /formats table said 4)."""
    assert client.get("/api/formats/nf4").json()["bits_per_value"] == 4.5
    inference = client.get("/api/memory", params={"params": "7B"}).json()["inference"]
    assert {row["format"]: row["bits_per_value"] for row in inference}["nf4"] == "4.5"
    assert "0.5625" in _row(client.get("/formats").text, "data-format", "nf4")


@pytest.mark.parametrize("spec", FORMATS.values(), ids=str)
def test_the_format_api_and_the_formats_table_show_bits_per_value(client, spec):
    body = client.get(f"/api/formats/{spec.id}").json()
    assert Fraction(body["bits_per_value"]) == spec.bits_per_value
    assert Fraction(body["bytes_per_value"]) == spec.bytes_per_value
    row = _row(client.get("/formats").text, "data-format", spec.id)
    shown_bytes = shown(spec.bytes_per_value)
    assert shown_bytes is not None and shown_bytes.text in row
    if spec.kind == "block":
        shown_bits = shown(spec.bits_per_value)
        assert shown_bits is not None and shown_bits.text in row


def test_the_memory_api_shows_bits_per_value_of_every_weight_format(client):
    inference = client.get("/api/memory", params={"params": "1B"}).json()["inference"]
    assert {row["format"]: row["bits_per_value"] for row in inference} == {
        spec.id: decimal_string(spec.bits_per_value) for spec in WEIGHT_FORMATS
    }
    assert all(row["bytes"] == FORMATS[row["format"]].bytes_per_value * 10**9 for row in inference)


def test_the_memory_calculator_page_shows_bits_per_value_of_every_weight_format(client):
    html = client.get("/learn/memory", params={"params": "7B"}).text
    for spec in WEIGHT_FORMATS:
        row = _row(html, "data-format", spec.id)
        assert f">{number(spec.bits_per_value)}<" in row and f">{number(spec.bytes_per_value)}<" in row, spec.id


def test_the_quantisation_guide_shows_bits_per_value_of_every_measured_format(client):
    html = client.get("/learn/quantisation").text
    for format_id, _ in MEASURED_FORMATS:
        row = _row(html, "data-format", format_id)
        assert f">{float(FORMATS[format_id].bits_per_value):g}<" in row, format_id
