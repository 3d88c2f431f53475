// A dot product of two stored vectors accumulated several ways in the browser, against its exact value, as
// app/formats/dot_product.py and tensor_cores.py compute it (the reference; tests/js/test_dot_parity.py holds the
// two together): the vectors are whole multiples of their format's smallest subnormal (BigInt), their products exact
// integers of 2^unit (dot_arithmetic.js). Methods: input_format, fp32, promoted (a narrow accumulator, 14 bits kept,
// promoted into FP32 every promote_every elements), pairwise and kahan in FP32, and the tensor-core models.

import { InputError, quoted } from "./codec.js";
import { add, fusedAdd, grid, negated, rounded, valueExponent } from "./dot_arithmetic.js";
import { codePoints } from "./codec_quote.js";

export const DOT_FORMATS = ["float8_e4m3fn", "float8_e5m2", "float16", "bfloat16", "tfloat32", "float32"];
export const MAX_DOT_LENGTH = 4096, DEFAULT_PROMOTE_EVERY = 128, CHART_POINTS = 200;
/** The tensor-core models and the promoted method's narrow accumulator, as app/formats/tensor_cores.py has them
 * (the page's JSON carries them, app/web/dot/data.py): {cores: {id: {name, models: {format: adder}}}, narrow}. */
export const MODELS = { cores: {}, narrow: null };
export const BASE_METHODS = ["input_format", "fp32", "promoted", "pairwise", "kahan"];
export let DOT_METHODS = BASE_METHODS;

/** Take in the models (an adder: {block, window, output_bits}). */
export function setModels({ cores, narrow }) {
  Object.assign(MODELS, { cores, narrow });
  DOT_METHODS = [...BASE_METHODS, ...Object.keys(cores)];
}

const cut40 = (text) => codePoints(text).slice(0, 40).join("");

/** The format, when the dot product takes it (checked_dot_format). */
export function checkedFormat(formatId) {
  if (!DOT_FORMATS.includes(formatId)) {
    throw new InputError("%(input)s is not a format for the dot product; choose one of %(formats)s.",
      { input: quoted(cut40(formatId)), formats: DOT_FORMATS.join(", ") });
  }
  return formatId;
}

/** The methods that take this input format, in the figure's order. */
export const methodsFor = (formatId) => DOT_METHODS.filter((m) => !(m in MODELS.cores)
  || formatId in MODELS.cores[m].models);

/** The method, when it is one and takes the format (checked_dot_method). */
export function checkedMethod(method, formatId) {
  if (!DOT_METHODS.includes(method)) {
    throw new InputError("%(input)s is not a dot-product method; choose from %(methods)s.",
      { input: quoted(cut40(method)), methods: DOT_METHODS.join(", ") });
  }
  const offered = methodsFor(formatId);
  if (!offered.includes(method)) {
    throw new InputError("%(input)s does not take %(format)s; for %(format)s choose from %(methods)s.",
      { input: quoted(method), format: formatId, methods: offered.join(", ") });
  }
  return method;
}

/** The exponent of the grid every product of two of the format's values lies on. */
export const productUnit = (spec) => 2 * (spec.emin - spec.mantissa_bits);

/** product_exponents: each product's exponent as a tensor core aligns it, its factors' exponents added (a
 * subnormal's the format's smallest normal exponent); null where it is zero. */
export function productExponents(spec, a, b) {
  const smallest = spec.emin - spec.mantissa_bits;
  return a.map((x, i) => {
    const ex = valueExponent(x, smallest, spec.emin), ey = valueExponent(b[i], smallest, spec.emin);
    return ex === null || ey === null ? null : ex + ey;
  });
}

/** The format a method's result is stored in: the input format for input_format, else FP32 (as a grid). */
export const outputGrid = (method, spec, specs) => grid(method === "input_format" ? spec : specs.float32,
  productUnit(spec));

/** numpy's round (half to even) of a double. */
function roundHalfEven(x) {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** chart_counts: at most `points` element counts from 1 to n, evenly spread (numpy's linspace), n included. */
export function chartCounts(n, points = CHART_POINTS) {
  const num = Math.min(points, n), step = (n - 1) / (num - 1), counts = new Set();
  for (let i = 0; i < num; i++) counts.add(i === num - 1 ? n : roundHalfEven(i * step + 1));
  return [...counts].sort((x, y) => x - y);
}

/** Every running sum: each product rounded to `productsTo`, each partial sum to `sumsTo` (nearest-even). */
export function sequentialRunning(products, productsTo, sumsTo) {
  const running = [];
  let total = null;
  for (const p of products) {
    const q = rounded(p, productsTo);
    total = total === null ? q : rounded(add(total, q), sumsTo);
    running.push(total);
  }
  return running;
}

/** Kahan's [sum, compensation] after each product rounded to FP32, every operation in FP32. */
export function kahanRunning(products, fp32) {
  const states = [];
  let total = 0n, compensation = 0n;
  for (const p of products) {
    const y = rounded(add(rounded(p, fp32), negated(compensation)), fp32);
    const t = rounded(add(total, y), fp32);
    compensation = rounded(add(rounded(add(t, negated(total)), fp32), negated(y)), fp32);
    total = t;
    states.push([total, compensation]);
  }
  return states;
}

/** fused_running: a fused adder's result after each count and its traces ({blockStart, accumulator,
 * promotedTotal}); with promoteEvery, restarted every promoteEvery elements and promoted into FP32. */
export function fusedRunning(products, exponents, adder, fp32, counts, promoteEvery = null) {
  const n = products.length, interval = promoteEvery || n;
  const beforeBlock = new Map(), beforeInterval = new Map();
  let total = 0n;
  for (let start = 0; start < n; start += interval) {
    beforeInterval.set(start, total);
    let accumulator = 0n;
    const stop = Math.min(start + interval, n);
    for (let block = start; block < stop; block += adder.block) {
      beforeBlock.set(block, accumulator);
      accumulator = fusedAdd(accumulator, products, exponents, block, Math.min(block + adder.block, stop), adder,
        fp32);
    }
    total = promoteEvery ? rounded(add(total, accumulator), fp32) : accumulator;
  }
  const values = [], traces = [];
  for (const k of counts) {
    const start = Math.floor((k - 1) / interval) * interval;
    const block = start + Math.floor((k - 1 - start) / adder.block) * adder.block;
    const partial = fusedAdd(beforeBlock.get(block), products, exponents, block, k, adder, fp32);
    const promoted = promoteEvery ? beforeInterval.get(start) : null;
    values.push(promoted === null ? partial : rounded(add(promoted, partial), fp32));
    traces.push({ blockStart: block, accumulator: beforeBlock.get(block), promotedTotal: promoted });
  }
  return [values, traces];
}

/** summation.pairwise_sums in FP32: level j holds the sums of the aligned blocks of 2^j values; the first k
 * values are the blocks of k's binary digits, added from the smallest up. */
function pairwise(products, fp32, counts) {
  let level = products.map((p) => rounded(p, fp32));
  const total = counts.map(() => null);
  for (let j = 0; level.length; j++) {
    counts.forEach((k, i) => {
      if (((k >> j) & 1) === 0) return;
      const block = level[(k >> (j + 1)) << 1];
      total[i] = total[i] === null ? block : rounded(add(block, total[i]), fp32);
    });
    const next = [];
    for (let i = 0; i + 1 < level.length; i += 2) next.push(rounded(add(level[i], level[i + 1]), fp32));
    level = next;
  }
  return total;
}

/** One method's value after each count. */
export function runningValues(method, spec, specs, products, exponents, counts, promoteEvery) {
  const unit = productUnit(spec), fp32 = grid(specs.float32, unit);
  if (method === "input_format" || method === "fp32") {
    const own = outputGrid(method, spec, specs), running = sequentialRunning(products, own, own);
    return counts.map((k) => running[k - 1]);
  }
  if (method === "kahan") {
    const states = kahanRunning(products, fp32);
    return counts.map((k) => states[k - 1][0]);
  }
  if (method === "pairwise") return pairwise(products, fp32, counts);
  if (method === "promoted") return fusedRunning(products, exponents, MODELS.narrow, fp32, counts, promoteEvery)[0];
  return fusedRunning(products, exponents, MODELS.cores[method].models[spec.id], fp32, counts)[0];
}
