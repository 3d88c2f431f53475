// The whole dot-product figure in the browser, as app/formats/dot_product.py's dot_product gives it: the settings
// checked with the server's sentences, the exact dot product and its running values, and each method's result, its
// error, relative error, error in ulps and running error at the chart's counts.

import { InputError } from "./codec.js";
import { real } from "./codec_values.js";
import { abs, isSpecial, ulpExponent } from "./dot_arithmetic.js";
import {
  MAX_DOT_LENGTH, checkedFormat, checkedMethod, chartCounts, outputGrid, productExponents, productUnit, runningValues,
} from "./dot_core.js";
import { divideToDouble, dyadic, ldexp } from "./exact.js";

/** A value (units of 2^unit, or a special Number) as a real of the codec (dot_arithmetic.real). */
export function realOf(x, unit) {
  if (isSpecial(x)) return Number.isNaN(x) ? real(false, undefined, "nan") : real(x < 0, undefined, "inf");
  return real(x < 0n, dyadic(abs(x), unit));
}

/** |x| × 2^unit as Python's math.ldexp(float(abs(x)), unit): the integer rounded once to a double. */
const approx = (x, unit) => ldexp(Number(abs(x)), unit);

/** x / y as a correctly rounded double (Python's int / int and float(Fraction)), signed. */
function quotient(x, y) {
  if (x === 0n) return 0;
  const negative = (x < 0n) !== (y < 0n);
  return (negative ? -1 : 1) * divideToDouble(abs(x), abs(y));
}

function result(method, spec, specs, atCounts, exactAt, unit) {
  const value = atCounts.at(-1), exact = exactAt.at(-1);
  const running = atCounts.map((v, i) => (isSpecial(v) ? null : approx(v - exactAt[i], unit)));
  const output = outputGrid(method, spec, specs);
  if (isSpecial(value)) {
    const special = realOf(value, unit);
    return { method, outputFormat: output.formatId, value: special, error: special, relError: null, ulpError: null,
      running, raw: value };
  }
  const error = value - exact;
  const shift = unit - ulpExponent(output, exact); // error × 2^unit / 2^E
  const ulps = shift >= 0 ? quotient(error << BigInt(shift), 1n) : quotient(error, 1n << BigInt(-shift));
  return { method, outputFormat: output.formatId, value: realOf(value, unit), error: realOf(error, unit),
    relError: exact ? quotient(abs(error), abs(exact)) : null, ulpError: ulps, running, raw: value };
}

/** dot_product: the figure for two stored vectors (BigInt units of the format's smallest subnormal); `specs` the
 * codec specs by id (float32's among them). */
export function dotProduct(spec, a, b, methods, promoteEvery, specs) {
  checkedFormat(spec.id);
  if (a.length !== b.length) {
    throw new InputError("Vector a has %(a)s numbers and vector b %(b)s; a dot product needs as many in each.",
      { a: String(a.length), b: String(b.length) });
  }
  if (!(a.length >= 1 && a.length <= MAX_DOT_LENGTH)) {
    throw new InputError("The vectors have %(n)s numbers each; from 1 to %(most)s are taken.",
      { n: String(a.length), most: String(MAX_DOT_LENGTH) });
  }
  if (!(promoteEvery >= 1 && promoteEvery <= MAX_DOT_LENGTH)) {
    throw new InputError("promote_every must be a whole number from 1 to %(most)s; %(input)s is not.",
      { most: String(MAX_DOT_LENGTH), input: String(promoteEvery) });
  }
  for (const method of methods) checkedMethod(method, spec.id);
  const unit = productUnit(spec), products = a.map((x, i) => x * b[i]), exponents = productExponents(spec, a, b);
  const counts = chartCounts(products.length);
  const prefix = [];
  let sum = 0n;
  for (const p of products) prefix.push((sum += p));
  const exactAt = counts.map((k) => prefix[k - 1]);
  const results = methods.map((m) => result(m, spec, specs, runningValues(m, spec, specs, products, exponents,
    counts, promoteEvery), exactAt, unit));
  return { formatId: spec.id, n: products.length, promoteEvery, unit, products, exponents, counts, exact: realOf(sum, unit),
    exactUnits: sum, exactRunning: exactAt.map((e) => (e < 0n ? -1 : 1) * approx(e, unit)), results };
}
