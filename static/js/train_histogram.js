// Gradient-exponent histograms, one small SVG per recipe, over the representable range of its gradient format:
// the subnormal band, the normal band, and the bars that fall outside them (underflow left, overflow right).

import { power } from "./train_charts.js";
import { proseNumber, say } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 360;
const HEIGHT = 130;
const PLOT = { left: 6, right: WIDTH - 6, top: 6, bottom: HEIGHT - 22 };
const FAR = 64; // a format range beyond ±2^64 (FP32's, BF16's) is left off the shared axis

function node(name, attributes, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (text !== undefined) element.textContent = text;
  return element;
}

// One exponent axis for every recipe and snapshot: the bars seen, and each format's limits within ±2^64.
function view(ranges, snapshots) {
  const ends = [];
  for (const { histograms } of snapshots) {
    for (const h of Object.values(histograms)) if (h.exponents.length) ends.push(h.exponents[0], h.exponents.at(-1));
  }
  for (const r of Object.values(ranges)) {
    for (const e of [r.min_subnormal_log2, r.max_log2]) if (e != null && Math.abs(e) <= FAR) ends.push(Math.floor(e));
  }
  return { low: Math.min(...ends) - 2, high: Math.max(...ends) + 2 };
}

function summary(range, h) {
  const total = h.counts.reduce((a, b) => a + b, 0) + h.zeros + h.nonfinite;
  const below = h.exponents.reduce((sum, e, i) => (e < range.min_subnormal_log2 ? sum + h.counts[i] : sum), 0);
  const share = below ? `≈${proseNumber(((100 * below) / total).toPrecision(2))}` : "0";
  return say("%(share)s%% below min subnormal, %(zeros)s zero, %(nonfinite)s inf or NaN",
    { share, zeros: h.zeros, nonfinite: h.nonfinite });
}

function drawOne(figure, info, h, axis, step) {
  const range = info.gradient_range;
  const span = axis.high - axis.low + 1;
  const x = (e) => PLOT.left + ((Math.min(Math.max(e, axis.low), axis.high + 1) - axis.low) / span) * (PLOT.right - PLOT.left);
  const svg = figure.querySelector("svg");
  const label = say("%(name)s: gradient exponents in %(format)s; %(summary)s",
    { name: say(info.name), format: range.format, summary: summary(range, h) });
  svg.setAttribute("aria-label", label);
  const parts = [];
  if (range.min_subnormal_log2 != null) {
    parts.push(node("rect", { class: "band-subnormal", x: x(range.min_subnormal_log2), y: PLOT.top,
      width: x(range.min_normal_log2) - x(range.min_subnormal_log2), height: PLOT.bottom - PLOT.top }));
  }
  const normalLow = range.min_normal_log2 ?? range.min_subnormal_log2;
  parts.push(node("rect", { class: "band-normal", x: x(normalLow), y: PLOT.top,
    width: x(range.max_log2) - x(normalLow), height: PLOT.bottom - PLOT.top }));
  const tallest = Math.max(1, ...h.counts);
  const width = (PLOT.right - PLOT.left) / span;
  h.exponents.forEach((e, i) => {
    const height = (h.counts[i] / tallest) * (PLOT.bottom - PLOT.top);
    const outside = e < range.min_subnormal_log2 || e > range.max_log2;
    parts.push(node("rect", { class: outside ? "bar outside" : "bar", x: x(e) + 0.5, y: PLOT.bottom - height,
      width: Math.max(width - 1, 1), height }));
  });
  for (const e of [range.min_subnormal_log2, range.min_normal_log2, range.max_log2]) {
    if (e != null && e >= axis.low && e <= axis.high + 1) {
      parts.push(node("line", { class: "marker", x1: x(e), x2: x(e), y1: PLOT.top, y2: PLOT.bottom }));
    }
  }
  const every = Math.max(4, Math.ceil(span / 6 / 4) * 4);
  for (let e = Math.ceil(axis.low / every) * every; e <= axis.high; e += every) {
    parts.push(node("text", { x: x(e), y: HEIGHT - 6, "text-anchor": "middle" }, power(e)));
  }
  svg.replaceChildren(...parts);
  const note = say("At step %(step)s: %(summary)s", { step, summary: summary(range, h) });
  figure.querySelector("[data-histogram-note]").textContent = note;
}

function limits(range) {
  const slots = { format: range.format, max: power(Math.floor(range.max_log2)) };
  if (range.min_normal_log2 != null) slots.normal = power(range.min_normal_log2);
  if (range.min_subnormal_log2 != null) slots.subnormal = power(range.min_subnormal_log2);
  if (slots.subnormal == null) return say("%(format)s: normals from %(normal)s, max ≈ %(max)s", slots);
  if (slots.normal == null) return say("%(format)s: subnormals from %(subnormal)s, max ≈ %(max)s", slots);
  return say("%(format)s: subnormals from %(subnormal)s, normals from %(normal)s, max ≈ %(max)s", slots);
}

// A figure per recipe, made at the start of a run; drawn again at each histogram snapshot.
export function makeHistograms(root, start) {
  root.replaceChildren();
  delete root.dataset.drawnStep; // what drawHistograms last drew
  delete root.dataset.drawnSnapshots;
  for (const [id, info] of Object.entries(start.recipes)) {
    const figure = document.createElement("figure");
    figure.className = "histogram";
    figure.dataset.histogram = id;
    const caption = document.createElement("figcaption");
    const note = document.createElement("small");
    note.dataset.histogramNote = "";
    note.textContent = say("Drawn at the first snapshot, after a few steps.");
    note.dataset.waiting = note.textContent;
    const range = document.createElement("small");
    range.textContent = limits(info.gradient_range);
    const name = say(info.name);
    caption.append(name, range, note);
    figure.append(caption, node("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": name }));
    root.append(figure);
  }
}

// The last snapshot at or before `step` ({step, histograms}, from `snapshots`, in step order), on an axis
// that spans every snapshot so far; before the first snapshot, empty figures that say when it comes.
export function drawHistograms(root, start, snapshots, step) {
  let shown = null;
  for (const snapshot of snapshots) {
    if (snapshot.step > step) break;
    shown = snapshot;
  }
  if (root.dataset.drawnStep === String(shown?.step ?? 0) && root.dataset.drawnSnapshots === String(snapshots.length)) return;
  root.dataset.drawnStep = String(shown?.step ?? 0);
  root.dataset.drawnSnapshots = String(snapshots.length);
  if (!shown) {
    for (const figure of root.querySelectorAll("[data-histogram]")) {
      figure.querySelector("svg").replaceChildren();
      const note = figure.querySelector("[data-histogram-note]");
      note.textContent = note.dataset.waiting;
    }
    return;
  }
  const ranges = Object.fromEntries(Object.keys(shown.histograms).map((id) => [id, start.recipes[id].gradient_range]));
  const axis = view(ranges, snapshots);
  for (const [id, h] of Object.entries(shown.histograms)) {
    drawOne(root.querySelector(`[data-histogram="${id}"]`), start.recipes[id], h, axis, shown.step);
  }
}
