// The browser's dot-product core (static/js/dot_*.js) answering in Node what tests/js/test_dot_parity.py asks, each
// case one string of fields ("\x1f" apart), as the Python reference (app/formats/dot_*.py) makes them.

import * as codec from "../../static/js/codec.js";
import { chartCounts, productExponents, runningValues, setModels } from "../../static/js/dot_core.js";
import { parseSetting, storedDraws, typedItem, vectorItems } from "../../static/js/dot_inputs.js";
import { chartOf, fixed1 } from "../../static/js/dot_chart.js";
import { notation } from "../../static/js/dot_fill.js";
import { dotProduct } from "../../static/js/dot_product.js";
import { stepBits } from "../../static/js/dot_steps.js";

const SEP = "\x1f";
let specs = {};

/** The codec specs of the formats by id, and the tensor-core models as tensor_cores.py has them. */
export function setup(list, models) {
  specs = Object.fromEntries(list.map((spec) => [spec.id, spec]));
  setModels(models);
  return list.length;
}

/** A double's IEEE 754 bits in hex (Python's struct.pack(">d")), "None" for null. */
function bits(x) {
  if (x === null) return "None";
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return view.getBigUint64(0).toString(16).padStart(16, "0");
}

const text = (v) => codec.realText(v).join("|");
const refusal = (error) => {
  if (!(error instanceof codec.InputError)) throw error;
  return `refused${SEP}${error.phrase.template}${SEP}${String(error.phrase)}`;
};

const term = (t) => [t.role, t.element ?? "None", text(t.value), text(t.kept), t.exponent ?? "None", t.negative,
  t.bits, t.moreBelow].join(",");

function stepText(s) {
  if (s === null) return "None";
  return [s.method, s.step, s.kind, s.first, s.last, s.top, s.columns, s.cut ?? "None", s.terms.map(term).join(";"),
    text(s.exactSum), term(s.exactSumBits), text(s.result), term(s.resultBits), text(s.lost),
    s.promoted === null ? "None" : s.promoted.map(text).join(";")].join(SEP);
}

/** Each case {format, a, b (units as decimal strings), methods, promote, steps: [[method, step], ...]}: the
 * figure's fields, then each step's, or the refusal. */
export function figures(cases) {
  return cases.map((c) => {
    const spec = specs[c.format];
    let figure;
    try {
      figure = dotProduct(spec, c.a.map(BigInt), c.b.map(BigInt), c.methods, c.promote, specs);
    } catch (error) {
      return refusal(error);
    }
    const fields = [figure.counts.join(","), text(figure.exact), figure.exactRunning.map(bits).join(",")];
    for (const r of figure.results) {
      fields.push(r.method, r.outputFormat, text(r.value), text(r.error), bits(r.relError), bits(r.ulpError),
        r.running.map(bits).join(","));
    }
    for (const [method, step] of c.steps) {
      try {
        fields.push(stepText(stepBits(figure, method, step, spec, specs)));
      } catch (error) {
        fields.push(refusal(error));
      }
    }
    return fields.join(SEP);
  });
}

/** chart_counts for each n. */
export const counts = (ns) => ns.map((n) => chartCounts(n).join(","));

/** Each [format, text, name]: the typed vector read and stored as the page does (dot.js: typedItem an item), its
 * units, clamped and zeroed counts, or the refusal. */
export function typed(cases) {
  return cases.map(([format, input, name]) => {
    try {
      const stored = vectorItems(input, name).map((item, i) => typedItem(item, i + 1, name, specs[format]));
      const count = (k) => stored.reduce((sum, item) => sum + Number(item[k]), 0);
      return [stored.map((item) => item[0]).join(","), count(1), count(2)].join(SEP);
    } catch (error) {
      return refusal(error);
    }
  });
}

/** Each [format, doubles]: numpy's draws stored in the format. */
export const drawn = (cases) => cases.map(([format, doubles]) => {
  const stored = storedDraws(doubles, specs[format]);
  return [stored.units.join(","), stored.clamped, stored.zeroed].join(SEP);
});

/** Each [text, name, lowest, highest]: the setting read, or the refusal. */
export const settings = (cases) => cases.map(([input, name, lowest, highest]) => {
  try {
    return String(parseSetting(input, name, lowest, highest));
  } catch (error) {
    return refusal(error);
  }
});

const valueText = (v) => (typeof v === "bigint" ? String(v) : Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf");

/** Each [a, b] (units as decimal strings) of `format`: each method's value after all the elements, as
 * dot_product._running gives it (units, inf, -inf or nan), one string a case. */
export function finals(format, methods, promote, cases) {
  const spec = specs[format];
  return cases.map(([a, b]) => {
    const x = a.map(BigInt), y = b.map(BigInt), products = x.map((v, i) => v * y[i]);
    const exponents = productExponents(spec, x, y);
    return methods.map((m) => valueText(runningValues(m, spec, specs, products, exponents, [products.length],
      promote)[0])).join(SEP);
  });
}

/** Each figure case's chart (app/web/dot/chart.py's geometry, English notation): ticks "at label", then paths. */
export function charts(cases) {
  const { prose, digits } = notation({ decimal: ".", group: "," });
  return cases.map((c) => {
    const figure = dotProduct(specs[c.format], c.a.map(BigInt), c.b.map(BigInt), c.methods, c.promote, specs);
    const chart = chartOf(figure, prose, digits), tick = (t) => `${fixed1(t.at)} ${t.label}`;
    return [chart.yTicks.map(tick).join(";"), chart.xTicks.map(tick).join(";"),
      ...figure.results.map((r) => `${r.method} ${chart.paths[r.method]}`)].join(SEP);
  });
}
