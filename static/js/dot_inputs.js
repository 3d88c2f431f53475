// The dot product's inputs in the browser, as app/formats/dot_inputs.py reads them: vectors typed (read by the
// codec's parseNumber) or drawn, stored in the input format (nearest-even, clamped to ± its largest) as whole
// numbers of its smallest subnormal (BigInt), each refusal the server's sentence. numpy's seeded draws are not made
// here: the page's JSON carries the doubles drawn for its seed, n and distribution (app/web/dot/data.py).

import { InputError, SPACES, encodeValue, parseNumber, quoted } from "./codec.js";
import { codePoints } from "./codec_quote.js";
import { abs, grid, rounded } from "./dot_arithmetic.js";
import { MAX_DOT_LENGTH } from "./dot_core.js";
import { ofDouble, readFraction, trailingZeros } from "./exact.js";

export const MAX_VECTOR_TEXT = 64 * MAX_DOT_LENGTH, MAX_INPUT_LENGTH = 1100, MAX_DOT_SEED = 2 ** 32 - 1;
const SEPARATORS = new RegExp(`[,;${SPACES}]+`);

/** Python's str.strip(). */
export function strip(text) {
  let start = 0, end = text.length;
  while (start < end && SPACES.includes(text[start])) start++;
  while (end > start && SPACES.includes(text[end - 1])) end--;
  return text.slice(start, end);
}

const head = (text) => codePoints(text).slice(0, 40).join("");

/** parse_dot_setting: a setting typed as a whole number from `lowest` to `highest`. */
export function parseSetting(text, name, lowest, highest) {
  const cleaned = strip(text);
  if (!(/^[0-9]+$/.test(cleaned) && cleaned.length <= 10 && Number(cleaned) >= lowest && Number(cleaned) <= highest)) {
    throw new InputError("%(name)s must be a whole number from %(lowest)s to %(highest)s; %(input)s is not.",
      { name, lowest: String(lowest), highest: String(highest), input: quoted(head(text)) });
  }
  return Number(cleaned);
}

/** parse_vector's split: the items of a typed vector, separated by commas, semicolons, spaces or new lines. */
export function vectorItems(text, name) {
  if (text.length > MAX_VECTOR_TEXT && codePoints(text).length > MAX_VECTOR_TEXT) {
    throw new InputError("Vector %(name)s is %(length)s characters long; at most %(most)s are read.",
      { name, length: String(codePoints(text).length), most: String(MAX_VECTOR_TEXT) });
  }
  const items = text.replaceAll("\u2212", "-").split(SEPARATORS).filter((item) => item);
  if (!items.length) {
    throw new InputError("Vector %(name)s is empty; type numbers separated by commas or spaces.", { name });
  }
  if (items.length > MAX_DOT_LENGTH) {
    throw new InputError("Vector %(name)s has %(count)s numbers; at most %(most)s are taken.",
      { name, count: String(items.length), most: String(MAX_DOT_LENGTH) });
  }
  return items;
}

/** One item of a typed vector as a finite real (parse_vector_items), `position` 1-based. */
export function parseItem(item, position, name) {
  const length = item.length > MAX_INPUT_LENGTH ? codePoints(item).length : item.length;
  if (length > MAX_INPUT_LENGTH) {
    throw new InputError("Number %(position)s of vector %(name)s is %(length)s characters long; at most %(most)s are "
      + "read.", { position: String(position), name, length: String(length), most: String(MAX_INPUT_LENGTH) });
  }
  let value;
  try {
    value = parseNumber(item);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    throw new InputError("Number %(position)s of vector %(name)s, %(input)s, is not a number; write decimals such as "
      + "0.5 or -1.25e-3, hex floats such as 0x1.8p-3, or fractions such as 1/3.",
    { position: String(position), name, input: quoted(head(item)) });
  }
  if (value.kind !== "finite") {
    throw new InputError("Number %(position)s of vector %(name)s is %(input)s; a dot product here takes finite "
      + "numbers only.", { position: String(position), name, input: quoted(head(item)) });
  }
  return value;
}

export const smallestExponent = (spec) => spec.emin - spec.mantissa_bits;

/** A dyadic value (BigInt m × 2^k) as whole units of 2^e, e ≤ the value's own grid. */
const unitsAt = (m, k, e) => (k >= e ? m << BigInt(k - e) : m >> BigInt(e - k));

/** One typed value stored (encode, nearest-even, saturating): [units, overflowed, zeroed]. */
export function storedItem(value, spec) {
  const stored = encodeValue(spec, value, "nearest_even", "saturate"), v = stored.encoding.value;
  const k = -trailingZeros(v.den), units = unitsAt(v.negative ? -v.num : v.num, k, smallestExponent(spec));
  return [units, stored.overflowed, units === 0n && value.num !== 0n];
}

/** drawn_vectors' storing of numpy's draws (doubles) in the format: round_to_format with saturation (one exact
 * nearest-even rounding of each double, clamped to ± the largest), the clamped ones those beyond the largest. */
export function storedDraws(doubles, spec) {
  const max = readFraction(spec.max), largest = Number(max.num) / Number(max.den), e = smallestExponent(spec);
  const units = [];
  let clamped = 0, zeroed = 0;
  for (const x of doubles) {
    if (Math.abs(x) > largest) clamped++;
    const exact = ofDouble(x), d = trailingZeros(exact.den), fine = Math.min(-d, e);
    const g = grid(spec, fine), m = unitsAt(exact.num, -d, fine);
    let r = m === 0n ? 0n : rounded(m, { ...g, largest: 1n << 4096n });
    if (abs(r) > g.largest) r = r < 0n ? -g.largest : g.largest;
    const u = unitsAt(r, fine, e);
    if (u === 0n && x !== 0) zeroed++;
    units.push(u);
  }
  return { units, clamped, zeroed };
}

const DECIMAL = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:e([+-]?[0-9]+))?$/i;
const FAR_ABOVE = 40, FAR_BELOW = -46; // 10^40 is past every format's largest; below 10^-46, zero in each one

/** A decimal item far beyond every format's range stored without building its exact value (10^99999 takes
 * milliseconds, and a pasted vector can hold 4096 of them): ± the largest (clamped) or 0 (zeroed); null for any
 * other item. As dot_reading.py's stand-ins on the server. */
function farItem(item, spec) {
  const m = DECIMAL.exec(strip(item).replaceAll("\u2212", "-"));
  if (!m || item.length > MAX_INPUT_LENGTH) return null;
  const digits = (m[2] || "") + (m[3] || ""), lead = digits.search(/[1-9]/);
  if (lead < 0 || (m[4] && (BigInt(m[4]) > 100000n || BigInt(m[4]) < -100000n))) return null;
  const order = digits.length - lead + Number(m[4] || 0) - (m[3] || "").length; // 10^(order - 1) <= |x| < 10^order
  if (order - 1 >= FAR_ABOVE) {
    const max = readFraction(spec.max), units = (max.num << BigInt(-smallestExponent(spec))) / max.den;
    return [m[1] === "-" ? -units : units, true, false];
  }
  return order <= FAR_BELOW ? [0n, false, true] : null;
}

/** One item of a typed vector read and stored in the format: [units, clamped, zeroed], refused as
 * parse_vector_items refuses it. */
export const typedItem = (item, position, name, spec) => farItem(item, spec)
  ?? storedItem(parseItem(item, position, name), spec);
