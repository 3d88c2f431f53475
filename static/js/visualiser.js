// The visualiser's events (its state and render are visualiser_state.js's): a flip (click, tap, Space or Enter on a
// bit, or a drag that paints bits), a neighbour button, a keystroke in the value box, a change of rounding, overflow
// or seed, a format pill, back and forward. Without the page's data (a layout the server refused) htmx does the
// work, and the keyboard still moves and flips.

import {
  bitOf, field, flip, init, layoutEdited, load, render, roving, step, viewOf, views,
} from "./visualiser_state.js";

const STEPS = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
const pending = { bit: null, refocus: false }; // keyboard focus across an htmx swap (pages without data)
let paint = null; // the drag in progress: {view, value}
let painted = false; // the click that ends a paint is not a flip of its own

function scan(node) {
  if (!(node instanceof Element || node instanceof Document)) return;
  for (const root of node.querySelectorAll("section[data-format]")) init(root);
  if (node instanceof Element && node.matches("section[data-format]")) init(node);
  roving(node instanceof Document ? node : node.closest("section") ?? node, pending.bit, pending.refocus);
  pending.refocus = false;
}

document.addEventListener("click", (event) => {
  const link = event.target instanceof Element && event.target.closest("a[href]"), view = viewOf(link);
  if (!view || event.button || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
  const cell = bitOf(link), id = link.closest(".switcher") && link.dataset.format;
  if (cell) {
    if (!(painted && event.detail)) {
      flip(view, cell);
      view.focusBit = cell.dataset.bit;
      render(view, "push");
    }
  } else if (link.dataset.step) {
    Object.assign(view, { text: step(view, link.dataset.step).hex, fromBits: true });
    render(view, "push");
  } else if (id && id !== view.key) {
    load(view, link.getAttribute("href"), "push"); // the server's view of that format, once
  } else if (id) {
    Object.assign(view, { text: view.carried ?? view.text, fromBits: false });
    render(view, "push");
  } else return;
  painted = false;
  event.preventDefault();
  event.stopPropagation(); // htmx's own handler on the link never hears of it
}, true);

document.addEventListener("submit", (event) => {
  const view = viewOf(event.target);
  if (!view || layoutEdited(view)) return;
  event.preventDefault();
  event.stopPropagation();
  render(view, "push");
}, true);

// htmx's "change from:#rounding" listens on the select itself: its request is called off here
document.addEventListener("htmx:confirm", (event) => {
  const view = viewOf(event.target), trigger = event.detail.triggeringEvent;
  if (view && trigger && trigger.type === "change") event.preventDefault();
});

document.addEventListener("input", (event) => {
  const view = viewOf(event.target), name = event.target.name;
  if (!view || (name !== "value" && name !== "seed")) return;
  if (name === "value") Object.assign(view, { text: event.target.value, fromBits: false });
  render(view, "replace");
});

document.addEventListener("change", (event) => {
  const view = viewOf(event.target);
  if (view && (event.target.name === "rounding" || event.target.name === "overflow")) render(view, "push");
});

document.addEventListener("pointerdown", (event) => {
  const cell = bitOf(event.target), view = viewOf(cell);
  painted = false;
  if (!view || !event.isPrimary || event.button) return;
  event.preventDefault(); // no text selection, no scrolling: the drag paints
  paint = { view, value: cell.dataset.value === "1" ? 0 : 1 };
  flip(view, cell, paint.value);
  view.focusBit = cell.dataset.bit;
  render(view, "push");
  painted = true;
});

document.addEventListener("pointermove", (event) => {
  if (!paint) return;
  const cell = bitOf(document.elementFromPoint(event.clientX, event.clientY));
  if (!cell || viewOf(cell) !== paint.view || Number(cell.dataset.value) === paint.value) return;
  flip(paint.view, cell, paint.value);
  paint.view.focusBit = cell.dataset.bit;
  render(paint.view, "replace");
});

for (const name of ["pointerup", "pointercancel"]) document.addEventListener(name, () => { paint = null; });

document.addEventListener("keydown", (event) => {
  const cell = bitOf(event.target);
  if (!cell || event.altKey || event.ctrlKey || event.metaKey) return;
  const view = viewOf(cell), all = [...cell.closest("[data-bit-grid]").querySelectorAll("[data-bit]")];
  if (event.key === " " || event.key === "Enter") {
    event.preventDefault();
    if (!view) {
      Object.assign(pending, { bit: cell.dataset.bit, refocus: true });
      cell.click(); // htmx swaps the flipped pattern in; focus comes back after it settles
      return;
    }
    flip(view, cell);
    view.focusBit = cell.dataset.bit;
    render(view, "push");
    return;
  }
  const index = all.indexOf(cell), move = STEPS[event.key];
  const next = move ? all[Math.min(Math.max(index + move, 0), all.length - 1)]
    : event.key === "Home" ? all[0] : event.key === "End" ? all[all.length - 1] : null;
  if (!next) return;
  event.preventDefault();
  roving(cell.closest("section") ?? document, next.dataset.bit, true);
});

window.addEventListener("popstate", (event) => {
  const saved = !event.state?.htmx && event.state?.visualiser; // htmx restores its own
  const view = [...document.querySelectorAll("section[data-format]")].map((root) => views.get(root))
    .find((v) => v?.history);
  if (!saved || !view) return;
  Object.assign(view, { text: saved.text, fromBits: saved.fromBits });
  for (const name of ["rounding", "overflow", "seed"]) field(view, name).value = saved[name];
  if (saved.key !== view.key) load(view, location.pathname + location.search, null);
  else render(view);
});

document.addEventListener("htmx:load", (event) => scan(event.target));
scan(document);
