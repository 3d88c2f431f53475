// The browser's block quantiser (static/js/blocks.js) answering in Node what tests/js/test_blocks_parity.py asks,
// each case one string of fields ("\x1f" apart), as the Python reference makes them.

import * as blocks from "../../static/js/blocks.js";
import { InputError } from "../../static/js/codec.js";

let byId = {}, float32 = null, specs = [], limits = {}, words = {};

function double(hex) {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt("0x" + hex));
  return view.getFloat64(0);
}

function hex(x) {
  if (Number.isNaN(x)) return "nan";
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return view.getBigUint64(0).toString(16).padStart(16, "0");
}

const exact = (x) => (x === null ? "None" : x.num + "/" + x.den); // exact rationals, compared as such
const s = (v) => (v === null ? "None" : v.text + "~" + v.full);
const pyFloat = (x) => (Number.isInteger(x) ? x + ".0" : String(x));
const groups = (gs) => gs.map((g) => g.role + ":" + g.cells).join(" ");

const quantised = (r) => [r.format, r.block_size, r.tensor_scale === null ? "None" : hex(r.tensor_scale),
  r.blocks.map((b) => [b.scale_bits, hex(b.scale), b.codes.join(","), b.values.map(hex).join(",")].join(";"))
    .join("|"),
  r.errors.map(exact).join(","), r.fates.join(","), exact(r.mse), exact(r.max_error), r.zeroed,
  r.largest === null ? "None" : r.largest].join("\x1f");

function viewed(r, spec) {
  const v = blocks.explainBlock(r, spec, { prefix: "", limits });
  const c = v.choice, m = c.mx;
  return [
    v.rows.map((row) => [row.index, s(row.input), row.hex, groups(row.groups), s(row.stored), s(row.error),
      row.fate, row.href].join(";")).join("|"),
    v.bars.map((b) => [pyFloat(b.x), pyFloat(b.width), pyFloat(b.height), b.fate, b.label].join(";")).join("|"),
    s(v.absmax), s(v.absmaxShort), s(v.mse), s(v.maxError), v.zeroed, v.nonzero, v.saturated, v.nanBlock,
    v.nonfinite, v.scales.map((x) => [x.hex, groups(x.groups), s(x.value), s(x.short), x.href].join(";")).join("|"),
    c.rule, m ? [m.floorLog2, m.elementEmax, m.unclamped, m.shared, m.clamped].join(";") : "None",
    c.elementEmax ?? "None", s(c.tensorQuotient ?? null), s(c.tensorScale ?? null), s(c.blockQuotient ?? null),
    s(c.blockScale ?? null), c.saturated ?? false, s(c.step), s(v.threshold),
  ].join("\x1f");
}

const others = (values, current) => blocks.sideBySide(values, specs, current,
  { prefix: "", limits, words, links: () => null }).map((o) => [o.id, o.current, o.scales.map(s).join(","),
  s(o.tensorScale), s(o.mse), s(o.maxError), o.zeroed,
  o.largest ? o.largest.map((x, i) => (i < 2 ? s(x) : x)).join(",") : "None"].join(";")).join("|");

/** The block formats as block_specs.compact_block_specs() gives them, the page's limits and the fates' words. */
export function setup(json, pageLimits, fateWords) {
  ({ formats: specs, float32 } = blocks.blockFormats(json));
  byId = Object.fromEntries(specs.map((spec) => [spec.id, spec]));
  [limits, words] = [pageLimits, fateWords];
  return specs.length;
}

/** Each case [format id, [doubles as hex]] quantised, and then shown as the block page shows it, and in every
 * block format side by side. */
export const quantise = (cases) => cases.map(([id, values]) =>
  quantised(blocks.quantize(values.map(double), byId[id])));
export const view = (cases) => cases.map(([id, values]) =>
  viewed(blocks.quantize(values.map(double), byId[id]), byId[id]));
export const side = (cases) => cases.map(([id, values]) => others(values.map(double), id));

/** Each case [text, block size] read as the block page's values box, or refused. */
export const read = (cases) => cases.map(([text, size]) => {
  try {
    const list = blocks.readList(text, size, float32, limits.max_text);
    return ["ok", list.values.map(hex).join(","), list.changed].join("\x1f");
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return "refused\x1f" + error.message;
  }
});
