// /compare in the browser: every keystroke in the value box, and every change of rounding, overflow or seed,
// updates every row and the chart in the same frame, with no request; the URL follows (history.replaceState).
// Scalar rows come from the exact codec (codec.js), block rows from blocks.js, both on the specifications the
// server embeds in the page (#compare-data). The server's page (templates/compare.html) is the first paint, the
// path without JavaScript and the only markup: this fills its rows (compare_rows.js) and chart (compare_chart.js)
// and shows the variants that apply, in the page's language (its words are the page's own; a decimal comma is
// read where the language writes one). tests/browser/test_compare_instant.py holds the two renders together.

import { InputError, parseNumber, seedValue, shown, shownSeed } from "./codec.js";
import { drawChart } from "./compare_chart.js";
import { blockRows, scalarRow } from "./compare_rows.js";
import { typedNumber } from "./decimal_comma.js";
import { quote } from "./urls.js";
import { fillSlots, setAttr, setNum, setText, wordsOf } from "./view_slots.js";
import { learn } from "./words.js";

// The page's JSON (compare_data.py): the formats of a block format's element, scale and tensor scale by id, and
// the words the codec says (its refusals and notes), in the page's language.
const data = JSON.parse(document.getElementById("compare-data").textContent);
learn(data.words);
const specs = new Map(data.specs.map((spec) => [spec.id, spec]));
const page = {
  prefix: data.prefix, float32: data.float32,
  blocks: new Map(data.blocks.map((spec) => [spec.id, Object.assign(spec, {
    element: specs.get(spec.element), scale: specs.get(spec.scale), tensor: spec.tensor && data.float32 })])),
};
const form = document.querySelector("[data-compare-form]");
const field = (name) => form.elements.namedItem(name);
const root = document.querySelector("[data-compare]");
const view = {
  result: root.querySelector("[data-compare-result]"), error: root.querySelector("[data-error]"),
  scalars: [...root.querySelectorAll("tr[data-format]")], blocks: [...root.querySelectorAll("tr[data-block-format]")],
  chart: root.querySelector("[data-chart]"), words: wordsOf(root),
};
const state = { drawn: null }; // a seed drawn here for stochastic rounding while the seed box is empty

/** The form as typed: {value, rounding, overflow, seedText}. */
function typed() {
  return { value: field("value").value, rounding: field("rounding").value, overflow: field("overflow").value,
    seedText: field("seed").value };
}

/** The choices checked in the server's order (rounding and overflow come from their lists): the seed, a BigInt,
 * drawn here when stochastic rounding has none, and shown unless the visitor is clearing the box to type another. */
function seedOf(choice, editingSeed) {
  let seed = seedValue(choice.seedText);
  if (seed === null && choice.rounding === "stochastic") {
    seed = state.drawn ??= shownSeed();
    if (!editingSeed) field("seed").value = choice.seedText = String(seed);
  }
  return seed;
}

/** The page's own URL for the form (the visualiser's defaults left out), so that a shared link restores it. */
function pageUrl(choice, seed) {
  const query = [["value", choice.value], ["rounding", choice.rounding === "nearest_even" ? null : choice.rounding],
    ["overflow", choice.overflow === "format_default" ? null : choice.overflow],
    ["seed", choice.seedText || (seed === null ? null : String(seed))]];
  const params = query.filter(([, v]) => v !== null).map(([name, v]) => `${name}=${quote(v)}`).join("&");
  return `${location.pathname}?${params}${location.hash}`;
}

/** The refusal's sentence (an InputError's Phrase) in the page's language, or none; marked English (lang="en"), as
 * compare.html marks it, where the catalog has no translation of it. */
function showError(phrase) {
  view.error.hidden = phrase === null;
  view.result.hidden = phrase !== null;
  setAttr(view.error, "role", phrase === null ? null : "alert");
  if (phrase === null) return;
  const said = phrase.said;
  setText(view.error, said);
  setAttr(view.error, "lang", document.documentElement.lang !== "en" && said === String(phrase) ? "en" : null);
}

/** The input line's choices: the words of the rounding and overflow chosen, where not the defaults, and the seed. */
function showChoices(choice) {
  for (const said of root.querySelectorAll("[data-rounding]")) said.hidden = said.dataset.rounding !== choice.rounding;
  for (const said of root.querySelectorAll("[data-overflow]")) said.hidden = said.dataset.overflow !== choice.overflow;
  fillSlots(root.querySelector("[data-choices]"), { seed: choice.seed === null ? "" : choice.seed });
}

function render(event) {
  const choice = typed();
  let seed = null, x;
  try {
    seed = seedOf(choice, event?.target === field("seed"));
    x = parseNumber(typedNumber(choice.value)); // 0,1 on a Turkish page
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    showError(error.phrase);
    history.replaceState(history.state, "", pageUrl(choice, seed));
    return;
  }
  const chosen = { ...choice, seed };
  const bars = view.scalars.map((row) => scalarRow(row, specs.get(row.dataset.format), x, chosen, page.prefix));
  bars.push(...blockRows(view.blocks, x, choice.value, page, view.words));
  setNum(root.querySelector("[data-input] .num"), shown(x, 80, 20));
  showChoices(chosen);
  drawChart(view.chart, bars, view.words);
  showError(null);
  history.replaceState(history.state, "", pageUrl(choice, seed));
}

form.addEventListener("input", render);
form.addEventListener("submit", (event) => {
  event.preventDefault(); // every row is already up to date: no round trip
  render(event);
});
