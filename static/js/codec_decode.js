// Decoding in the browser's codec (app/formats/codec.py, neighbours.py): a bit pattern of any scalar format to its
// exact value and fields, and its neighbours and ulp. Part of the codec (codec.js re-exports what the pages use).

import { absolute, compare, dyadic, fraction, pow2, readFraction } from "./exact.js";
import { exactString, isZero, ofFraction, real, signed } from "./codec_values.js";

// -- specifications -------------------------------------------------------------------------------------

const prepared = new WeakMap();

export function prepare(spec) {
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

export function floatBits(s, negative, exponentField, mantissaField) {
  return (negative && s.signed ? s.signBit : 0n) | (BigInt(exponentField) << s.m) | mantissaField;
}

export const maxBits = (s, negative) => floatBits(s, negative, s.max_exponent_field, s.maxMantissa);
export const infBits = (s, negative) => floatBits(s, negative, s.top, 0n);

export function nanBits(s, negative) {
  if (s.nan_style === "ieee") return floatBits(s, negative, s.top, 1n << (s.m - 1n));
  if (s.nan_style === "fn") return floatBits(s, negative, s.top, (1n << s.m) - 1n);
  return s.nan_style === "fnuz" ? s.signBit : s.mask;
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

