// Exact rationals on BigInt and their decimal strings, digit for digit as app/formats/exact.py writes them
// (and as app/web/visualise/present.py shortens them). A rational is {num, den}: den > 0, reduced.

// Past this many significant digits a decimal is shown rounded, and said to be (exact.py).
export const MAX_EXACT_DIGITS = 1200;
export const ROUNDED_DIGITS = 40;
const LOG10_2 = 0.3010299956639812; // Python's math.log10(2), the same double
const LOG2_5 = 2.321928094887362; // math.log2(5)
const LOW64 = (1n << 64n) - 1n;

export function bitLength(n) {
  if (n < 0n) n = -n;
  if (n === 0n) return 0;
  const hex = n.toString(16);
  return hex.length * 4 - Math.clz32(parseInt(hex[0], 16)) + 28;
}

export function trailingZeros(n) {
  return n === 0n ? 0 : bitLength(n & -n) - 1;
}

export function gcd(a, b) {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  if (a === 0n || b === 0n) return a + b;
  // where either is a power of two times 1 (a dyadic value's denominator), only twos are in common: no Euclid on
  // numbers of thousands of bits, whose every step is a division
  const twosA = trailingZeros(a), twosB = trailingZeros(b);
  if (a >> BigInt(twosA) === 1n || b >> BigInt(twosB) === 1n) return 1n << BigInt(Math.min(twosA, twosB));
  while (b) [a, b] = [b, a % b];
  return a;
}

export function pow2(k) {
  return k >= 0 ? { num: 1n << BigInt(k), den: 1n } : { num: 1n, den: 1n << BigInt(-k) };
}

/** m × 2^k, reduced. */
export function dyadic(m, k) {
  if (m === 0n) return { num: 0n, den: 1n };
  const zeros = trailingZeros(m);
  m >>= BigInt(zeros);
  k += zeros;
  return k >= 0 ? { num: m << BigInt(k), den: 1n } : { num: m, den: 1n << BigInt(-k) };
}

export function fraction(num, den) {
  if (den < 0n) [num, den] = [-num, -den];
  const g = gcd(num, den);
  return g === 1n ? { num, den } : { num: num / g, den: den / g };
}

export function compare(x, y) {
  const a = x.num * y.den, b = y.num * x.den;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function absolute(x) {
  return x.num < 0n ? { num: -x.num, den: x.den } : x;
}

/** d − x for a dyadic d (its denominator a power of two) and any reduced x: an odd factor of x's denominator
 * cannot cancel, so only twos are taken out, never a gcd of two numbers of 10^5 digits. */
export function subtractFromDyadic(d, x) {
  const a = trailingZeros(d.den), b = trailingZeros(x.den);
  const odd = x.den >> BigInt(b), top = Math.max(a, b);
  let num = ((d.num * odd) << BigInt(top - a)) - (x.num << BigInt(top - b));
  if (num === 0n) return { num, den: 1n };
  const cancel = Math.min(trailingZeros(num), top);
  num >>= BigInt(cancel);
  return { num, den: odd << BigInt(top - cancel) };
}

/** Python's str() of a Fraction: "3" or "15/2". */
export function fractionText(x) {
  return x.den === 1n ? `${x.num}` : `${x.num}/${x.den}`;
}

/** A constant as codec_specs.py sends it: m·2^k, "0x7p6" or "-0xfp-1" (m odd or zero), or "0x1/0x3". */
export function readFraction(text) {
  const negative = text[0] === "-", body = negative ? text.slice(1) : text;
  const sign = (n) => (negative ? -n : n);
  if (body.includes("/")) {
    const [num, den] = body.split("/");
    return { num: sign(BigInt(num)), den: BigInt(den) };
  }
  const [m, k] = body.split("p"), power = Number(k);
  const num = BigInt(m);
  return power >= 0 ? { num: sign(num << BigInt(power)), den: 1n } : { num: sign(num), den: 1n << BigInt(-power) };
}

// Powers of five and ten kept, as exact.py keeps them: a value, its neighbours and its errors need the same few.
function kept(cache, make) {
  return (n) => {
    let power = cache.get(n);
    if (power === undefined) {
      power = make(n);
      if (cache.size >= 64) cache.delete(cache.keys().next().value);
      cache.set(n, power);
    }
    return power;
  };
}

const fiveTo = kept(new Map(), (n) => 5n ** BigInt(n));
export const tenTo = kept(new Map(), (n) => fiveTo(n) << BigInt(n));

function roundHalfEven(x) {
  const floor = Math.floor(x), rest = x - floor;
  return rest > 0.5 || (rest === 0.5 && floor % 2 !== 0) ? floor + 1 : floor;
}

function powMod64(base, exponent) {
  let result = 1n;
  for (let b = base, e = exponent; e; e >>= 1) {
    if (e & 1) result = (result * b) & LOW64;
    b = (b * b) & LOW64;
  }
  return result;
}

function powerOfFive(n) {
  const guess = roundHalfEven((bitLength(n) - 1) / LOG2_5), low = n & LOW64;
  for (const fives of [guess - 1, guess, guess + 1]) {
    if (fives >= 0 && powMod64(5n, fives) === low && fiveTo(fives) === n) return fives;
  }
  return null;
}

function twosAndFives(den) {
  const twos = trailingZeros(den);
  const fives = powerOfFive(den >> BigInt(twos));
  return fives === null ? null : [twos, fives];
}

function exactDigits(x, twos, fives) {
  const k = Math.max(twos, fives);
  const digits = ((x.num * fiveTo(k - fives)) << BigInt(k - twos)).toString();
  const stripped = digits.replace(/0+$/, "");
  return [stripped, digits.length - stripped.length - k];
}

/** The first `count` significant digits of x > 0 rounded half-even, the exponent of the last digit, and
 * whether nothing was lost. */
export function roundedDigits(x, count) {
  const { num, den } = x;
  let exp10 = Math.floor((bitLength(num) - bitLength(den)) * LOG10_2);
  const high = 10n ** BigInt(count), low = high / 10n;
  let shift, bottom, n, remainder;
  for (;;) {
    shift = count - 1 - exp10;
    const top = shift >= 0 ? num * tenTo(shift) : num;
    bottom = shift >= 0 ? den : den * tenTo(-shift);
    n = top / bottom;
    remainder = top % bottom;
    if (n >= high) exp10 += 1;
    else if (n < low) exp10 -= 1;
    else break;
  }
  if (2n * remainder > bottom || (2n * remainder === bottom && n % 2n)) n += 1n;
  const text = n.toString();
  const digits = text.replace(/0+$/, "") || "0";
  return [digits, -shift + (text.length - digits.length), remainder === 0n];
}

export function layout(digits, point) {
  const exp10 = point + digits.length - 1;
  if (exp10 > -7 && exp10 < 21) {
    if (point >= 0) return digits + "0".repeat(point);
    if (exp10 >= 0) return `${digits.slice(0, exp10 + 1)}.${digits.slice(exp10 + 1)}`;
    return `0.${"0".repeat(-exp10 - 1)}${digits}`;
  }
  const mantissa = digits[0] + (digits.length > 1 ? `.${digits.slice(1)}` : "");
  return `${mantissa}e${exp10 >= 0 ? "+" : "-"}${Math.abs(exp10)}`;
}

/** [decimal string, whether exact] of x ≥ 0: exact when it terminates within MAX_EXACT_DIGITS digits, else
 * rounded to ROUNDED_DIGITS; plain from 1e-6 up to 1e21, scientific beyond. */
export function decimal(x) {
  if (x.num === 0n) return ["0", true];
  const factors = twosAndFives(x.den);
  if (factors) {
    const bound = Math.trunc((bitLength(x.num) - bitLength(x.den)) * LOG10_2) + Math.max(...factors) + 2;
    if (bound <= MAX_EXACT_DIGITS) return [layout(...exactDigits(x, ...factors)), true];
  }
  const [digits, point, exact] = roundedDigits(x, ROUNDED_DIGITS);
  return [layout(digits, point), exact];
}

/** Python's format(Decimal(text), f".{digits}g"), the default context's half-even rounding included. */
export function decimalG(text, digits) {
  const negative = text.startsWith("-");
  const [mantissa, exponent = "0"] = (negative ? text.slice(1) : text).split("e");
  const [whole, part = ""] = mantissa.split(".");
  let coefficient = (whole + part).replace(/^0+(?=.)/, "");
  let exp = Number(exponent) - part.length;
  if (coefficient.length > digits) {
    const rest = coefficient.slice(digits);
    let kept = BigInt(coefficient.slice(0, digits));
    const half = "5".padEnd(rest.length, "0");
    if (rest > half || (rest === half && kept % 2n)) kept += 1n;
    exp += rest.length;
    coefficient = kept.toString();
    if (coefficient.length > digits) {
      coefficient = coefficient.slice(0, digits);
      exp += 1;
    }
  }
  const adjusted = exp + coefficient.length - 1;
  let body;
  if (exp <= 0 && adjusted >= -6) {
    const point = coefficient.length + exp;
    body = exp === 0 ? coefficient
      : point > 0 ? `${coefficient.slice(0, point)}.${coefficient.slice(point)}`
      : `0.${"0".repeat(-point)}${coefficient}`;
  } else {
    body = coefficient[0] + (coefficient.length > 1 ? `.${coefficient.slice(1)}` : "")
      + `e${adjusted >= 0 ? "+" : "-"}${Math.abs(adjusted)}`;
  }
  return (negative ? "-" : "") + body;
}

/** The exact value of a finite double, as a rational. */
export function ofDouble(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const high = view.getUint32(0), field = (high >>> 20) & 0x7ff;
  const mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  const value = field ? dyadic(mantissa | (1n << 52n), field - 1075) : dyadic(mantissa, -1074);
  return high >>> 31 ? { num: -value.num, den: value.den } : value;
}

/** Python's format(x, f".{digits}g") of a double: correctly rounded half-even, exponents of two digits. */
export function floatG(x, digits) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x < 0 ? "-inf" : "inf";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  if (x === 0) return `${sign}0`;
  const [kept, point] = roundedDigits(absolute(ofDouble(x)), digits);
  const exp10 = point + kept.length - 1;
  if (exp10 >= -4 && exp10 < digits) return sign + layout(kept, point);
  const mantissa = kept[0] + (kept.length > 1 ? `.${kept.slice(1)}` : "");
  return `${sign}${mantissa}e${exp10 < 0 ? "-" : "+"}${String(Math.abs(exp10)).padStart(2, "0")}`;
}

/** x / y for integers 0 < x, y, correctly rounded to the nearest double (ties to even), as Python's int / int. */
export function divideToDouble(x, y) {
  const shift = 55 - (bitLength(x) - bitLength(y)); // a quotient of 55 or 56 bits, then a sticky bit
  let q = shift >= 0 ? (x << BigInt(shift)) / y : x / (y << BigInt(-shift));
  const exact = shift >= 0 ? (x << BigInt(shift)) % y === 0n : x % (y << BigInt(-shift)) === 0n;
  const extra = bitLength(q) - 53;
  const dropped = q & ((1n << BigInt(extra)) - 1n), half = 1n << BigInt(extra - 1);
  q >>= BigInt(extra);
  if (dropped > half || (dropped === half && (!exact || q & 1n))) q += 1n;
  return ldexp(Number(q), extra - shift);
}

/** x × 2^k with one rounding, as C's ldexp (infinity past the range). */
export function ldexp(x, k) {
  if (k > 1000) return x * 2 ** 1000 * 2 ** (k - 1000);
  if (k < -1000) return x * 2 ** -1000 * 2 ** (k + 1000);
  return x * 2 ** k;
}
