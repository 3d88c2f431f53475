// Exact integer arithmetic for dot products in the browser, as app/formats/dot_arithmetic.py does it (the
// reference; tests/js/test_dot_parity.py holds the two together): every stored input of one format is a whole
// multiple of its smallest subnormal, so every product and every sum of products is a whole multiple of 2^unit. A
// value is that multiple as a BigInt, or a Number for ±Infinity and NaN only; zero is always 0n. Rounding to a
// format is shifts and a comparison: no float ever rounds anything here.

import { bitLength, readFraction } from "./exact.js";

/** Whether a value is ±Infinity or NaN (a Number), not a whole number of units (a BigInt). */
export const isSpecial = (x) => typeof x === "number";

export const abs = (x) => (x < 0n ? -x : x);

/** The exponent of a nonzero magnitude's leading bit, counted in units: bit_length - 1. */
export function topBit(magnitude) {
  if (magnitude < 0x20000000000000n) {
    const n = Number(magnitude); // exact below 2^53
    return n < 0x100000000 ? 31 - Math.clz32(n) : 63 - Math.clz32(Math.floor(n / 0x100000000));
  }
  return bitLength(magnitude) - 1;
}

const grids = new Map(); // worked out once: a grid is asked for at every value a draw stores

/** A float format's numbers as whole multiples of 2^unit (dot_arithmetic.grid): precision (significant bits,
 * the leading one included), the smallest normal's exponent, the largest finite magnitude in units, and what
 * overflow gives under round-to-nearest ("inf" or "nan"). `spec` is a codec spec (codec_specs.py). */
export function grid(spec, unit) {
  const key = `${spec.id} ${unit}`;
  let found = grids.get(key);
  if (found) return found;
  const max = readFraction(spec.max);
  const num = unit <= 0 ? max.num << BigInt(-unit) : max.num, den = unit <= 0 ? max.den : max.den << BigInt(unit);
  if (num % den !== 0n) throw new RangeError(`${spec.id}'s largest value is not a whole number of 2^${unit}`);
  found = { formatId: spec.id, unit, precision: spec.mantissa_bits + 1, emin: spec.emin, largest: num / den,
    overflow: spec.overflow_default === "inf" ? "inf" : "nan" };
  if (grids.size > 4096) grids.clear();
  grids.set(key, found);
  return found;
}
/** The spacing of the grid's numbers at |x| (its smallest normal's below that), as a power of two: its exponent. */
export function ulpExponent(g, x) {
  const magnitude = isSpecial(x) ? 0n : abs(x);
  const exponent = magnitude ? topBit(magnitude) + g.unit : g.emin;
  return Math.max(exponent, g.emin) - g.precision + 1;
}

/** The exact sum; inf and NaN as IEEE 754 adds them (a finite value counts as any finite number there). */
export function add(x, y) {
  if (isSpecial(x) || isSpecial(y)) return (isSpecial(x) ? x : 0) + (isSpecial(y) ? y : 0);
  return x + y;
}

export const negated = (x) => -x;

/** x rounded to the grid's format (nearest-even, or toward zero); past its largest finite value, inf or NaN as
 * the format does under nearest, its largest under toward zero. */
export function rounded(x, to, mode = "nearest_even") {
  if (isSpecial(x) || x === 0n) return x;
  let magnitude = abs(x);
  const exponent = topBit(magnitude) + to.unit;
  const shift = Math.max(exponent, to.emin) - to.precision + 1 - to.unit;
  if (shift > 0) {
    const s = BigInt(shift);
    let kept = magnitude >> s;
    if (mode === "nearest_even") {
      const rest = magnitude & ((1n << s) - 1n), half = 1n << (s - 1n);
      if (rest > half || (rest === half && kept & 1n)) kept += 1n;
    }
    magnitude = kept << s;
  }
  if (magnitude > to.largest) {
    if (mode === "toward_zero") magnitude = to.largest;
    else return to.overflow === "nan" ? NaN : x > 0n ? Infinity : -Infinity;
  }
  return x > 0n ? magnitude : -magnitude;
}

/** The exponent of a value as a format stores it (its leading bit's; a subnormal's is emin); null for zero. */
export const valueExponent = (x, unit, emin) => (x === 0n ? null : Math.max(topBit(abs(x)) + unit, emin));

/** The exponent of the lowest bit the adder keeps, given its terms' exponents (null when all are zero). */
export function alignmentCut(exponents, window) {
  let top = null;
  for (const e of exponents) if (e !== null && (top === null || e > top)) top = e;
  return top === null ? null : top - window + 1;
}

/** A term with its bits below 2^cut dropped (its magnitude truncated, toward zero). */
export function truncated(term, cut, unit) {
  const shift = cut - unit;
  if (shift <= 0 || term === 0n) return term;
  const s = BigInt(shift), magnitude = (abs(term) >> s) << s;
  return term > 0n ? magnitude : -magnitude;
}

/** The exact sum of the truncated terms normalised and truncated to the adder's output ({block, window,
 * output_bits}, as tensor_cores.py's FusedAdder): inf past 2^128. */
export function fusedOutput(total, adder, fp32) {
  if (total !== 0n && topBit(abs(total)) + fp32.unit > 127) return total > 0n ? Infinity : -Infinity;
  return rounded(total, { ...fp32, precision: adder.output_bits, overflow: "inf" }, "toward_zero");
}

/** One block step: the FP32 accumulator plus products[from, to) (their exponents beside them), as `adder` does. */
export function fusedAdd(accumulator, products, exponents, from, to, adder, fp32) {
  if (isSpecial(accumulator)) return accumulator; // inf or NaN stays; the products are finite
  let top = valueExponent(accumulator, fp32.unit, fp32.emin);
  for (let i = from; i < to; i++) if (exponents[i] !== null && (top === null || exponents[i] > top)) top = exponents[i];
  if (top === null) return 0n;
  const cut = top - adder.window + 1;
  let sum = truncated(accumulator, cut, fp32.unit);
  for (let i = from; i < to; i++) sum += truncated(products[i], cut, fp32.unit);
  return fusedOutput(sum, adder, fp32);
}
