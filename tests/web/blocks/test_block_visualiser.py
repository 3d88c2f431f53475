"""The block visualiser through TestClient: every block format and preset, the values and bits as the core computes
them, the scale, the side-by-side table, the element links, NaN and inf blocks, refusals, the form without
JavaScript, the links from /formats, and embedding."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from urllib.parse import quote

import pytest

from app.formats import BLOCK_FORMAT_IDS, FORMATS, Real, decode, quantize_blocks
from app.web.blocks.pages import PRESETS
from tests.helpers.html import HX, Elements

ORIGIN = "http://127.0.0.1:8000"  # Settings.public_base_url in the tests
PRESET_IDS = [p.id for p in PRESETS]


def block_path(format_id: str) -> str:
    return f"/visualise/{format_id}"


def exact(x: float) -> str:
    if not math.isfinite(x):
        return "nan" if math.isnan(x) else "inf" if x > 0 else "-inf"
    return Real(math.copysign(1.0, x) < 0, abs(Fraction(x))).exact_string()


def shown_exactly(page: Elements, attribute: str) -> list[str]:
    """The value in each element carrying `attribute`: its text, or the title of a shortened ("≈") one, on the
    element (an element table's cell) or on a value inside it; a title holds the exact decimal, so a value whose
    exact decimal is longer than 60 characters has none and is its seven digits marked "≈"."""
    values = []
    for index, (_, attrs) in enumerate(page.tags):
        if attribute in attrs:
            inner = [attrs] + [page.tags[i][1] for i in page.inside(index) if page.tags[i][0] == "span"]
            title = next((a["title"] for a in inner if "title" in a), None)
            values.append(title or " ".join(page.texts[index].split()))
    return values


def same(shown: list[str], values: list[float]) -> bool:
    """Whether each shown value is the exact decimal of the value, or its seven digits where marked "≈"."""
    def close(text: str, x: float) -> bool:
        if not text.startswith("≈"):
            return text == exact(x)
        return abs(Decimal(text[1:]) - Decimal(x)) <= abs(Decimal(x)) * Decimal("5e-7")

    return len(shown) == len(values) and all(map(close, shown, values))


def page_of(client, url: str, **params: str) -> Elements:  # type: ignore[no-untyped-def]
    response = client.get(url, params=params)
    assert response.status_code == 200, response.text[-500:]
    return Elements(response.text)


# -- every format, every preset ------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESET_IDS)
@pytest.mark.parametrize("format_id", BLOCK_FORMAT_IDS)
def test_every_preset_shows_what_the_core_computes(client, format_id, preset):
    spec = FORMATS[format_id]
    page = page_of(client, block_path(format_id), preset=preset)
    inputs = [float(v.lstrip("≈")) for v in shown_exactly(page, "data-input")]
    assert len(inputs) == spec.block_size
    result = quantize_blocks(inputs, format_id)
    (block,) = result.blocks
    scale_format = spec.scale or FORMATS["float32"]
    scale_hex = decode(scale_format, block.scale_bits).hex
    assert page.texts_of("data-scale-bits")[0] == scale_hex
    assert same(shown_exactly(page, "data-stored"), block.values)
    element = spec.element or spec
    links = [a["href"] for a in page.having("data-element-link")]
    assert links == [f"/visualise/{element.id}?bits={decode(element, code).hex}" for code in block.codes]
    assert page.text_of("data-bits-per-value") == Real.of(spec.bits_per_value).exact_string()
    others = [a["data-other"] for a in page.having("data-other")]
    assert others == list(BLOCK_FORMAT_IDS)
    assert [a.get("aria-current") for tag, a in page.tags if tag == "span" and "aria-current" in a] == ["page"]


@pytest.mark.parametrize(("url", "where"), [("/visualise/nf4?preset=normal", "in the NF4 (NormalFloat) visualiser"),
                                           ("/visualise/mxfp4?values=1", "in the FP4 E2M1 visualiser")])
def test_every_element_link_says_where_it_goes_to_a_screen_reader(client, url, where):
    """Through one hidden sentence that each link names as its description, not a sentence in every row."""
    page = Elements(client.get(url).text)
    links = page.having("data-element-link")
    assert links and {a.get("aria-describedby") for a in links} == {"element-visualiser"}
    (sentence,) = [i for i, (_, a) in enumerate(page.tags) if a.get("id") == "element-visualiser"]
    assert "hidden" in page.tags[sentence][1] and " ".join(page.texts[sentence].split()) == where


@pytest.mark.parametrize("format_id", BLOCK_FORMAT_IDS)
def test_htmx_gets_the_block_alone(client, format_id):
    response = client.get(block_path(format_id), params={"preset": "outlier"}, headers=HX)
    assert response.status_code == 200
    assert "<html" not in response.text and 'id="block"' in response.text


def test_bits_per_value_include_the_scale():
    expected = {"mxfp4": "4.25", "nvfp4": "4.5", "nf4": "4.5", "mxfp8_e4m3": "8.25", "mxint8": "8.25",
                "mxfp6_e2m3": "6.25"}
    for format_id, bits in expected.items():
        assert Real.of(FORMATS[format_id].bits_per_value).exact_string() == bits


# -- hand-worked blocks ----------------------------------------------------------------------------------


def test_one_outlier_in_mxfp4_sets_the_scale_and_flushes_the_rest(client):
    page = page_of(client, "/visualise/mxfp4", preset="outlier")
    # absmax 40: ⌊log2 40⌋ − emax(E2M1) = 5 − 2 = 3, scale 2^3 = 8, E8M0 field 130 = 0x82; |v| ≤ 2 becomes 0
    assert page.text_of("data-absmax") == "40"
    assert page.having("data-shared-exponent")[0]["data-shared-exponent"] == "3"
    assert page.text_of("data-scale-bits") == "0x82" and page.text_of("data-scale") == "8"
    stored = dict(zip(page.texts_of("data-input"), page.texts_of("data-stored"), strict=True))
    assert stored["40"] == "32"  # 40 / 8 = 5, a tie of E2M1's 4 and 6: to the even 4
    assert stored["-2.125"] == "-4" and stored["1.6875"] == "0"
    fates = [a["data-fate"] for a in page.having("data-element")]
    assert fates.count("zeroed") == 29 and "29 of this block's 32 nonzero values" in page.text_of("data-lesson-numbers")
    rows = {a["data-other"]: i for i, a in enumerate(page.having("data-other"))}
    zeroed = page.texts_of("data-other-zeroed")
    assert zeroed[rows["mxfp4"]] == "29" and zeroed[rows["mxfp8_e4m3"]] == "0"
    assert "40 → 32" in page.texts_of("data-other-largest")[rows["mxfp4"]]


def test_values_below_the_scales_floor_clamp_the_exponent(client):
    page = page_of(client, "/visualise/mxfp4", preset="floor")
    assert page.text_of("data-scale-bits") == "0x00"  # 2^-127, E8M0's smallest
    assert page.having("data-clamped") and page.having("data-shared-exponent")[0]["data-shared-exponent"] == "-127"


def test_an_all_zero_block(client):
    page = page_of(client, "/visualise/mxfp8_e4m3", preset="zero")
    assert page.text_of("data-scale-bits") == "0x00" and set(page.texts_of("data-stored")) == {"0"}
    assert page.text_of("data-mse") == "0"


def test_nvfp4_shows_both_scales(client):
    page = page_of(client, "/visualise/nvfp4")
    scale_formats = [a["data-scale-view"] for a in page.having("data-scale-view")]
    assert scale_formats == ["float8_e4m3fn", "float32"]
    result = quantize_blocks([float(v) for v in shown_exactly(page, "data-input")], "nvfp4")
    assert result.tensor_scale is not None
    assert shown_exactly(page, "data-scale")[1] == exact(result.tensor_scale)


# -- NaN and infinity ------------------------------------------------------------------------------------

NAN_SCALE = {"nvfp4": "0x7f", "nf4": "0x7fc00000"}


@pytest.mark.parametrize("preset", ["nan", "inf"])
@pytest.mark.parametrize("format_id", BLOCK_FORMAT_IDS)
def test_a_block_holding_nan_or_inf_is_nan_throughout(client, format_id, preset):
    page = page_of(client, block_path(format_id), preset=preset)
    expected = "0x7f800000" if (format_id, preset) == ("nf4", "inf") else NAN_SCALE.get(format_id, "0xff")
    assert page.text_of("data-scale-bits") == expected
    assert set(page.texts_of("data-stored")) == {"nan"} and page.text_of("data-mse") == "nan"


@pytest.mark.parametrize("format_id", BLOCK_FORMAT_IDS)
def test_the_api_quantises_a_nan_block_as_the_page_does(client, format_id):
    response = client.post("/api/blocks/quantize", json={"format": format_id, "values": [1.0, "nan", 0.5]})
    assert response.status_code == 200, response.text
    body = response.json()
    (block,) = body["blocks"]
    page = page_of(client, block_path(format_id), values="1, nan, 0.5")
    assert decode(FORMATS[format_id].scale or FORMATS["float32"], block["scale_bits"]).hex == page.text_of(
        "data-scale-bits")
    assert block["scale"] == "nan" and body["dequantized"] == ["nan"] * 3 and body["mse"] == "nan"


@pytest.mark.parametrize("raw", [b'{"format": "mxfp4", "values": [NaN]}',
                                 b'{"format": "mxfp4", "values": [Infinity, 1]}',
                                 b'{"format": "mxfp4", "values": ["-inf", 1]}'])
def test_the_api_reads_nan_and_inf_and_answers_valid_json(client, raw):
    response = client.post("/api/blocks/quantize", content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 200 and "NaN" not in response.text
    assert response.json()["blocks"][0]["scale_bits"] == 0xFF


# -- FP32 first, and the size of the list ----------------------------------------------------------------


def test_typed_values_are_rounded_to_fp32_and_the_page_says_so(client):
    page = page_of(client, "/visualise/mxfp8_e4m3", values="0.1, 0.5\n1/3")
    assert page.texts_of("data-input") == ["0.100000001490116119384765625", "0.5", "0.3333333432674407958984375"]
    assert "2 of the values are not FP32 numbers" in page.text_of("data-note")
    api = client.post("/api/blocks/quantize", json={"format": "mxfp8_e4m3", "values": [0.1, 0.5, 1 / 3]}).json()
    assert shown_exactly(page, "data-stored") == [exact(v) for v in api["dequantized"]]


def test_fewer_values_are_padded_with_zeros_and_left_out_of_the_errors(client):
    page = page_of(client, "/visualise/mxfp4", values="3, -1.5")
    assert len(page.having("data-element")) == 2
    assert "the other 30 of the block are zeros" in " ".join(page.texts_of("data-note"))
    assert page.text_of("data-mse") == "0"  # 3 and -1.5 are E2M1 values at scale 1


REFUSED = [
    ("mxfp4", {"values": "1, 2, zebra"}, "Value 3 ('zebra') cannot be used"),
    ("mxfp4", {"values": "1, 0x3c00"}, "Value 2 ('0x3c00') cannot be used"),
    ("nvfp4", {"values": ", ".join(["1"] * 17)}, "One block holds 16 values and the list has 17; remove 1"),
    ("mxfp4", {"values": " , \n"}, "The list is empty"),
    ("mxint8", {"values": "1, 1e39"}, "Value 2 ('1e39') is beyond FP32's range"),
    ("nf4", {"preset": "gaussian"}, "There is no preset 'gaussian'"),
    ("mxfp4", {"values": "1" * 5000}, "at most 4,000 are accepted"),
    ("mxfp4", {"values": "<script>alert(1)</script>"}, "cannot be used"),
]


@pytest.mark.parametrize(("format_id", "params", "sentence"), REFUSED)
@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_bad_input_is_a_422_with_a_sentence_and_the_form_kept(client, format_id, params, sentence, headers):
    response = client.get(block_path(format_id), params=params, headers=headers)
    assert response.status_code == 422
    page = Elements(response.text)
    assert sentence in page.text_of("data-error") and page.text_of("data-error").endswith((".", ")"))
    assert "<script>" not in response.text
    assert [a["name"] for tag, a in page.tags if tag == "textarea" and a.get("id") == "values"] == ["values"]


# -- without JavaScript ------------------------------------------------------------------------------------


def test_the_form_works_without_javascript(client):
    page = page_of(client, "/visualise/mxfp4", preset="outlier")
    (form,) = [a for tag, a in page.tags if tag == "form" and a.get("action") == "/visualise/mxfp4"
               and "data-hx-get" in a]  # the block's own form, not the Embed dialog's
    assert form["method"] == "get" and form["data-hx-get"] == "/visualise/mxfp4"
    (typed,) = [page.texts[i] for i, (tag, a) in enumerate(page.tags) if tag == "textarea" and a.get("id") == "values"]
    submitted = page_of(client, "/visualise/mxfp4", values=typed)  # what a browser sends from the form
    assert submitted.texts_of("data-stored") == page.texts_of("data-stored")
    for link in page.having("data-preset"):
        assert link["href"] == link["data-hx-get"] and client.get(link["href"]).status_code == 200


def test_the_other_formats_link_the_same_block(client):
    page = page_of(client, "/visualise/nvfp4", values="1, 2, 3")
    hrefs = {a["href"] for tag, a in page.tags if tag == "a" and "data-hx-get" in a and "values=" in a["href"]}
    assert f"/visualise/mxfp4?values={quote('1, 2, 3', safe='')}" in hrefs
    assert f"/visualise/nf4?values={quote('1, 2, 3', safe='')}" in hrefs  # NF4's block view, not its scalar one
    preset = page_of(client, "/visualise/mxfp4", preset="equal")
    assert {a["href"] for tag, a in preset.tags if tag == "a" and a.get("href", "").endswith("?preset=equal")} >= {
        "/visualise/nvfp4?preset=equal", "/visualise/nf4?preset=equal"}


def test_nf4_without_a_block_asked_for_stays_the_scalar_codebook(client):
    assert 'id="visualiser"' in client.get("/visualise/nf4").text
    assert 'id="block"' in client.get("/visualise/nf4?preset=normal").text
    assert 'id="visualiser"' in client.get("/visualise/nf4?bits=0x7").text


# -- /formats, embedding -------------------------------------------------------------------------------------


def test_formats_links_every_block_format_to_its_block(client):
    page = Elements(client.get("/formats").text)
    links = {a["href"] for a in page.having("data-block-link")}
    assert links == {f"/visualise/{f}" for f in BLOCK_FORMAT_IDS if FORMATS[f].kind == "block"} | {
        "/visualise/nf4?preset=normal"}
    for href in links:
        response = client.get(href)
        assert response.status_code == 200 and 'id="block"' in response.text


@pytest.mark.parametrize("url", ["/visualise/mxfp4?preset=outlier", "/visualise/nf4?preset=nan", "/visualise/nvfp4"])
def test_block_pages_are_embeddable_by_oembed(client, url):
    page = Elements(client.get(url).text)
    (oembed,) = [a["href"] for tag, a in page.tags if tag == "link" and a.get("type") == "application/json+oembed"]
    assert oembed == f"{ORIGIN}/oembed?url={quote(ORIGIN + url, safe='')}&format=json"
    body = client.get("/oembed", params={"url": ORIGIN + url, "format": "json"}).json()
    assert body["title"] == "Precision Lab: block format visualiser"
    assert f'src="{ORIGIN}/embed{url.replace("&", "&amp;")}"' in body["html"]
    framed = client.get("/embed" + url)
    assert framed.status_code == 200 and "site-header" not in framed.text
    assert "frame-ancestors *" in framed.headers["content-security-policy"]
