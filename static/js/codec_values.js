// Exact values in the browser's codec, as app/formats/exact.py's Real: {negative, num, den, kind} with the magnitude
// num/den reduced; their decimal text as the pages write it (exact, or "≈" and 7 digits), and the error of a stored
// value. Part of the codec (codec.js re-exports what the pages use).

import { absolute, bitLength, decimal, decimalG, divideToDouble, floatG, ldexp, subtractFromDyadic } from "./exact.js";
import { Phrase } from "./words.js";

export const SHORT_LENGTH = 24;

/** Input that cannot be read: its message the English sentence, its `phrase` the sentence to say on a page. */
export class InputError extends Error {
  constructor(template, params = {}) {
    const phrase = new Phrase(template, params);
    super(String(phrase));
    this.phrase = phrase;
  }
}

// -- values ---------------------------------------------------------------------------------------------------

export const real = (negative, x = { num: 0n, den: 1n }, kind = "finite") => ({ negative, num: x.num, den: x.den,
  kind });
export const ofFraction = (x) => real(x.num < 0n, absolute(x));
export const signed = (v) => ({ num: v.negative ? -v.num : v.num, den: v.den });
export const isZero = (v) => v.kind === "finite" && v.num === 0n;

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

// -- the error of a stored value ----------------------------------------------------------------------------

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

