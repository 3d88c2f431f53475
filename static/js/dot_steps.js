// The bits of one step of a dot product in the browser, as app/formats/dot_steps.py lays them out: the operands on
// one column grid, where the method cuts, what it drops, and the result. A rounded sum (input_format, fp32,
// kahan) rounds the exact sum of two operands once; an aligned block (the tensor cores, the promoted narrow
// accumulator) truncates every term at the cut before adding. Pairwise summation has no single step: null.

import { InputError } from "./codec.js";
import {
  abs, add, alignmentCut, fusedOutput, grid, isSpecial, negated, rounded, topBit, truncated, valueExponent,
} from "./dot_arithmetic.js";
import { MODELS, checkedMethod, fusedRunning, kahanRunning, outputGrid, sequentialRunning } from "./dot_core.js";
import { realOf } from "./dot_product.js";

export const MAX_COLUMNS = 64, SHOWN_BELOW_CUT = 8;

const exponentOf = (x, unit) => (isSpecial(x) || x === 0n ? null : topBit(abs(x)) + unit);
const lowestSet = (x, unit) => (isSpecial(x) || x === 0n ? null : topBit(abs(x) & -abs(x)) + unit);

/** One operand (TermBits): role, element, value, kept, exponent, negative, bits (a character a column),
 * moreBelow. */
function bitsOf(x, role, element, kept, top, bottom, unit) {
  const finite = !isSpecial(x), magnitude = finite ? abs(x) : 0n;
  const shifted = bottom >= unit ? magnitude >> BigInt(bottom - unit) : magnitude << BigInt(unit - bottom);
  const columns = top - bottom + 1;
  const more = finite && bottom > unit && (magnitude & ((1n << BigInt(bottom - unit)) - 1n)) !== 0n;
  return { role, element, value: realOf(x, unit), kept: realOf(kept, unit), exponent: exponentOf(x, unit),
    negative: finite && x < 0n, bits: finite ? shifted.toString(2).padStart(columns, "0").slice(-columns) : "",
    moreBelow: more };
}

/** [top, bottom] columns: from the highest leading bit down to a few columns under the cut. */
function layout(values, cut, unit) {
  const exponents = values.map((v) => exponentOf(v, unit)).filter((e) => e !== null);
  const top = exponents.length ? Math.max(...exponents) : 0;
  const lows = values.map((v) => lowestSet(v, unit)).filter((e) => e !== null);
  const lowest = lows.length ? Math.min(...lows) : top;
  const bottom = cut === null ? lowest : Math.max(Math.min(lowest, cut), cut - SHOWN_BELOW_CUT);
  return [top, Math.max(bottom, top - MAX_COLUMNS + 1)];
}

/** The exponent of the last bit a format keeps for a value of x's size. */
const cutOf = (x, to) => Math.max(topBit(abs(x)) + to.unit, to.emin) - to.precision + 1;

const lostOf = (exact, result) => (isSpecial(result) ? result : add(exact, negated(result)));

function roundedStep(figure, method, step, spec, specs) {
  const unit = figure.unit, products = figure.products.slice(0, step);
  const own = method === "kahan" ? grid(specs.float32, unit) : outputGrid(method, spec, specs);
  let total, addend, result, role;
  if (method === "kahan") {
    const states = kahanRunning(products, own), compensation = step > 1 ? states.at(-2)[1] : 0n;
    total = step > 1 ? states.at(-2)[0] : 0n;
    addend = rounded(add(rounded(products.at(-1), own), negated(compensation)), own);
    [result, role] = [states.at(-1)[0], "corrected_product"];
  } else {
    const running = sequentialRunning(products, own, own);
    [total, addend] = [step > 1 ? running.at(-2) : 0n, rounded(products.at(-1), own)];
    [result, role] = [running.at(-1), "product"];
  }
  const exact = add(total, addend);
  const cut = isSpecial(exact) || exact === 0n ? null : cutOf(exact, own);
  const [top, bottom] = layout([total, addend, exact, result], cut, unit);
  const terms = [...(step > 1 ? [bitsOf(total, "accumulator", null, total, top, bottom, unit)] : []),
    bitsOf(addend, role, step, addend, top, bottom, unit)];
  return { method, step, kind: "rounded_sum", first: step, last: step, top, columns: top - bottom + 1, cut, terms,
    exactSum: realOf(exact, unit), exactSumBits: bitsOf(exact, "sum", null, exact, top, bottom, unit),
    result: realOf(result, unit), resultBits: bitsOf(result, "accumulator", null, result, top, bottom, unit),
    lost: realOf(lostOf(exact, result), unit), promoted: null };
}

function blockStep(figure, method, step, spec, specs) {
  const unit = figure.unit, products = figure.products, fp32 = grid(specs.float32, unit);
  const promote = method === "promoted" ? figure.promoteEvery : null;
  const adder = method === "promoted" ? MODELS.narrow : MODELS.cores[method].models[spec.id];
  const interval = promote || figure.n;
  const trace = fusedRunning(products, figure.exponents, adder, fp32, [step], promote)[1][0];
  const start = trace.blockStart, before = trace.accumulator;
  const end = Math.min(start + adder.block, (Math.floor(start / interval) + 1) * interval, figure.n);
  const block = products.slice(start, end), termsIn = [before, ...block];
  let cut = null, kept = termsIn, exact = before, result = before; // inf or NaN: nothing is aligned or cut
  if (!isSpecial(before)) {
    cut = alignmentCut([valueExponent(before, unit, fp32.emin), ...figure.exponents.slice(start, end)], adder.window);
    kept = termsIn.map((t) => (cut === null ? t : truncated(t, cut, unit)));
    exact = block.reduce((s, p) => s + p, 0n) + before;
    result = fusedOutput(kept.reduce((s, k) => s + k, 0n), adder, fp32);
  }
  const [top, bottom] = layout([...termsIn, exact, result], cut, unit);
  const terms = termsIn.map((t, i) => bitsOf(t, i ? "product" : "accumulator", i ? start + i : null, kept[i], top,
    bottom, unit));
  let promoted = null;
  if (promote && trace.promotedTotal !== null && (end % interval === 0 || end === figure.n)) {
    const after = rounded(add(trace.promotedTotal, result), fp32);
    promoted = [realOf(trace.promotedTotal, unit), realOf(after, unit)];
  }
  return { method, step, kind: "aligned_block", first: start + 1, last: end, top, columns: top - bottom + 1, cut, terms,
    exactSum: realOf(exact, unit), exactSumBits: bitsOf(exact, "sum", null, exact, top, bottom, unit),
    result: realOf(result, unit), resultBits: bitsOf(result, "accumulator", null, result, top, bottom, unit),
    lost: realOf(lostOf(exact, result), unit), promoted };
}

/** step_bits: the bits of step `step` (1-based) of one method of the figure; null for pairwise summation. */
export function stepBits(figure, method, step, spec, specs) {
  checkedMethod(method, figure.formatId);
  if (!(step >= 1 && step <= figure.n)) {
    throw new InputError("step runs from 1 to %(n)s, the length of the vectors; %(input)s is not.",
      { n: String(figure.n), input: String(step) });
  }
  if (method === "pairwise") return null;
  if (["input_format", "fp32", "kahan"].includes(method)) return roundedStep(figure, method, step, spec, specs);
  return blockStep(figure, method, step, spec, specs);
}
