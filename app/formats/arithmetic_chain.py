"""A chain of operations: a tape that starts from one stored value, each step an operation on the running result
and one new operand (none for sqrt), each result rounded to the result format. Beside it runs the exact chain, the
same operations on the same stored operands with no rounding between them, so the drift of the rounded one shows."""

from __future__ import annotations

from dataclasses import dataclass

from app.formats.arithmetic import Exact, Op, Operated, apply, exact_result, operation
from app.formats.codec import encode_drawn
from app.formats.encoding import Rounded
from app.formats.exact import Real
from app.formats.parse import InputError, parse_number
from app.formats.rounding import OverflowPolicy, Rounding, seeded_draw
from app.formats.spec import FormatSpec
from app.messages import N_

MAX_STEPS = 32
CHAIN_OPERATIONS = ("add", "sub", "mul", "div", "sqrt")  # one running value and at most one new operand


@dataclass(frozen=True)
class ChainStep:
    """One step as asked: the operation and its new operand (None for sqrt)."""

    op: Op
    operand: Real | None


@dataclass(frozen=True, kw_only=True)
class Chain:
    """The start as stored, each step done on the rounded running value, and the exact chain beside it."""

    start: Rounded
    steps: tuple[Operated, ...]
    exact: tuple[Exact, ...]  # after each step, with no rounding between steps

    @property
    def result(self) -> Rounded:
        return self.steps[-1].result if self.steps else self.start


def chain_step(op: str, operand: Real | None) -> ChainStep:
    """A step of a chain; InputError for an operation a chain does not take or a missing or extra operand."""
    name = operation(op)
    if name not in CHAIN_OPERATIONS:
        raise InputError(template=N_("A chain's step takes the running value and one operand: %(ops)s; %(input)s "
                                     "is not one of them."), params={"ops": ", ".join(CHAIN_OPERATIONS), "input": op})
    if (operand is None) != (name == "sqrt"):
        raise InputError(template=N_("Each step of a chain but sqrt needs one operand, as in add:0.1; sqrt takes "
                                     "none."))
    return ChainStep(name, operand)


def parse_chain_step(text: str) -> ChainStep:
    """A step as a URL writes it: `add:0.1`, `mul:3`, `sqrt`."""
    op, colon, operand = text.strip().partition(":")
    return chain_step(op.strip(), parse_number(operand) if colon else None)


def run_chain(
    start: Real, steps: tuple[ChainStep, ...], spec: FormatSpec, result_spec: FormatSpec | None = None,
    rounding: Rounding = "nearest_even", overflow: OverflowPolicy = "format_default", seed: int | None = None,
) -> Chain:
    """Store `start` and each operand in `spec`, then do each step on the running value, rounding each result to
    `result_spec` (`spec` by default). One stochastic generator draws for the start, then for each step's operand
    and result in turn."""
    if len(steps) > MAX_STEPS:
        raise InputError(template=N_("A chain has at most %(most)s steps; this one has %(count)s."),
                         params={"most": str(MAX_STEPS), "count": str(len(steps))})
    result_spec = result_spec or spec
    draw = seeded_draw(seed) if rounding == "stochastic" else None
    first = encode_drawn(spec, start, rounding, overflow, draw)
    running, exact = first, Exact(first.encoding.value)
    done: list[Operated] = []
    exacts: list[Exact] = []
    for step in steps:
        operand = () if step.operand is None else (encode_drawn(spec, step.operand, rounding, overflow, draw),)
        done.append(apply(step.op, (running, *operand), result_spec, rounding, overflow, draw))
        running = done[-1].result
        stored = tuple(o.encoding.value for o in operand)
        following = exact_result(step.op, (exact.value, *stored), rounding, result_spec)
        exact = Exact(following.value, exact.rational and following.rational, following.special)
        exacts.append(exact)
    return Chain(start=first, steps=tuple(done), exact=tuple(exacts))
