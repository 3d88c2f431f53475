// What the block page shows of a block, worked out in the browser as app/web/blocks/present.py works it
// out: every shown string, the error chart's bars, how the scale was chosen, and the same values in every block
// format side by side. Part of blocks.js, which re-exports what the pages use.

import { shown } from "./codec.js";
import { absolute, compare, divideToDouble, fraction, ofDouble, readFraction } from "./exact.js";
import { blockStep, quantize } from "./blocks_quantise.js";
import { floorLog2, pattern, realOfDouble, realOfFraction, store } from "./blocks_values.js";
import { quote, visualiseUrl } from "./urls.js";
import { say } from "./words.js";

/** A double or an exact rational as blocks.present.exact shows it; null is an exact quantity a NaN left without a
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

/** The block visualiser's URL (blocks.pages.block_url): a preset, or the values as typed. */
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

/** The first block of `result` as the page shows it (blocks.present.block_view); page: {prefix, limits}. */
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

/** The same FP32 values in every block format (blocks.present.side_by_side); page: {prefix, limits, words, links}
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
