// The exact codec in the browser: bit pattern <-> exact value for every scalar format, on BigInt, answering
// what app/formats answers (codec.py, neighbours.py, parse.py, rounding.py) with the same bits and sentences.
// The Python core is the reference; tests/browser/test_js_codec.py holds the two together. Specifications come
// from the server (app/web/visualise/codec_specs.py), never typed here.

import {
  absolute, bitLength, compare, decimal, decimalG, divideToDouble, dyadic, floatG, fraction, fractionText, ldexp,
  pow2, readFraction, subtractFromDyadic, tenTo, trailingZeros,
} from "./exact.js";
import { MersenneTwister } from "./mt19937.js";
import { Phrase } from "./words.js";

export const ROUNDINGS = ["nearest_even", "nearest_away", "toward_zero", "toward_positive", "toward_negative",
  "stochastic"];
export const OVERFLOW_POLICIES = ["format_default", "saturate"];
export const SHORT_LENGTH = 24;
const MAX_INPUT_LENGTH = 1100, MAX_DECIMAL_EXPONENT = 100000n, MAX_BINARY_EXPONENT = 400000n;
const MAX_SEED = (1n << 63n) - 1n;
const ACCEPTED = new Phrase("decimals (0.1, -2.5e-3), hex floats (0x1.8p-3), fractions (1/3), inf, -inf, nan, -0, "
  + "and raw bits (0x3c00 or 0b0011110000000000)");

/** Input that cannot be read: its message the English sentence, its `phrase` the sentence to say on a page. */
export class InputError extends Error {
  constructor(template, params = {}) {
    const phrase = new Phrase(template, params);
    super(String(phrase));
    this.phrase = phrase;
  }
}

// -- values: {negative, num, den, kind}, the magnitude num/den reduced, as exact.py's Real ------------------

const real = (negative, x = { num: 0n, den: 1n }, kind = "finite") => ({ negative, num: x.num, den: x.den, kind });
const ofFraction = (x) => real(x.num < 0n, absolute(x));
const signed = (v) => ({ num: v.negative ? -v.num : v.num, den: v.den });
const isZero = (v) => v.kind === "finite" && v.num === 0n;

const decimals = new WeakMap(); // a value's decimal, worked out once: an input can have 10^5 digits to divide

/** [decimal string, whether exact] of a value (or of a rational), as serialise.real_json gives it. */
export function realText(v) {
  if (!v.kind) v = ofFraction(v);
  if (v.kind === "nan") return ["nan", true];
  if (v.kind === "inf") return [v.negative ? "-inf" : "inf", true];
  let known = decimals.get(v);
  if (!known) decimals.set(v, (known = decimal(v)));
  return [(v.negative ? "-" : "") + known[0], known[1]];
}

export const exactString = (v) => realText(v)[0];

/** A value as the pages show it (present.shown): exact when at most `limit` characters, else `digits` digits
 * marked "≈", the full text kept. */
export function shown(v, limit = SHORT_LENGTH, digits = 7) {
  if (v === null) return null;
  const [text, exact] = realText(v);
  if (exact && text.length <= limit) return { text, full: text };
  let [mantissa, exponent] = decimalG(text, digits).split("e");
  if (mantissa.includes(".")) mantissa = mantissa.replace(/0+$/, "").replace(/\.$/, "");
  return { text: `≈${mantissa}${exponent ? `e${exponent}` : ""}`, full: text };
}

/** A relative error as present.relative writes it. */
export const relative = (x) => (x === null ? "—" : x === 0 ? "0" : `≈${floatG(x, 3)}`);

// -- specifications -------------------------------------------------------------------------------------

const prepared = new WeakMap();

function prepare(spec) {
  let p = prepared.get(spec);
  if (p) return p;
  const width = BigInt(spec.bits);
  p = {
    ...spec,
    width,
    mask: (1n << width) - 1n,
    signBit: 1n << (width - 1n),
    top: (1n << BigInt(spec.exponent_bits)) - 1n,
    m: BigInt(spec.mantissa_bits),
    maxMantissa: BigInt(spec.max_mantissa_field),
    maxValue: readFraction(spec.max),
    lowestValue: readFraction(spec.lowest),
    minPositive: readFraction(spec.min_positive),
    codes: spec.codebook.map(readFraction),
  };
  prepared.set(spec, p);
  prepared.set(p, p); // the codec passes prepared specifications on
  return p;
}

// -- decoding -------------------------------------------------------------------------------------------

class Encoding {
  constructor(spec, bits, value, cls) {
    Object.assign(this, { spec, bits, value, cls });
  }

  get format() { return this.spec.id; }
  get hex() { return `0x${this.bits.toString(16).padStart((this.spec.bits + 3) >> 2, "0")}`; }
  get binary() { return this.bits.toString(2).padStart(this.spec.bits, "0"); }
  get exactString() { return exactString(this.value); }

  get sign() {
    const s = this.spec;
    return s.kind === "codebook" || !s.signed ? null : Number((this.bits >> (s.width - 1n)) & 1n);
  }

  get exponentField() {
    return this.spec.kind === "float" ? Number((this.bits >> this.spec.m) & this.spec.top) : null;
  }

  get mantissaField() {
    return this.spec.kind === "float" ? this.bits & ((1n << this.spec.m) - 1n) : null;
  }

  get fields() {
    return { sign: this.sign, exponent: this.exponentField, mantissa: this.mantissaField };
  }

  /** The unbiased exponent of a finite nonzero float (emin for subnormals). */
  get exponent() {
    if (this.spec.kind !== "float" || (this.cls !== "normal" && this.cls !== "subnormal")) return null;
    return this.cls === "subnormal" ? this.spec.emin : this.exponentField - this.spec.bias;
  }

  /** 1.m for normal numbers, 0.m for subnormals. */
  get significand() {
    if (this.exponent === null) return null;
    const lead = this.cls === "normal" ? 1n << this.spec.m : 0n;
    return dyadic(lead + this.mantissaField, -this.spec.mantissa_bits);
  }
}

export function decode(spec, bits) {
  const s = prepare(spec);
  bits = BigInt(bits);
  if (bits < 0n || bits > s.mask) throw new RangeError(`${bits} is not a ${s.bits}-bit pattern`);
  if (s.kind === "int") {
    const v = s.signed && bits & s.signBit ? bits - (1n << s.width) : bits;
    return new Encoding(s, bits, ofFraction({ num: v, den: 1n }), v === 0n ? "zero" : "normal");
  }
  if (s.kind === "codebook") {
    const v = s.codes[Number(bits)];
    return new Encoding(s, bits, ofFraction(v), v.num === 0n ? "zero" : "normal");
  }
  const negative = s.signed && Boolean(bits & s.signBit);
  const ef = (bits >> s.m) & s.top, mf = bits & ((1n << s.m) - 1n), style = s.nan_style;
  if (style === "ieee" && ef === s.top) return new Encoding(s, bits, real(negative, undefined, mf ? "nan" : "inf"),
    mf ? "nan" : "inf");
  if ((style === "fn" && ef === s.top && mf === (1n << s.m) - 1n) || (style === "fnuz" && bits === s.signBit)
      || (style === "e8m0" && bits === s.mask)) {
    return new Encoding(s, bits, real(negative && style === "fn", undefined, "nan"), "nan");
  }
  if (s.has_subnormals && ef === 0n) {
    if (mf === 0n) return new Encoding(s, bits, real(negative), "zero");
    return new Encoding(s, bits, real(negative, dyadic(mf, s.emin - s.mantissa_bits)), "subnormal");
  }
  const value = dyadic((1n << s.m) + mf, Number(ef) - s.bias - s.mantissa_bits);
  return new Encoding(s, bits, real(negative, value), "normal");
}

function floatBits(s, negative, exponentField, mantissaField) {
  return (negative && s.signed ? s.signBit : 0n) | (BigInt(exponentField) << s.m) | mantissaField;
}

const maxBits = (s, negative) => floatBits(s, negative, s.max_exponent_field, s.maxMantissa);
const infBits = (s, negative) => floatBits(s, negative, s.top, 0n);

function nanBits(s, negative) {
  if (s.nan_style === "ieee") return floatBits(s, negative, s.top, 1n << (s.m - 1n));
  if (s.nan_style === "fn") return floatBits(s, negative, s.top, (1n << s.m) - 1n);
  return s.nan_style === "fnuz" ? s.signBit : s.mask;
}

// -- rounding ---------------------------------------------------------------------------------------------

export function roundingMode(name) {
  if (!ROUNDINGS.includes(name)) {
    throw new InputError("Unknown rounding %(input)s; choose one of: %(modes)s.",
      { input: quoted(codePoints(name).slice(0, 40).join("")), modes: ROUNDINGS.join(", ") });
  }
  return name;
}

export function overflowPolicy(name) {
  if (!OVERFLOW_POLICIES.includes(name)) {
    throw new InputError("Unknown overflow policy %(input)s; choose one of: %(policies)s.",
      { input: quoted(codePoints(name).slice(0, 40).join("")), policies: OVERFLOW_POLICIES.join(", ") });
  }
  return name;
}

/** The seed of stochastic rounding from its text (inputs.seed_value): null when none. */
export function seedValue(text) {
  if (text === null || text === undefined || text === "") return null;
  if (!/^[0-9]{1,19}$/.test(text) || BigInt(text) > MAX_SEED) {
    throw new InputError("The seed must be a whole number from 0 to %(most)s.", { most: MAX_SEED });
  }
  return BigInt(text);
}

/** Whether |x| = q + remainder/divisor (0 < remainder < divisor) rounds to q + 1 rather than q. */
function roundsUp(mode, negative, remainder, divisor, lowerIsEven, rng) {
  if (mode === "toward_zero") return false;
  if (mode === "toward_positive") return !negative;
  if (mode === "toward_negative") return negative;
  if (mode === "stochastic") {
    if (rng && rng.draw) return rng.draw(remainder, divisor); // a draw given, as stochasticOdds asks each way
    return (rng || new MersenneTwister(0n)).getrandbits64() * divisor < remainder << 64n;
  }
  const twice = 2n * remainder;
  if (twice !== divisor) return twice > divisor;
  return mode === "nearest_away" || !lowerIsEven;
}

const roundsTowardZero = (mode, negative) => mode === "toward_zero"
  || (mode === "toward_positive" && negative) || (mode === "toward_negative" && !negative);

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

/** stored − given, exactly, as Rounded.error gives it (a dyadic stored value: any the codec makes). */
export function errorOf(stored, given) {
  if (stored.kind === "nan" || given.kind === "nan") return real(false, undefined, "nan");
  if (stored.kind === "inf") {
    return given.kind === "inf" && given.negative === stored.negative ? real(false)
      : real(stored.negative, undefined, "inf");
  }
  if (given.kind === "inf") return real(!given.negative, undefined, "inf");
  return ofFraction(subtractFromDyadic(signed(stored), signed(given)));
}

/** error / |given| as a double, from the leading 128 bits of each, as Rounded.rel_error works it out; null where
 * it has no meaning. */
export function relativeError(error, given) {
  if (error.kind !== "finite" || given.kind !== "finite" || isZero(given)) return null;
  if (error.num === 0n) return 0;
  const [errorBits, errorScale] = leading(error), [givenBits, givenScale] = leading(given);
  return (error.negative ? -1 : 1) * ldexp(divideToDouble(errorBits, givenBits), errorScale - givenScale);
}

function leading(x) {
  const k = bitLength(x.num) - bitLength(x.den) - 128;
  return [k >= 0 ? x.num / (x.den << BigInt(k)) : (x.num << BigInt(-k)) / x.den, k];
}

/** Store a value in the format, as app.formats.encode does; rounding and overflow by name, seed a BigInt or
 * null (a fresh random one). */
export function encodeValue(spec, x, rounding = "nearest_even", overflow = "format_default", seed = null) {
  const s = prepare(spec);
  const mode = roundingMode(rounding), saturate = overflowPolicy(overflow) === "saturate";
  const rng = mode === "stochastic" ? new MersenneTwister(seed ?? randomSeed()) : null;
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

function randomSeed() {
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

// -- neighbours ---------------------------------------------------------------------------------------------

/** The next larger value the format holds (IEEE nextUp), or null at the top. */
export const nextUp = (enc) => step(enc, true);
/** The next smaller value the format holds (IEEE nextDown), or null at the bottom. */
export const nextDown = (enc) => step(enc, false);

function step(enc, up) {
  const s = enc.spec, v = enc.value, by = up ? 1n : -1n;
  if (v.kind === "nan") return null;
  if (s.kind === "int") {
    const target = signed(v).num + by;
    return target >= s.lowestValue.num && target <= s.maxValue.num ? decode(s, target & s.mask) : null;
  }
  if (s.kind === "codebook" || s.nan_style === "e8m0") { // e8m0 steps through its patterns: no sign, no zero
    const target = enc.bits + by;
    const end = s.kind === "codebook" ? BigInt(s.codebook.length - 1) : maxBits(s, false);
    return target >= 0n && target <= end ? decode(s, target) : null;
  }
  if (v.kind === "inf") return v.negative === up ? decode(s, maxBits(s, v.negative)) : null;
  const magnitude = enc.bits & (s.signBit - 1n);
  if (isZero(v) || v.negative !== up) { // the step grows the magnitude
    const negative = !up;
    if (compare(v, s.maxValue) === 0) return s.has_inf ? decode(s, infBits(s, negative)) : null;
    return decode(s, (negative ? s.signBit : 0n) | (magnitude + 1n));
  }
  if (magnitude === 1n) return decode(s, v.negative && s.has_negative_zero ? s.signBit : 0n);
  return decode(s, (enc.bits & s.signBit) | (magnitude - 1n));
}

/** The gap from this value to the next one of larger magnitude (unit in the last place), a rational. */
export function ulp(enc) {
  const s = enc.spec, v = enc.value;
  if (v.kind !== "finite") return null;
  if (s.kind === "int") return { num: 1n, den: 1n };
  if (s.kind === "codebook") {
    const next = step(enc, !v.negative) || step(enc, v.negative);
    if (!next || next.value.kind !== "finite") return null;
    const a = signed(next.value), b = signed(v);
    return absolute(fraction(a.num * b.den - b.num * a.den, a.den * b.den));
  }
  if (isZero(v)) return s.minPositive;
  return pow2((enc.exponent ?? s.emin) - s.mantissa_bits);
}

// -- reading what a person types (parse.py) ---------------------------------------------------------------

/** Python's whitespace (str.isspace): what its str.strip() takes away and str.split() splits on. */
export const SPACES = "\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
  + "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";
const DECIMAL = "([0-9]+)?(?:\\.([0-9]*))?(?:e([+-]?[0-9]+))?";
const SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;
const NUMBER = new RegExp(`^([+-]?)${DECIMAL}$`, "i");
const FRACTION = new RegExp(`^([+-]?)${DECIMAL}[ \\t\\n\\r\\f\\v]*/[ \\t\\n\\r\\f\\v]*([+-]?)${DECIMAL}$`, "i");
const HEX_FLOAT = /^([+-]?)0x([0-9a-f]*)(?:\.([0-9a-f]*))?p([+-]?[0-9]+)$/i;
const RAW_HEX = /^0x(_*[0-9a-f][0-9a-f_]*)$/i;
const RAW_BIN = /^0b(_*[01][01_]*)$/i;
const RAW_DEC = /^(_*[0-9][0-9_]*)$/;

const codePoints = (text) => Array.from(text);

// What a refusal escapes when it quotes typed text: app/refusal.py's ESCAPED_RANGES (Unicode 14's controls, format
// characters, surrogates, private use and separators but the space, and the noncharacters), the same fixed table, so
// that the browser's Unicode version changes nothing (tests/unit/test_quoting.py holds the two alike)
const ESCAPED_RANGES = [
  [0x0, 0x1f], [0x7f, 0xa0], [0xad, 0xad], [0x600, 0x605], [0x61c, 0x61c],
  [0x6dd, 0x6dd], [0x70f, 0x70f], [0x890, 0x891], [0x8e2, 0x8e2], [0x1680, 0x1680],
  [0x180e, 0x180e], [0x2000, 0x200f], [0x2028, 0x202f], [0x205f, 0x2064], [0x2066, 0x206f],
  [0x3000, 0x3000], [0xd800, 0xf8ff], [0xfdd0, 0xfdef], [0xfeff, 0xfeff], [0xfff9, 0xfffb],
  [0xfffe, 0xffff], [0x110bd, 0x110bd], [0x110cd, 0x110cd], [0x13430, 0x13438], [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a], [0x1fffe, 0x1ffff], [0x2fffe, 0x2ffff], [0x3fffe, 0x3ffff], [0x4fffe, 0x4ffff],
  [0x5fffe, 0x5ffff], [0x6fffe, 0x6ffff], [0x7fffe, 0x7ffff], [0x8fffe, 0x8ffff], [0x9fffe, 0x9ffff],
  [0xafffe, 0xaffff], [0xbfffe, 0xbffff], [0xcfffe, 0xcffff], [0xdfffe, 0xdffff], [0xe0001, 0xe0001],
  [0xe0020, 0xe007f], [0xefffe, 0x10ffff],
];
const escapedCode = (code) => ESCAPED_RANGES.some(([first, last]) => first <= code && code <= last);

/** A string quoted as app/refusal.py's quoted() does: Python's repr() with a fixed table of escaped characters. */
export function quoted(text) {
  const mark = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escapes = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", [mark]: `\\${mark}` };
  let out = mark;
  for (const c of text) {
    const code = c.codePointAt(0);
    if (escapes[c]) out += escapes[c];
    else if (code === 0x20 || !escapedCode(code)) out += c;
    else if (code <= 0xff) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += `\\U${code.toString(16).padStart(8, "0")}`;
  }
  return out + mark;
}

const quotedHead = (text) => {
  const points = codePoints(text);
  return quoted(points.length <= 40 ? text : `${points.slice(0, 40).join("")}…`);
};

function clean(text) {
  const length = codePoints(text).length;
  if (length > MAX_INPUT_LENGTH) {
    throw new InputError("The input is %(length)s characters long; at most %(most)s are accepted.",
      { length, most: MAX_INPUT_LENGTH });
  }
  let start = 0, end = text.length;
  while (start < end && SPACES.includes(text[start])) start++;
  while (end > start && SPACES.includes(text[end - 1])) end--;
  text = text.slice(start, end).replaceAll("\u2212", "-"); // accept the typographic minus sign
  if (!text) throw new InputError("The input is empty; type a number. Accepted: %(accepted)s.", { accepted: ACCEPTED });
  return text;
}

/** [digits, exponent] of a decimal's groups: its value is digits × 10^exponent. */
function decimalParts(whole, part, exp) {
  if (!whole && !part) throw new InputError("A number needs at least one digit.");
  const exponent = exp ? BigInt(exp) : 0n;
  if (exponent > MAX_DECIMAL_EXPONENT || exponent < -MAX_DECIMAL_EXPONENT) {
    throw new InputError("The exponent %(exponent)s is out of range; decimal exponents from -%(most)s to %(most)s are "
      + "accepted (far beyond every format here).", { exponent, most: MAX_DECIMAL_EXPONENT });
  }
  return [BigInt((whole || "") + (part || "") || "0"), Number(exponent) - (part || "").length];
}

/** digits × 10^exponent, reduced: only twos and fives can cancel, so no gcd of a power of ten is needed. */
function scaledDecimal(digits, exponent) {
  if (exponent >= 0 || digits === 0n) return { num: digits * tenTo(Math.max(exponent, 0)), den: 1n };
  const k = -exponent, twos = Math.min(trailingZeros(digits), k);
  digits >>= BigInt(twos);
  let fives = 0;
  for (const [chunk, count] of [[152587890625n, 16], [5n, 1]]) {
    while (fives + count <= k && digits % chunk === 0n) {
      digits /= chunk;
      fives += count;
    }
  }
  return { num: digits, den: (5n ** BigInt(k - fives)) << BigInt(k - twos) };
}

const raw = (digits, base, text) => ({ raw: true, pattern: BigInt(base + digits.replaceAll("_", "")), text });

const parsedValues = new Map(); // the last texts read: a person edits one, every format and mode reads it again

/** Read a value as a person types it; raw bit patterns come back as {raw: true, pattern, text}. */
export function parseValue(text) {
  let known = parsedValues.get(text);
  if (!known) {
    try {
      known = { value: readValue(text) };
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      known = { error };
    }
    if (parsedValues.size >= 64) parsedValues.delete(parsedValues.keys().next().value);
    parsedValues.set(text, known);
  }
  if (known.error) throw known.error;
  return known.value;
}

function readValue(text) {
  text = clean(text);
  let m;
  if ((m = SPECIAL.exec(text))) return real(m[1] === "-", undefined, m[2].toLowerCase() === "nan" ? "nan" : "inf");
  if ((m = RAW_HEX.exec(text))) return raw(m[1], "0x", text);
  if ((m = RAW_BIN.exec(text))) return raw(m[1], "0b", text);
  if ((m = HEX_FLOAT.exec(text))) return hexFloat(m);
  if ((m = NUMBER.exec(text))) return real(m[1] === "-", scaledDecimal(...decimalParts(m[2], m[3], m[4])));
  if ((m = FRACTION.exec(text))) {
    const [num, numExponent] = decimalParts(m[2], m[3], m[4]), [den, denExponent] = decimalParts(m[6], m[7], m[8]);
    if (den === 0n) {
      throw new InputError("%(input)s divides by zero; the denominator must not be 0.", { input: quotedHead(text) });
    }
    const negative = (m[1] === "-") !== (m[5] === "-");
    if (num === 0n) return real(negative);
    const exponent = numExponent - denExponent;
    const size = `${num}`.length - `${den}`.length + exponent;
    if (Math.abs(size) > Number(MAX_DECIMAL_EXPONENT) + 1) {
      throw new InputError("That fraction is about 10^%(size)s; a value from 10^-%(most)s to 10^%(most)s is accepted, "
        + "which is already far beyond every format here.", { size, most: MAX_DECIMAL_EXPONENT });
    }
    return real(negative, exponent >= 0 ? fraction(num * tenTo(exponent), den) : fraction(num, den * tenTo(-exponent)));
  }
  throw new InputError("Could not read %(input)s as a number. Accepted: %(accepted)s.",
    { input: quotedHead(text), accepted: ACCEPTED });
}

function hexFloat(m) {
  const whole = m[2], part = m[3] || "";
  if (!whole && !part) throw new InputError("A hex float needs at least one hex digit, as in 0x1.8p-3.");
  const exp = BigInt(m[4]);
  if (exp > MAX_BINARY_EXPONENT || exp < -MAX_BINARY_EXPONENT) {
    throw new InputError("The binary exponent p%(exponent)s is out of range; from p-%(most)s to p%(most)s are "
      + "accepted.", { exponent: exp, most: MAX_BINARY_EXPONENT });
  }
  return real(m[1] === "-", dyadic(BigInt(`0x${whole + part || "0"}`), Number(exp) - 4 * part.length));
}

/** Read a value; a raw bit pattern is refused with a sentence that says how to write a value. */
export function parseNumber(text) {
  const parsed = parseValue(text);
  if (parsed.raw) {
    throw new InputError("%(input)s is a raw bit pattern, not a value; to give a value in hex write a hex float such "
      + "as 0x1.8p-3, or decode the pattern in one format instead.", { input: quotedHead(parsed.text) });
  }
  return parsed;
}

/** Read a bit pattern (0x…, 0b… or a decimal integer) that must fit the format's width. */
export function parseBits(text, spec) {
  text = clean(text);
  let m, pattern;
  if ((m = RAW_HEX.exec(text))) pattern = raw(m[1], "0x").pattern;
  else if ((m = RAW_BIN.exec(text))) pattern = raw(m[1], "0b").pattern;
  else if ((m = RAW_DEC.exec(text))) pattern = raw(m[1], "").pattern;
  else {
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
