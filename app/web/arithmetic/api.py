"""GET /api/arithmetic (one operation on stored operands) and GET /api/arithmetic/chain (a chain of them)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.formats import CHAIN_OPERATIONS, CUSTOM_NAN_STYLES, MAX_STEPS, OPERATIONS, operate, run_chain
from app.web.arithmetic import inputs
from app.web.arithmetic.schemas import ChainAnswer, OperationAnswer
from app.web.platform.schemas import one_of, refused, stated
from app.web.visualise.api import TOO_LONG, VALUE_DOC, SeedText, Value
from app.web.visualise.inputs import seed_value
from app.web.visualise.rounding_query import ChosenOverflow, ChosenRounding

router = APIRouter(prefix="/api", tags=["arithmetic"])

FORMAT_DOC = ("a scalar format id from GET /api/formats (float16, bfloat16, float8_e4m3fn, int8, nf4, …), or "
              "custom with exponent_bits and mantissa_bits (bias and nan_style may follow)")
OperandFormat = Annotated[str, Query(alias="format", description=FORMAT_DOC, min_length=1)]
ResultFormat = Annotated[str | None, Query(description="the result's format, as format; by default the operands'. "
                                                       "FP16 × FP16 → float32 is exact; → float16 is not")]
OPERAND_DOC = VALUE_DOC + ", or a bit pattern of the operands' format (0x3c00, 0b…) for the value it holds"
Operand = Annotated[str | None, Query(description=OPERAND_DOC)]
ExponentBits = Annotated[str | None, Query(description="a custom format's exponent bits")]
MantissaBits = Annotated[str | None, Query(description="a custom format's mantissa bits")]
Bias = Annotated[str | None, Query(description="a custom format's bias (default IEEE's)")]
NanStyle = Annotated[str | None, Query(description=", ".join(CUSTOM_NAN_STYLES)), stated(one_of(CUSTOM_NAN_STYLES))]
REFUSED = refused("An unknown operation, format or rounding, a missing or unreadable operand, a block format or a "
                  "layout a custom format cannot have; the detail says which")
NO_FORMAT = refused("No format has this id; GET /api/formats lists them")


@router.get("/arithmetic", summary="One operation on stored operands: exact result, rounded result, IEEE flags",
            responses={404: NO_FORMAT, 414: TOO_LONG, 422: REFUSED})
def arithmetic(
    format_id: OperandFormat,
    op: Annotated[str, Query(description=", ".join(OPERATIONS) + " (fma: a × b + c with one rounding)", min_length=1),
                  stated(one_of(OPERATIONS))],
    a: Value, rounding: ChosenRounding, overflow: ChosenOverflow, b: Operand = None, c: Operand = None,
    result_format: ResultFormat = None, seed: SeedText = None, exponent_bits: ExponentBits = None,
    mantissa_bits: MantissaBits = None, bias: Bias = None, nan_style: NanStyle = None,
) -> OperationAnswer:
    """Each operand is stored in the format first (rounded as /encode rounds it), the operation is done exactly on
    the stored values, and the exact result is rounded once to result_format. Under stochastic rounding one
    generator of the seed draws for a, b, c, then the result."""
    spec, result_spec = inputs.formats(format_id, result_format, inputs.Layout(exponent_bits, mantissa_bits, bias,
                                                                                nan_style))
    values = inputs.operands(op, (a, b, c), spec)
    done = operate(op, values, spec, result_spec, rounding, overflow, seed_value(seed))
    return OperationAnswer.of(done, rounding, overflow)


@router.get("/arithmetic/chain", summary="A chain of operations, each result rounded, beside the exact chain",
            responses={404: NO_FORMAT, 414: TOO_LONG, 422: REFUSED})
def arithmetic_chain(
    format_id: OperandFormat, a: Value, rounding: ChosenRounding, overflow: ChosenOverflow,
    step: Annotated[list[str] | None, Query(description=f"repeat, in order, up to {MAX_STEPS}: op:operand with op "
                                                        f"one of {', '.join(CHAIN_OPERATIONS)}, as add:0.1 or "
                                                        "mul:3, or sqrt alone")] = None,
    result_format: ResultFormat = None, seed: SeedText = None, exponent_bits: ExponentBits = None,
    mantissa_bits: MantissaBits = None, bias: Bias = None, nan_style: NanStyle = None,
) -> ChainAnswer:
    """a is stored in the format; each step applies its operation to the running value and its operand (stored in
    the format), and rounds the result to result_format. exact_chain does the same with no rounding between steps."""
    spec, result_spec = inputs.formats(format_id, result_format, inputs.Layout(exponent_bits, mantissa_bits, bias,
                                                                                nan_style))
    steps = inputs.chain_steps(step or [])
    chain = run_chain(inputs.operands("sqrt", (a,), spec)[0], steps, spec, result_spec, rounding, overflow,
                      seed_value(seed))
    return ChainAnswer.of(chain, rounding, overflow)
