// The block quantisers in the browser (app/formats/blocks.py, block_detail.py): OCP MX v1.0's shared E8M0 scale,
// NVFP4's E4M3 block scale under an FP32 tensor scale, NF4's absmax, and what became of each value. Part of
// blocks.js, which re-exports what the pages use.

import { encodeValue } from "./codec.js";
import { absolute, compare, fraction, ldexp, ofDouble, readFraction, subtractFromDyadic } from "./exact.js";
import { floorLog2, maxOf, pattern, realOfFraction, signedZero, store, toDouble, valueOf } from "./blocks_values.js";

// -- the quantisers (blocks.py) -------------------------------------------------------------------------------

function microscaled(grid, absmax, spec) {
  const element = spec.element, scale = spec.scale, top = maxOf(element);
  const scales = [], codes = [], values = [];
  grid.forEach((row, b) => {
    const a = absmax[b];
    const shared = Math.min(Math.max(a > 0 ? floorLog2(a) - spec.element_emax : scale.emin, scale.emin), scale.emax);
    const exponent = shared + spec.element_scale_exp; // dividing by a power of two is exact
    const rowCodes = row.map((x) => store(element, Math.min(Math.max(ldexp(x, -exponent), -top), top)));
    scales.push(ldexp(1, shared));
    codes.push(rowCodes);
    values.push(rowCodes.map((c) => ldexp(valueOf(element, c), exponent)));
  });
  return { scales, codes, values, tensorScale: null };
}

function nvfp4(grid, absmax, spec) {
  const element = spec.element, scale = spec.scale, top = maxOf(element);
  const most = ofDouble(Math.max(...absmax));
  const e = readFraction(element.max), s = readFraction(scale.max);
  const quotient = fraction(most.num * e.den * s.den, most.den * e.num * s.num);
  let tensorScale = toDouble(encodeValue(spec.tensor, realOfFraction(quotient)).encoding.value);
  if (tensorScale === 0) tensorScale = 1; // an all-zero tensor (or one too small for FP32): nothing to scale
  const scales = [], codes = [], values = [];
  grid.forEach((row, b) => {
    const blockScale = valueOf(scale, store(scale, absmax[b] / (top * tensorScale), true));
    const step = blockScale * tensorScale; // exact: 4 significant bits times 24
    const rowCodes = row.map((x) => store(element, step > 0 ? x / step : signedZero(x), true));
    scales.push(blockScale);
    codes.push(rowCodes);
    values.push(rowCodes.map((c) => valueOf(element, c) * step));
  });
  return { scales, codes, values, tensorScale };
}

function absmaxCodebook(grid, absmax, spec) {
  const codebook = spec.element, scales = [], codes = [], values = [];
  grid.forEach((row, b) => {
    const step = absmax[b]; // the max of FP32 values: an FP32 value
    const rowCodes = row.map((x) => store(codebook, step > 0 ? x / step : signedZero(x)));
    scales.push(step);
    codes.push(rowCodes);
    values.push(rowCodes.map((c) => valueOf(codebook, c) * step));
  });
  return { scales, codes, values, tensorScale: null };
}

/** Quantise doubles that are FP32 values, as blocks.quantize_blocks does (the format's own block size). */
export function quantize(inputs, spec) {
  const size = spec.block_size, count = Math.ceil(inputs.length / size);
  const grid = [], absmax = [];
  for (let b = 0; b < count; b++) {
    const row = Array.from({ length: size }, (_, i) => inputs[b * size + i] ?? 0); // zeros pad the last block
    let most = 0;
    for (const x of row) {
      const a = Math.abs(x);
      if (Number.isNaN(a)) { most = NaN; break; } // NaN where a block holds NaN, inf where it holds inf
      if (a > most) most = a;
    }
    grid.push(row);
    absmax.push(most);
  }
  const special = absmax.map((a) => !Number.isFinite(a));
  const finiteGrid = grid.map((row, b) => (special[b] ? row.map(() => 0) : row));
  const finiteAbsmax = absmax.map((a, b) => (special[b] ? 0 : a));
  const quantiser = spec.rule === "absmax" ? absmaxCodebook : spec.rule === "mx" ? microscaled : nvfp4;
  const parts = quantiser(finiteGrid, finiteAbsmax, spec);
  const zeroCode = store(spec.element, 0);
  special.forEach((isSpecial, b) => { // a block holding NaN or ±inf: its scale NaN (NF4's the absmax), elements NaN
    if (!isSpecial) return;
    parts.scales[b] = spec.rule === "absmax" ? absmax[b] : NaN;
    parts.codes[b] = parts.codes[b].map(() => zeroCode);
    parts.values[b] = parts.values[b].map(() => NaN);
  });
  const last = inputs.length - (count - 1) * size;
  const blocks = parts.scales.map((scale, b) => ({
    scale_bits: store(spec.scale, scale),
    scale,
    codes: b === count - 1 ? parts.codes[b].slice(0, last) : parts.codes[b],
    values: b === count - 1 ? parts.values[b].slice(0, last) : parts.values[b],
  }));
  return detailed({ format: spec.id, block_size: size, blocks, inputs: inputs.slice(),
    dequantized: blocks.flatMap((block) => block.values), tensor_scale: parts.tensorScale }, spec);
}

// -- what became of each value (block_detail.py) -------------------------------------------------------------

/** The value one unit of an element stands for in block b: its scale × NVFP4's tensor scale × MXINT8's 2^-6. */
export const blockStep = (result, spec, b) =>
  result.blocks[b].scale * (result.tensor_scale || 1) * 2 ** spec.element_scale_exp;

/** stored − value, exactly; null where either is not finite. */
function exactError(stored, value) {
  if (!Number.isFinite(stored) || !Number.isFinite(value)) return null;
  return subtractFromDyadic(ofDouble(stored), ofDouble(value));
}

function detailed(result, spec) {
  const top = maxOf(spec.element), size = result.block_size;
  result.errors = result.dequantized.map((stored, i) => exactError(stored, result.inputs[i]));
  result.fates = result.dequantized.map((stored, i) => {
    const value = result.inputs[i];
    if (Number.isNaN(stored)) return "nan";
    if (stored === 0 && value !== 0) return "zeroed";
    return Math.abs(value) > blockStep(result, spec, Math.floor(i / size)) * top ? "saturated" : "kept";
  });
  const complete = result.errors.every((e) => e !== null);
  result.mse = complete ? meanSquare(result.errors) : null;
  result.max_error = complete ? result.errors.map(absolute).reduce((a, b) => (compare(b, a) > 0 ? b : a)) : null;
  result.zeroed = result.fates.filter((f) => f === "zeroed").length;
  let largest = null, most = 0;
  result.inputs.forEach((x, i) => {
    const a = Number.isFinite(x) ? Math.abs(x) : 0;
    if (a > most) [largest, most] = [i, a];
  });
  result.largest = largest; // the index of the finite value of largest magnitude; null if none is nonzero
  const blockOf = (i) => result.blocks[Math.floor(i / size)];
  result.codeBits = (i) => blockOf(i).codes[i % size];
  result.codeHex = (i) => pattern(spec.element, result.codeBits(i)).enc.hex;
  return result;
}

/** The mean of the squares of dyadic rationals, exactly and reduced. */
function meanSquare(errors) {
  let num = 0n, den = 1n; // every square's denominator is a power of two: the largest is a common one
  for (const e of errors) {
    const squareNum = e.num * e.num, squareDen = e.den * e.den;
    if (squareDen > den) [num, den] = [num * (squareDen / den) + squareNum, squareDen];
    else num += squareNum * (den / squareDen);
  }
  return fraction(num, den * BigInt(errors.length));
}
