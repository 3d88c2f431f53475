// Doubles and exact values for the block quantiser in the browser (blocks.js): a double as the codec's exact value
// and back, numpy's frexp and copysign as the quantisers use them, and one format's bit patterns, decoded once.

import { decode, encodeValue } from "./codec.js";
import { ofDouble, readFraction } from "./exact.js";

/** A double as the codec's value {negative, num, den, kind}: -0 keeps its sign. */
export function realOfDouble(x) {
  if (Number.isNaN(x)) return { negative: false, num: 0n, den: 1n, kind: "nan" };
  if (!Number.isFinite(x)) return { negative: x < 0, num: 0n, den: 1n, kind: "inf" };
  const { num, den } = ofDouble(x);
  return { negative: x < 0 || Object.is(x, -0), num: num < 0n ? -num : num, den, kind: "finite" };
}

/** A codec value (or a rational) as a double; exact for the values of every format here (at most 53 significant
 * bits over a power of two). */
export function toDouble(v) {
  if (v.kind === "nan") return NaN;
  if (v.kind === "inf") return v.negative ? -Infinity : Infinity;
  const magnitude = Number(v.num < 0n ? -v.num : v.num) / Number(v.den);
  return v.negative || v.num < 0n ? -magnitude : magnitude;
}

export const realOfFraction = (x) => ({ negative: x.num < 0n, num: x.num < 0n ? -x.num : x.num, den: x.den,
  kind: "finite" });

/** A zero of x's sign, as numpy's copysign(0.0, x). */
export const signedZero = (x) => (x < 0 || Object.is(x, -0) ? -0 : 0);

/** ⌊log2 x⌋ of a finite x > 0, as numpy's frexp(x)[1] − 1. */
export function floorLog2(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const field = (view.getUint16(0) >> 4) & 0x7ff;
  return field ? field - 1023 : floorLog2(x * 2 ** 64) - 64;
}

// -- one format's patterns ----------------------------------------------------------------------------------

const patterns = new WeakMap(); // spec -> Map(bits -> {enc, value}): an element format has at most 256

export function pattern(spec, bits) {
  let table = patterns.get(spec);
  if (!table) patterns.set(spec, (table = new Map()));
  let known = table.get(bits);
  if (!known) {
    const enc = decode(spec, BigInt(bits));
    table.set(bits, (known = { enc, value: toDouble(enc.value) }));
  }
  return known;
}

/** The pattern a double is stored as, nearest even (vector.encode_bits): clamped to ±max when saturating. */
export const store = (spec, x, saturate = false) =>
  Number(encodeValue(spec, realOfDouble(x), "nearest_even", saturate ? "saturate" : "format_default").encoding.bits);

export const valueOf = (spec, bits) => pattern(spec, bits).value;
export const maxOf = (spec) => toDouble(realOfFraction(readFraction(spec.max)));
