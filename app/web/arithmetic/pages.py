"""The arithmetic lab's page: /arithmetic (and /embed/arithmetic). One operation on stored operands, then the tape
that continues it, step by step; the query string is the whole state, so a GET form serves without JavaScript."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, fields
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from app.formats import (
    CHAIN_OPERATIONS,
    CUSTOM_ID,
    FLAGS,
    OPERATIONS,
    OVERFLOW_POLICIES,
    ROUNDINGS,
    SCALAR_FORMATS,
    ChainStep,
    FormatSpec,
    InputError,
    OverflowPolicy,
    Rounding,
    operate,
    overflow_policy,
    rounding_mode,
    run_chain,
)
from app.refusal import Refusal
from app.web.arithmetic import inputs
from app.web.arithmetic.data import arithmetic_data
from app.web.arithmetic.lessons import LESSONS, Lesson
from app.web.arithmetic.present import ChainRow, ResultView, arithmetic_url, chain_rows, result_view
from app.web.platform.catalogs import N_
from app.web.platform.decimal_comma import typed_number
from app.web.platform.refusal_sentences import refusal_sentence
from app.web.platform.rendering import EMBED_PREFIX, link_prefix, render
from app.web.visualise.inputs import MAX_SEED, layout_of, seed_value

router = APIRouter()

PATH = "/arithmetic"
DEFAULTS = {"format": "float16", "op": "mul", "a": "10000", "b": "10000"}


@dataclass(frozen=True, slots=True)
class ArithmeticPage:
    """What templates/arithmetic.html shows: the form as typed, the operation, the tape, the lessons."""

    values: dict[str, str]
    steps: list[str]
    layout: tuple[tuple[str, str], ...]
    prefix: str
    view: ResultView
    chain: list[ChainRow]
    spec: FormatSpec
    result_spec: FormatSpec
    data: str
    lessons: list[tuple[Lesson, str]]
    error: str | None = None
    error_english: bool = False
    formats: tuple[FormatSpec, ...] = SCALAR_FORMATS
    operations: tuple[str, ...] = OPERATIONS
    chain_operations: tuple[str, ...] = CHAIN_OPERATIONS
    flags: tuple[str, ...] = FLAGS
    roundings: tuple[str, ...] = ROUNDINGS
    overflows: tuple[str, ...] = OVERFLOW_POLICIES
    path: str = PATH

    def names(self) -> dict[str, Any]:
        return {field.name: getattr(self, field.name) for field in fields(self)}


def _tape(op: str, b: str | None, steps: list[str]) -> tuple[ChainStep, ...]:
    """The tape that continues the operation: its own step first (b as its operand), then the steps typed."""
    if op not in CHAIN_OPERATIONS:
        raise InputError(template=N_("A chain continues add, sub, mul, div or sqrt; fma takes three operands, so "
                                     "start the chain from its result instead."))
    first = op if op == "sqrt" else f"{op}:{typed_number(b or '')}"
    return inputs.chain_steps([first, *steps])


def _figure(spec: FormatSpec, result_spec: FormatSpec, op: str, texts: tuple[str, str, str], steps: list[str],
            mode: Rounding, policy: OverflowPolicy, seed: int | None, prefix: str) -> tuple[ResultView, list[ChainRow]]:
    """The operation's figure, and the tape's rows where steps continue it."""
    operands = inputs.operands(op, tuple(typed_number(t) for t in texts), spec)  # 0,1 on a Turkish page
    if not steps:
        return result_view(operate(op, operands, spec, result_spec, mode, policy, seed), mode, policy, prefix), []
    # the tape's first step is the operation itself, its draws the same: it is not done twice
    tape = run_chain(operands[0], _tape(op, texts[1], [typed_number(s) for s in steps]), spec, result_spec, mode,
                     policy, seed)
    return result_view(tape.steps[0], mode, policy, prefix), chain_rows(tape, mode, policy, prefix)


@router.get(PATH, include_in_schema=False)
@router.get(EMBED_PREFIX + PATH, include_in_schema=False)
def arithmetic_page(
    request: Request,
    format_id: Annotated[str, Query(alias="format")] = DEFAULTS["format"],
    op: str = DEFAULTS["op"],
    a: str = "",
    b: str = "",
    c: str = "",
    result_format: str = "",
    rounding: str = "nearest_even",
    overflow: str = "format_default",
    seed: str = "",
    step: Annotated[list[str] | None, Query()] = None,
    exponent_bits: str | None = None,
    mantissa_bits: str | None = None,
    bias: str | None = None,
    nan_style: str | None = None,
) -> HTMLResponse:
    """The lab; under /embed/ the same page, framed, its links kept in the frame."""
    prefix = link_prefix(request.url.path)
    if not request.query_params:  # the bare page opens on the source pages' example
        a, b = DEFAULTS["a"], DEFAULTS["b"]
    steps = [s for s in (step or []) if s.strip()]
    values = {"format": format_id, "op": op, "a": a, "b": b, "c": c, "result_format": result_format,
              "rounding": rounding, "overflow": overflow, "seed": seed}
    error, english = None, False
    layout = inputs.Layout(exponent_bits, mantissa_bits, bias, nan_style)
    try:
        mode, policy = rounding_mode(rounding), overflow_policy(overflow)
        spec, result_spec = inputs.formats(format_id, result_format or None, layout)
        drawn = seed_value(seed)
        if drawn is None and mode == "stochastic":
            drawn = secrets.randbelow(MAX_SEED + 1)
            values["seed"] = str(drawn)
        view, chain = _figure(spec, result_spec, op, (a, b, c), steps, mode, policy, drawn, prefix)
    except Refusal as refused:
        # The sentence, and the figure of the defaults hidden beneath it: the browser's script fills it in as soon
        # as the visitor types something it can read.
        error = refusal_sentence(refused)
        english = error == str(refused)
        spec = result_spec = inputs.formats(DEFAULTS["format"], None, inputs.Layout())[0]
        view, chain = _figure(spec, spec, DEFAULTS["op"], (DEFAULTS["a"], DEFAULTS["b"], ""), [], "nearest_even",
                              "format_default", None, prefix)
    page = ArithmeticPage(
        values=values, steps=steps, layout=layout_of(spec) if spec.id == CUSTOM_ID else (),
        prefix=prefix, view=view, chain=chain, spec=spec, result_spec=result_spec, data=arithmetic_data(prefix, spec),
        lessons=[(lesson, arithmetic_url(prefix, **lesson.query)) for lesson in LESSONS],
        error=error, error_english=english,
    )
    return render(request, "arithmetic.html", page.names(), fragment="figure", status_code=422 if error else 200)
