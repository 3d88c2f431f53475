"""GET /api/arithmetic and /api/arithmetic/chain through TestClient: the contract's fields, exact strings that read
back as the operation on the stored operands, and a sentence for every bad input."""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from app.formats import FLAGS


def _get(client, path: str = "/api/arithmetic", **query):
    return client.get(path, params=query)


def test_ten_thousand_squared_overflows_fp16_and_fits_fp32(client):
    """The source pages' example: 10k × 10k should be 100M, which FP16 cannot represent."""
    body = _get(client, format="float16", op="mul", a="10000", b="10000").json()
    assert body["exact"] == "100000000" and body["exact_exact"]
    assert body["result"]["value"] == "inf" and body["result"]["bits"] == "0x7c00"
    assert body["flags"] == ["inexact", "overflow"]
    assert "65504" in body["rule"] and "overflow" in body["rule"]
    wide = _get(client, format="float16", op="mul", a="10000", b="10000", result_format="float32").json()
    assert wide["result"]["value"] == "100000000" and wide["flags"] == [] and wide["result_format"] == "float32"


def test_operands_are_stored_first_and_the_exact_result_is_of_the_stored_values(client):
    body = _get(client, format="bfloat16", op="mul", a="0.1", b="0.1").json()
    stored = [Fraction(o["value"]) for o in body["operands"]]
    assert stored[0] == Fraction(float(np.float32(0.1).astype(ml_dtypes.bfloat16)))
    assert Fraction(body["exact"]) == stored[0] * stored[1]
    assert Fraction(body["result"]["value"]) == Fraction(float(ml_dtypes.bfloat16(float(stored[0] * stored[1]))))
    assert Fraction(body["result"]["error"]) == Fraction(body["result"]["value"]) - Fraction(body["exact"])
    assert body["operands"][0]["input"] == "0.1" and body["flags"] == ["inexact"]


def test_the_error_in_ulps_is_the_error_over_the_gap_above_the_result(client):
    body = _get(client, format="float16", op="add", a="1", b="0x1.8p-11").json()  # 1 + 3/4 ulp rounds up
    assert body["result"]["value"] == "1.0009765625"
    assert body["ulp_error"] == pytest.approx(float((Fraction(1, 4) * 2**-10) / 2**-10))


def test_fma_keeps_what_two_roundings_lose(client):
    fused = _get(client, format="float16", op="fma", a="0x1.004p0", b="0x1.ff8p-1", c="-1").json()
    assert Fraction(fused["result"]["value"]) == Fraction(-1, 2**20) and fused["flags"] == []


def test_a_square_root_that_is_irrational_is_given_to_40_digits_and_said_to_be(client):
    body = _get(client, format="float32", op="sqrt", a="2").json()
    # sqrt(2) = 1.41421356237309504880168872420969807856967...: to 40 digits, the last rounds up to 7
    assert not body["exact_exact"] and body["exact"] == "1.41421356237309504880168872420969807857"
    assert Fraction(body["result"]["value"]) == Fraction(float(np.sqrt(np.float32(2))))
    assert body["flags"] == ["inexact"]


def test_every_flag_name_is_the_contracts(client):
    assert FLAGS == ("inexact", "underflow", "overflow", "invalid", "divide_by_zero")
    assert _get(client, format="float16", op="div", a="1", b="0").json()["flags"] == ["divide_by_zero"]
    assert _get(client, format="float16", op="sub", a="inf", b="inf").json()["flags"] == ["invalid"]


def test_a_custom_layout_is_an_operand_format(client):
    body = _get(client, format="custom", exponent_bits="4", mantissa_bits="3", op="add", a="1", b="0.0625").json()
    assert body["format"] == "custom" and body["result"]["value"] == "1" and body["flags"] == ["inexact"]


def test_a_chain_rounds_each_step_and_shows_its_drift_from_the_exact_chain(client):
    body = _get(client, "/api/arithmetic/chain", format="float16", a="1",
                step=["add:0x1p-11"] * 4 + ["sub:1"]).json()
    assert [s["result"]["value"] for s in body["steps"]] == ["1", "1", "1", "1", "0"]
    assert Fraction(body["steps"][-1]["exact_chain"]) == Fraction(4, 2**11)
    assert Fraction(body["steps"][-1]["drift"]) == -Fraction(4, 2**11) and body["steps"][-1]["drift_exact"]


@pytest.mark.parametrize(("path", "query", "sentence"), [
    ("/api/arithmetic", {"format": "float16", "op": "pow", "a": "1", "b": "2"}, "Unknown operation 'pow'"),
    ("/api/arithmetic", {"format": "float16", "op": "fma", "a": "1", "b": "2"}, "fma needs a, b, c: c is missing."),
    ("/api/arithmetic", {"format": "float16", "op": "add", "a": "1"}, "add needs a, b: b is missing."),
    ("/api/arithmetic", {"format": "float16", "op": "add", "a": "1", "b": "x"}, "b: Could not read 'x'"),
    ("/api/arithmetic", {"format": "mxfp4", "op": "add", "a": "1", "b": "2"}, "mxfp4 is a block format"),
    ("/api/arithmetic", {"format": "float16", "op": "add", "a": "1", "b": "2", "rounding": "up"},
     "Unknown rounding 'up'"),
    ("/api/arithmetic", {"format": "float16", "op": "add", "a": "1", "b": "2", "result_format": "mxfp8_e4m3"},
     "mxfp8_e4m3 is a block format"),
    ("/api/arithmetic", {"format": "custom", "op": "add", "a": "1", "b": "2"}, "A custom format needs its layout"),
    ("/api/arithmetic", {"format": "float16", "op": "add", "a": "1", "b": "2", "seed": "-1"}, "The seed must be"),
    ("/api/arithmetic/chain", {"format": "float16", "a": "1", "step": ["add:1", "mul"]},
     "Step 2: Each step of a chain but sqrt needs one operand"),
    ("/api/arithmetic/chain", {"format": "float16", "a": "1", "step": ["add:1"] * 33}, "at most 32 steps"),
])
def test_bad_input_gets_a_sentence(client, path, query, sentence):
    response = client.get(path, params=query)
    assert response.status_code == 422 and sentence in response.json()["detail"]


def test_an_unknown_format_is_not_found(client):
    response = _get(client, format="float7", op="add", a="1", b="2")
    assert response.status_code == 404 and "Unknown format 'float7'" in response.json()["detail"]


@pytest.mark.parametrize("format_id", ["float128", "float64"])
def test_the_costliest_operands_stay_cheap_and_exact(client, format_id):
    """Division of the widest format's extremes: an exact quotient with a denominator of thousands of bits."""
    body = _get(client, format=format_id, op="div", a="0x1p-16494" if format_id == "float128" else "5e-324",
                b="1e4932" if format_id == "float128" else "1.7e308").json()
    assert body["flags"] == ["inexact", "underflow"] and body["result"]["value"] == "0"
