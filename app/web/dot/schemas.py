"""The JSON of POST /api/dot, field by field, for /openapi.json. Exact values travel as strings."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, Strict

from app.formats import (
    DEFAULT_PROMOTE_EVERY,
    DOT_DISTRIBUTIONS,
    DOT_FORMATS,
    DOT_METHODS,
    MAX_DOT_LENGTH,
    MAX_DOT_SEED,
    MAX_INPUT_LENGTH,
    VALUE_PATTERN,
    dot_methods_for,
)
from app.web.platform.schemas import number, one_of, stated, whole

# A value as parse_number reads it, finite: VALUE_PATTERN without inf, infinity and nan
FINITE_PATTERN = VALUE_PATTERN.replace("inf|infinity|nan|", "", 1)
DOUBLE_MAX = 1.7976931348623157e308
Typed = Annotated[Annotated[float, Strict()] | str, stated({"anyOf": [number(-DOUBLE_MAX, DOUBLE_MAX),
                                                 {"type": "string", "pattern": FINITE_PATTERN,
                                                  "maxLength": MAX_INPUT_LENGTH}]})]


def _methods_take_the_format() -> dict[str, Any]:
    """The schema's way of saying "only methods that take the format": one branch per format."""
    return {"anyOf": [{"properties": {"format": {"const": f},
                                      "methods": {"anyOf": [{"type": "array", "items": one_of(dot_methods_for(f))},
                                                            {"type": "null"}]},
                                      "step_method": {"anyOf": [one_of(dot_methods_for(f)), {"type": "null"}]}}}
                      for f in DOT_FORMATS]}


class DotRequest(BaseModel):
    """Two vectors, typed (a and b) or drawn (distribution, n, seed), and how to accumulate their dot product."""

    model_config = ConfigDict(json_schema_extra=_methods_take_the_format())

    format: Annotated[str, stated(one_of(DOT_FORMATS))] = Field(
        "bfloat16", description="the input format the vectors are stored in: " + ", ".join(DOT_FORMATS))
    a: list[Typed] | None = Field(None, min_length=1, max_length=MAX_DOT_LENGTH, description=(
        "vector a: numbers, or strings as the visualiser reads them (0.1, 0x1.8p-3, 1/3), finite; stored in the "
        "format nearest-even, clamped to ± its largest value. Give a and b (as many numbers in each), or neither"))
    b: list[Typed] | None = Field(None, min_length=1, max_length=MAX_DOT_LENGTH,
                                  description="vector b, as a; as many numbers as a")
    distribution: Annotated[str, stated(one_of(DOT_DISTRIBUTIONS))] = Field(
        "normal", description="where a and b are not given, both are drawn from it: " + ", ".join(DOT_DISTRIBUTIONS))
    n: Annotated[int, stated(whole(1, MAX_DOT_LENGTH))] = Field(256, description="the length of drawn vectors")
    seed: Annotated[int, stated(whole(0, MAX_DOT_SEED))] = Field(0, description="the seed of numpy's default "
                                                                                "generator that draws them")
    methods: list[Annotated[str, stated(one_of(DOT_METHODS))]] | None = Field(
        None, description="the methods, among those that take the format (default: all of them): "
                          + ", ".join(DOT_METHODS))
    promote_every: Annotated[int, stated(whole(1, MAX_DOT_LENGTH))] = Field(
        DEFAULT_PROMOTE_EVERY, description="for promoted: elements between two promotions into FP32 (DeepSeek-V3's "
                                           "N_C = 128)")
    step: Annotated[int, stated(whole(1, MAX_DOT_LENGTH))] | None = Field(
        None, description="a step, 1 to the vectors' length: the answer shows the bits of the addition of that "
                          "element's product (the block that holds it, for the tensor cores)")
    step_method: Annotated[str, stated(one_of(DOT_METHODS))] | None = Field(
        None, description="the method whose step is shown (default: the first method); none for pairwise")


class TermAnswer(BaseModel):
    """One operand of a step, laid out on the step's columns."""

    role: str = Field(description="accumulator, product, corrected_product (Kahan: the product less the "
                                  "compensation), or sum")
    element: int | None = Field(description="the element whose product it is (1-based); null for the accumulator")
    value: str = Field(description="its exact value")
    kept: str = Field(description="what the method kept of it after alignment (the value itself where the sum is "
                                  "rounded, not the terms)")
    exponent: int | None = Field(description="the exponent of its leading bit; null for zero, inf or NaN")
    negative: bool = Field(description="its sign")
    bits: str = Field(description="its magnitude's bits, one per column from 2^top down; empty for inf or NaN")
    more_below: bool = Field(description="whether it has set bits below the last column")


class StepAnswer(BaseModel):
    """The bits of one step of one method: where it cut, and what it dropped."""

    method: str = Field(description="the method whose step this is")
    step: int = Field(description="the step asked for: the element count it ends at (1-based)")
    kind: str = Field(description="rounded_sum (the exact sum of two operands rounded once) or aligned_block (each "
                                  "term truncated at the cut, then summed and rounded)")
    first: int = Field(description="the first element this step adds (1-based)")
    last: int = Field(description="the last element this step adds")
    top: int = Field(description="the exponent of the first column")
    columns: int = Field(description="how many columns each bit string has")
    cut: int | None = Field(description="the exponent of the last bit kept; null where nothing is cut")
    terms: list[TermAnswer] = Field(description="each operand of the step: its bits on the columns, what was kept and "
                                                "what dropped")
    exact_sum: str = Field(description="the exact sum of the operands as they entered")
    exact_sum_bits: TermAnswer = Field(description="that exact sum, on the same columns")
    result: TermAnswer = Field(description="the step's result")
    lost: str = Field(description="exact_sum − result: what the step lost")
    promoted: list[str] | None = Field(description="promoted only: the FP32 total before and after this step's "
                                                   "promotion, where the step ends an interval")


class MethodAnswer(BaseModel):
    """One method's dot product and its error against the exact one."""

    method: str = Field(description="the method's id: input_format, fp32, promoted, pairwise, kahan, v100, a100, "
                                    "h100 or b200")
    name: str = Field(description="the method in words")
    output_format: str = Field(description="the format its result is stored in")
    value: str = Field(description="its result (exact string; inf, -inf or nan)")
    error: str = Field(description="value − exact (exact string)")
    rel_error: float | None = Field(description="|error| / |exact|; null when the exact value is 0 or the value not "
                                                "finite")
    ulp_error: float | None = Field(description="error in ulps of the output format at the exact value (≈)")
    running_error: list[float | None] = Field(description="|value − exact| after each of `steps` elements (≈); null "
                                                          "where not finite")


class DotAnswer(BaseModel):
    """A dot product of two stored vectors, accumulated several ways, against its exact value."""

    format: str = Field(description="the input format the vectors are stored in")
    n: int = Field(description="the vectors' length")
    drawn: bool = Field(description="whether the vectors were drawn (else typed)")
    a: list[str] = Field(description="vector a as stored (exact strings)")
    b: list[str] = Field(description="vector b as stored (exact strings)")
    clamped: int = Field(description="values beyond the format's largest, stored as ± its largest")
    zeroed: int = Field(description="values that were not zero and were stored as zero")
    promote_every: int = Field(description="for promoted: elements between two promotions into FP32")
    exact: str = Field(description="the exact dot product of the stored vectors (exact string)")
    steps: list[int] = Field(description="the element counts the running errors are given at (at most 200)")
    exact_running: list[float] = Field(description="the exact running dot product at each of `steps` (≈)")
    methods: list[MethodAnswer] = Field(description="each method asked for, in the order asked")
    step: StepAnswer | None = Field(description="the bits of the step asked for; null when none was asked, or for "
                                                "pairwise summation")
