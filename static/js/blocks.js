// The block formats in the browser, exactly as the server quantises and explains them: OCP MX v1.0 (an E8M0 shared
// scale, 2^(⌊log2 absmax⌋ − emax of the element), NaN for a block holding NaN or inf), NVFP4 (an E4M3 block scale
// under an FP32 tensor scale) and NF4 (its FP32 absmax and codebook). A port of app/formats/blocks.py and of what
// block_detail.py and web/visualise/block_present.py work out for the page, on the exact codec (codec.js); the
// Python core is the reference and tests/browser/test_js_blocks.py holds the two together. Every format fact comes
// from the server (app/web/visualise/block_specs.py), never typed here.
//
// The API, for any page (the block visualiser, /compare):
//
//   blockFormats(json) -> {formats: [spec], float32}
//     The specifications from the JSON of block_specs.compact_block_specs() embedded in a page: `formats` in
//     BLOCK_FORMAT_IDS's order, each as block_specs() has it (a `spec` below); float32 as float32_spec().
//   quantizeList(inputs, spec, float32) -> BlockResult
//     Quantise a list in block format `spec`, as POST /api/blocks/quantize does: each input (a string read as the
//     visualiser reads a value, "0.1", "1/3", "0x1.8p-3", "inf", "nan", "-0"; or a number) is first rounded to
//     FP32, then the list is cut into blocks of
//     spec.block_size, the last padded with zeros (which change no block's absmax). Throws InputError with the
//     server's sentence for an input it cannot read or one beyond FP32's range. One value is a block of one.
//   BlockResult: { format, block_size, inputs: [double], dequantized: [double], tensor_scale: double | null,
//     blocks: [{ scale_bits, scale, codes, values }], errors: [rational | null] (stored − input, exactly; null
//     where either is not finite), fates: ["kept" | "saturated" | "zeroed" | "nan"], mse, max_error
//     (rationals, null where a NaN leaves them without a value), codeHex(i), codeBits(i) }
//     A rational is {num, den} of BigInts (exact.js); codec.shown(rational, …) writes it as the pages do.
//
//   quantize(values, spec): the same from doubles that are already FP32 values (NaN and ±inf kept).
//   readList(text, size, float32, maxText, group): the block page's values box read as block_page.py reads it (its
//     refusals' counts grouped with `group`, the page's language's symbol: "," in English, "." in Turkish).
//   explainBlock(result, spec, page): what the block page shows of a one-block result (block_present.block_view).
//   sideBySide(values, specs, current, page): the same values in every block format (block_present.side_by_side).

import { InputError, SPACES, decode, encodeValue, parseNumber, quoted, shown } from "./codec.js";
import { absolute, compare, divideToDouble, floatG, fraction, ldexp, ofDouble, readFraction, subtractFromDyadic }
  from "./exact.js";
import { quote, visualiseUrl } from "./urls.js";
import { say } from "./words.js";

// -- the specifications ------------------------------------------------------------------------------------------

/** The block formats of block_specs.compact_block_specs() with their scalar formats put back in place, as
 * block_specs() has them: {formats: [spec], float32}. */
export function blockFormats(json) {
  const scalar = (id) => (id === null ? null : json.scalars[id]);
  const formats = json.formats.map((f) => ({ ...f, element: scalar(f.element), scale: scalar(f.scale),
    tensor: scalar(f.tensor), element_roles: scalar(f.element).roles, scale_roles: scalar(f.scale).roles }));
  return { formats, float32: json.scalars.float32 };
}

// -- doubles and exact values -----------------------------------------------------------------------------

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

const realOfFraction = (x) => ({ negative: x.num < 0n, num: x.num < 0n ? -x.num : x.num, den: x.den,
  kind: "finite" });

/** A zero of x's sign, as numpy's copysign(0.0, x). */
const signedZero = (x) => (x < 0 || Object.is(x, -0) ? -0 : 0);

/** ⌊log2 x⌋ of a finite x > 0, as numpy's frexp(x)[1] − 1. */
function floorLog2(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const field = (view.getUint16(0) >> 4) & 0x7ff;
  return field ? field - 1023 : floorLog2(x * 2 ** 64) - 64;
}

// -- one format's patterns ----------------------------------------------------------------------------------

const patterns = new WeakMap(); // spec -> Map(bits -> {enc, value}): an element format has at most 256

function pattern(spec, bits) {
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
const store = (spec, x, saturate = false) =>
  Number(encodeValue(spec, realOfDouble(x), "nearest_even", saturate ? "saturate" : "format_default").encoding.bits);

const valueOf = (spec, bits) => pattern(spec, bits).value;
const maxOf = (spec) => toDouble(realOfFraction(readFraction(spec.max)));

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

// -- reading inputs (block_page.py) ---------------------------------------------------------------------------

// Python's \s (str.isspace), commas and semicolons: what block_page._SEPARATORS splits a list on
const SEPARATORS = new RegExp(`[${SPACES},;]+`);
const codePoints = (text) => Array.from(text);
/** A count as prose_decimal writes it: groups of three digits, apart by the language's symbol (CLDR's pattern
 * #,##0 for every language served). */
const grouped = (n, group) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, group);
const head = (entry) => quoted(codePoints(entry).slice(0, 40).join(""));

/** Each entry read exactly and rounded once to FP32 (nearest even): the values, and how many that rounding
 * changed. An entry may be a number, taken as it is (a double, rounded to FP32 like any value). */
export function fp32Values(entries, float32) {
  const values = [];
  let changed = 0;
  entries.forEach((entry, index) => {
    const position = index + 1;
    let parsed;
    try {
      parsed = typeof entry === "number" ? realOfDouble(entry) : parseNumber(entry);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      throw new InputError("Value %(position)s (%(entry)s) cannot be used: %(why)s",
        { position, entry: head(String(entry)), why: error.phrase });
    }
    const rounded = encodeValue(float32, parsed);
    if (rounded.overflowed) {
      throw new InputError("Value %(position)s (%(entry)s) is beyond FP32's range (±%(max)s); block formats "
        + "quantise FP32 tensors, so give a value within it, or inf.",
      { position, entry: head(String(entry)), max: floatG(maxOf(float32), 6) });
    }
    const error = rounded.error;
    if (rounded.input.kind === "finite" && !(error.kind === "finite" && error.num === 0n)) changed += 1;
    values.push(toDouble(rounded.encoding.value));
  });
  return { values, changed };
}

/** The values box of the block page, read as block_page.py reads it: {entries, values, changed}. */
export function readList(text, size, float32, maxText, group = ",") {
  const length = codePoints(text).length;
  if (length > maxText) {
    throw new InputError("The list is %(length)s characters long; at most %(most)s are accepted.",
      { length: grouped(length, group), most: grouped(maxText, group) });
  }
  const entries = text.replaceAll("\u2212", "-").split(SEPARATORS).filter((entry) => entry);
  if (!entries.length) {
    throw new InputError("The list is empty; type up to %(size)s numbers, separated by commas, spaces or new "
      + "lines.", { size });
  }
  if (entries.length > size) {
    throw new InputError("One block holds %(size)s values and the list has %(count)s; remove %(extra)s, or "
      + "quantise a longer vector with POST /api/blocks/quantize.",
    { size, count: entries.length, extra: entries.length - size });
  }
  return { entries, ...fp32Values(entries, float32) };
}

/** Quantise a list of inputs (strings as a person types them, or numbers) in block format `spec`, each first
 * rounded to FP32. */
export function quantizeList(inputs, spec, float32) {
  if (!inputs.length) throw new InputError("values is empty; give at least one number to quantise.");
  return quantize(fp32Values(inputs, float32).values, spec);
}

// -- what the page shows (block_present.py) --------------------------------------------------------------------

/** A double or an exact rational as block_present.exact shows it; null is an exact quantity a NaN left without a
 * value. An exact value past `limits.title` characters is not kept for a title (`full` is the text). */
export function shownOf(x, limit, limits) {
  if (x === null) return { text: "nan", full: "nan" };
  if (typeof x === "number" && !Number.isFinite(x)) {
    const text = Number.isNaN(x) ? "nan" : x < 0 ? "-inf" : "inf";
    return { text, full: text };
  }
  const v = typeof x === "number" ? realOfDouble(x) : realOfFraction(x);
  const short = shown(v, limit);
  if (short.text !== short.full && short.full.length > Math.max(limit, limits.title)) {
    return { text: short.text, full: short.text };
  }
  return short;
}

/** Python's round(x, digits) of a double ≥ 0: the decimal correctly rounded half-even, then read back. */
function pyRound(x, digits) {
  if (!(x > 0)) return x;
  const r = ofDouble(x), scaled = r.num * 10n ** BigInt(digits);
  let q = scaled / r.den;
  const twice = 2n * (scaled % r.den);
  if (twice > r.den || (twice === r.den && q % 2n)) q += 1n;
  return Number(`${q}e-${digits}`);
}

/** The bit cells of a pattern in groups by field, most significant first (present.bit_groups, without links). */
export function bitGroups(bits, width, roles) {
  const binary = BigInt(bits).toString(2).padStart(width, "0");
  let at = 0;
  return roles.map(([role, count]) => {
    const cells = binary.slice(at, at + count);
    at += count;
    return { role, cells };
  });
}

export const visualiseBitsUrl = (formatId, hex, prefix) => visualiseUrl(formatId, { bits: hex, prefix });

/** The block visualiser's URL (block_page.block_url): a preset, or the values as typed. */
export function blockUrl(spec, { preset = null, values = null, prefix = "" }) {
  if (values !== null) return `${prefix}/visualise/${spec.id}?values=${quote(values)}`;
  if (preset === null && spec.element.kind === "codebook") preset = "normal"; // NF4's plain address is scalar
  return `${prefix}/visualise/${spec.id}${preset ? `?preset=${preset}` : ""}`;
}

function scaleView(spec, bits, value, roles, page, limits) {
  const enc = pattern(spec, bits).enc;
  return { id: spec.id, name: spec.name, hex: enc.hex, groups: bitGroups(bits, spec.bits, roles),
    value: shownOf(value, limits.full, limits), short: shownOf(value, limits.short, limits),
    href: visualiseBitsUrl(spec.id, enc.hex, page.prefix) };
}

/** The first block of `result` as the page shows it (block_present.block_view); page: {prefix, limits}. */
export function explainBlock(result, spec, page) {
  const limits = page.limits, element = spec.element, block = result.blocks[0];
  const rows = result.inputs.map((value, i) => {
    const code = block.codes[i], enc = pattern(element, code).enc;
    return { index: i, input: shownOf(value, limits.cell, limits), hex: enc.hex,
      groups: bitGroups(code, element.bits, spec.element_roles), stored: shownOf(block.values[i], limits.cell, limits),
      error: shownOf(result.errors[i], limits.cell, limits), fate: result.fates[i],
      href: visualiseBitsUrl(element.id, enc.hex, page.prefix) };
  });
  let absmax = 0;
  for (const x of result.inputs) absmax = Number.isNaN(x) || Number.isNaN(absmax) ? NaN : Math.max(absmax, Math.abs(x));
  const scales = [scaleView(spec.scale, block.scale_bits, block.scale, spec.scale_roles, page, limits)];
  if (result.tensor_scale !== null) {
    const tensor = spec.tensor, bits = store(tensor, result.tensor_scale);
    scales.push(scaleView(tensor, bits, result.tensor_scale, tensor.roles, page, limits));
  }
  const finiteScale = Number.isFinite(block.scale);
  const step = finiteScale ? blockStep(result, spec, 0) : null;
  let threshold = null;
  if (finiteScale) { // below this |value| an element is flushed to zero: half the smallest nonzero element × step
    const s = ofDouble(step), m = readFraction(element.min_positive);
    threshold = shownOf(fraction(s.num * m.num, s.den * m.den * 2n), limits.cell, limits);
  }
  return {
    rows,
    bars: bars(rows, result.errors, limits),
    maxErrorExact: result.max_error,
    absmax: shownOf(absmax, limits.full, limits),
    absmaxShort: shownOf(absmax, limits.short, limits),
    mse: shownOf(result.mse, limits.short, limits),
    maxError: shownOf(result.max_error, limits.short, limits),
    zeroed: result.zeroed,
    nonzero: result.inputs.filter((v) => v !== 0 && !Number.isNaN(v)).length,
    saturated: result.fates.filter((f) => f === "saturated").length,
    nanBlock: !Number.isFinite(absmax),
    nonfinite: Number.isNaN(absmax) ? "NaN" : "infinity",
    scales,
    choice: choice(result, spec, absmax, step, limits),
    threshold,
  };
}

function bars(rows, errors, limits) {
  let top = null;
  for (const e of errors) if (e !== null && (top === null || compare(absolute(e), top) > 0)) top = absolute(e);
  const slot = 100 / rows.length, height = limits.chart_height;
  return rows.map((row, i) => {
    const e = errors[i] === null ? null : absolute(errors[i]);
    const share = e === null ? 1 : top && top.num && e.num ? divideToDouble(e.num * top.den, e.den * top.num) : 0;
    return { x: pyRound(row.index * slot + slot * 0.15, 3), width: pyRound(slot * 0.7, 3),
      height: pyRound(Math.max(share * height, 1), 2), fate: row.fate,
      label: say("element %(index)s: |error| = %(error)s",
        { index: row.index, error: e === null ? "nan" : shownOf(e, limits.short, limits).text }) };
  });
}

function choice(result, spec, absmax, step, limits) {
  const out = { rule: spec.rule, step: step === null ? null : shownOf(step, limits.cell, limits), mx: null };
  if (spec.rule === "mx") {
    out.elementEmax = spec.element_emax;
    if (Number.isFinite(absmax) && absmax !== 0) {
      const floor = floorLog2(absmax), unclamped = floor - spec.element_emax;
      const shared = Math.min(Math.max(unclamped, spec.scale.emin), spec.scale.emax);
      out.mx = { floorLog2: floor, elementEmax: spec.element_emax, unclamped, shared, clamped: shared !== unclamped };
    }
    return out;
  }
  if (spec.rule === "absmax" || result.tensor_scale === null || !Number.isFinite(absmax)) return out;
  const a = ofDouble(absmax), e = readFraction(spec.element.max), s = readFraction(spec.scale.max);
  const t = ofDouble(result.tensor_scale);
  const tensorQuotient = fraction(a.num * e.den * s.den, a.den * e.num * s.num);
  const blockQuotient = fraction(a.num * e.den * t.den, a.den * e.num * t.num);
  return { ...out, tensorQuotient: shownOf(tensorQuotient, 40, limits),
    tensorScale: shownOf(result.tensor_scale, limits.cell, limits), blockQuotient: shownOf(blockQuotient, 40, limits),
    blockScale: shownOf(result.blocks[0].scale, limits.cell, limits), saturated: compare(blockQuotient, s) > 0 };
}

/** The same FP32 values in every block format (block_present.side_by_side); page: {prefix, limits, words, links}
 * where links(spec) is the href of that format's row, or null. */
export function sideBySide(values, specs, current, page) {
  const limits = page.limits, short = (x) => shownOf(x, limits.short, limits);
  return specs.map((spec) => {
    const result = quantize(values, spec), i = result.largest;
    return {
      id: spec.id, href: page.links(spec), current: spec.id === current,
      scales: result.blocks.map((b) => short(b.scale)),
      tensorScale: result.tensor_scale === null ? null : short(result.tensor_scale),
      mse: short(result.mse), maxError: short(result.max_error), zeroed: result.zeroed,
      largest: i === null ? null : [short(result.inputs[i]), short(result.dequantized[i]), page.words.long[result.fates[i]]],
    };
  });
}
