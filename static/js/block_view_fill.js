// The block visualiser's one render: it fills the server's markup (visualise_block.html and its _block_*.html
// parts, which write every sentence a block of the page's format may say, with slots for its numbers) from a block
// as blocks.js explains it. It writes text and attributes, shows the variants that apply, and for the lists whose
// length follows the values (an element's row, a bar, a format's scales) clones the server's first item.

import {
  fillSlots, prototypeOf, setAttr, setBitRuns, setNum, setText, showVariants, sized, wordsOf,
} from "./view_slots.js";

/** The server's words and bit of a block section (the bold 1 of its template data-one), read once. */
const parts = new WeakMap();

function partsOf(section) {
  let known = parts.get(section);
  if (!known) {
    known = { words: wordsOf(section), one: prototypeOf(section.querySelector("template[data-one]")) };
    parts.set(section, known);
  }
  return known;
}

/** The conditions of the variants (data-if, data-unless) that a block's view calls for. */
function conditions(view, read) {
  const { choice } = view, mx = choice.mx;
  return {
    nan: view.nanBlock, tensor: Boolean(choice.tensorScale), saturated: Boolean(choice.saturated),
    "max-error": Boolean(view.maxErrorExact && view.maxErrorExact.num), log: Boolean(mx),
    "clamped-up": Boolean(mx && mx.clamped && mx.shared > mx.unclamped),
    "clamped-down": Boolean(mx && mx.clamped && mx.shared < mx.unclamped),
    "nan-NaN": view.nonfinite === "NaN", lesson: view.threshold !== null && !view.nanBlock,
    changed: read.changed > 0, "changed-one": read.changed === 1, padding: read.padding > 0,
  };
}

/** Every slot's value, by the names the templates give them. */
function slots(view, read, words) {
  const { choice } = view, [scale, tensor] = view.scales, shared = choice.mx ? choice.mx.shared : -127;
  return {
    nonfinite: words.get(view.nonfinite), "scale-text": view.nanBlock ? scale.value.text : "", "scale-hex": scale.hex,
    "absmax-short": view.absmaxShort, "scale-short": scale.short, "tensor-short": tensor ? tensor.short : null,
    "scale-full": scale.value, zeroed: view.zeroed, nonzero: view.nonzero, mse: view.mse, "max-error": view.maxError,
    "max-error-text": view.maxError.text, threshold: view.threshold, shared, field: shared + 127,
    unclamped: choice.mx ? choice.mx.unclamped : "", "floor-log2": choice.mx ? choice.mx.floorLog2 : "",
    "tensor-quotient": choice.tensorQuotient ?? null, "tensor-scale": choice.tensorScale ?? null,
    "block-quotient": choice.blockQuotient ?? null, "block-scale": choice.blockScale ?? null, step: choice.step,
    changed: read.changed, count: read.count, padding: read.padding,
  };
}

function fillChart(chart, view) {
  setAttr(chart.querySelector("[data-bars]"), "aria-labelledby", view.zeroed ? "bars-zeroed" : "bars-plain");
  sized(chart.querySelector("[data-bar-list]"), view.bars.length).forEach((rect, i) => {
    const b = view.bars[i];
    setAttr(rect, "data-fate", b.fate);
    setAttr(rect, "x", `${b.x}%`);
    setAttr(rect, "width", `${b.width}%`);
    setAttr(rect, "height", b.height);
    setText(rect.firstElementChild, b.label);
  });
}

function fillScales(result, view, one) {
  result.querySelectorAll("[data-scale-view]").forEach((box, i) => {
    const s = view.scales[i], link = box.querySelector("[data-scale-link]");
    setAttr(link, "href", s.href);
    setBitRuns(link.firstElementChild, s.groups, one);
    fillSlots(box, { hex: s.hex });
    setText(box.querySelector("[data-scale-bits]"), s.hex);
    setNum(box.querySelector("[data-scale] .num"), s.value);
  });
}

/** The element table: a row for each value, each filled where it changed. */
function fillRows(body, view, page) {
  const { words, one } = page;
  sized(body, view.rows.length).forEach((tr, i) => {
    const row = view.rows[i], cells = tr.cells, link = cells[2].firstElementChild;
    setAttr(tr, "data-element", row.index);
    setAttr(tr, "data-fate", row.fate);
    setText(cells[0], row.index);
    setNum(cells[1], row.input);
    setAttr(link, "href", row.href);
    setBitRuns(link.firstElementChild, row.groups, one);
    setText(link.lastElementChild, row.hex);
    setNum(cells[3], row.stored);
    setNum(cells[4], row.error);
    setText(cells[5], row.fate === "kept" ? "" : words.get(page.short[row.fate]));
  });
}

/** A list of shown values, ", " between them, each a clone of the server's first. */
function fillList(list, values) {
  let items = list.querySelectorAll(".num");
  if (items.length !== values.length) {
    const num = items[0];
    list.replaceChildren(...values.flatMap((_, i) => (i ? [", ", num.cloneNode(true)] : [num.cloneNode(true)])));
    items = list.querySelectorAll(".num");
  }
  values.forEach((v, i) => setNum(items[i], v));
}

/** The same values in every block format: a row each. */
function fillOthers(result, others, page) {
  for (const other of others) {
    const row = result.querySelector(`tr[data-other="${other.id}"]`), link = row.querySelector("[data-other-name] a");
    if (link && link.getAttribute("href") !== other.href) { // its link opens the same block through htmx
      setAttr(link, "href", other.href);
      setAttr(link, "data-hx-get", other.href);
      link.hidden = other.href === null;
      link.nextElementSibling.hidden = other.href !== null;
      window.htmx?.process(link);
    }
    fillList(row.querySelector("[data-scale-list]"), other.scales);
    if (other.tensorScale) fillSlots(row, { tensor: other.tensorScale });
    setNum(row.querySelector("[data-other-mse] .num"), other.mse);
    setNum(row.querySelector("[data-other-max-error] .num"), other.maxError);
    setText(row.querySelector("[data-other-zeroed]"), other.zeroed);
    row.querySelector("[data-largest]").hidden = !other.largest;
    row.querySelector("[data-no-largest]").hidden = Boolean(other.largest);
    if (other.largest) {
      const [from, to, fate] = other.largest;
      fillSlots(row, { from, to, fate: page.words.get(fate) });
    }
  }
}

/** Fill the section from a block: `read` the list as read ({count, changed, padding}), `view` the block as
 * explainBlock shows it, `others` as sideBySide does, `short` the fates' English words (the page's data). */
export function fill(section, read, view, others, short) {
  const page = { ...partsOf(section), short };
  const chart = section.querySelector("[data-block-chart]"), result = section.querySelector("[data-block-result]");
  const error = section.querySelector("[data-error]");
  error.hidden = true;
  error.removeAttribute("role");
  chart.removeAttribute("data-stale");
  result.hidden = false;
  showVariants(section, conditions(view, read));
  fillSlots(section, slots(view, read, page.words));
  for (const count of section.querySelectorAll("[data-count]")) {
    setText(count, { rows: view.rows.length, values: read.count }[count.dataset.count] ?? view[count.dataset.count]);
  }
  fillChart(chart, view);
  setText(result.querySelector("[data-absmax]"), view.absmax.text);
  fillScales(result, view, page.one);
  setNum(result.querySelector("[data-mse] .num"), view.mse);
  setNum(result.querySelector("[data-max-error] .num"), view.maxError);
  fillRows(result.querySelector("[data-element-rows]"), view, page);
  fillOthers(result, others, page);
  const formula = result.querySelector('[data-if="log"][data-shared-exponent]');
  if (formula && view.choice.mx) setAttr(formula, "data-shared-exponent", view.choice.mx.shared);
}

/** A refusal's sentence, in the page's language: the block gives way to it (the chart keeps its place). */
export function showError(section, message) {
  const error = section.querySelector("[data-error]");
  setText(error, message);
  error.setAttribute("role", "alert");
  error.hidden = false;
  section.querySelector("[data-block-chart]").setAttribute("data-stale", "");
  section.querySelector("[data-block-result]").hidden = true;
}
