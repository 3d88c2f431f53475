"""/compare as the server renders it: the seed of stochastic rounding, the block formats' rows (the value alone in
a block), the chart of every format's |relative error|, and the JSON the page's script works from."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from urllib.parse import parse_qs, urlsplit

from app.formats import BLOCK_FORMAT_IDS, FORMATS, SCALAR_FORMATS, encode, parse_number, quantize_blocks
from app.web.blocks.block_specs import block_specs
from app.web.visualise.codec_specs import codec_specs
from app.web.visualise.present import shown
from tests.helpers.html import Elements
from tests.helpers.shown import Shown

SCALAR_IDS = {spec.id for spec in SCALAR_FORMATS}


def _stored(page: Elements, attribute: str) -> dict[str, str]:
    """The stored value's text of each row that carries `attribute` (data-format or data-block-format)."""
    out: dict[str, str] = {}
    for index, (tag, attrs) in enumerate(page.tags):
        if tag == "tr" and attribute in attrs:
            cell = next(i for i in page.inside(index) if "data-stored" in page.tags[i][1])
            out[attrs[attribute]] = " ".join(page.texts[cell].split())
    return out


def test_stochastic_rounding_uses_the_seed_given_in_every_row_and_link(client):
    x = parse_number("0.1")
    page = Elements(client.get("/compare?value=0.1&rounding=stochastic&seed=12345").text)
    expected = {spec.id: shown(encode(spec, x, "stochastic", "format_default", 12345).encoding.value, 80, 20).text
                for spec in SCALAR_FORMATS}
    assert _stored(page, "data-format") == expected
    assert next(a for t, a in page.tags if a.get("id") == "seed")["value"] == "12345"
    links = [a["href"] for t, a in page.tags
             if t == "a" and a.get("href", "").startswith("/visualise/float") and "?" in a["href"]]
    assert links and all(parse_qs(urlsplit(h).query)["seed"] == ["12345"] for h in links)


def test_two_seeds_round_some_format_differently_and_one_seed_always_the_same(client):
    first, again, other = (Elements(client.get(f"/compare?value=0.1&rounding=stochastic&seed={s}").text)
                           for s in (1, 1, 2))
    assert _stored(first, "data-format") == _stored(again, "data-format")
    assert _stored(first, "data-format") != _stored(other, "data-format")


def test_stochastic_rounding_without_a_seed_draws_one_and_shows_it(client):
    page = Elements(client.get("/compare?value=0.1&rounding=stochastic").text)
    seed = next(a for t, a in page.tags if a.get("id") == "seed")["value"]
    assert seed.isdigit()
    links = [a["href"] for t, a in page.tags if t == "a" and a.get("href", "").startswith("/visualise/float16?")]
    assert parse_qs(urlsplit(links[0]).query)["seed"] == [seed]
    replay = Elements(client.get(f"/compare?value=0.1&rounding=stochastic&seed={seed}").text)
    assert _stored(replay, "data-format") == _stored(page, "data-format")


def test_the_seed_is_left_out_of_the_links_of_the_other_modes(client):
    page = Elements(client.get("/compare?value=0.1&seed=7").text)
    links = [a["href"] for t, a in page.tags if t == "a" and a.get("href", "").startswith("/visualise/float16?")]
    assert links == ["/visualise/float16?value=0.1"]


def test_a_seed_it_cannot_read_is_refused_with_a_sentence(client):
    response = client.get("/compare?value=0.1&rounding=stochastic&seed=-1")
    assert response.status_code == 422
    assert "The seed must be a whole number" in Elements(response.text).text_of("data-error")


def test_every_block_format_has_a_row_holding_the_value_alone_in_a_block(client):
    for value in ("0.1", "70000", "-3.25e-20", "1/3"):
        page = Elements(client.get(f"/compare?value={value}").text)
        x = encode(FORMATS["float32"], parse_number(value)).encoding.value.to_float()
        expected = {fid: shown(Fraction(float(quantize_blocks([x], fid).dequantized[0])), 80, 20).text
                    for fid in BLOCK_FORMAT_IDS}
        assert _stored(page, "data-block-format") == expected, value
        hrefs = {a["href"] for t, a in page.tags if t == "a"}
        assert {f"/visualise/{fid}?values={value.replace('/', '%2F')}" for fid in BLOCK_FORMAT_IDS} <= hrefs


def test_a_value_alone_in_an_mx_block_saturates_where_the_element_cannot_reach_it(client):
    # 0.1 sets the MXFP4 scale 2^(floor(log2 0.1) - 2) = 2^-6, and 0.1 / 2^-6 = 6.4 is past FP4's largest, 6
    page = Elements(client.get("/compare?value=0.1").text)
    row = next(i for i, (t, a) in enumerate(page.tags) if a.get("data-block-format") == "mxfp4")
    assert page.tags[row][1]["data-fate"] == "saturated"
    assert _stored(page, "data-block-format")["mxfp4"] == "0.09375"


def test_block_rows_say_why_a_value_past_fp32_has_no_block_and_what_nan_does(client):
    beyond = client.get("/compare?value=1e39")
    assert beyond.status_code == 200
    rows = Elements(beyond.text).text_of("data-blocks")
    assert rows.count("block formats quantise FP32 tensors, so this value has no block") == len(BLOCK_FORMAT_IDS)
    nan = Elements(client.get("/compare?value=nan").text)
    assert set(_stored(nan, "data-block-format").values()) == {"nan"}
    assert "A block holding NaN has no finite absmax" in nan.text_of("data-blocks")


def test_the_chart_has_a_bar_for_every_format_and_marks_the_exact_ones(client):
    page = Elements(client.get("/compare?value=1").text)
    bars = [(a["data-group"], a["data-bar"], a["data-kind"]) for t, a in page.tags if "data-bar" in a]
    assert [(g, f) for g, f, _ in bars] == ([("scalar", s.id) for s in SCALAR_FORMATS]
                                            + [("block", f) for f in BLOCK_FORMAT_IDS])
    # every scalar format holds 1 exactly, and so does a block of it, but for NVFP4's two levels of scale
    assert {kind for group, _, kind in bars if group == "scalar"} == {"exact"}
    assert [f for group, f, kind in bars if group == "block" and kind != "exact"] == ["nvfp4"]
    overflow = Elements(client.get("/compare?value=70000").text)
    kinds = {a["data-bar"]: a["data-kind"] for t, a in overflow.tags if a.get("data-group") == "scalar"}
    assert kinds["float16"] == "infinite" and kinds["float8_e4m3fn"] == "nan" and kinds["bfloat16"] == "bar"


def test_the_page_embeds_the_specifications_its_script_reads(client):
    html = client.get("/compare?value=0.1").text
    data = json.loads(re.search(r'<script type="application/json" id="compare-data">(.*?)</script>', html, re.S)[1])
    assert data["specs"] == codec_specs()
    assert [b["id"] for b in data["blocks"]] == [b["id"] for b in block_specs()]
    assert [b["element"] for b in data["blocks"]] == [b["element"]["id"] for b in block_specs()]
    assert len(html) < 90_000  # binary128's constants as m·2^k: the page stays light


def test_compare_lists_every_scalar_format_with_a_link_to_its_visualiser(client):
    page = Elements(client.get("/compare?value=0.3952").text)
    rows = [attrs["data-format"] for tag, attrs in page.tags if tag == "tr" and "data-format" in attrs]
    assert rows == [spec.id for spec in SCALAR_FORMATS]
    hrefs = {attrs["href"] for tag, attrs in page.tags if tag == "a"}
    assert all(f"/visualise/{spec.id}?value=0.3952" in hrefs for spec in SCALAR_FORMATS)
    assert "0.395263671875" in client.get("/compare?value=0.3952").text  # float16, exactly


def test_compare_marks_overflow(client):
    """Every row carries every flag, hidden where it does not apply (compare.js shows them as the value changes):
    the overflow flag is shown on exactly the formats the core says overflowed, and hidden on every other."""
    page = Shown(client.get("/compare?value=70000").text)
    shown_flags: dict[str, list[str]] = {}
    for index, (tag, attrs) in enumerate(page.tags):
        if tag == "tr" and attrs.get("data-format") in SCALAR_IDS:
            flags = [i for i in page.inside(index) if "data-flag" in page.tags[i][1]]
            assert [page.tags[i][1]["data-flag"] for i in flags].count("overflow") == 1  # there, hidden or not
            shown_flags[attrs["data-format"]] = [page.tags[i][1]["data-flag"] for i in flags if page.visible(i)]
    assert set(shown_flags) == SCALAR_IDS
    overflowed = {spec.id for spec in SCALAR_FORMATS if encode(spec, parse_number("70000")).overflowed}
    assert {"float16", "float8_e4m3fn", "int8"} <= overflowed and "float32" not in overflowed
    assert {fid for fid, flags in shown_flags.items() if "overflow" in flags} == overflowed
    assert "inf" in shown_flags["float16"] and shown_flags["float32"] == []
