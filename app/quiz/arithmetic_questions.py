"""Questions generated from the arithmetic core (app/formats/arithmetic.py): a small addend beside a power of two,
and the flags a product raises. Their answers and explanations are computed by the core, never written."""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction

from app.formats import FLAGS, Phrase, Real, get_format, operate, rule
from app.quiz.generator_params import generated_id, read_pattern, sample_pattern
from app.quiz.messages import N_, Message
from app.quiz.questions import Choice, MultipleSelect, Numeric, Question, worded

_EXACT = Message(N_("Type it exactly: a decimal, a fraction such as 1025/1024 or a hex float such as 0x1.004p0."))


def _message(phrase: str) -> Message | str:
    """A core sentence (a Phrase, its words translatable) as the quiz's message."""
    if not isinstance(phrase, Phrase):
        return phrase
    return Message(phrase.template, {name: _message(value) for name, value in phrase.params.items()})


# 2^j + d × 2^(j-k) for k around the format's mantissa width: exact, a step, a tie to even, below half a step
_SMALL_ADDEND = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2")
_POWERS = range(-2, 3)  # j
_MULTIPLES = (1, 3)  # d


def _sample_small_addend(rng: random.Random) -> tuple[str, str, str, str]:
    spec = get_format(rng.choice(_SMALL_ADDEND))
    return (spec.id, str(rng.choice(_POWERS)), str(spec.mantissa_bits + rng.randint(-1, 2)),
            str(rng.choice(_MULTIPLES)))


def _small_addend(format_id: str, j: str, k: str, d: str) -> Numeric:
    if format_id not in _SMALL_ADDEND:
        raise ValueError(f"{format_id!r} is not drawn by this generator")
    spec = get_format(format_id)
    power, shift, multiple = (int(t) for t in (j, k, d))  # ValueError for anything but an integer
    if (power not in _POWERS or multiple not in _MULTIPLES or (j, k, d) != (str(power), str(shift), str(multiple))
            or not spec.mantissa_bits - 1 <= shift <= spec.mantissa_bits + 2):
        raise ValueError(f"{(j, k, d)!r} are not parameters this generator draws for {format_id}")
    a, b = Fraction(2) ** power, multiple * Fraction(2) ** (power - shift)
    done = operate("add", (Real.of(a), Real.of(b)), spec)
    facts = {"format": spec.name, "a": Real.of(a).exact_string(), "b": Real.of(b).exact_string(),
             "exactly": _EXACT, "m": spec.mantissa_bits, "step": Real.of(a / 2**spec.mantissa_bits).exact_string()}
    return worded(
        Numeric, id=generated_id("small_addend", format_id, j, k, d), topic="mixed_precision",
        answer=done.result.encoding.value.fraction,
        prompt=Message(N_("In %(format)s, which value does %(a)s + %(b)s give, rounded to nearest with ties to even? "
                          "%(exactly)s"), facts),
        explanation=Message(N_("%(format)s keeps %(m)s mantissa bits, so its step just above %(a)s is %(step)s. "
                               "%(rule)s"), facts | {"rule": _message(rule(done, "nearest_even"))}),
    )


# A product of two normal values of the format: overflow, a rounding, or exact, by the draw
_PRODUCT = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2")
_SPREAD = 9  # exponents within ±9 of 0: FP16's products reach past its max, FP8's often do
_NONE = len(FLAGS)  # the choice "none of them"
_FLAG_WORDS = {"inexact": N_("inexact"), "underflow": N_("underflow"), "overflow": N_("overflow"),
               "invalid": N_("invalid"), "divide_by_zero": N_("divide by zero")}


def _sample_product(rng: random.Random) -> tuple[str, str, str]:
    format_id, a = sample_pattern(rng, _PRODUCT, _SPREAD, signed=True)
    return format_id, a, sample_pattern(rng, (format_id,), _SPREAD, signed=True)[1]


def _product(format_id: str, a: str, b: str) -> MultipleSelect:
    x, y = (read_pattern(_PRODUCT, format_id, p, signed=True) for p in (a, b))
    if max(abs(e.exponent or 0) for e in (x, y)) > _SPREAD:
        raise ValueError(f"{a!r} or {b!r} is outside the exponents this generator draws")
    spec = x.format
    done = operate("mul", (x.value, y.value), spec)
    facts = {"format": spec.name, "a": x.value.exact_string(), "b": y.value.exact_string(),
             "exact": done.exact.value.exact_string(), "stored": done.result.encoding.value.exact_string()}
    why = _message(rule(done, "nearest_even"))
    options = tuple(
        Choice.of(Message(_FLAG_WORDS[flag]), Message(N_("Raised: %(why)s") if flag in done.flags else
                                                      N_("Not raised: %(why)s"), {"why": why}))
        for flag in FLAGS) + (Choice.of(Message(N_("none of them")), Message(
            N_("The product is exact: no flag is raised.") if not done.flags else
            N_("At least one flag is raised: %(why)s"), {"why": why})),)
    answers = frozenset(FLAGS.index(f) for f in done.flags) or frozenset({_NONE})
    return worded(
        MultipleSelect, id=generated_id("product_flags", format_id, a, b), topic="mixed_precision",
        options=options, answers=answers,
        prompt=Message(N_("%(a)s × %(b)s in %(format)s, rounded to nearest with ties to even: which IEEE 754 flags "
                          "does the multiplication raise? Pick every one."), facts),
        explanation=Message(N_("The exact product is %(exact)s; %(format)s stores %(stored)s. %(why)s"),
                            facts | {"why": why}),
    )


# (name, how its parameters are drawn, how a question is built from them), registered in app/quiz/generators.py
ARITHMETIC_GENERATORS: tuple[tuple[str, Callable[[random.Random], tuple[str, ...]], Callable[..., Question]], ...] = (
    ("small_addend", _sample_small_addend, _small_addend),
    ("product_flags", _sample_product, _product),
)
