// One operation on stored values in the browser, as app/formats/arithmetic.py carries it out (the reference;
// tests/js/test_arithmetic_parity.py holds the two together in Node): the operands are stored in their format
// (rounded on entry, as encode stores a typed value), the operation is carried out exactly on the stored values
// (BigInt rationals, as codec_values.js writes reals), and the exact result is rounded once to the result format
// with the chosen mode and that format's overflow rule. A square root is exact only for squares; for the others a
// stand-in strictly inside the interval of 2^-k that holds the true root, k being SQRT_GUARD_BITS past the result
// format's finest step, so that no rounding boundary splits it and every mode rounds as the true root would. The
// flags are IEEE 754-2019's (section 7), tininess detected after rounding. Under stochastic rounding one generator
// of the seed draws for the operands in order, then for the result, as the server's does.

import { encodeDrawn, randomSeed } from "./codec.js";
import { prepare } from "./codec_decode.js";
import { codePoints, quoted } from "./codec_quote.js";
import { roundingMode, roundsUp } from "./codec_rounding.js";
import { InputError, isZero, ofFraction, real, signed } from "./codec_values.js";
import { bitLength, compare, fraction, gcd, pow2, subtractFromDyadic } from "./exact.js";
import { MersenneTwister } from "./mt19937.js";

export const OPERATIONS = ["add", "sub", "mul", "div", "sqrt", "fma"];
export const ARITY = { add: 2, sub: 2, mul: 2, div: 2, sqrt: 1, fma: 3 };
export const SYMBOLS = { add: "+", sub: "−", mul: "×", div: "/" };
export const FLAGS = ["inexact", "underflow", "overflow", "invalid", "divide_by_zero"];
// The specials whose result is NaN though no operand is: the invalid operations
const INVALID = ["inf_minus_inf", "zero_times_inf", "zero_over_zero", "inf_over_inf", "sqrt_negative"];
export const SQRT_GUARD_BITS = 70;

/** The operation of this name; an InputError, with the operations there are, for any other name. */
export function operation(name) {
  if (!OPERATIONS.includes(name)) {
    throw new InputError("Unknown operation %(input)s; choose one of: %(ops)s.",
      { input: quoted(codePoints(name).slice(0, 40).join("")), ops: OPERATIONS.join(", ") });
  }
  return name;
}

/** Store each value (a real of codec_values.js) in `spec`, apply `op` exactly, and store the result in
 * `resultSpec` (`spec` when null): {op, operands, exact, result, flags}, operands and result Rounded values of
 * the codec. Under stochastic rounding one generator of `seed` (a BigInt; null, a fresh one) draws for the
 * operands in order, then for the result. */
export function operate(op, values, spec, resultSpec = null, rounding = "nearest_even", overflow = "format_default",
  seed = null) {
  op = operation(op);
  if (values.length !== ARITY[op]) throw new RangeError(`${op} takes ${ARITY[op]} operands, not ${values.length}`);
  const rng = roundingMode(rounding) === "stochastic" ? new MersenneTwister(seed ?? randomSeed()) : null;
  const operands = values.map((v) => encodeDrawn(spec, v, rounding, overflow, rng));
  return apply(op, operands, resultSpec ?? spec, rounding, overflow, rng);
}

/** `op` on values stored already (Rounded values), its result stored in `resultSpec` (a chain's step); `rng` the
 * generator of stochastic rounding, null in the other modes. */
export function apply(op, operands, resultSpec, rounding, overflow, rng) {
  const stored = operands.map((o) => o.encoding.value);
  const exact = exactResult(op, stored, rounding, resultSpec);
  const result = encodeDrawn(resultSpec, exact.value, rounding, overflow, rng);
  return { op, operands, exact, result, flags: raised(exact, result, rounding) };
}

// -- rationals ({num, den}, den > 0, reduced) -----------------------------------------------------------------

const isDyadic = (x) => (x.den & (x.den - 1n)) === 0n;
const negate = (x) => ({ num: -x.num, den: x.den });

/** x + y; where either is dyadic (every value a format stores is), only twos are taken out. */
export function plus(x, y) {
  if (isDyadic(x)) return subtractFromDyadic(x, negate(y));
  if (isDyadic(y)) return subtractFromDyadic(y, negate(x));
  return fraction(x.num * y.den + y.num * x.den, x.den * y.den);
}

/** x × y of reduced rationals, cancelled crosswise: each gcd is of a numerator and the other's denominator. */
export function times(x, y) {
  const g = gcd(x.num, y.den), h = gcd(y.num, x.den);
  return fraction((x.num / g) * (y.num / h), (x.den / h) * (y.den / g));
}

/** x / y for y ≠ 0. */
export const over = (x, y) => times(x, fraction(y.den, y.num));

/** ⌊√n⌋ of an integer n ≥ 0: Python's math.isqrt (its Newton steps at doubling precision, so the work is a few
 * divisions of the final size rather than one per bit of precision). */
export function isqrt(n) {
  if (n < 2n) return n;
  const c = (bitLength(n) - 1) >> 1;
  let a = 1n, d = 0;
  for (let s = bitLength(BigInt(c)) - 1; s >= 0; s--) {
    const e = d;
    d = c >> s;
    a = (a << BigInt(d - e - 1)) + (n >> BigInt(2 * c - e - d + 1)) / a;
  }
  return a * a > n ? a - 1n : a;
}

// -- the exact operation -------------------------------------------------------------------------------------

const exactly = (value, rational = true) => ({ value, rational, special: null });
const nan = () => real(false, undefined, "nan");
const inf = (negative) => real(negative, undefined, "inf");
const special = (value, name) => ({ value, rational: true, special: name });
const magnitude = (v) => ({ num: v.num, den: v.den });

/** IEEE 754's result of `op` before rounding: its special cases (sections 6 and 7.2), else the exact value
 * ({value, rational, special}, special naming why a result is NaN or infinite where no operand is). */
export function exactResult(op, x, rounding, resultSpec) {
  if (x.some((v) => v.kind === "nan")) return special(nan(), "nan_operand");
  if (op === "sqrt") return squareRoot(x[0], resultSpec);
  if (op === "div") return quotient(x[0], x[1]);
  if (op === "sub") return sum(x[0], { ...x[1], negative: !x[1].negative }, rounding);
  if (op === "add") return sum(x[0], x[1], rounding);
  const p = product(x[0], x[1]);
  if (op === "mul" || p.special) return p;
  return sum(p.value, x[2], rounding);
}

function sum(a, b, rounding) {
  if (a.kind === "inf" || b.kind === "inf") {
    if (a.kind === b.kind && a.negative !== b.negative) return special(nan(), "inf_minus_inf");
    return exactly(a.kind === "inf" ? a : b);
  }
  const total = plus(signed(a), signed(b));
  if (total.num === 0n) { // an exact zero sum is +0, or -0 rounding down, unless both addends are -0 (section 6.3)
    return exactly(real(a.negative === b.negative ? a.negative : rounding === "toward_negative"));
  }
  return exactly(ofFraction(total));
}

function product(a, b) {
  const negative = a.negative !== b.negative;
  if (a.kind === "inf" || b.kind === "inf") {
    return isZero(a) || isZero(b) ? special(nan(), "zero_times_inf") : exactly(inf(negative));
  }
  return exactly(real(negative, times(magnitude(a), magnitude(b))));
}

function quotient(a, b) {
  const negative = a.negative !== b.negative;
  if (a.kind === "inf") return b.kind === "inf" ? special(nan(), "inf_over_inf") : exactly(inf(negative));
  if (b.kind === "inf") return exactly(real(negative));
  if (isZero(b)) return isZero(a) ? special(nan(), "zero_over_zero") : special(inf(negative), "divide_by_zero");
  return exactly(real(negative, over(magnitude(a), magnitude(b))));
}

function squareRoot(a, resultSpec) {
  if (isZero(a)) return exactly(a); // sqrt(-0) is -0
  if (a.negative) return special(nan(), "sqrt_negative");
  if (a.kind === "inf") return exactly(a);
  const { num, den } = a, rootNum = isqrt(num), rootDen = isqrt(den);
  if (rootNum * rootNum === num && rootDen * rootDen === den) {
    return exactly(real(false, { num: rootNum, den: rootDen }));
  }
  // x = a · 4^k is no perfect square (else the root were rational), so with n = isqrt(floor(x)) the root scaled by
  // 2^k lies strictly in (n, n + 1): the stand-in is its midpoint, on a grid of 2^-(k+1) whatever a's denominator
  const k = finestStepBits(prepare(resultSpec)) + SQRT_GUARD_BITS;
  const n = isqrt(k >= 0 ? (num << BigInt(2 * k)) / den : num / (den << BigInt(-2 * k)));
  const odd = 2n * n + 1n;
  return exactly(real(false, k >= -1 ? fraction(odd, 1n << BigInt(k + 1)) : fraction(odd << BigInt(-k - 1), 1n)),
    false);
}

/** k such that 2^-k is at most the format's smallest step and its ties: every rounding boundary of the format lies
 * on the grid of 2^-k, so none falls strictly inside an interval of that grid. */
export function finestStepBits(s) {
  if (s.kind === "float") return s.mantissa_bits - s.emin + 1;
  if (s.kind === "codebook") return Math.max(...s.codes.map((c) => bitLength(c.den))) + 1; // dyadic values
  return 1; // integers round at halves
}

// -- the flags ---------------------------------------------------------------------------------------------

/** The IEEE 754 flags of an operation with this exact result, stored as `result` (a Rounded), in FLAGS' order. */
export function raised(exact, result, rounding) {
  const value = exact.value, stored = result.encoding.value, flags = new Set();
  if (INVALID.includes(exact.special)) flags.add("invalid");
  if (exact.special === "divide_by_zero") flags.add("divide_by_zero");
  if (hasNoValue(exact, result)) {
    flags.add("invalid");
  } else if (value.kind === "finite") {
    const inexact = stored.kind !== "finite" || compare(signed(stored), signed(value)) !== 0 || !exact.rational;
    if (result.overflowed) {
      flags.add("overflow").add("inexact");
    } else if (inexact) {
      flags.add("inexact");
      if (tiny(value, result.encoding.spec, rounding)) flags.add("underflow");
    }
  }
  return FLAGS.filter((f) => flags.has(f));
}

/** Whether a result that is a number (or an infinity) is stored as NaN for want of a value, not by overflow
 * (has_no_value): E8M0's zero and negatives, an infinity in a format without one. */
export const hasNoValue = (exact, result) => result.encoding.value.kind === "nan" && exact.value.kind !== "nan"
  && !result.overflowed;

/** IEEE 754's tininess after rounding: a nonzero value that, rounded with the format's precision but no bound on
 * its exponent, is below the smallest normal. Under stochastic rounding, which IEEE 754 does not define, tininess
 * is judged before rounding. Integers and codebooks have no normal range: never tiny. */
export function tiny(value, spec, rounding) {
  const s = prepare(spec);
  if (s.kind !== "float" || isZero(value) || compare(value, pow2(s.emin)) >= 0) return false;
  if (rounding === "stochastic") return true;
  // just below the smallest normal, the unbounded format's step is 2^(emin - 1 - m): round to that grid
  const steps = times(magnitude(value), pow2(s.mantissa_bits + 1 - s.emin));
  let n = steps.num / steps.den;
  const r = steps.num % steps.den;
  if (r && roundsUp(rounding, value.negative, r, steps.den, n % 2n === 0n, null)) n += 1n;
  return n < 2n << s.m;
}
