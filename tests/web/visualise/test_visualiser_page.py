"""The scalar visualiser's page through TestClient: the stored value and bits, one labelled cell per bit, the
JavaScript-off links (each bit flips itself, the neighbours step, every link keeps the choices), a bit pattern typed
as a value, the overflow flag and note, the format switcher, the live region."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from app.formats import SCALAR_FORMATS
from tests.helpers.html import Elements
from tests.helpers.shown import Shown


def bits_of(href: str) -> int:
    return int(parse_qs(urlsplit(href).query)["bits"][0], 16)


def test_float16_point_one_shows_its_exact_stored_value_and_bits(client):
    page = Elements(client.get("/visualise/float16?value=0.1").text)
    assert page.text_of("data-stored") == "0.0999755859375"
    assert page.text_of("data-bits") == "0x2e66"
    assert page.text_of("data-class") == "normal"
    assert page.text_of("data-typed") == "0.1"
    assert page.text_of("data-error-value") == "-0.0000244140625"


@pytest.mark.parametrize("spec", SCALAR_FORMATS, ids=lambda s: s.id)
def test_every_scalar_format_has_one_labelled_cell_per_bit(client, spec):
    response = client.get(f"/visualise/{spec.id}?value=1")
    assert response.status_code == 200
    cells = Elements(response.text).having("data-bit")
    assert sorted(int(c["data-bit"]) for c in cells) == list(range(spec.bits))
    roles = [c["data-role"] for c in cells]
    if spec.kind == "float":
        assert roles.count("mantissa") == spec.mantissa_bits
        assert roles.count("exponent") == spec.exponent_bits
        assert roles.count("sign") == (1 if spec.signed else 0)
    elif spec.kind == "int":
        assert roles.count("sign") == (1 if spec.signed else 0)
        assert roles.count("integer") == spec.bits - roles.count("sign")
    else:
        assert set(roles) == {"code"}
    for cell in cells:
        assert cell["aria-label"] == f"bit {cell['data-bit']}, {cell['data-role']}, {cell['data-value']}"


@pytest.mark.parametrize("spec", SCALAR_FORMATS, ids=lambda s: s.id)
def test_without_javascript_each_bit_links_to_its_pattern_with_that_bit_flipped(client, spec):
    page = Elements(client.get(f"/visualise/{spec.id}?value=-0.75").text)
    stored = int(page.text_of("data-bits"), 16)
    for cell in page.having("data-bit"):
        assert bits_of(cell["href"]) ^ stored == 1 << int(cell["data-bit"])
        assert cell["data-hx-get"] == cell["href"]


def test_bit_links_and_neighbours_keep_the_rounding_and_overflow_choices(client):
    url = "/visualise/float16?value=0.1&rounding=toward_zero&overflow=saturate"
    page = Shown(client.get(url).text)
    links = [c["href"] for c in page.having("data-bit")] + [s["href"] for s in page.having("data-step")]
    for href in links:
        query = parse_qs(urlsplit(href).query)
        assert query["rounding"] == ["toward_zero"] and query["overflow"] == ["saturate"]


def test_neighbour_buttons_step_to_the_next_patterns(client):
    page = Shown(client.get("/visualise/float16?bits=0x3c00").text)
    steps = {s["data-step"]: bits_of(s["href"]) for s in page.having("data-step")}
    assert steps == {"next-down": 0x3BFF, "next-up": 0x3C01}


@pytest.mark.parametrize("url", ["/visualise/float16?bits=0x3c00", "/visualise/float16?value=0x3c00",
                                 "/visualise/float16?value=0b0011110000000000"])
def test_a_bit_pattern_decodes_in_the_format(client, url):
    page = Shown(client.get(url).text)
    assert page.text_of("data-stored") == "1"
    assert not page.having("data-typed")


def test_overflow_shows_the_flag_and_the_note(client):
    page = Shown(client.get("/visualise/float8_e4m3fn?value=500").text)
    assert page.text_of("data-class") == "nan"
    assert [f["data-flag"] for f in page.having("data-flag")] == ["overflow"]
    assert "no infinity" in page.text_of("data-note")
    saturated = Elements(client.get("/visualise/float8_e4m3fn?value=500&overflow=saturate").text)
    assert saturated.text_of("data-stored") == "448"


def test_the_format_switcher_keeps_the_typed_value(client):
    typed = Elements(client.get("/visualise/float16?value=1/3").text)
    switch = {a["data-format"]: a["href"] for a in typed.having("data-format") if "href" in a}
    assert set(switch) == {spec.id for spec in SCALAR_FORMATS}
    assert parse_qs(urlsplit(switch["bfloat16"]).query)["value"] == ["1/3"]
    from_bits = Elements(client.get("/visualise/float16?bits=0xc000").text)
    switch = {a["data-format"]: a["href"] for a in from_bits.having("data-format") if "href" in a}
    assert parse_qs(urlsplit(switch["float32"]).query)["value"] == ["-2"]


def test_the_stored_value_is_in_a_live_region(client):
    page = Elements(client.get("/visualise/float16?value=0.1").text)
    live = next(attrs for _, attrs in page.tags if attrs.get("aria-live") == "polite")
    assert "data-announce" in live
    assert "0.0999755859375" in page.text_of("data-announce")
