"""The scalar visualiser's page order and pills, and NF4's codebook view, through TestClient: the figure (bits and
stored value) before the form and the pills; the skip link to the bits; the pills grouped by the registry's facts,
with readable names and a tooltip each; NF4 without class, ULP or log scale, with its levels on a line."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.formats import BLOCK_FORMAT_IDS, FORMATS, SCALAR_FORMATS
from tests.helpers.html import HX, Elements
from tests.helpers.shown import Shown

EXPECTED_GROUPS = {
    "wide": {"float128", "float64", "float32", "tfloat32", "float16", "bfloat16"},
    "fp8": {"float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3", "float8_e3m4",
            "float8_e4m3b11fnuz"},
    "narrow": {"float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"},
    "int": {"int8", "uint8", "int4", "uint4", "int2", "uint2"},
    "codebook": {"nf4"},
}


def first_index(page: Elements, attribute: str, value: str | None = None) -> int:
    return next(i for i, (_, attrs) in enumerate(page.tags)
                if attribute in attrs and (value is None or attrs[attribute] == value))


def pill_groups(page: Elements) -> dict[str, list[dict[str, str]]]:
    groups = {}
    for index, (_, attrs) in enumerate(page.tags):
        if "data-format-group" in attrs:
            groups[attrs["data-format-group"]] = [page.tags[i][1] for i in page.inside(index)
                                                  if page.tags[i][0] == "a"]
    return groups


@pytest.mark.parametrize("url", ["/visualise/float16?value=0.1", "/visualise/float64?value=1e300",
                                 "/visualise/nf4", "/visualise/custom?exponent_bits=4&mantissa_bits=3&value=0.1"])
def test_the_bits_and_the_stored_value_come_before_the_form_and_the_pills(client, url):
    page = Elements(client.get(url).text)
    bits, stored = first_index(page, "data-bit-grid"), first_index(page, "data-stored")
    value_box, pills = first_index(page, "id", "value"), first_index(page, "data-format-group")
    assert bits < stored < value_box < pills


def test_the_skip_link_is_the_first_link_of_the_content_and_targets_the_bits(client):
    page = Elements(client.get("/visualise/float16?value=0.1").text)
    main = first_index(page, "id", "main")
    first_link = next(attrs for i, (tag, attrs) in enumerate(page.tags)
                      if i > main and tag in ("a", "button", "input", "select"))
    assert "data-skip-bits" in first_link and first_link["href"] == "#bits"
    target = page.tags[first_index(page, "id", "bits")][1]
    assert target.get("tabindex") == "-1"
    inside = [page.tags[i][1] for i in page.inside(first_index(page, "id", "bits"))]
    assert any("data-bit-grid" in attrs for attrs in inside)


def test_the_pills_are_grouped_by_the_registrys_facts(client):
    groups = pill_groups(Elements(client.get("/visualise/float16?value=0.1").text))
    assert list(groups) == ["wide", "fp8", "narrow", "block", "int", "codebook"]
    for group, ids in EXPECTED_GROUPS.items():
        assert {a["data-format"] for a in groups[group]} == ids, group
    assert {a["data-block-format"] for a in groups["block"]} == set(BLOCK_FORMAT_IDS)
    scalar = [a["data-format"] for pills in groups.values() for a in pills if "data-format" in a]
    assert sorted(scalar) == sorted(spec.id for spec in SCALAR_FORMATS)  # each scalar format once


def test_each_pill_has_its_readable_name_and_a_one_line_tooltip(client):
    page = Elements(client.get("/visualise/float16?value=0.1").text)
    pills = [a for group in pill_groups(page).values() for a in group]
    names = dict(zip([a.get("data-format") or a["data-block-format"] for a in pills],
                     [page.texts[page.tags.index(("a", a))].strip() for a in pills], strict=True))
    assert names["float8_e4m3fn"] == "FP8 E4M3 (OCP)" and names["bfloat16"] == "BF16 (brain float)"
    for a in pills:
        spec = FORMATS[a.get("data-format") or a["data-block-format"]]
        assert a["title"] and spec.summary.startswith(a["title"].rstrip(".")), spec.id
        assert "\n" not in a["title"] and a["title"].count(". ") == 0, spec.id
    assert FORMATS["float128"].summary.count(". ") >= 1  # a long summary is cut to its first sentence


def test_block_pills_link_their_block_pages_and_those_pages_exist(client):
    groups = pill_groups(Elements(client.get("/visualise/float16?value=0.1").text))
    for a in groups["block"]:
        assert "data-hx-get" not in a and "value=" not in a["href"]
        response = client.get(a["href"])
        assert response.status_code == 200 and "data-preset" in response.text, a["href"]
    nf4 = next(a for a in groups["block"] if a["data-block-format"] == "nf4")
    assert nf4["href"] == "/visualise/nf4?preset=normal"


def test_a_custom_layout_has_a_group_of_its_own(client):
    groups = pill_groups(Elements(client.get("/visualise/custom?exponent_bits=4&mantissa_bits=3&value=0.1").text))
    assert [a["data-format"] for a in groups["custom"]] == ["custom"]
    assert "exponent_bits=4" in groups["custom"][0]["href"]


def test_the_fragment_keeps_the_grouped_pills(client):
    fragment = Elements(client.get("/visualise/float16?value=0.1", headers=HX).text)
    assert len(pill_groups(fragment)) == 6 and fragment.having("data-stored")


# -- NF4 ------------------------------------------------------------------------------------------------


def test_nf4_drops_class_ulp_and_the_log_scale_and_shows_its_levels(client):
    page = Elements(client.get("/visualise/nf4").text)
    assert not page.having("data-class") and not page.having("data-ulp")
    assert "log scale" not in " ".join(page.texts[first_index(page, "id", "visualiser")].split())
    ticks = page.having("data-level")
    assert [int(t["data-level"]) for t in ticks] == list(range(16))
    positions = [float(t["x1"].rstrip("%")) for t in ticks]
    assert positions == sorted(positions) and positions[0] == 2 and positions[-1] == 98
    # to scale: each tick stands where its value lies between -1 and 1
    for code, x in enumerate(positions):
        value = Fraction(FORMATS["nf4"].codebook[code])
        assert x == pytest.approx(2 + 96 * float((value + 1) / 2), abs=0.01)
    stored_code = int(page.text_of("data-bits").removeprefix("0x"), 16)
    current = page.having("data-level-current")[0]
    assert current["data-level-current"] == str(stored_code) and current["cx"] == ticks[stored_code]["x1"]
    assert page.having("data-block-view")[0]["href"] == "/visualise/nf4?preset=normal"


def test_nf4_marks_the_typed_value_between_its_two_levels(client):
    page = Elements(client.get("/visualise/nf4?value=0.3").text)
    typed = next(attrs for attrs in page.having("data-level-typed"))
    x = float(typed["x1"].rstrip("%"))
    assert x == pytest.approx(2 + 96 * (0.3 + 1) / 2, abs=0.01)
    assert page.having("data-level-current")[0]["data-level-current"] == "11"  # 0.3379…, the nearest level
    exact = Shown(client.get("/visualise/nf4?bits=0xb").text)
    assert not exact.having("data-level-typed")  # hidden: only a typed value has a place between levels


def test_other_formats_keep_class_ulp_and_the_number_line(client):
    page = Elements(client.get("/visualise/float16?value=0.1").text)
    assert page.text_of("data-class") == "normal" and page.having("data-ulp") and not page.having("data-levels")
