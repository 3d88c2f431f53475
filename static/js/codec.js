// The exact codec in the browser: bit pattern <-> exact value for every scalar format, on BigInt, answering
// what app/formats answers (codec.py, neighbours.py, parse.py, rounding.py) with the same bits and sentences.
// The Python core is the reference; tests/js/test_codec_parity.py holds the two together in Node. Specifications
// come from the server (app/web/visualise/codec_specs.py), never typed here.
//
// This module stores values (encode, encodeValue, stochasticOdds: the encoders and the Rounded value they make)
// and reads a bit pattern and a seed; the rest of the codec lives beside it and is re-exported from here, so that
// a page imports the codec from one place: codec_values.js (exact values, their text, errors), codec_decode.js
// (patterns to values, neighbours), codec_rounding.js (modes and policies), codec_parse.js (typed text) and
// codec_quote.js (quoting typed text in a refusal).

import { absolute, bitLength, compare, decimal, fraction, fractionText } from "./exact.js";
import { decode, floatBits, infBits, maxBits, nanBits, prepare } from "./codec_decode.js";
import { clean, parseValue, rawPattern } from "./codec_parse.js";
import { quotedHead } from "./codec_quote.js";
import { overflowPolicy, roundingMode, roundsTowardZero, roundsUp } from "./codec_rounding.js";
import { InputError, errorOf, isZero, realText, relative, relativeError, signed } from "./codec_values.js";
import { MersenneTwister } from "./mt19937.js";
import { Phrase } from "./words.js";

export { decode, nextDown, nextUp, ulp } from "./codec_decode.js";
export { SPACES, parseNumber, parseValue } from "./codec_parse.js";
export { quoted } from "./codec_quote.js";
export { OVERFLOW_POLICIES, ROUNDINGS, overflowPolicy, roundingMode } from "./codec_rounding.js";
export { InputError, SHORT_LENGTH, errorOf, exactString, realText, relative, relativeError, shown } from "./codec_values.js";

const MAX_SEED = (1n << 63n) - 1n;

/** The seed of stochastic rounding from its text (inputs.seed_value): null when none. */
export function seedValue(text) {
  if (text === null || text === undefined || text === "") return null;
  if (!/^[0-9]{1,19}$/.test(text) || BigInt(text) > MAX_SEED) {
    throw new InputError("The seed must be a whole number from 0 to %(most)s.", { most: MAX_SEED });
  }
  return BigInt(text);
}

// -- encoding ---------------------------------------------------------------------------------------------

// The error of an input stored as a pattern, and its relative error, worked out once: the rounding modes of one
// input mostly store the same pattern, and an input of 10^5 digits makes each of them a division of that size.
const errors = new WeakMap();

class Rounded {
  constructor(encoding, input, overflowed, underflowed, note = null) {
    Object.assign(this, { encoding, input, overflowed, underflowed, note });
  }

  get known() {
    let bySpec = errors.get(this.input);
    if (!bySpec) errors.set(this.input, (bySpec = new Map()));
    let byBits = bySpec.get(this.encoding.spec);
    if (!byBits) bySpec.set(this.encoding.spec, (byBits = new Map()));
    let known = byBits.get(this.encoding.bits);
    if (!known) byBits.set(this.encoding.bits, (known = {}));
    return known;
  }

  /** stored − input, exactly (inf or NaN where the difference is not finite). */
  get error() {
    const known = this.known;
    if (!known.error) known.error = errorOf(this.encoding.value, this.input);
    return known.error;
  }

  get relError() {
    const known = this.known;
    if (known.relError === undefined) known.relError = relativeError(this.error, this.input);
    return known.relError;
  }

  get relErrorText() { return relative(this.relError); }
  /** [exact decimal, whether exact] of the input and of the error, as serialise.rounded_json gives them. */
  get inputText() { return realText(this.input); }
  get errorText() { return realText(this.error); }
}

/** Store a value in the format, as app.formats.encode does; rounding and overflow by name, seed a BigInt or
 * null (a fresh random one). */
export function encodeValue(spec, x, rounding = "nearest_even", overflow = "format_default", seed = null) {
  const rng = roundingMode(rounding) === "stochastic" ? new MersenneTwister(seed ?? randomSeed()) : null;
  return encodeDrawn(spec, x, rounding, overflow, rng);
}

/** encodeValue with stochastic rounding's generator given (encode_drawn): one generator draws for several values,
 * in order (an operation's operands, then its result). */
export function encodeDrawn(spec, x, rounding, overflow, rng) {
  const s = prepare(spec);
  const mode = roundingMode(rounding), saturate = overflowPolicy(overflow) === "saturate";
  if (s.kind === "int") return encodeInt(s, x, mode, saturate, rng);
  if (s.kind === "codebook") return encodeCodebook(s, x, mode, rng);
  return encodeFloat(s, x, mode, saturate, rng);
}

/** Where stochastic rounding of x could go and how likely each is (app/formats/stochastic.py):
 * {down, up, pUp} of Rounded results and an exact chance, or null where the result is certain. */
export function stochasticOdds(spec, x, overflow = "format_default") {
  const s = prepare(spec), saturate = overflowPolicy(overflow) === "saturate", chances = [];
  const drawn = (draw) => {
    const rng = { draw };
    if (s.kind === "int") return encodeInt(s, x, "stochastic", saturate, rng);
    if (s.kind === "codebook") return encodeCodebook(s, x, "stochastic", rng);
    return encodeFloat(s, x, "stochastic", saturate, rng);
  };
  const inner = drawn((remainder, divisor) => { // |x| kept, and the chance that it goes up a step noted
    chances.push(fraction(remainder, divisor));
    return false;
  });
  if (!chances.length) return null;
  const outer = drawn(() => true);
  if (outer.encoding.bits === inner.encoding.bits) return null;
  const p = chances[0], rest = { num: p.den - p.num, den: p.den };
  return x.negative ? { down: outer, up: inner, pUp: rest } : { down: inner, up: outer, pUp: p };
}

/** A fresh seed a page shows and puts in its address: 0 to 2^63 − 1, as the server's seeds (inputs.MAX_SEED). */
export const shownSeed = () => randomSeed() & ((1n << 63n) - 1n);

export function randomSeed() {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return (BigInt(words[0]) << 32n) | BigInt(words[1]);
}

/** What the visualiser shows for typed text: a value is stored ({rounded, encoding}); raw bits are decoded
 * ({rounded: null, encoding}); anything else is an InputError with the server's sentence. */
export function encode(spec, text, rounding = "nearest_even", overflow = "format_default", seed = null) {
  roundingMode(rounding);
  overflowPolicy(overflow);
  const theSeed = typeof seed === "string" ? seedValue(seed) : seed === null ? null : BigInt(seed);
  const parsed = parseValue(text);
  if (parsed.raw) return { rounded: null, encoding: decode(spec, parseBits(parsed.text, spec)) };
  const rounded = encodeValue(spec, parsed, rounding, overflow, theSeed);
  return { rounded, encoding: rounded.encoding };
}

// Libraries whose casts saturate where ml_dtypes' gives NaN come in the spec (`saturating`, words to say).
function encodeFloat(s, x, mode, saturate, rng) {
  const neg = x.negative, stored = (bits, over = false, under = false, note = null) =>
    new Rounded(decode(s, bits), x, over, under, note);
  if (x.kind === "nan") {
    if (s.nan_style === "none") {
      return stored(floatBits(s, !neg, 0, 0n), false, false,
        new Phrase("%(name)s has no NaN; ml_dtypes stores NaN as a zero.", { name: s.name }));
    }
    return stored(nanBits(s, neg));
  }
  if (s.nan_style === "e8m0" && (neg || isZero(x))) {
    return stored(nanBits(s, neg), false, false, isZero(x)
      ? new Phrase("%(name)s has no sign and no zero, so zero become NaN.", { name: s.name })
      : new Phrase("%(name)s has no sign and no zero, so negative values become NaN.", { name: s.name }));
  }
  if (x.kind === "inf") {
    if (s.has_inf && !saturate) return stored(infBits(s, neg));
    if (s.overflow_default === "nan" && !saturate) {
      return stored(nanBits(s, neg), false, false,
        new Phrase("%(name)s has no infinity; ml_dtypes stores it as NaN.", { name: s.name }));
    }
    return stored(maxBits(s, neg), false, false,
      new Phrase("Infinity is stored as the largest finite value (saturation)."));
  }
  if (isZero(x)) return stored(floatBits(s, neg && s.has_negative_zero, 0, 0n));

  const m = s.mantissa_bits, { num, den } = x;
  let e = bitLength(num) - bitLength(den);
  if ((e < 0 ? num << BigInt(-e) : num) < (e > 0 ? den << BigInt(e) : den)) e -= 1; // now 2^e <= |x| < 2^(e+1)
  let eEff = Math.max(e, s.emin);
  const shift = m - eEff;
  const p = shift >= 0 ? num << BigInt(shift) : num, q = shift >= 0 ? den : den << BigInt(-shift);
  let n = p / q;
  const r = p % q;
  if (r && roundsUp(mode, neg, r, q, n % 2n === 0n, rng)) n += 1n;

  if (eEff > s.emax || (eEff === s.emax && n > (1n << s.m) + s.maxMantissa)) {
    if (saturate || roundsTowardZero(mode, neg) || s.overflow_default === "saturate") {
      const [max, exact] = decimal(s.maxValue); // "≈" where max has too many digits (binary128's 4933)
      return stored(maxBits(s, neg), true, false,
        new Phrase("Beyond the largest finite value %(max)s: stored as ±max (saturation).",
          { max: exact ? fractionText(s.maxValue) : `≈${max}` }));
    }
    if (s.overflow_default === "inf") {
      return stored(infBits(s, neg), true, false, new Phrase("Beyond the largest finite value: overflow to infinity."));
    }
    return stored(nanBits(s, neg), true, false, s.saturating
      ? new Phrase("%(name)s has no infinity, so ml_dtypes' cast gives NaN on overflow; choose saturate to "
        + "keep ±max, as %(libraries)s do.", { name: s.name, libraries: new Phrase(s.saturating) })
      : new Phrase("%(name)s has no infinity, so ml_dtypes' cast gives NaN on overflow; "
        + "choose saturate to keep ±max.", { name: s.name }));
  }
  if (n === 0n) {
    if (!s.has_zero) {
      return stored(0n, false, true,
        new Phrase("%(name)s has no zero: values below its smallest are stored as that smallest.", { name: s.name }));
    }
    return stored(floatBits(s, neg && s.has_negative_zero, 0, 0n), false, true,
      new Phrase("Too small for this format: flushed to zero (underflow)."));
  }
  if (n >> (s.m + 1n)) {
    n >>= 1n; // rounding carried into the next binade
    eEff += 1;
  }
  const normal = n >> s.m; // else a subnormal, whose exponent field is 0
  return stored(normal ? floatBits(s, neg, eEff + s.bias, n - (1n << s.m)) : floatBits(s, neg, 0, n));
}

function encodeInt(s, x, mode, saturate, rng) {
  const lo = s.lowestValue.num, hi = s.maxValue.num;
  if (x.kind === "nan") {
    return new Rounded(decode(s, 0n), x, false, false, new Phrase("Integers have no NaN; stored as 0."));
  }
  if (x.kind === "inf") {
    return new Rounded(decode(s, (x.negative ? lo : hi) & s.mask), x, false, false,
      new Phrase("Integers have no infinity; stored as the nearest end of the range."));
  }
  let n = x.num / x.den;
  const r = x.num % x.den;
  if (r && roundsUp(mode, x.negative, r, x.den, n % 2n === 0n, rng)) n += 1n;
  let v = x.negative ? -n : n, note = null;
  const overflowed = v < lo || v > hi;
  if (overflowed) {
    if (saturate) {
      v = v < lo ? lo : hi;
      note = new Phrase("Outside %(lo)s..%(hi)s: clamped to the range (saturation).", { lo, hi });
    } else {
      const modulus = 1n << s.width;
      v = (((v - lo) % modulus) + modulus) % modulus + lo;
      note = new Phrase("Outside %(lo)s..%(hi)s: wrapped around modulo 2^%(bits)s, as an integer cast does.",
        { lo, hi, bits: s.bits });
    }
  }
  return new Rounded(decode(s, v & s.mask), x, overflowed, v === 0n && !isZero(x), note);
}

function encodeCodebook(s, x, mode, rng) {
  const values = s.codes, last = values.length - 1;
  if (x.kind === "nan") {
    const zero = values.findIndex((c) => c.num === 0n);
    return new Rounded(decode(s, BigInt(zero)), x, false, false,
      new Phrase("%(name)s has no NaN; stored as 0.", { name: s.name }));
  }
  const v = signed(x);
  if (x.kind === "inf" || compare(v, values[0]) < 0 || compare(v, values[last]) > 0) {
    return new Rounded(decode(s, BigInt(x.negative ? 0 : last)), x, x.kind === "finite", false,
      new Phrase("Outside [%(lo)s, %(hi)s]: clamped to the nearest end of the codebook.",
        { lo: fractionText(values[0]), hi: fractionText(values[last]) }));
  }
  let i = 0;
  while (i < last && compare(values[i + 1], v) <= 0) i++;
  if (compare(values[i], v) === 0) return new Rounded(decode(s, BigInt(i)), x, false, false);
  // v lies strictly between values[i] and values[i + 1], which are on the same side of zero
  const [inner, outer] = values[i].num >= 0n ? [i, i + 1] : [i + 1, i];
  const a = absolute(values[inner]), b = absolute(values[outer]);
  const up = roundsUp(mode, x.negative, (x.num * a.den - a.num * x.den) * b.den,
    (b.num * a.den - a.num * b.den) * x.den, inner % 2 === 0, rng);
  const code = up ? outer : inner;
  return new Rounded(decode(s, BigInt(code)), x, false, values[code].num === 0n);
}

// -- reading a bit pattern ----------------------------------------------------------------------------------

/** Read a bit pattern (0x…, 0b… or a decimal integer) that must fit the format's width. */
export function parseBits(text, spec) {
  text = clean(text);
  const pattern = rawPattern(text);
  if (pattern === null) {
    throw new InputError("Could not read %(input)s as a bit pattern; write it in hex (0x3c00), binary (0b0011…) or "
      + "as a non-negative decimal integer.", { input: quotedHead(text) });
  }
  if (pattern >> BigInt(spec.bits)) {
    throw new InputError("The pattern %(input)s is wider than %(format)s's %(bits)s bits; the largest pattern is "
      + "%(largest)s.", { input: quotedHead(text), format: spec.id, bits: spec.bits,
      largest: `0x${((1n << BigInt(spec.bits)) - 1n).toString(16)}` });
  }
  return pattern;
}
