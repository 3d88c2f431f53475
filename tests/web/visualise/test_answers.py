"""The format API's answers are its models' (app/web/visualise/schemas.py): each is the core's object written field
by field, in the order DESIGN.md section 3 documents; each is exactly what its model makes of it (no field missing,
none extra, none retyped); and the rounding and overflow policy are checked once, where the request comes in, with
the core's own sentences."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction
from typing import Any
from urllib.parse import urlencode

import pytest
from pydantic import BaseModel

from app.formats import (
    BLOCK_FORMAT_IDS,
    FORMATS,
    OVERFLOW_POLICIES,
    ROUNDINGS,
    SCALAR_FORMATS,
    FormatSpec,
    InputError,
    Real,
    custom_format,
    decode,
    encode,
    next_down,
    next_up,
    overflow_policy,
    parse_number,
    quantize_blocks,
    rounding_mode,
    ulp,
)
from app.web.visualise.schemas import (
    ComparisonAnswer,
    EncodingAnswer,
    FormatAnswer,
    QuantizationAnswer,
    RoundedAnswer,
)

FORMAT_ORDER = [
    "id", "name", "kind", "bits", "exponent_bits", "mantissa_bits", "bias", "has_inf", "has_nan", "has_negative_zero",
    "max", "lowest", "min_normal", "min_subnormal", "epsilon", "signed", "overflow_default", "bits_per_value",
    "bytes_per_value", "gigabytes_per_billion", "in_ml_dtypes", "element_format", "scale_format", "block_size",
    "summary",
]
ENCODING_ORDER = [
    "format", "bits", "binary", "sign", "exponent_field", "mantissa_field", "exponent", "significand", "class",
    "value", "value_exact", "next_up", "next_down", "ulp",
]
ROUNDED_ORDER = ENCODING_ORDER + [
    "input", "input_exact", "error", "error_exact", "rel_error", "overflowed", "underflowed", "note", "rounding",
    "overflow",
]
# Two layouts of one's own beside the registry's: a wide one and one without inf or NaN
CUSTOM = {"exponent_bits=9&mantissa_bits=30&bias=200": custom_format(9, 30, 200, "ieee"),
          "exponent_bits=3&mantissa_bits=2&nan_style=none": custom_format(3, 2, None, "none")}
VALUES = ["0.1", "-2.5e-3", "0x1.8p-3", "1/3", "inf", "-inf", "nan", "-0", "1", "65504", "70000", "1e-10", "-1e300",
          "448", "1.00048828125", "255", "-129", "7/8", "1e100000", "3.4e38"]


def answers_as(model: type[BaseModel], text: str) -> bool:
    """Whether `text` is exactly what the model makes of it: no field missing, none extra, none retyped."""
    return model.model_validate_json(text).model_dump_json(by_alias=True, exclude_unset=True) == text


def reads_as(text: str | None, x: Real | Fraction | None, is_exact: bool = True) -> bool:
    """Whether an exact string of an answer is the core's value: equal (the sign of a zero too), or, where it need
    not be exact, rounded to 40 significant digits at most (as a value with more than 1200 is)."""
    if x is None or text is None:
        return x is None and text is None
    x = Real.of(x) if isinstance(x, Fraction) else x
    if not x.is_finite:
        return math.isnan(float(text)) if x.kind == "nan" else float(text) == (-math.inf if x.negative else math.inf)
    if text.startswith("-") != x.negative:
        return False
    if Fraction(text) == x.fraction:
        return True
    digits = text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    return not is_exact and len(digits) <= 40 and abs(Fraction(text) - x.fraction) <= abs(x.fraction) / 10**39


def encoding_is_the_cores(body: dict[str, Any], spec: FormatSpec, bits: int) -> None:
    enc = decode(spec, bits)
    assert body["format"] == spec.id and int(body["bits"], 16) == bits and len(body["bits"]) == 2 + -(-spec.bits // 4)
    assert body["binary"] == f"{bits:0{spec.bits}b}"
    assert [body[name] for name in ("sign", "exponent_field", "mantissa_field", "exponent", "class")] == [
        enc.sign, enc.exponent_field, enc.mantissa_field, enc.exponent, enc.cls]
    assert reads_as(body["significand"], enc.significand)
    assert reads_as(body["value"], enc.value, body["value_exact"])
    up, down = next_up(enc), next_down(enc)
    assert reads_as(body["next_up"], up and up.value, is_exact=False)
    assert reads_as(body["next_down"], down and down.value, is_exact=False)
    assert reads_as(body["ulp"], ulp(enc), is_exact=False)


def _patterns(spec: FormatSpec, rng: random.Random) -> list[int]:
    return [0, (1 << spec.bits) - 1, 1, *(rng.getrandbits(spec.bits) for _ in range(5))]


SCALARS = [(spec.id, spec) for spec in SCALAR_FORMATS] + [(f"custom?{q}", spec) for q, spec in CUSTOM.items()]


def _route(path: str, action: str, **params: str) -> str:
    """/api/formats/float16/decode?…, or /api/formats/custom/decode?<layout>&…"""
    layout = path.split("?", 1)[1] + "&" if "?" in path else ""
    return f"/api/formats/{path.split('?')[0]}/{action}?{layout}{urlencode(params)}"


def test_decode_answers_are_the_cores_encoding_field_by_field(client):
    for path, spec in SCALARS:
        for bits in _patterns(spec, random.Random(path)):
            answer = client.get(_route(path, "decode", bits=f"{bits:#x}"))
            assert answer.status_code == 200, answer.text
            body = answer.json()
            assert list(body) == ENCODING_ORDER
            encoding_is_the_cores(body, spec, bits)
            assert answers_as(EncodingAnswer, answer.text)


def test_encode_answers_are_the_cores_rounded_field_by_field(client):
    for path, spec in SCALARS:
        rng = random.Random(path)
        for value in rng.sample(VALUES, 5) + [f"{rng.uniform(-9, 9):.4f}e{rng.randint(-50, 50)}"]:
            rounding, overflow = rng.choice(ROUNDINGS), rng.choice(OVERFLOW_POLICIES)
            answer = client.get(_route(path, "encode", value=value, rounding=rounding, overflow=overflow, seed="7"))
            assert answer.status_code == 200, answer.text
            body = answer.json()
            assert list(body) == ROUNDED_ORDER
            result = encode(spec, parse_number(value), rounding, overflow, 7)
            encoding_is_the_cores(body, spec, result.encoding.bits)
            assert reads_as(body["input"], result.input, body["input_exact"])
            assert reads_as(body["error"], result.error, body["error_exact"])
            rel_error = result.rel_error
            assert body["rel_error"] == (rel_error if rel_error is not None and math.isfinite(rel_error) else None)
            assert [body[name] for name in ("overflowed", "underflowed", "note", "rounding", "overflow")] == [
                result.overflowed, result.underflowed, result.note and str(result.note), rounding, overflow]
            assert answers_as(RoundedAnswer, answer.text)


def test_a_comparison_is_each_formats_encode_answer(client):
    params = {"value": "0.3952", "rounding": "stochastic", "overflow": "saturate", "seed": "11"}
    answer = client.get("/api/compare", params=params)
    body = answer.json()
    assert list(body) == ["input", "input_exact", "results"] and answers_as(ComparisonAnswer, answer.text)
    assert (body["input"], body["input_exact"]) == ("0.3952", True)
    assert body["results"] == [client.get(f"/api/formats/{spec.id}/encode", params=params).json()
                               for spec in SCALAR_FORMATS]


def test_format_answers_are_the_registrys_field_by_field(client):
    answer = client.get("/api/formats")
    assert answers_as(FormatAnswer, json.dumps(answer.json()[0], ensure_ascii=False, separators=(",", ":")))
    for body, spec in zip(answer.json(), FORMATS.values(), strict=True):
        assert list(body) == FORMAT_ORDER
        is_float = spec.kind in ("float", "block")
        assert [body["id"], body["kind"], body["bits"], body["overflow_default"], body["summary"]] == [
            spec.id, spec.kind, spec.bits, spec.overflow_default, spec.summary]
        assert [body["exponent_bits"], body["mantissa_bits"], body["bias"]] == (
            [spec.exponent_bits, spec.mantissa_bits, spec.bias] if is_float else [None, None, None])
        for name in ("max", "lowest", "min_normal", "min_subnormal", "epsilon"):
            assert reads_as(body[name], getattr(spec, name), spec.id != "float128"), (spec.id, name)
        assert Fraction(body["bits_per_value"]) == spec.bits_per_value
        assert [body["element_format"], body["scale_format"], body["block_size"]] == (
            [spec.element and spec.element.id, spec.scale and spec.scale.id, spec.block_size or None])
        assert client.get(f"/api/formats/{spec.id}").json() == body


# -- block quantisation --------------------------------------------------------------------------------------------


def _quantized(client, values: list[Any], format_id: str, block_size: int | None = None) -> dict[str, Any]:
    body = {"format": format_id, "values": values} | ({"block_size": block_size} if block_size else {})
    answer = client.post("/api/blocks/quantize", json=body)
    assert answer.status_code == 200 and answers_as(QuantizationAnswer, answer.text), answer.text
    return answer.json()


def test_a_quantisation_answer_is_the_cores(client):
    values = [0.1, -2.0, 3e38, -1e-40, 0.0]
    for format_id in BLOCK_FORMAT_IDS:
        body = _quantized(client, values, format_id, 2)
        result = quantize_blocks(values, format_id, 2)
        assert list(body) == ["format", "block_size", "blocks", "dequantized", "mse", "max_abs_error"] + (
            ["tensor_scale"] if format_id == "nvfp4" else [])
        assert body["blocks"] == [{"scale_bits": b.scale_bits, "scale": b.scale, "codes": b.codes,
                                   "values": b.values} for b in result.blocks]
        assert body["dequantized"] == result.dequantized.tolist() and body.get("tensor_scale") == result.tensor_scale
        assert (body["mse"], body["max_abs_error"]) == (result.mse, result.max_abs_error)


def test_a_nan_block_says_nan_in_strings(client):
    for format_id in BLOCK_FORMAT_IDS:
        body = _quantized(client, ["nan", 1.0, 3.0, 0.5], format_id, 2)
        first, second = body["blocks"]
        assert first["scale"] == "nan" and first["values"] == ["nan", "nan"]
        assert body["dequantized"][:2] == ["nan", "nan"] and all(type(v) is float for v in body["dequantized"][2:])
        assert body["mse"] == "nan" and body["max_abs_error"] == "nan"
        assert type(second["scale"]) is float


def test_an_infinite_nf4_scale_is_inf(client):
    assert _quantized(client, ["-inf", 1.0], "nf4")["blocks"][0]["scale"] == "inf"


# -- rounding and overflow, checked where the request comes in -----------------------------------------------------

ROUTES = ["/api/formats/float16/encode?value=1", "/api/formats/custom/encode?exponent_bits=4&mantissa_bits=3&value=1",
          "/api/compare?value=1"]


def _sentence(check, name: str) -> str:
    with pytest.raises(InputError) as refused:
        check(name)
    return str(refused.value)


def test_an_unknown_rounding_or_overflow_is_refused_with_the_cores_sentence(client):
    for route in ROUTES:
        for query, sentence in (("rounding=up", _sentence(rounding_mode, "up")),
                                ("overflow=wrap", _sentence(overflow_policy, "wrap")),
                                ("rounding=" + "x" * 60, _sentence(rounding_mode, "x" * 60))):
            answer = client.get(f"{route}&{query}")
            assert (answer.status_code, answer.json()) == (422, {"detail": sentence}), (route, query)


def test_without_rounding_or_overflow_the_defaults_are_used_and_said(client):
    for route in ROUTES:
        body = client.get(route).json()
        for result in body.get("results", [body]):
            assert (result["rounding"], result["overflow"]) == ("nearest_even", "format_default"), route
