"""/arithmetic (page, htmx fragment, /embed/ frame) through TestClient: the figure's numbers are the operation's on
the stored operands, each lesson opens what it says, the tape continues the operation, bad input gets a sentence
with the form kept, and the page works as a plain GET form."""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.web.arithmetic.lessons import LESSONS
from app.web.arithmetic.present import arithmetic_url
from tests.helpers.html import HX, Elements

PAGE = "/arithmetic"


def _page(client: TestClient, status: int = 200, path: str = PAGE, **query: str | list[str]) -> Elements:
    response = client.get(path, params=query)
    assert response.status_code == status, response.text[:500]
    return Elements(response.text)


def _slots(page: Elements, name: str) -> list[str]:
    """The shown text of every slot of this name (data-slot), those inside a hidden element left out."""
    return [" ".join(page.texts[i].split()) for i, (_, attrs) in enumerate(page.tags)
            if attrs.get("data-slot") == name and "hidden" not in attrs
            and not any("hidden" in page.tags[p][1] for p in page.parents[i])]


def _slot(page: Elements, name: str) -> str:
    (text,) = set(_slots(page, name))
    return text


def _raised(page: Elements) -> list[str]:
    return [attrs["data-flag"] for attrs in page.having("data-raised") if attrs["data-raised"] == "true"]


def test_the_default_is_the_source_pages_ten_thousand_squared_in_fp16(client):
    page = _page(client)
    assert _slot(page, "answer-stored") == "inf"
    assert _slot(page, "exact") == "100000000"
    assert _raised(page) == ["inexact", "overflow"]
    assert "65504" in page.text_of("data-rule")


def test_the_stored_values_and_the_result_are_what_numpy_and_ml_dtypes_give(client):
    page = _page(client, format="bfloat16", op="div", a="1", b="3")
    third = float(ml_dtypes.bfloat16(3.0))
    stored = [Fraction(text) for text in _slots(page, "stored")]
    assert stored[:2] == [1, Fraction(third)]
    assert stored[2] == Fraction(float(np.float64(1 / third).astype(np.float32).astype(ml_dtypes.bfloat16)))
    assert _slot(page, "exact").startswith("≈0.33333333")


def test_the_result_may_go_to_a_wider_format(client):
    page = _page(client, format="float16", op="mul", a="10000", b="10000", result_format="float32")
    assert _slot(page, "answer-stored") == "100000000" and _raised(page) == []


def test_the_tape_continues_the_operation_on_its_rounded_result(client):
    page = _page(client, format="float16", op="add", a="1", b="0x1p-11", step=["add:0x1p-11", "", "sub:1"])
    rows = page.having("data-step")
    assert [r["data-step"] for r in rows] == ["1", "2", "3"]  # the operation itself, then the two steps typed
    assert _slots(page, "drift")[-1] == "-0.0009765625"  # two halves of a step lost: 2 × 2^-11
    typed = [a["value"] for a in page.having("name") if a["name"] == "step" and a.get("type") != "hidden"]
    assert typed == ["add:0x1p-11", "sub:1", ""]  # the empty step dropped, and a new one offered


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.id)
def test_every_lesson_opens_a_working_page(client, lesson):
    page = _page(client, path=arithmetic_url("", **lesson.query).split("?")[0],
                 **{k: v for k, v in lesson.query.items()})
    assert page.texts_of("data-rule")


def test_the_lessons_show_what_they_say(client):
    by_id = {lesson.id: lesson.query for lesson in LESSONS}
    assert _slots(_page(client, **by_id["associativity"]), "stored")[-1] == "2048"
    assert _slots(_page(client, **by_id["associativity_other"]), "stored")[-1] == "2050"
    assert _slots(_page(client, **by_id["nan_run"]), "stored")[-1] == "nan"
    assert _slot(_page(client, **by_id["fp8_nan"]), "answer-stored") == "nan"
    assert _raised(_page(client, **by_id["underflow"])) == ["inexact", "underflow"]
    assert _raised(_page(client, **by_id["fma"])) == []
    swamped = _slots(_page(client, **by_id["swamping"]), "stored")
    assert swamped[-4:] == ["1", "1", "1", "1"]


@pytest.mark.parametrize(("query", "sentence"), [
    ({"op": "pow"}, "Unknown operation 'pow'"),
    ({"format": "float16", "op": "fma", "a": "1", "b": "2"}, "fma needs a, b, c: c is missing."),
    ({"format": "float7"}, "Unknown format 'float7'"),
    ({"format": "mxfp4"}, "mxfp4 is a block format"),
    ({"a": "zz"}, "a: Could not read 'zz'"),
    ({"rounding": "up"}, "Unknown rounding 'up'"),
    ({"op": "fma", "a": "1", "b": "2", "c": "3", "step": "add:1"}, "A chain continues add, sub, mul, div or sqrt"),
    ({"a": "1", "b": "2", "step": "pow:2"}, "Step 2: Unknown operation 'pow'"),
    ({"seed": "x"}, "The seed must be"),
])
def test_bad_input_gets_a_sentence_and_keeps_the_form(client, query, sentence):
    page = _page(client, 422, **query)
    assert sentence in page.text_of("data-error")
    form = page.having("data-arithmetic-form")
    assert form and form[0]["method"] == "get" and form[0]["action"] == PAGE


def test_a_turkish_page_reads_a_decimal_comma(client):
    page = _page(client, path="/tr" + PAGE, format="float16", op="add", a="0,5", b="0,25")
    assert _slot(page, "answer-stored") == "0.75"


def test_htmx_asks_for_the_figure_alone(client):
    response = client.get(PAGE, params={"a": "3", "b": "4"}, headers=HX)
    assert response.status_code == 200 and response.text.lstrip().startswith('<section id="arithmetic-figure"')


def test_the_framed_page_and_its_oembed(client):
    assert _slot(_page(client, path="/embed" + PAGE), "answer-stored") == "inf"
    body = client.get("/oembed", params={"url": "http://127.0.0.1:8000" + PAGE + "?op=add&a=1&b=2",
                                         "format": "json"}).json()
    assert "/embed/arithmetic?op=add&amp;a=1&amp;b=2" in body["html"] and "arithmetic lab" in body["title"]


def test_each_operand_and_the_result_link_to_their_bits(client):
    page = _page(client, format="float16", op="mul", a="3", b="5")
    links = [attrs["href"] for i, (_, attrs) in enumerate(page.tags)
             if attrs.get("href", "").startswith("/visualise/float16?bits=")
             and not any("hidden" in page.tags[p][1] for p in page.parents[i])]  # the unused line c is hidden
    assert links == ["/visualise/float16?bits=0x4200", "/visualise/float16?bits=0x4500",
                     "/visualise/float16?bits=0x4b80"]
