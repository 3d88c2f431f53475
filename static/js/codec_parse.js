// Reading what a person types, in the browser's codec (app/formats/parse.py): decimals, hex floats, fractions,
// specials and raw bit patterns, refused with the server's sentences. Part of the codec (codec.js re-exports what
// the pages use).

import { dyadic, fraction, tenTo, trailingZeros } from "./exact.js";
import { InputError, real } from "./codec_values.js";
import { codePoints, quotedHead } from "./codec_quote.js";
import { Phrase } from "./words.js";

const MAX_INPUT_LENGTH = 1100, MAX_DECIMAL_EXPONENT = 100000n, MAX_BINARY_EXPONENT = 400000n;
const ACCEPTED = new Phrase("decimals (0.1, -2.5e-3), hex floats (0x1.8p-3), fractions (1/3), inf, -inf, nan, -0, "
  + "and raw bits (0x3c00 or 0b0011110000000000)");

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

/** Typed text within the length limit, without the whitespace around it, the typographic minus read as "-". */
export function clean(text) {
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

/** The pattern of raw bits written in hex (0x…), binary (0b…) or as a decimal integer; null for other text. */
export function rawPattern(text) {
  let m;
  if ((m = RAW_HEX.exec(text))) return raw(m[1], "0x").pattern;
  if ((m = RAW_BIN.exec(text))) return raw(m[1], "0b").pattern;
  if ((m = RAW_DEC.exec(text))) return raw(m[1], "").pattern;
  return null;
}
