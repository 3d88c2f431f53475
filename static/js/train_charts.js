// The live line charts: loss (log10), loss scale (log2, a cross at each skipped step) and underflow share,
// one uPlot chart each, every recipe a series. Steps are gathered as they arrive; `show(n)` draws the first n,
// on axes that span every step received, so that the lines do not jump while a run plays or is scrubbed.

import { proseNumber, say } from "./words.js";

const HEIGHT = 220;
const SUPERSCRIPT = Object.fromEntries([..."-0123456789"].map((c, i) => [c, "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"[i]]));
const SERIES = ["loss", "loss_scale", "underflow_fraction"];
const Y_SCALES = {
  loss: { distr: 3, log: 10 },
  loss_scale: { distr: 3, log: 2 },
  underflow_fraction: {},
};
const Y_VALUES = {
  // a diverging run's loss reaches 1e12 and more: past 10^4 the ticks are powers of ten, so they fit the axis
  loss: (u, ticks) => ticks.map((v) => (v == null ? "" : v >= 1e4 ? v.toExponential(0).replace("+", "")
    : proseNumber(+v.toPrecision(2)))),
  loss_scale: (u, ticks) => ticks.map((v) => (v == null ? "" : power(Math.round(Math.log2(v))))),
  underflow_fraction: (u, ticks) => ticks.map((v) => `${proseNumber(+(100 * v).toPrecision(3))}%`),
};

let loading = null;

export const power = (e) => `2${String(e).replace(/./g, (c) => SUPERSCRIPT[c])}`;

// uPlot and its stylesheet load on the first run only, so the page itself stays small.
export function loadUPlot() {
  loading ??= new Promise((resolve, reject) => {
    const style = Object.assign(document.createElement("link"), { rel: "stylesheet", href: new URL("../vendor/uPlot.min.css", import.meta.url).href });
    const script = Object.assign(document.createElement("script"), { src: new URL("../vendor/uPlot.iife.min.js", import.meta.url).href });
    script.addEventListener("load", () => resolve(window.uPlot));
    script.addEventListener("error", () => reject(new Error(say("The chart library did not load."))));
    document.head.append(style, script);
  });
  return loading;
}

// Colour and dash pattern of a recipe, from the stylesheet (the same ones the server's SVG charts use).
export function recipeStyle(recipeId) {
  const probe = document.createElement("span");
  probe.dataset.recipe = recipeId;
  document.body.append(probe);
  const style = getComputedStyle(probe);
  const dash = style.getPropertyValue("--dash").trim();
  const result = {
    color: style.getPropertyValue("--recipe").trim(),
    dash: dash === "none" || !dash ? undefined : dash.split(/\s+/).map(Number),
  };
  probe.remove();
  return result;
}

function themeColour(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

export class LiveCharts {
  constructor(uPlot, root, start) {
    this.ids = Object.keys(start.recipes);
    this.steps = start.config.steps;
    this.x = [];
    this.values = Object.fromEntries(SERIES.map((name) => [name, this.ids.map(() => [])]));
    this.skipped = this.ids.map(() => []);
    this.styles = this.ids.map(recipeStyle);
    this.shown = 0;
    this.uPlot = uPlot;
    this.boxes = SERIES.map((name) => root.querySelector(`[data-chart="${name}"]`));
    this.plots = SERIES.map((name, i) => {
      this.boxes[i].replaceChildren();
      return new uPlot(this.options(start, name, this.boxes[i]), [[], ...this.ids.map(() => [])], this.boxes[i]);
    });
    this.resizer = new ResizeObserver(() => {
      for (const plot of this.plots) plot.setSize({ width: plot.root.parentElement.clientWidth, height: HEIGHT });
    });
    for (const plot of this.plots) this.resizer.observe(plot.root.parentElement);
  }

  options(start, name, box) {
    const axis = { stroke: themeColour("--muted"), grid: { stroke: themeColour("--border"), width: 1 }, ticks: { show: false } };
    return {
      width: box.clientWidth,
      height: HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false, range: [1, Math.max(this.steps, 2)] }, y: { ...Y_SCALES[name], range: () => this.range(name) } },
      axes: [{ ...axis, size: 32 }, { ...axis, size: 56, values: Y_VALUES[name] }],
      series: [
        { label: "step" },
        ...this.ids.map((id, i) => ({
          label: say(start.recipes[id].name),
          stroke: this.styles[i].color,
          dash: this.styles[i].dash,
          width: 2,
          points: { show: false },
        })),
      ],
      hooks: name === "loss_scale" ? { draw: [(u) => this.drawSkipped(u)] } : {},
    };
  }

  // The y range of every value received (not only those shown): positive values on a log axis.
  range(name) {
    const { log } = Y_SCALES[name];
    let low = Infinity;
    let high = -Infinity;
    for (const values of this.values[name]) {
      for (const v of values) {
        if (v != null && (!log || v > 0)) {
          low = Math.min(low, v);
          high = Math.max(high, v);
        }
      }
    }
    if (!log) return [0, Math.max(high, 0.01)];
    if (low > high) return [1, log];
    return this.uPlot.rangeLog(low, high, log, true);
  }

  drawSkipped(u) {
    const { ctx } = u;
    const r = 4 * devicePixelRatio;
    ctx.save();
    ctx.lineWidth = 1.5 * devicePixelRatio;
    this.skipped.forEach((steps, i) => {
      ctx.strokeStyle = this.styles[i].color;
      ctx.beginPath();
      for (const [step, scale] of steps) {
        if (step > this.shown) break;
        const cx = u.valToPos(step, "x", true);
        const cy = u.valToPos(scale, "y", true);
        ctx.moveTo(cx - r, cy - r);
        ctx.lineTo(cx + r, cy + r);
        ctx.moveTo(cx + r, cy - r);
        ctx.lineTo(cx - r, cy + r);
      }
      ctx.stroke();
    });
    ctx.restore();
  }

  // A step event's figures, kept; drawn when `show` reaches them.
  append(event) {
    this.x.push(event.step);
    this.ids.forEach((id, i) => {
      const values = event.recipes[id];
      // a log scale has no place for 0: a loss scale that backed off to 0 (a diverged run) leaves a gap
      for (const name of SERIES) this.values[name][i].push(Y_SCALES[name].log && !(values[name] > 0) ? null : values[name]);
      if (values.skipped && values.loss_scale > 0) this.skipped[i].push([event.step, values.loss_scale]);
    });
  }

  // Forget the steps after the first n (a stopped run ends where it was shown).
  truncate(n) {
    this.x.length = Math.min(this.x.length, n);
    for (const name of SERIES) for (const values of this.values[name]) values.length = this.x.length;
    this.skipped = this.skipped.map((steps) => steps.filter(([step]) => step <= n));
  }

  // Draw the first n steps; each chart box says in data-points how many its chart holds.
  show(n) {
    this.shown = n;
    this.plots.forEach((plot, i) => {
      plot.setData([this.x.slice(0, n), ...this.values[SERIES[i]].map((values) => values.slice(0, n))]);
      this.boxes[i].dataset.points = String(plot.data[0].length);
    });
  }

  destroy() {
    this.resizer.disconnect();
    for (const plot of this.plots) plot.destroy();
  }
}
