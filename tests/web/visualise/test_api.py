"""The JSON API of DESIGN.md section 3, through TestClient: shapes, exact values, and refusals."""

from __future__ import annotations

import json
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from app.formats import FORMATS, SCALAR_FORMATS, exact

FORMAT_FIELDS = {
    "id", "name", "kind", "bits", "exponent_bits", "mantissa_bits", "bias", "has_inf", "has_nan",
    "has_negative_zero", "max", "min_normal", "min_subnormal", "epsilon",
}
ENCODING_FIELDS = {
    "format", "bits", "binary", "sign", "exponent_field", "mantissa_field", "class", "value", "next_up",
    "next_down", "ulp",
}


def test_list_formats_has_every_id_and_field(client):
    body = client.get("/api/formats").json()
    assert [f["id"] for f in body] == list(FORMATS)
    for fmt in body:
        assert fmt.keys() >= FORMAT_FIELDS
        assert fmt["kind"] in ("float", "int", "codebook", "block")


@pytest.mark.parametrize("spec", [s for s in SCALAR_FORMATS if s.ml_dtype and s.kind == "float"], ids=str)
def test_format_constants_read_back_as_ml_dtypes_finfo(client, spec):
    fmt = client.get(f"/api/formats/{spec.id}").json()
    dtype = getattr(ml_dtypes, spec.ml_dtype, None) or np.dtype(spec.ml_dtype)
    info = ml_dtypes.finfo(dtype)
    assert Fraction(fmt["max"]) == Fraction(float(info.max))
    assert Fraction(fmt["min_normal"]) == Fraction(float(info.tiny))
    assert Fraction(fmt["epsilon"]) == Fraction(float(info.eps))


def test_float16_constants_are_exact_strings(client):
    fmt = client.get("/api/formats/float16").json()
    assert (fmt["max"], fmt["min_normal"], fmt["min_subnormal"], fmt["epsilon"]) == (
        "65504", "0.00006103515625", "5.9604644775390625e-8", "0.0009765625",
    )
    assert (fmt["exponent_bits"], fmt["mantissa_bits"], fmt["bias"]) == (5, 10, 15)


def test_decode_one_in_bfloat16(client):
    body = client.get("/api/formats/bfloat16/decode", params={"bits": "0x3f80"}).json()
    assert body.keys() >= ENCODING_FIELDS
    assert body["bits"] == "0x3f80" and body["binary"] == "0011111110000000"
    assert (body["sign"], body["exponent_field"], body["mantissa_field"]) == (0, 127, 0)
    assert body["class"] == "normal" and body["value"] == "1"
    assert body["next_up"] == "1.0078125" and body["next_down"] == "0.99609375"
    assert body["ulp"] == "0.0078125"


@pytest.mark.parametrize("bits", ["0x3c00", "0b0011110000000000", "15360"])
def test_decode_accepts_hex_binary_and_decimal(client, bits):
    assert client.get("/api/formats/float16/decode", params={"bits": bits}).json()["value"] == "1"


def test_decode_specials(client):
    get = lambda fmt, bits: client.get(f"/api/formats/{fmt}/decode", params={"bits": bits}).json()  # noqa: E731
    assert get("float16", "0x7c00")["value"] == "inf"
    assert get("float16", "0xfc00")["value"] == "-inf"
    assert get("float16", "0x8000")["value"] == "-0"
    assert get("float16", "0x7e00")["class"] == "nan"
    assert get("float8_e4m3fn", "0x7f")["value"] == "nan"
    assert get("float8_e4m3fn", "0x7e")["value"] == "448"
    assert get("float8_e4m3fnuz", "0x80")["value"] == "nan"
    assert get("float8_e8m0fnu", "0x00")["value"] == (
        "5.8774717541114375398436826861112283890933277838604376075437585313920862972736358642578125e-39"
    )
    for body in (get("float16", "0x0001"), get("float64", "0x7fefffffffffffff")):
        assert json.dumps(body)  # no NaN or infinity reaches the JSON
        assert float(body["value"]) != 0


def test_float128_through_the_api(client):
    """binary128 has no ml_dtypes type; its values far from 1 have more decimal digits than are written out (max has
    4933), so there value_exact says the 40 digits are rounded; float() still reads them."""
    fmt = client.get("/api/formats/float128").json()
    assert (fmt["bits"], fmt["exponent_bits"], fmt["mantissa_bits"], fmt["bias"]) == (128, 15, 112, 16383)
    assert fmt["in_ml_dtypes"] is False and Fraction(fmt["epsilon"]) == Fraction(1, 2**112)
    assert fmt["max"] == "1.189731495357231765085759326628007016196e+4932"
    one = client.get("/api/formats/float128/decode", params={"bits": "0x3fff" + "0" * 28}).json()
    assert (one["value"], one["value_exact"]) == ("1", True)
    assert Fraction(one["next_up"]) == 1 + Fraction(1, 2**112)
    assert one["bits"] == "0x3fff" + "0" * 28 and len(one["binary"]) == 128
    tiny = client.get("/api/formats/float128/decode", params={"bits": "0x1"}).json()
    assert tiny["value_exact"] is False and tiny["value"].startswith("6.475175119438025110924438958227646552")
    tenth = client.get("/api/formats/float128/encode", params={"value": "0.1"}).json()
    assert tenth["bits"] == "0x3ffb999999999999999999999999999a" and tenth["value_exact"]
    assert Fraction(tenth["value"]) - Fraction(1, 10) == Fraction(tenth["error"])


def test_encode_point_one_in_float32(client):
    body = client.get("/api/formats/float32/encode", params={"value": "0.1"}).json()
    assert body["value"] == "0.100000001490116119384765625"
    assert body["bits"] == "0x3dcccccd"
    assert body["input"] == "0.1" and body["input_exact"] is True
    assert body["error"] == "1.490116119384765625e-9" and body["error_exact"] is True
    assert body["rel_error"] == pytest.approx(1.4901161193847656e-08)
    assert body["overflowed"] is False


def test_encode_overflow_behaviour_differs_by_format(client):
    enc = lambda fmt, v, **kw: client.get(f"/api/formats/{fmt}/encode", params={"value": v, **kw}).json()  # noqa: E731
    assert enc("float16", "70000")["value"] == "inf"
    assert enc("float8_e4m3fn", "500")["value"] == "nan"
    assert enc("float4_e2m1fn", "100")["value"] == "6"
    assert enc("float8_e4m3fn", "500", overflow="saturate")["value"] == "448"
    assert enc("float8_e4m3fn", "500")["overflowed"] is True
    assert enc("float16", "1e-10")["underflowed"] is True


@pytest.mark.parametrize(
    ("rounding", "expected"),
    [("nearest_even", "1"), ("nearest_away", "1.0009765625"), ("toward_zero", "1"),
     ("toward_positive", "1.0009765625"), ("toward_negative", "1")],
)
def test_encode_rounding_modes_on_a_tie(client, rounding, expected):
    tie = "1.00048828125"  # halfway between 1 and 1 + 2^-10 in float16
    body = client.get("/api/formats/float16/encode", params={"value": tie, "rounding": rounding}).json()
    assert body["value"] == expected and body["rounding"] == rounding


def test_stochastic_rounding_is_seeded(client):
    params = {"value": "1/3", "rounding": "stochastic"}
    runs = {
        seed: client.get("/api/formats/float8_e4m3fn/encode", params=params | {"seed": seed}).json()["value"]
        for seed in map(str, range(40))
    }
    assert set(runs.values()) == {"0.3125", "0.34375"}
    again = client.get("/api/formats/float8_e4m3fn/encode", params=params | {"seed": "7"}).json()["value"]
    assert again == runs["7"]


def test_error_of_a_non_terminating_input_says_it_is_rounded(client):
    body = client.get("/api/formats/bfloat16/encode", params={"value": "1/3"}).json()
    assert body["input_exact"] is False and body["error_exact"] is False
    assert Fraction(body["value"]) - Fraction(1, 3) == pytest.approx(float(body["error"]), rel=1e-30)


def test_huge_and_tiny_exponents(client):
    big = client.get("/api/formats/float64/encode", params={"value": "1e100000"}).json()
    assert big["value"] == "inf" and big["overflowed"] is True and big["input"] == "1e+100000"
    tiny = client.get("/api/formats/float64/encode", params={"value": "-1e-100000"}).json()
    assert tiny["value"] == "-0" and tiny["underflowed"] is True and tiny["error"] == "1e-100000"


def test_compare_covers_every_scalar_format(client):
    body = client.get("/api/compare", params={"value": "0.3952"}).json()
    assert [r["format"] for r in body["results"]] == [s.id for s in SCALAR_FORMATS]
    by_id = {r["format"]: r for r in body["results"]}
    assert by_id["bfloat16"]["value"] == "0.39453125"
    assert by_id["float16"]["value"] == "0.395263671875"
    assert by_id["float8_e4m3fn"]["value"] == "0.40625"
    assert body["input"] == "0.3952"


def test_block_quantize_mxfp4(client):
    values = [0.5, -1.0, 3.0, 6.0] + [0.0] * 28
    body = client.post("/api/blocks/quantize", json={"format": "mxfp4", "values": values}).json()
    assert len(body["blocks"]) == 1
    block = body["blocks"][0]
    assert block["scale"] == 1.0 and block["scale_bits"] == 127
    assert body["dequantized"] == values and body["mse"] == 0 and body["max_abs_error"] == 0


def test_openapi_describes_every_json_route(client):
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/formats", "/api/formats/{format_id}", "/api/formats/{format_id}/decode",
                 "/api/formats/{format_id}/encode", "/api/compare", "/api/blocks/quantize"):
        assert path in paths


# Each hostile request gets a 4xx whose detail is a sentence, never a 5xx.
HOSTILE_GETS = [
    ("/api/formats/float99", 404),
    ("/api/formats/%00", 404),
    ("/api/formats/float16/decode", 422),
    ("/api/formats/float16/decode?bits=", 422),
    ("/api/formats/float16/decode?bits=0x10000", 422),
    ("/api/formats/float8_e4m3fn/decode?bits=0b111111111", 422),
    ("/api/formats/float16/decode?bits=-1", 422),
    ("/api/formats/float16/decode?bits=0xZZ", 422),
    ("/api/formats/float16/decode?bits=" + "1" * 5000, 422),
    ("/api/formats/mxfp4/decode?bits=0x1", 422),
    ("/api/formats/nope/decode?bits=0x1", 404),
    ("/api/formats/float16/encode", 422),
    ("/api/formats/float16/encode?value=", 422),
    ("/api/formats/float16/encode?value=abc", 422),
    ("/api/formats/float16/encode?value=1e999999999", 422),
    ("/api/formats/float16/encode?value=1e-999999999", 422),
    ("/api/formats/float16/encode?value=%D9%A1%D9%A2", 422),  # Arabic-Indic digits
    ("/api/formats/float16/encode?value=%EF%BC%91", 422),  # fullwidth 1
    ("/api/formats/float16/encode?value=" + "9" * 5000, 422),
    ("/api/formats/float16/encode?value=1/0", 422),
    ("/api/formats/float16/encode?value=0x3c00", 422),  # raw bits are not a value
    ("/api/formats/float16/encode?value=1&rounding=banker", 422),
    ("/api/formats/float16/encode?value=1&rounding=", 422),
    ("/api/formats/float16/encode?value=1&overflow=clip", 422),
    ("/api/formats/float16/encode?value=1&rounding=stochastic&seed=-5", 422),
    ("/api/formats/float16/encode?value=1&rounding=stochastic&seed=99999999999999999999999", 422),
    ("/api/formats/float16/encode?value=%3Cscript%3E", 422),
    ("/api/formats/float16/encode?value=1;DROP%20TABLE", 422),
    ("/api/formats/float16/encode?value=nan(0x1)", 422),
    ("/api/formats/float16/encode?value=0x1p999999", 422),
    ("/api/formats/nvfp4/encode?value=1", 422),
    ("/api/compare", 422),
    ("/api/compare?value=--1", 422),
    ("/api/compare?value=0b1010", 422),
    ("/api/compare?value=1&rounding=up", 422),
    ("/api/nothing-here", 404),
]


@pytest.mark.parametrize(("url", "status"), HOSTILE_GETS)
def test_hostile_get_gets_a_sentence(client, url, status):
    response = client.get(url)
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and len(detail) > 10 and detail.rstrip().endswith((".", ")"))


HOSTILE_POSTS = [
    ({"format": "mxfp4", "values": []}, 422),
    ({"format": "mxfp4"}, 422),
    ({"values": [1.0]}, 422),
    ({"format": "float16", "values": [1.0]}, 422),
    ({"format": "nope", "values": [1.0]}, 422),
    ({"format": "mxfp4", "values": ["a"]}, 422),
    ({"format": "mxfp4", "values": [1.0], "block_size": 0}, 422),
    ({"format": "mxfp4", "values": [1.0], "block_size": 10**9}, 422),
    ({"format": "mxfp4", "values": [1.0], "block_size": "x"}, 422),
    ({"format": "mxfp4", "values": [1.0] * 70000}, 422),
    ({"format": "mxfp4", "values": [1.0] * 16385}, 422),
    ({"format": "mxfp4", "values": [1.0] * 16384, "block_size": 1}, 422),
    ({"format": "nvfp4", "values": [1.0] * 1025, "block_size": 1}, 422),
    ({"format": "mxfp4", "values": [[1.0]]}, 422),
    ({"format": "mxfp4", "values": "1,2,3"}, 422),
]


@pytest.mark.parametrize(("body", "status"), HOSTILE_POSTS)
def test_hostile_quantize_gets_a_sentence(client, body, status):
    response = client.post("/api/blocks/quantize", json=body)
    assert response.status_code == status, response.text
    assert isinstance(response.json()["detail"], str)


def test_a_quantisation_into_too_many_blocks_says_which_block_size_would_do(client):
    response = client.post("/api/blocks/quantize", json={"format": "mxfp4", "values": [0.5] * 16384, "block_size": 1})
    assert response.status_code == 422
    assert response.json()["detail"] == ("16384 values in blocks of 1 make 16384 blocks; at most 1024 are quantised "
                                         "at once, so use a block size of at least 16 or fewer values.")
    for size in (16, None):  # at that size, and at the format's default, it is done
        body = {"format": "mxfp4", "values": [0.5] * 16384} | ({"block_size": size} if size else {})
        assert client.post("/api/blocks/quantize", json=body).status_code == 200


@pytest.mark.parametrize("raw", [b"not json", b"{", b"[]", b"null"])
def test_malformed_quantize_bodies(client, raw):
    response = client.post("/api/blocks/quantize", content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    assert isinstance(response.json()["detail"], str)


# Two decimals of a thousand digits at the ends of the accepted range, as a fraction: a value of 10^5 digits
COSTLY = "7" * 540 + "e-50000/" + "3" * 540 + "e50000"


@pytest.mark.parametrize("path", ["/api/compare", "/compare", "/visualise/float16", "/api/formats/float64/encode"])
def test_each_long_division_is_worked_out_once_per_request(client, monkeypatch, path):
    """The input's decimal, and each error's, is computed once however many formats and fields show it."""
    for cached in (exact._decimal, exact._power_of_five, exact.ten_to):
        cached.cache_clear()
    divisions: list[tuple[int, int]] = []
    original = exact._rounded_digits

    def counted(x: Fraction, count: int):  # type: ignore[no-untyped-def]
        divisions.append((x.numerator, x.denominator))
        return original(x, count)

    monkeypatch.setattr(exact, "_rounded_digits", counted)
    assert client.get(path, params={"value": COSTLY}).status_code == 200
    assert divisions and len(divisions) == len(set(divisions))
