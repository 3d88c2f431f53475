"""The arithmetic lab's JSON answers, each described once: an operation, a chain and its steps."""

from __future__ import annotations

from fractions import Fraction

from pydantic import BaseModel, Field

from app.formats import (
    ROUNDED_DIGITS,
    Chain,
    Exact,
    Operated,
    OverflowPolicy,
    Real,
    Rounded,
    Rounding,
    rounded_decimal,
    rule,
    ulp,
)
from app.web.visualise.schemas import RoundedAnswer
from app.web.visualise.serialise import real_json

FLAG_DOC = ("the IEEE 754 flags raised, in this order: inexact, underflow (tiny after rounding, and inexact), "
            "overflow, invalid, divide_by_zero")


def known_json(value: Real, rational: bool) -> tuple[str, bool]:
    """(decimal string, whether exact) of a value known exactly, or only to past 40 digits (an irrational root's
    stand-in, whose long exact decimal would claim digits that are not the root's): then to 40 digits."""
    if rational or not value.is_finite:
        return real_json(value)
    return ("-" if value.negative else "") + rounded_decimal(value.magnitude, ROUNDED_DIGITS), False


def _exact_fields(exact: Exact) -> tuple[str, bool]:
    return known_json(exact.value, exact.rational)


def ulp_error(result: Rounded) -> float | None:
    """stored − exact in units of the stored value's ulp (the gap above it), where both are finite."""
    error, gap = result.error, ulp(result.encoding)
    if not error.is_finite or gap is None or gap == 0:
        return None
    return float(error.fraction / Fraction(gap))


class OperationAnswer(BaseModel):
    """One operation on stored operands: each operand as stored, the exact result, the result as stored."""

    op: str = Field(description="add, sub, mul, div, sqrt or fma (a × b + c, one rounding)")
    format: str = Field(description="the operands' format")
    result_format: str = Field(description="the result's format")
    rounding: Rounding = Field(description="the rounding used for the operands and the result")
    overflow: OverflowPolicy = Field(description="the overflow policy used")
    operands: list[RoundedAnswer] = Field(description="a, b, c as stored in the format (as /encode answers each)")
    exact: str = Field(description="the exact result of the operation on the stored operands, as a decimal string "
                                   "(exact when exact_exact); inf, -inf or nan where it is one")
    exact_exact: bool = Field(description="whether exact is exact: false for an irrational square root (given to "
                                          "40 significant digits) or a decimal too long to write out")
    result: RoundedAnswer = Field(description="the exact result stored in result_format, as /encode answers; its "
                                              "input is the exact result and its error stored − exact")
    ulp_error: float | None = Field(description="stored − exact in units of the stored value's ulp (the gap to the "
                                                "next value of larger magnitude); null where either is not finite")
    flags: list[str] = Field(description=FLAG_DOC)
    rule: str = Field(description="one sentence on the rule that decided the result")

    @classmethod
    def of(cls, done: Operated, rounding: Rounding, overflow: OverflowPolicy) -> OperationAnswer:
        exact, exact_is_exact = _exact_fields(done.exact)
        return cls(op=done.op, format=done.operands[0].encoding.format.id,
                   result_format=done.result.encoding.format.id, rounding=rounding, overflow=overflow,
                   operands=[RoundedAnswer.of(o, rounding, overflow) for o in done.operands], exact=exact,
                   exact_exact=exact_is_exact, result=RoundedAnswer.of(done.result, rounding, overflow),
                   ulp_error=ulp_error(done.result), flags=list(done.flags), rule=str(rule(done, rounding)))


class ChainStepAnswer(BaseModel):
    """One step of a chain: the new operand as stored, the running value's result, the exact chain beside it."""

    op: str = Field(description="add, sub, mul, div or sqrt, on the running value")
    operand: RoundedAnswer | None = Field(description="the step's operand as stored; null for sqrt")
    result: RoundedAnswer = Field(description="the step's result as stored; its input is the exact result of this "
                                              "step on the rounded running value")
    flags: list[str] = Field(description=FLAG_DOC)
    rule: str = Field(description="one sentence on the rule that decided this step")
    exact_chain: str = Field(description="the chain so far with no rounding between steps (the operands stored)")
    exact_chain_exact: bool = Field(description="whether exact_chain is exact")
    drift: str = Field(description="result − exact_chain: what the roundings so far add up to, as a decimal string; "
                                   "inf or nan where either is not finite")
    drift_exact: bool = Field(description="whether drift is exact")


class ChainAnswer(BaseModel):
    """A chain of operations, each result rounded, beside the same chain done exactly."""

    format: str = Field(description="the operands' format")
    result_format: str = Field(description="the format each step's result is stored in")
    rounding: Rounding = Field(description="the rounding used")
    overflow: OverflowPolicy = Field(description="the overflow policy used")
    start: RoundedAnswer = Field(description="a, the chain's start, as stored")
    steps: list[ChainStepAnswer] = Field(description="each step in order")

    @classmethod
    def of(cls, chain: Chain, rounding: Rounding, overflow: OverflowPolicy) -> ChainAnswer:
        steps = []
        for done, exact in zip(chain.steps, chain.exact, strict=True):
            text, is_exact = _exact_fields(exact)
            drift = Rounded(encoding=done.result.encoding, input=exact.value).error
            drift_text, drift_exact = known_json(drift, exact.rational)
            steps.append(ChainStepAnswer(
                op=done.op, operand=RoundedAnswer.of(done.operands[1], rounding, overflow)
                if len(done.operands) > 1 else None, result=RoundedAnswer.of(done.result, rounding, overflow),
                flags=list(done.flags), rule=str(rule(done, rounding)), exact_chain=text,
                exact_chain_exact=is_exact, drift=drift_text, drift_exact=drift_exact))
        return cls(format=chain.start.encoding.format.id, result_format=chain.result.encoding.format.id,
                   rounding=rounding, overflow=overflow, start=RoundedAnswer.of(chain.start, rounding, overflow),
                   steps=steps)
