// The dot-product figure's chart in the browser, as app/web/dot/chart.py draws it on the server: each method's
// running |error| against the number of elements, the error on a log scale (zero on the floor, inf or NaN lifting
// the pen). It writes the server's SVG (templates/dot.html): each series' path, and each tick's line and label,
// the tick groups cloned from the server's first; it builds no markup.

import { setAttr, setText, sized } from "./view_slots.js";

const WIDTH = 720, HEIGHT = 300, LEFT = 64, RIGHT = 24, TOP = 14, BOTTOM = 34, DECADES_SHOWN = 12;
const SPAN_X = WIDTH - RIGHT - LEFT, SPAN_Y = HEIGHT - BOTTOM - TOP;

/** Python's "%.1f" of a double: the nearest one-decimal number, an exact tie to the even digit (JavaScript's
 * toFixed takes the larger). */
export function fixed1(x) {
  const t = x * 10; // exact for a tie: a tie's x has at most two binary places, and ×10 keeps them exact
  if (Number.isInteger(t * 2) && !Number.isInteger(t)) {
    const lower = Math.floor(t), even = lower % 2 === 0 ? lower : lower + 1;
    return (even / 10).toFixed(1);
  }
  return x.toFixed(1);
}

/** chart._count_step: 1, 2 or 5 times a power of ten near n / 5, the spacing of the element axis's ticks. */
function countStep(n) {
  const raw = Math.max(n / 5, 1), power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw);
}

/** chart.chart's geometry for a figure (dot_product.js): {yTicks, xTicks: [{at, label}], paths: {method: d}};
 * `prose` writes an element count as the page's language does, `digits` a number the lab wrote. */
export function chartOf(figure, prose, digits) {
  const counts = figure.counts, n = counts.at(-1);
  const positive = figure.results.flatMap((r) => r.running.filter((e) => e));
  let high = 0, low = -1;
  if (positive.length) {
    high = Math.ceil(Math.log10(Math.max(...positive)));
    low = Math.max(Math.floor(Math.log10(Math.min(...positive))), high - DECADES_SHOWN);
  }
  if (low >= high) low = high - 1;
  const last = Math.max(n - 1, 1);
  const x = (count) => LEFT + (SPAN_X * (count - 1)) / last;
  const y = (error) => TOP + SPAN_Y * (1 - (Math.max(error > 0 ? Math.log10(error) : low, low) - low) / (high - low));
  const every = Math.max(1, Math.ceil((high - low) / 6)), yTicks = [];
  for (let p = low; p <= high; p += every) yTicks.push({ at: y(Number(`1e${p}`)), label: digits(`1e${p}`) });
  const step = countStep(n), xTicks = [{ at: x(1), label: prose(1) }];
  for (let k = step; k <= n; k += step) if (k > 1) xTicks.push({ at: x(k), label: prose(k) });
  const paths = {};
  for (const r of figure.results) {
    let d = "", penDown = false;
    r.running.forEach((error, i) => {
      if (error === null) {
        penDown = false;
        return;
      }
      d += `${penDown ? "L" : "M"}${fixed1(x(counts[i]))},${fixed1(y(error))}`;
      penDown = true;
    });
    paths[r.method] = d;
  }
  return { yTicks, xTicks, paths };
}

/** Write the chart into the server's SVG: the tick groups (a line and a label each) and every method's path. */
export function fillChart(svg, chart, description) {
  setAttr(svg, "aria-label", description);
  sized(svg.querySelector("[data-y-ticks]"), chart.yTicks.length).forEach((group, i) => {
    const at = fixed1(chart.yTicks[i].at), [line, label] = group.children;
    setAttr(line, "y1", at);
    setAttr(line, "y2", at);
    setAttr(label, "y", at);
    setText(label, chart.yTicks[i].label);
  });
  sized(svg.querySelector("[data-x-ticks]"), chart.xTicks.length).forEach((group, i) => {
    const at = fixed1(chart.xTicks[i].at), [line, label] = group.children;
    setAttr(line, "x1", at);
    setAttr(line, "x2", at);
    setAttr(label, "x", at);
    setText(label, chart.xTicks[i].label);
  });
  for (const path of svg.querySelectorAll("path[data-series]")) {
    const d = chart.paths[path.dataset.series];
    setAttr(path, "d", d ?? "");
    path.toggleAttribute("hidden", d === undefined);
  }
}
