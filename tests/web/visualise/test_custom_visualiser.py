"""Custom layouts on the pages and in the JSON API: the visualiser keeps the layout in every link it makes, the API
answers as for a registry format of the same layout, and a layout it refuses is a 4xx with a sentence, never a 5xx."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.helpers.html import HX, Elements
from tests.helpers.refusals import is_sentence
from tests.hostile_inputs import INJECTIONS

E4M3B11 = "exponent_bits=4&mantissa_bits=3&bias=11&nan_style=fnuz"
LAYOUT = {"exponent_bits": ["4"], "mantissa_bits": ["3"], "bias": ["11"], "nan_style": ["fnuz"]}


def query(href: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(href).query)


def keeps_layout(href: str, layout: dict[str, list[str]] = LAYOUT) -> bool:
    asked = query(href)
    return urlsplit(href).path.endswith("/visualise/custom") and all(asked.get(k) == v for k, v in layout.items())


# -- the page -----------------------------------------------------------------------------------


@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_the_custom_page_shows_the_layout_it_was_given(client, headers):
    response = client.get(f"/visualise/custom?{E4M3B11}&value=0.1", headers=headers)
    assert response.status_code == 200
    page = Elements(response.text)
    assert page.text_of("data-stored") == "0.1015625" and page.text_of("data-bits") == "0x3d"
    roles = [cell["data-role"] for cell in page.having("data-bit")]
    assert roles == ["sign"] + ["exponent"] * 4 + ["mantissa"] * 3
    assert "Custom E4M3 FNUZ, bias 11" in response.text and "float8_e4m3b11fnuz" in response.text


def test_every_link_of_the_custom_page_keeps_the_layout(client):
    url = f"/visualise/custom?{E4M3B11}&value=-0.3&rounding=toward_zero"
    page = Elements(client.get(url).text)
    stored = int(page.text_of("data-bits"), 16)
    cells, steps = page.having("data-bit"), page.having("data-step")
    assert len(cells) == 8 and len(steps) == 2
    for cell in cells:
        assert keeps_layout(cell["href"]) and cell["data-hx-get"] == cell["href"]
        assert int(query(cell["href"])["bits"][0], 16) ^ stored == 1 << int(cell["data-bit"])
        assert query(cell["href"])["rounding"] == ["toward_zero"]
    assert all(keeps_layout(step["href"]) for step in steps)
    switch = {a["data-format"]: a["href"] for a in page.having("data-format") if "href" in a}
    assert keeps_layout(switch["custom"]) and query(switch["custom"])["value"] == ["-0.3"]
    assert query(switch["float16"]).keys() == {"value", "rounding"}  # the registry formats' links carry no layout
    form = {attrs["name"]: attrs.get("value", "") for _, attrs in page.tags if "name" in attrs}
    assert {name: form[name] for name in ("exponent_bits", "mantissa_bits", "bias")} == {
        "exponent_bits": "4", "mantissa_bits": "3", "bias": "11"}
    selected = [attrs["value"] for tag, attrs in page.tags if tag == "option" and "selected" in attrs]
    assert "fnuz" in selected


def test_the_bits_links_of_a_custom_page_land_on_the_pattern_they_name(client):
    page = Elements(client.get("/visualise/custom?exponent_bits=5&mantissa_bits=10&bits=0x3c00").text)
    assert page.text_of("data-stored") == "1"
    up = next(step["href"] for step in page.having("data-step") if step["data-step"] == "next-up")
    assert Elements(client.get(up).text).text_of("data-bits") == "0x3c01"


def test_a_default_bias_and_rule_stay_out_of_the_links(client):
    page = Elements(client.get("/visualise/custom?exponent_bits=5&mantissa_bits=10&bias=15&nan_style=ieee").text)
    cell = page.having("data-bit")[0]
    assert query(cell["href"]).keys() == {"exponent_bits", "mantissa_bits", "bits"}


@pytest.mark.parametrize(("format_id", "layout"), [
    ("float16", "exponent_bits=5&mantissa_bits=10"),
    ("float8_e4m3fn", "exponent_bits=4&mantissa_bits=3&nan_style=fn"),
    ("float8_e4m3b11fnuz", E4M3B11),
    ("float128", "exponent_bits=15&mantissa_bits=112"),
])
def test_a_registry_float_links_its_layout_as_a_custom_format_with_the_same_result(client, format_id, layout):
    page = Elements(client.get(f"/visualise/{format_id}?value=0.3").text)
    (link,) = page.having("data-custom-layout")
    assert link["href"] == f"/visualise/custom?{layout}&value=0.3"
    custom = Elements(client.get(link["href"]).text)
    assert custom.text_of("data-bits") == page.text_of("data-bits")
    assert custom.text_of("data-stored") == page.text_of("data-stored")


@pytest.mark.parametrize("format_id", ["float8_e8m0fnu", "int8", "nf4", "uint2"])
def test_formats_a_layout_cannot_describe_link_no_custom_layout(client, format_id):
    assert not Elements(client.get(f"/visualise/{format_id}?value=1").text).having("data-custom-layout")


def test_the_framed_custom_page_keeps_the_frame_and_the_layout(client):
    page = Elements(client.get(f"/embed/visualise/custom?{E4M3B11}&value=1").text)
    hrefs = [cell["href"] for cell in page.having("data-bit")]
    assert hrefs and all(h.startswith("/embed/visualise/custom?") and keeps_layout(h) for h in hrefs)


def test_oembed_answers_for_a_custom_layout(client):
    base = client.app.state.settings.public_base_url
    answer = client.get("/oembed", params={"url": f"{base}/visualise/custom?{E4M3B11}"})
    assert answer.status_code == 200 and "/embed/visualise/custom?exponent_bits=4" in answer.json()["html"]


def test_the_page_cache_tells_layouts_apart(client):
    first = client.get("/visualise/custom?exponent_bits=5&mantissa_bits=2&value=0.3")
    second = client.get("/visualise/custom?exponent_bits=5&mantissa_bits=3&value=0.3")
    assert Elements(first.text).text_of("data-stored") == "0.3125"
    assert Elements(second.text).text_of("data-stored") == "0.3125" and first.text != second.text
    assert Elements(client.get("/visualise/custom?exponent_bits=2&mantissa_bits=3&value=0.3").text).text_of(
        "data-stored") == "0.25"


# -- the JSON API -------------------------------------------------------------------------------

SAME_AS_FLOAT16 = {"exponent_bits": "5", "mantissa_bits": "10"}
DIFFERENT = {"id", "name", "summary", "in_ml_dtypes"}


def test_a_custom_layout_is_described_as_the_registry_format_of_that_layout(client):
    mine = client.get("/api/formats/custom", params=SAME_AS_FLOAT16).json()
    theirs = client.get("/api/formats/float16").json()
    assert {k: v for k, v in mine.items() if k not in DIFFERENT} == {
        k: v for k, v in theirs.items() if k not in DIFFERENT}
    assert (mine["id"], mine["in_ml_dtypes"]) == ("custom", False)


@pytest.mark.parametrize("bits", ["0x0001", "0x3c00", "0x7bff", "0x7c00", "0x8000", "0xfe00"])
def test_custom_decode_answers_as_the_registry_format(client, bits):
    mine = client.get("/api/formats/custom/decode", params={**SAME_AS_FLOAT16, "bits": bits}).json()
    theirs = client.get("/api/formats/float16/decode", params={"bits": bits}).json()
    assert mine.pop("format") == "custom" and theirs.pop("format") == "float16"
    assert mine == theirs


@pytest.mark.parametrize(("params", "value"), [
    ({"value": "0.1"}, "0.0999755859375"),
    ({"value": "70000"}, "inf"),
    ({"value": "70000", "overflow": "saturate"}, "65504"),
    ({"value": "1.0006", "rounding": "toward_zero"}, "1"),
    ({"value": "1/3", "rounding": "stochastic", "seed": "7"}, None),
])
def test_custom_encode_answers_as_the_registry_format(client, params, value):
    mine = client.get("/api/formats/custom/encode", params={**SAME_AS_FLOAT16, **params}).json()
    theirs = client.get("/api/formats/float16/encode", params=params).json()
    assert mine.pop("format") == "custom" and theirs.pop("format") == "float16"
    assert mine == theirs and (value is None or mine["value"] == value)


def test_custom_encode_of_a_layout_no_library_has(client):
    body = client.get("/api/formats/custom/encode", params={
        "exponent_bits": "3", "mantissa_bits": "1", "bias": "-4", "nan_style": "fn", "value": "1000"}).json()
    # E3M1 with bias -4: max is 1.0 × 2^(7 + 4) = 2048 (1.1 × 2^11 is the NaN); 1000 lies between 768 and
    # 1024 = 2^(6 + 4), nearer 1024: exponent field 6, mantissa 0
    assert (body["value"], body["bits"], body["class"]) == ("1024", "0x0c", "normal")


# -- refusals ----------------------------------------------------------------------------------

REFUSED = [
    ({"exponent_bits": "999999999999", "mantissa_bits": "3"}, "1 to 15 exponent bits"),
    ({"exponent_bits": "9" * 5000, "mantissa_bits": "3"}, "more than 15 digits"),
    ({"exponent_bits": "5", "mantissa_bits": "-1"}, "1 to 112 mantissa bits"),
    ({"exponent_bits": "5", "mantissa_bits": "0"}, "1 to 112 mantissa bits"),
    ({"exponent_bits": "16", "mantissa_bits": "3"}, "1 to 15 exponent bits"),
    ({"exponent_bits": "5", "mantissa_bits": "113"}, "1 to 112 mantissa bits"),
    ({"exponent_bits": "1", "mantissa_bits": "3"}, "at least 2 exponent bits"),
    ({"exponent_bits": "five", "mantissa_bits": "3"}, "must be a whole number"),
    ({"exponent_bits": "5.0", "mantissa_bits": "3"}, "must be a whole number"),
    ({"exponent_bits": "٥", "mantissa_bits": "3"}, "must be a whole number"),
    ({"exponent_bits": "5", "mantissa_bits": "3", "bias": "99999"}, "from -32768 to 32768"),
    ({"exponent_bits": "5", "mantissa_bits": "3", "bias": "1e3"}, "must be a whole number"),
    ({"exponent_bits": "5", "mantissa_bits": "3", "nan_style": "ieee754"}, "Unknown nan_style"),
    ({"mantissa_bits": "3"}, "exponent_bits"),
    ({"exponent_bits": "5"}, "mantissa_bits"),
    ({"exponent_bits": "", "mantissa_bits": ""}, "needs"),
] + [({"exponent_bits": text, "mantissa_bits": "3"}, "must be a whole number") for text in INJECTIONS[:3]]
IDS = [str(params)[:50] for params, _ in REFUSED]


@pytest.mark.parametrize(("params", "said"), REFUSED, ids=IDS)
@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_a_refused_layout_on_the_page_is_a_422_with_the_sentence_and_the_form(client, params, said, headers):
    response = client.get("/visualise/custom", params={**params, "value": "1"}, headers=headers)
    assert response.status_code == 422
    page = Elements(response.text)
    sentence = page.text_of("data-error")
    assert is_sentence(sentence) and (said in sentence or said in ("exponent_bits", "mantissa_bits"))
    assert page.having("data-layout")  # the layout's fields, to put it right
    assert not any(text in response.text for text in INJECTIONS)


@pytest.mark.parametrize(("params", "said"), REFUSED, ids=IDS)
@pytest.mark.parametrize("route", ["", "/decode", "/encode"])
def test_a_refused_layout_in_the_api_is_a_422_with_the_sentence(client, params, said, route):
    extra = {"/decode": {"bits": "0x1"}, "/encode": {"value": "1"}}.get(route, {})
    response = client.get(f"/api/formats/custom{route}", params={**params, **extra})
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert is_sentence(detail) and said.split()[0] in detail


@pytest.mark.parametrize(("route", "params"), [
    ("/decode", {"exponent_bits": "4", "mantissa_bits": "3", "bits": "0x100"}),  # wider than 8 bits
    ("/decode", {"exponent_bits": "4", "mantissa_bits": "3", "bits": "zebra"}),
    ("/encode", {"exponent_bits": "4", "mantissa_bits": "3", "value": "garbage"}),
    ("/encode", {"exponent_bits": "4", "mantissa_bits": "3", "value": "1", "rounding": "sideways"}),
    ("/encode", {"exponent_bits": "4", "mantissa_bits": "3", "value": "1", "seed": "-1"}),
])
def test_bad_inputs_to_a_good_layout_are_refused_as_for_any_format(client, route, params):
    response = client.get(f"/api/formats/custom{route}", params=params)
    assert response.status_code == 422 and is_sentence(response.json()["detail"])


def test_custom_is_not_a_registry_id(client):
    assert client.get("/api/formats/custom/decode?bits=0x1").status_code == 422  # its layout is asked for
    assert "custom" not in [f["id"] for f in client.get("/api/formats").json()]
    assert client.get("/visualise/Custom").status_code == 404
