"""The one sentence on the rule that decided an operation's result: the special case, the overflow or underflow,
the rounding between two neighbours, or an exact result. A Phrase: English as a str, translated where shown."""

from __future__ import annotations

from app.formats.arithmetic import Operated, has_no_value
from app.formats.exact import Real, rounded_decimal
from app.formats.neighbours import next_down, next_up
from app.messages import N_, Phrase

SPECIAL_RULES = {
    "nan_operand": N_("A NaN operand makes the result NaN: NaN in, NaN out."),
    "inf_minus_inf": N_("inf − inf has no value: the result is NaN (invalid operation)."),
    "zero_times_inf": N_("0 × inf has no value: the result is NaN (invalid operation)."),
    "zero_over_zero": N_("0 / 0 has no value: the result is NaN (invalid operation)."),
    "inf_over_inf": N_("inf / inf has no value: the result is NaN (invalid operation)."),
    "sqrt_negative": N_("A negative number has no real square root: the result is NaN (invalid operation)."),
    "divide_by_zero": N_("A nonzero number divided by zero is an infinity with the quotient's sign (division by "
                         "zero)."),
}
ROUNDING_NAMES = {
    "nearest_even": N_("rounding to nearest, ties to even,"),
    "nearest_away": N_("rounding to nearest, ties away from zero,"),
    "toward_zero": N_("rounding toward zero"),
    "toward_positive": N_("rounding up (toward +inf)"),
    "toward_negative": N_("rounding down (toward −inf)"),
    "stochastic": N_("stochastic rounding"),
}
SHORT_DIGITS = 17  # a value in a sentence: exact where it is short, else this many significant digits after "≈"


def short(x: Real) -> str:
    """A value as a sentence shows it: exact up to 24 characters, else "≈" and 17 significant digits."""
    text = x.exact_string()
    if len(text) <= 24 or not x.is_finite:
        return text
    return ("-≈" if x.negative else "≈") + rounded_decimal(x.magnitude, SHORT_DIGITS)


def rule(done: Operated, rounding: str) -> Phrase:
    """Why the result is what it is, in one sentence."""
    exact, result = done.exact, done.result
    spec, stored = result.encoding.format, result.encoding.value
    names = {"name": spec.name, "exact": short(exact.value), "stored": short(stored)}
    if exact.special:
        return Phrase(SPECIAL_RULES[exact.special])
    if has_no_value(exact, result):
        return Phrase(N_("%(exact)s has no value in %(name)s: it is stored as NaN (invalid operation)."), names)
    if exact.value.kind == "inf":
        return Phrase(N_("An infinite operand gives an infinite result, stored as %(stored)s."), names)
    if result.overflowed:
        return Phrase(N_("%(exact)s is beyond %(name)s's largest finite value %(max)s: overflow to %(stored)s."),
                      names | {"max": short(Real.of(spec.max))})
    if "inexact" not in done.flags:
        return Phrase(N_("%(exact)s is a value of %(name)s: the result is exact."), names)
    if stored.is_zero and not exact.value.is_zero:
        return Phrase(N_("%(exact)s is too small for %(name)s: %(rounding)s it becomes %(stored)s (underflow)."),
                      names | {"rounding": Phrase(ROUNDING_NAMES[rounding])})
    below, above = _neighbours(done)
    sentence = (N_("%(exact)s lies between the %(name)s values %(below)s and %(above)s, below its smallest normal "
                   "value: %(rounding)s it becomes %(stored)s, with fewer significant bits (underflow).")
                if "underflow" in done.flags else
                N_("%(exact)s lies between the %(name)s values %(below)s and %(above)s: %(rounding)s it becomes "
                   "%(stored)s."))
    return Phrase(sentence, names | {"below": below, "above": above, "rounding": Phrase(ROUNDING_NAMES[rounding])})


def _neighbours(done: Operated) -> tuple[str, str]:
    """The two values of the format on either side of the exact result, as sentences show them."""
    encoding, exact = done.result.encoding, done.exact.value.fraction
    if encoding.value.fraction < exact:
        other = next_up(encoding)
        return short(encoding.value), short(other.value) if other else "—"
    other = next_down(encoding)
    return (short(other.value) if other else "—"), short(encoding.value)

