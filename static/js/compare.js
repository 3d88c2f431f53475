// /compare in the browser: every keystroke in the value box, and every change of rounding, overflow or seed,
// updates every row and the chart in the same frame, with no request; the URL follows (history.replaceState).
// Scalar rows come from the exact codec (codec.js), block rows from blocks.js, both on the specifications the
// server embeds in the page (#compare-data); the server's page stays the first paint and the path without
// JavaScript. What the server writes (app/web/visualise/compare.py, compare_blocks.py, compare_chart.py and
// templates/compare.html), this writes the same, in the page's language (its sentences through words.js, their
// translations in the page's data; a decimal comma read where the language writes one):
// tests/browser/test_compare_instant.py holds the two together, in every language.

import {
  InputError, encodeValue, decode, errorOf as codecErrorOf, parseNumber, relative, relativeError, seedValue, shown,
} from "./codec.js";
import { quantize, realOfDouble, toDouble } from "./blocks.js";
import { typedNumber } from "./locale_input.js";
import { quote, visualiseUrl } from "./urls.js";
import { learn, say } from "./words.js";

// The page's JSON (compare_data.py): the formats of a block format's element, scale and tensor scale by id, and
// the words this says, in the page's language.
const data = JSON.parse(document.getElementById("compare-data").textContent);
learn(data.words);
const specs = new Map(data.specs.map((spec) => [spec.id, spec]));
const blockSpecs = new Map(data.blocks.map((spec) => [spec.id, Object.assign(spec, {
  element: specs.get(spec.element), scale: specs.get(spec.scale), tensor: spec.tensor && data.float32 })]));
const form = document.querySelector("[data-compare-form]");
const field = (name) => form.elements.namedItem(name);
const MAX_SEED = (1n << 63n) - 1n;
const state = { drawn: null }; // a seed drawn here for stochastic rounding while the seed box is empty

// -- what the template's macros write ------------------------------------------------------------------

/** The _bits.html value macro: a shown value, its exact text in a title when shortened; "—" for none. */
function valueNode(v) {
  if (v === null) return document.createTextNode("—");
  const span = document.createElement("span");
  span.className = "num";
  span.textContent = v.text;
  if (v.text !== v.full) span.title = v.full;
  return span;
}

// the flags' words, as compare.html writes them (class_word for nan and inf)
const flagWord = (name) => ({ overflow: say("overflow"), underflow: say("underflow"), saturated: say("saturated"),
  nan: say("nan"), inf: say("inf") })[name] ?? name;

function flag(name) {
  const strong = document.createElement("strong");
  Object.assign(strong, { className: "flag", textContent: flagWord(name) });
  strong.dataset.flag = name;
  return strong;
}

/** A notes cell: its flags, each followed by a space, then the sentence. */
function notes(cell, flags, note) {
  const nodes = flags.flatMap((name) => [flag(name), document.createTextNode(" ")]);
  if (note) nodes.push(Object.assign(document.createElement("span"), { textContent: note }));
  cell.replaceChildren(...nodes);
}

function setBits(row, binary) {
  row.querySelectorAll(".bit").forEach((cell, i) => {
    if (cell.dataset.value !== binary[i]) {
      cell.dataset.value = binary[i];
      cell.textContent = binary[i];
    }
  });
}

// -- stored − input, as codec.js's Rounded works it out, for a block's dequantised element ----------------------

/** {error, rel} of a stored value against the input, as Rounded.error and Rounded.rel_error give them. */
function errorOf(stored, given) {
  const error = codecErrorOf(stored, given);
  return { error, rel: relativeError(error, given) };
}

// -- the chart (compare_chart.py) -------------------------------------------------------------------------

const MAX_STEPS = 6, STEPS = [1, 2, 4, 5, 8, 10, 16, 20, 25, 40, 50, 100, 200, 500, 1000];
const TINY = 1e-308, MIN_WIDTH = 0.5;
const SVG = "http://www.w3.org/2000/svg";

/** compare_chart.bar_of: {kind, magnitude, text} of an error and its relative size (none for no block), its words
 * as _compare_chart.html says them. */
function barOf(error, rel) {
  if (error === undefined) return { kind: "none", magnitude: null, text: say("no block") };
  if (error.kind === "nan") return { kind: "nan", magnitude: null, text: say("NaN") };
  if (error.kind === "inf") return { kind: "infinite", magnitude: null, text: say("infinite") };
  if (error.num === 0n) return { kind: "exact", magnitude: null, text: say("exact") };
  if (rel === null) return { kind: "none", magnitude: null, text: "—" };
  if (rel === 0) return { kind: "bar", magnitude: TINY, text: "< 1e-307" };
  return { kind: "bar", magnitude: Math.abs(rel), text: relative(Math.abs(rel)) };
}

function scale(magnitudes) {
  const finite = magnitudes.filter(Number.isFinite);
  const smallest = finite.length ? Math.floor(Math.log10(Math.min(...finite))) : -1;
  const largest = finite.length ? Math.max(0, Math.ceil(Math.log10(Math.max(...finite)))) : 0;
  let low, high, step;
  for (step of STEPS) {
    low = Math.floor(smallest / step) * step;
    high = Math.ceil(largest / step) * step;
    if (high === low) low -= step;
    if (Math.floor((high - low) / step) <= MAX_STEPS) break;
  }
  return { low, high, step };
}

/** compare_chart.width: percent of the scale, at least MIN_WIDTH, to two decimals. */
function width(magnitude, low, high) {
  const share = Number.isFinite(magnitude) ? (Math.log10(magnitude) - low) / (high - low) : 1;
  return Math.floor(Math.min(Math.max(100 * share, MIN_WIDTH), 100) * 100 + 0.5) / 100;
}

const tickLabel = (power) => (power === 0 ? "1" : `1e${power}`);

function drawChart(chart, bars) {
  const { low, high, step } = scale(bars.filter((b) => b.magnitude !== null).map((b) => b.magnitude));
  const ticks = [];
  for (let p = low; p <= high; p += step) {
    ticks.push({ x: Math.floor((100 * (p - low)) / (high - low) * 100 + 0.5) / 100, label: tickLabel(p) });
  }
  const rescaled = chart.dataset.low !== String(low) || chart.dataset.high !== String(high);
  Object.assign(chart.dataset, { low, high });
  for (const bar of bars) {
    const item = chart.querySelector(`li[data-group="${bar.group}"][data-bar="${bar.id}"]`);
    item.dataset.kind = bar.kind;
    item.querySelector(".bar").setAttribute("width", `${bar.magnitude === null ? 0 : width(bar.magnitude, low, high)}%`);
    item.querySelector(".chart-value").textContent = bar.text;
  }
  if (!rescaled) return;
  const svg = (name, attributes, text = "") => {
    const element = document.createElementNS(SVG, name);
    for (const [key, v] of Object.entries(attributes)) element.setAttribute(key, v);
    element.textContent = text;
    return element;
  };
  for (const grid of chart.querySelectorAll("[data-grid]")) {
    grid.replaceChildren(...ticks.map((tick) => svg("line", { x1: `${tick.x}%`, x2: `${tick.x}%`, y1: "0", y2: "100%" })));
  }
  chart.querySelector("[data-axis]").replaceChildren(...ticks.map((tick, i) => svg("text", { x: `${tick.x}%`, y: "13",
    "text-anchor": i === 0 ? "start" : i === ticks.length - 1 ? "end" : "middle" }, tick.label)));
}

// -- the rows -------------------------------------------------------------------------------------------

function scalarRow(row, spec, x, choice) {
  const rounded = encodeValue(spec, x, choice.rounding, choice.overflow, choice.seed);
  const enc = rounded.encoding;
  setBits(row, enc.binary);
  row.querySelector("th a").setAttribute("href", visualiseUrl(spec.id, { value: choice.value,
    rounding: choice.rounding, overflow: choice.overflow, seed: choice.rounding === "stochastic" ? choice.seed : null,
    prefix: data.prefix }));
  row.querySelector("[data-hex]").textContent = enc.hex;
  row.querySelector("[data-stored]").replaceChildren(valueNode(shown(enc.value, 80, 20)));
  row.querySelector("[data-error-cell]").replaceChildren(valueNode(shown(rounded.error, 40)));
  row.querySelector("[data-rel]").textContent = rounded.relErrorText;
  const flags = [...(rounded.overflowed ? ["overflow"] : []), ...(rounded.underflowed ? ["underflow"] : []),
    ...(enc.cls === "nan" || enc.cls === "inf" ? [enc.cls] : [])];
  notes(row.querySelector("[data-notes]"), flags, rounded.note?.said);
  return { id: spec.id, group: "scalar", ...barOf(rounded.error, rounded.relError) };
}

// What the block rows say of a value that was not simply rounded (compare_blocks.NOTES, str.format's {name} slots)
const blockNote = (fate) => ({
  saturated: say("Clamped to the element's largest value."),
  zeroed: say("Below the smallest step the scale allows: flushed to zero."),
  nan: say("A block holding {what} has no finite absmax to scale by, so its elements are NaN."),
  refused: say("Beyond FP32's largest finite value ≈{max}: block formats quantise FP32 tensors, so this value has "
    + "no block."),
})[fate];

/** The block rows (compare_blocks.block_rows): the value rounded to FP32, alone in a block of each format. */
function blockRows(table, x, typed) {
  const float32 = encodeValue(data.float32, x);
  const refused = float32.overflowed ? blockNote("refused").replace("{max}", data.fp32_max) : null;
  const value = toDouble(float32.encoding.value);
  return [...table.querySelectorAll("tr[data-block-format]")].map((row) => {
    const spec = blockSpecs.get(row.dataset.blockFormat);
    row.querySelector("th a").setAttribute("href", `${data.prefix}/visualise/${spec.id}?values=${quote(typed)}`);
    row.querySelector("[data-block-bits]").hidden = refused !== null;
    row.querySelector("[data-no-block]").hidden = refused === null;
    const cells = [...row.querySelectorAll(".num-cell")];
    if (refused !== null) {
      delete row.dataset.fate;
      for (const cell of cells) cell.replaceChildren(document.createTextNode("—"));
      notes(row.querySelector("[data-notes]"), [], refused);
      return { id: spec.id, group: "block", ...barOf(undefined) };
    }
    const result = quantize([value], spec), block = result.blocks[0];
    const element = decode(spec.element, BigInt(block.codes[0]));
    setBits(row, element.binary);
    row.querySelector("[data-code-hex]").textContent = element.hex;
    row.querySelector("[data-scale-hex]").textContent = `0x${BigInt(block.scale_bits).toString(16)
      .padStart((spec.scale.bits + 3) >> 2, "0")}`;
    const held = realOfDouble(result.dequantized[0]);
    const { error, rel } = errorOf(held, x);
    const fate = result.fates[0];
    row.dataset.fate = fate;
    cells[0].replaceChildren(valueNode(shown(held, 80, 20)));
    cells[1].replaceChildren(valueNode(shown(error, 40)));
    cells[2].textContent = relative(rel);
    const flags = { saturated: ["saturated"], zeroed: ["underflow"], nan: ["nan"] }[fate] || [];
    let note = fate === "kept" ? null : blockNote(fate);
    if (fate === "nan") note = x.kind === "finite" ? null : note.replace("{what}", x.kind === "nan" ? "NaN" : "inf");
    notes(row.querySelector("[data-notes]"), flags, note);
    return { id: spec.id, group: "block", ...barOf(error, rel) };
  });
}

// -- the page ---------------------------------------------------------------------------------------------

function randomSeed() {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return ((BigInt(words[0]) << 32n) | BigInt(words[1])) & MAX_SEED;
}

/** The form as typed: {value, rounding, overflow, seedText}. */
function typed() {
  return { value: field("value").value, rounding: field("rounding").value, overflow: field("overflow").value,
    seedText: field("seed").value };
}

/** The choices checked in the server's order (rounding and overflow come from their lists): the seed, a BigInt,
 * drawn here when stochastic rounding has none, and shown unless the visitor is clearing the box to type another. */
function seedOf(form, editingSeed) {
  let seed = seedValue(form.seedText);
  if (seed === null && form.rounding === "stochastic") {
    seed = state.drawn ??= randomSeed();
    if (!editingSeed) field("seed").value = form.seedText = String(seed);
  }
  return seed;
}

/** The page's own URL for the form (the visualiser's defaults left out), so that a shared link restores it. */
function pageUrl(form, seed) {
  const query = [["value", form.value], ["rounding", form.rounding === "nearest_even" ? null : form.rounding],
    ["overflow", form.overflow === "format_default" ? null : form.overflow],
    ["seed", form.seedText || (seed === null ? null : String(seed))]];
  const params = query.filter(([, v]) => v !== null).map(([name, v]) => `${name}=${quote(v)}`).join("&");
  return `${location.pathname}?${params}${location.hash}`;
}

/** The refusal's sentence (an InputError's Phrase) in the page's language, or none; marked English (lang="en"), as
 * compare.html marks it, where the catalog has no translation of it. */
function showError(root, phrase) {
  let error = root.querySelector("[data-error]");
  if (phrase === null) {
    error?.remove();
    return;
  }
  if (!error) {
    error = Object.assign(document.createElement("p"), { className: "error" });
    error.setAttribute("role", "alert");
    error.dataset.error = "";
    root.prepend(error);
  }
  const said = phrase.said;
  error.textContent = said;
  if (document.documentElement.lang !== "en" && said === String(phrase)) error.lang = "en";
  else error.removeAttribute("lang");
}

/** _controls.html's choice_word: a rounding mode or overflow policy as a word of the page's language. */
const choiceWord = (choice) => ({ nearest_even: say("nearest even"), nearest_away: say("nearest away"),
  toward_zero: say("toward zero"), toward_positive: say("toward positive"), toward_negative: say("toward negative"),
  stochastic: say("stochastic"), format_default: say("format default"), saturate: say("saturate") })[choice]
  ?? choice.replaceAll("_", " ");

function choicesText(choice) {
  let text = "";
  if (choice.rounding !== "nearest_even") {
    text += say(", rounding %(mode)s", { mode: choiceWord(choice.rounding) });
    if (choice.rounding === "stochastic") text += " " + say("(seed %(s)s)", { s: choice.seed });
  }
  if (choice.overflow !== "format_default") {
    text += say(", overflow %(policy)s", { policy: choiceWord(choice.overflow) });
  }
  return text;
}

function render(event) {
  const root = document.querySelector("[data-compare]"), result = root.querySelector("[data-compare-result]");
  const choice = typed();
  let seed = null, x;
  try {
    seed = seedOf(choice, event?.target === field("seed"));
    x = parseNumber(typedNumber(choice.value)); // 0,1 on a Turkish page
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    showError(root, error.phrase);
    result.hidden = true;
    history.replaceState(history.state, "", pageUrl(choice, seed));
    return;
  }
  const chosen = { ...choice, seed };
  const bars = [...root.querySelectorAll("tr[data-format]")].map((row) => scalarRow(row, specs.get(row.dataset.format),
    x, chosen));
  bars.push(...blockRows(root.querySelector("[data-blocks]"), x, choice.value));
  root.querySelector("[data-input]").replaceChildren(valueNode(shown(x, 80, 20)));
  root.querySelector("[data-choices]").textContent = choicesText(chosen);
  drawChart(root.querySelector("[data-chart]"), bars);
  showError(root, null);
  result.hidden = false;
  history.replaceState(history.state, "", pageUrl(choice, seed));
}

form.addEventListener("input", render);
form.addEventListener("submit", (event) => {
  event.preventDefault(); // every row is already up to date: no round trip
  render(event);
});
