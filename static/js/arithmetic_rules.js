// The one sentence on the rule that decided an operation's result, as app/formats/arithmetic_rules.py says it (the
// reference; held to it by tests/js/test_arithmetic_parity.py): the special case, the overflow or underflow, the
// rounding between two neighbours, or an exact result. A Phrase of words.js: English as a string, said in the
// page's language.

import { hasNoValue } from "./arithmetic_core.js";
import { nextDown, nextUp } from "./codec_decode.js";
import { exactString, ofFraction, signed } from "./codec_values.js";
import { compare, layout, roundedDigits } from "./exact.js";
import { Phrase } from "./words.js";

// Phrases, so that the build finds each sentence and the page carries its translation (script_words.py)
export const SPECIAL_RULES = {
  nan_operand: new Phrase("A NaN operand makes the result NaN: NaN in, NaN out."),
  inf_minus_inf: new Phrase("inf − inf has no value: the result is NaN (invalid operation)."),
  zero_times_inf: new Phrase("0 × inf has no value: the result is NaN (invalid operation)."),
  zero_over_zero: new Phrase("0 / 0 has no value: the result is NaN (invalid operation)."),
  inf_over_inf: new Phrase("inf / inf has no value: the result is NaN (invalid operation)."),
  sqrt_negative: new Phrase("A negative number has no real square root: the result is NaN (invalid operation)."),
  divide_by_zero: new Phrase("A nonzero number divided by zero is an infinity with the quotient's sign (division by "
    + "zero)."),
};
export const ROUNDING_NAMES = {
  nearest_even: new Phrase("rounding to nearest, ties to even,"),
  nearest_away: new Phrase("rounding to nearest, ties away from zero,"),
  toward_zero: new Phrase("rounding toward zero"),
  toward_positive: new Phrase("rounding up (toward +inf)"),
  toward_negative: new Phrase("rounding down (toward −inf)"),
  stochastic: new Phrase("stochastic rounding"),
};
export const SHORT_DIGITS = 17; // a value in a sentence: exact where it is short, else this many digits after "≈"

/** A value as a sentence shows it: exact up to 24 characters, else "≈" and 17 significant digits. */
export function short(x) {
  const text = exactString(x);
  if (text.length <= 24 || x.kind !== "finite") return text;
  return (x.negative ? "-≈" : "≈") + layout(...roundedDigits({ num: x.num, den: x.den }, SHORT_DIGITS).slice(0, 2));
}

/** Why the result of an operation (arithmetic_core.js's apply or operate) is what it is, in one sentence. */
export function rule(done, rounding) {
  const { exact, result } = done, spec = result.encoding.spec, stored = result.encoding.value;
  const names = { name: spec.name, exact: short(exact.value), stored: short(stored) };
  if (exact.special) return SPECIAL_RULES[exact.special];
  if (hasNoValue(exact, result)) {
    return new Phrase("%(exact)s has no value in %(name)s: it is stored as NaN (invalid operation).", names);
  }
  if (exact.value.kind === "inf") {
    return new Phrase("An infinite operand gives an infinite result, stored as %(stored)s.", names);
  }
  if (result.overflowed) {
    return new Phrase("%(exact)s is beyond %(name)s's largest finite value %(max)s: overflow to %(stored)s.",
      { ...names, max: short(ofFraction(spec.maxValue)) });
  }
  if (!done.flags.includes("inexact")) {
    return new Phrase("%(exact)s is a value of %(name)s: the result is exact.", names);
  }
  const named = { ...names, rounding: ROUNDING_NAMES[rounding] };
  if (stored.kind === "finite" && stored.num === 0n && exact.value.num !== 0n) {
    return new Phrase("%(exact)s is too small for %(name)s: %(rounding)s it becomes %(stored)s (underflow).", named);
  }
  const [below, above] = neighbours(done);
  if (done.flags.includes("underflow")) {
    return new Phrase("%(exact)s lies between the %(name)s values %(below)s and %(above)s, below its smallest normal "
      + "value: %(rounding)s it becomes %(stored)s, with fewer significant bits (underflow).", { ...named, below, above });
  }
  return new Phrase("%(exact)s lies between the %(name)s values %(below)s and %(above)s: %(rounding)s it becomes "
    + "%(stored)s.", { ...named, below, above });
}

/** Real.fraction: a finite value's signed rational; an error for inf and NaN, as in Python. */
function fractionOf(v) {
  if (v.kind !== "finite") throw new RangeError(`${v.kind} has no exact value`);
  return signed(v);
}

/** The two values of the format on either side of the exact result, as sentences show them. */
function neighbours(done) {
  const encoding = done.result.encoding, exact = fractionOf(done.exact.value);
  if (compare(fractionOf(encoding.value), exact) < 0) {
    const other = nextUp(encoding);
    return [short(encoding.value), other ? short(other.value) : "—"];
  }
  const other = nextDown(encoding);
  return [other ? short(other.value) : "—", short(encoding.value)];
}
