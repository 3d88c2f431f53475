// /compare's chart in the browser (app/web/compare/compare_chart.py works out the first paint's): each format's
// |relative error| on one log scale over whole decades. It fills _compare_chart.html: a bar's kind, width and
// words (the server's, from its <template data-words>), and for each tick of a new scale a decade line and a
// label, clones of the server's first.

import { relative } from "./codec.js";
import { setAttr, setText, sized } from "./view_slots.js";

const MAX_STEPS = 6, STEPS = [1, 2, 4, 5, 8, 10, 16, 20, 25, 40, 50, 100, 200, 500, 1000];
const TINY = 1e-308, MIN_WIDTH = 0.5;

/** compare_chart.bar_of: {kind, magnitude, text} of an error and its relative size (undefined: no block); text is
 * a word's English id, or a number. */
export function barOf(error, rel) {
  if (error === undefined) return { kind: "none", magnitude: null, text: "no block" };
  if (error.kind === "nan") return { kind: "nan", magnitude: null, text: "NaN" };
  if (error.kind === "inf") return { kind: "infinite", magnitude: null, text: "infinite" };
  if (error.num === 0n) return { kind: "exact", magnitude: null, text: "exact" };
  if (rel === null) return { kind: "none", magnitude: null, text: "—" };
  if (rel === 0) return { kind: "bar", magnitude: TINY, text: "< 1e-307" };
  return { kind: "bar", magnitude: Math.abs(rel), text: relative(Math.abs(rel)) };
}

/** compare_chart.scale: (low, high, step) in powers of ten. */
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

const twoDecimals = (x) => Math.floor(x * 100 + 0.5) / 100;

/** compare_chart.width: percent of the scale, at least MIN_WIDTH. */
function width(magnitude, low, high) {
  const share = Number.isFinite(magnitude) ? (Math.log10(magnitude) - low) / (high - low) : 1;
  return twoDecimals(Math.min(Math.max(100 * share, MIN_WIDTH), 100));
}

/** The decade lines and labels of a new scale. */
function drawTicks(chart, low, high, step) {
  const ticks = [];
  for (let p = low; p <= high; p += step) ticks.push({ x: `${twoDecimals((100 * (p - low)) / (high - low))}%`, p });
  for (const grid of chart.querySelectorAll("[data-grid]")) {
    sized(grid, ticks.length).forEach((node, i) => {
      setAttr(node, "x1", ticks[i].x);
      setAttr(node, "x2", ticks[i].x);
    });
  }
  sized(chart.querySelector("[data-axis]"), ticks.length).forEach((node, i) => {
    setAttr(node, "x", ticks[i].x);
    setAttr(node, "text-anchor", i === 0 ? "start" : i === ticks.length - 1 ? "end" : "middle");
    setText(node, ticks[i].p === 0 ? "1" : `1e${ticks[i].p}`);
  });
}

/** Fill the chart from the bars ({kind, magnitude, text}, in the rows' order); `words` the page's, by English id. */
export function drawChart(chart, bars, words) {
  const { low, high, step } = scale(bars.filter((b) => b.magnitude !== null).map((b) => b.magnitude));
  if (chart.dataset.low !== String(low) || chart.dataset.high !== String(high)) {
    Object.assign(chart.dataset, { low, high });
    drawTicks(chart, low, high, step);
  }
  const items = chart.querySelectorAll("li[data-bar]");
  bars.forEach((bar, i) => {
    const item = items[i];
    setAttr(item, "data-kind", bar.kind);
    setAttr(item.querySelector(".bar"), "width", `${bar.magnitude === null ? 0 : width(bar.magnitude, low, high)}%`);
    setText(item.querySelector(".chart-value"), words.get(bar.text) ?? bar.text);
  });
}
