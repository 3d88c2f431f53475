// The block visualiser in the browser: every keystroke in the values box, every preset and the Quantise button
// re-quantise the block with blocks.js and redraw the whole block view in the same frame, without a request; the
// URL follows (history.replaceState as you type, pushState for a preset, so Back returns to the last one). The
// server's page (visualise_block.html and its _block_*.html parts) is the first paint, the path without
// JavaScript and the only markup: block_view_fill.js fills it, in the page's language (its words are the page's
// own; a decimal comma is read where the language writes one), and tests/browser/test_block_instant.py holds the
// two renders together, in every language. A page that opened on an error has no block to fill: it keeps htmx's
// round trip.

import { InputError } from "./codec.js";
import { blockFormats, blockUrl, explainBlock, quantize, readList, sideBySide } from "./blocks.js";
import { fill, showError } from "./block_view_fill.js";
import { typedList } from "./decimal_comma.js";
import { learn } from "./words.js";

const data = new WeakMap(); // section -> its parsed JSON block (block_specs.block_page_data)

function dataOf(section) {
  let known = data.get(section);
  if (!known) {
    known = JSON.parse(section.querySelector("script[data-block-data]").textContent);
    learn(known.words); // the translations of what the modules it imports say (refusals, a bar's tooltip)
    Object.assign(known, blockFormats(known.blocks));
    known.spec = known.formats.find((spec) => spec.id === known.format);
    data.set(section, known);
  }
  return known;
}

/** A preset's text as the values box shows it (blocks.pages.Preset.values, eight values a line as _lines writes
 * them), made from the page's data: its normal values and the preset's rule. */
function presetText(presets, id) {
  const { every = null, suffix = "", at = null, text = "" } = presets.rules[id], n = presets.normal.length;
  const values = every !== null ? Array(n).fill(every) : presets.normal.map((v) => v + suffix);
  if (every === null && at !== null) values[at % n] = text;
  const lines = [];
  for (let i = 0; i < n; i += 8) lines.push(values.slice(i, i + 8).join(", "));
  return lines.join("\n");
}

/** Re-quantise the section's block from the values box (and `preset`, the preset it holds, or null when typed),
 * and redraw it; answers the URL the view now has. */
export function update(section, preset = null) {
  const d = dataOf(section), spec = d.spec, box = section.querySelector("#values"), text = box.value;
  box.defaultValue = text; // so that a snapshot of the page (htmx's history) keeps it
  section.querySelectorAll(".presets [data-preset]").forEach((link) => {
    if (link.dataset.preset === preset) link.setAttribute("aria-current", "true");
    else link.removeAttribute("aria-current");
  });
  const url = preset === null ? blockUrl(spec, { values: text, prefix: d.prefix })
    : blockUrl(spec, { preset, prefix: d.prefix });
  let read;
  try { // a preset's text is the server's own list; a typed one may have decimal commas (0,5; -1,25 in Turkish)
    read = readList(preset === null ? typedList(text) : text, spec.block_size, d.float32, d.limits.max_text, d.group);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    showError(section, error.phrase.said);
    return url;
  }
  const count = read.values.length;
  const view = explainBlock(quantize(read.values, spec), spec, d);
  const links = (other) => (preset !== null ? blockUrl(other, { preset, prefix: d.prefix })
    : count <= other.block_size ? blockUrl(other, { values: text, prefix: d.prefix }) : null);
  const others = sideBySide(read.values, d.formats, spec.id, { ...d, links });
  fill(section, { count, changed: read.changed, padding: spec.block_size - count }, view, others, d.words.short);
  return url;
}

// -- events ------------------------------------------------------------------------------------------------------

/** The block section an event happened in, where this script can redraw it (not a page that opened on an error). */
function liveSection(target) {
  const section = target instanceof Element ? target.closest("section.block-visualiser") : null;
  return section && section.querySelector("[data-block-result]") && section.querySelector("script[data-block-data]")
    ? section : null;
}

const stateOf = (section, preset) => ({ blockView: true, format: section.dataset.format, preset,
  text: section.querySelector("#values").value });

function currentPreset(section) {
  return section.querySelector(".presets [aria-current]")?.dataset.preset ?? null;
}

document.addEventListener("input", (event) => {
  const section = event.target.id === "values" ? liveSection(event.target) : null;
  if (!section) return;
  const url = update(section, null);
  history.replaceState(stateOf(section, null), "", url);
});

document.addEventListener("submit", (event) => {
  const section = liveSection(event.target);
  if (!section) return;
  event.preventDefault();
  event.stopPropagation(); // in the capture phase: htmx's own listener never sees it
  const url = update(section, null);
  history.replaceState(stateOf(section, null), "", url);
}, true);

document.addEventListener("click", (event) => {
  const link = event.target instanceof Element ? event.target.closest("[data-preset], [data-preset-link]") : null;
  const section = link && liveSection(link);
  if (!section || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  event.stopPropagation();
  const preset = link.dataset.preset ?? link.dataset.presetLink, d = dataOf(section);
  if (!history.state?.blockView && !history.state?.htmx) {
    history.replaceState(stateOf(section, currentPreset(section)), "");
  }
  section.querySelector("#values").value = presetText(d.presets, preset);
  const url = update(section, preset);
  history.pushState(stateOf(section, preset), "", url);
}, true);

window.addEventListener("popstate", (event) => {
  const state = event.state;
  if (!state?.blockView) return; // htmx restores its own entries
  const section = document.querySelector("section.block-visualiser");
  if (!section || section.dataset.format !== state.format || !liveSection(section)) {
    window.location.reload(); // another format's page: the server draws it
    return;
  }
  section.querySelector("#values").value = state.text;
  update(section, state.preset);
});
