// The block visualiser in the browser: every keystroke in the values box, every preset and the Quantise button
// re-quantise the block with blocks.js and redraw the whole block view in the same frame, without a request; the
// URL follows (history.replaceState as you type, pushState for a preset, so Back returns to the last one). The
// server's page (visualise_block.html and its _block_*.html parts) stays the first paint and the path without
// JavaScript: this fills the same markup through its data-* hooks, in the page's language (its sentences through
// words.js, their translations in the page's data; a decimal comma read where the language writes one), and
// tests/browser/test_block_instant.py holds the text of the two together, in every language. A page that opened
// on an error has no block to fill: it keeps htmx's round trip.
//
// As the templates do, a sentence's translation is markup and the text filled into it is escaped. What a format's
// scale rule alone says is in functions of that rule (RULES below): a page shows one format, and its data carries
// the words of that rule's functions only (block_page.py).

import { InputError } from "./codec.js";
import { blockFormats, blockUrl, explainBlock, quantize, readList, sideBySide } from "./blocks.js";
import { typedList } from "./locale_input.js";
import { learn, say, sayN } from "./words.js";

const data = new WeakMap(); // section -> its parsed JSON block (block_specs.block_page_data)

function dataOf(section) {
  let known = data.get(section);
  if (!known) {
    known = JSON.parse(section.querySelector("script[data-block-data]").textContent);
    learn(known.words); // the translations of the words this says, on a page in another language
    Object.assign(known, blockFormats(known.blocks));
    known.spec = known.formats.find((spec) => spec.id === known.format);
    data.set(section, known);
  }
  return known;
}

// -- markup, as templates/_bits.html and the _block_*.html parts write it --------------------------------------

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const esc = (text) => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);

function value(v) {
  if (v === null) return "—";
  return v.text !== v.full ? `<span class="num" title="${esc(v.full)}">${esc(v.text)}</span>`
    : `<span class="num">${esc(v.text)}</span>`;
}

/** A pattern's bits (_block_result.html's bit_runs): a run of text a field, its 1s in <b>. */
const bitRuns = (groups) => `<span class="bits" aria-hidden="true">${groups.map((g) => `<span data-role="${g.role}">`
  + `${Array.from(g.cells, (b) => (b === "1" ? "<b>1</b>" : b)).join("")}</span>`).join("")}</span>`;

/** A value's cell in the element table (_block_result.html's value_cell): its text, its exact value in a title
 * where the text is shortened. */
function valueCell(attribute, v) {
  if (v === null) return `<td ${attribute}>—</td>`;
  return `<td ${attribute}${v.text !== v.full ? ` title="${esc(v.full)}"` : ""}>${esc(v.text)}</td>`;
}

/** Python's str() of a float, as Jinja writes the chart's numbers: "1.0", not "1". */
const pyFloat = (x) => (Number.isInteger(x) && Math.abs(x) < 1e16 ? `${x}.0` : `${x}`);

/** What the block holds that is not finite ("NaN" or "infinity", block_present's nonfinite), as a word. */
const nonfiniteWord = (view) => (view.nonfinite === "NaN" ? say("NaN") : say("infinity"));

/** _block_chart.html's caption: what set the scale (an MX or NF4 block, an NVFP4 block of zeros). */
function setsScale(view) {
  const scale = view.scales[0];
  return say("Absmax %(absmax)s sets the scale %(scale)s (%(hex)s):",
    { absmax: value(view.absmaxShort), scale: value(scale.short), hex: scale.hex });
}

/** The same, of an NVFP4 block: its two scales. */
function setsNvfp4(view) {
  const [scale, tensor] = view.scales, absmax = value(view.absmaxShort);
  return view.choice.tensorScale
    ? say("Absmax %(absmax)s sets the block scale %(scale)s (%(hex)s) × tensor scale %(tensor)s:",
      { absmax, scale: value(scale.short), hex: scale.hex, tensor: value(tensor.short) })
    : say("Absmax %(absmax)s sets the scale %(scale)s (%(hex)s):",
      { absmax, scale: value(scale.short), hex: scale.hex });
}

function caption(view, rule) {
  const scale = view.scales[0];
  if (view.nanBlock) {
    return say("This block holds %(what)s: its scale is %(scale)s (%(hex)s) and every element NaN.",
      { what: esc(nonfiniteWord(view)), scale: esc(scale.value.text), hex: scale.hex });
  }
  const sets = rule.sets(view);
  const flushed = say("%(zeroed)s of %(nonzero)s nonzero values flushed to zero, MSE %(mse)s.",
    { zeroed: view.zeroed, nonzero: view.nonzero, mse: value(view.mse) });
  const each = view.maxErrorExact && view.maxErrorExact.num
    ? say("|error| of each element, up to %(max)s:", { max: value(view.maxError) }) : say("|error| of each element:");
  return `${sets} ${flushed} ${each}`;
}

/** _block_chart.html's bars, in a group turned upside down on the axis: each rises from it, with no y. */
function barsHtml(view) {
  return view.bars.map((bar) => `<rect data-fate="${bar.fate}" x="${pyFloat(bar.x)}%" width="${pyFloat(bar.width)}%" `
    + `height="${pyFloat(bar.height)}"><title>${esc(bar.label)}</title></rect>`).join("");
}

/** _block_nan.html: what a block holding NaN or inf becomes, in MX. */
const nanMx = () => say("OCP MX v1.0's exponent ⌊log<sub>2</sub> absmax⌋ − emax is then not a number, so the "
  + "shared scale is E8M0's NaN (0xff), and a NaN scale makes every element of the block NaN, whatever its bits "
  + "(stored here as zeros).");

/** ... in NVFP4. */
const nanNvfp4 = () => say("NVFP4 defines no rule of its own, and E2M1 holds neither NaN nor inf; its arithmetic "
  + "gives a block scale absmax / 6 / tensor scale that is NaN, stored as E4M3's NaN (0x7f), so every element of the "
  + "block is NaN. The FP32 tensor scale is taken over the other blocks, which keep their scales.");

/** ... in NF4. */
function nanAbsmax(view) {
  const scale = say("NF4's scale is the absmax itself in FP32 (%(scale)s).", { scale: esc(view.scales[0].value.text) });
  const why = view.nonfinite === "NaN"
    ? say("Every value / NaN is NaN, and so is every code's value × NaN: every element of the block is NaN (stored "
      + "as the zero code).")
    : say("Every finite value / inf is 0 and inf / inf is NaN, and 0 × inf is NaN too: every element of the block is "
      + "NaN (stored as the zero code).");
  return `${scale} ${why}`;
}

const p = (html, attributes = "") => `<p${attributes}>${html}</p>`;

/** _block_choice.html's MX part: the shared exponent from the absmax, clamped, and the elements it divides. */
function choiceMx(view, spec) {
  const scale = view.scales[0], c = view.choice, id = esc(spec.element.id), exp = spec.element_scale_exp;
  const emax = c.elementEmax;
  const rule = exp
    ? say("OCP MX v1.0: the shared exponent is ⌊log<sub>2</sub> absmax⌋ − emax, where emax is the exponent of the "
      + "element format's largest power of two (%(id)s, whose integers are read × 2<sup>%(exp)s</sup>: emax "
      + "%(emax)s), clamped to E8M0's −127 … 127.", { id, exp, emax })
    : say("OCP MX v1.0: the shared exponent is ⌊log<sub>2</sub> absmax⌋ − emax, where emax is the exponent of the "
      + "element format's largest power of two (%(id)s: emax %(emax)s), clamped to E8M0's −127 … 127.", { id, emax });
  let html = p(rule, ' class="help"');
  if (c.mx) {
    const m = c.mx, { unclamped, shared } = m;
    html += p(`⌊log<sub>2</sub> ${value(view.absmaxShort)}⌋ − ${m.elementEmax} = ${m.floorLog2} − ${m.elementEmax} = `
      + `${unclamped}`, ` class="formula" data-shared-exponent="${shared}"`);
    if (m.clamped) {
      const clamped = shared > unclamped
        ? say("%(unclamped)s is beyond E8M0's range, so the exponent is clamped to %(shared)s: the scale cannot go "
          + "lower.", { unclamped, shared })
        : say("%(unclamped)s is beyond E8M0's range, so the exponent is clamped to %(shared)s: the scale cannot go "
          + "higher.", { unclamped, shared });
      html += p(clamped, ' class="help" data-clamped');
    }
    html += p(say("scale = 2<sup>%(shared)s</sup>: E8M0 field %(shared)s + 127 = %(field)s = %(hex)s",
      { shared, field: shared + 127, hex: scale.hex }), ' class="formula"');
  } else {
    html += p(say("absmax 0 has no log<sub>2</sub>: the exponent goes to its floor, −127 (%(hex)s), and every element "
      + "is 0.", { hex: scale.hex }), ' class="formula" data-shared-exponent="-127"');
  }
  const shared = c.mx ? c.mx.shared : -127;
  const each = exp
    ? say("Each element is value / 2<sup>%(shared)s</sup> / 2<sup>%(exp)s</sup>, rounded to nearest even in %(id)s "
      + "and clamped to its max.", { shared, exp, id })
    : say("Each element is value / 2<sup>%(shared)s</sup>, rounded to nearest even in %(id)s and clamped to its max.",
      { shared, id });
  return html + p(each, ' class="help"');
}

/** _block_choice.html's NVFP4 part: the tensor scale, then the block scale under it. */
function choiceNvfp4(view) {
  const c = view.choice;
  if (!c.tensorScale) {
    return p(say("absmax 0: the block scale is 0 (%(hex)s), the tensor scale 1, and every element 0.",
      { hex: view.scales[0].hex }), ' class="formula"');
  }
  const tensor = say("tensor scale = FP32(absmax / (6 × 448)) = FP32(%(q)s) = %(s)s",
    { q: value(c.tensorQuotient), s: value(c.tensorScale) });
  let block = say("block scale = E4M3(absmax / 6 / tensor scale) = E4M3(%(q)s) = %(s)s",
    { q: value(c.blockQuotient), s: value(c.blockScale) });
  if (c.saturated) block += " " + say("(saturated at 448)");
  const levels = say("Two levels: an FP32 scale for the whole tensor, so that its largest block's scale lands at "
    + "E4M3's top (448), and an E4M3 scale per block of 16. Here the tensor is this one block, so its scale sits near "
    + "448; each element is value / (block scale × tensor scale) = value / %(step)s, rounded to nearest even in E2M1 "
    + "and clamped to ±6.", { step: value(c.step) });
  return p(tensor, ' class="formula"') + p(block, ' class="formula"') + p(levels, ' class="help"');
}

/** _block_choice.html's NF4 part: the absmax is the scale. */
function choiceAbsmax(view) {
  const scale = say("scale = FP32(absmax) = %(v)s", { v: value(view.scales[0].value) });
  const codes = say("QLoRA's NF4: each element is the code of the NF4 value nearest value / absmax; the stored value "
    + "is that code's value × absmax, so the absmax itself is stored as code 15 (1.0) exactly.");
  return p(scale, ' class="formula"') + p(codes, ' class="help"');
}

function notesHtml(read, size) {
  const { changed } = read, count = read.values.length, padding = size - count;
  let html = "";
  if (changed) {
    html += p(sayN("%(count)s of the values is not FP32 number; each was rounded to the nearest FP32 value first, "
      + "and the errors below are against that.", "%(count)s of the values are not FP32 numbers; each was rounded to "
      + "the nearest FP32 value first, and the errors below are against that.", changed), ' data-note="fp32"');
  }
  if (padding) {
    html += p(say("%(given)s values given; the other %(padding)s of the block are zeros (they change neither absmax "
      + "nor scale, and are left out of MSE and max error).", { given: count, padding }), ' data-note="padding"');
  }
  return html;
}

/** An element's row: its link says where it goes to a screen reader through the table's one hidden sentence
 * (#element-visualiser), which the template writes and which stays as long as the format does. */
function rowHtml(row, words) {
  const fate = row.fate === "kept" ? "" : esc(say(words.short[row.fate]));
  return `<th scope="row">${row.index}</th>${valueCell("data-input", row.input)}<td><a href="${esc(row.href)}" `
    + `data-element-link aria-describedby="element-visualiser">${bitRuns(row.groups)}<code>${row.hex}</code></a>`
    + `</td>${valueCell("data-stored", row.stored)}${valueCell("data-error-value", row.error)}`
    + `<td>${fate}</td>`;
}

const lessonParams = (view) => ({ absmax: value(view.absmaxShort), threshold: value(view.threshold),
  zeroed: view.zeroed, nonzero: view.nonzero });

/** _block_lesson.html's numbers, in NF4: its sentences are the template's own, line breaks and all (notrimmed). */
const lessonAbsmax = (view) => say("Here the absmax is %(absmax)s, so a value is flushed to zero when |value| is"
  + "\n    below about %(threshold)s (half NF4's smallest positive code, about 0.08,"
  + "\n    times the absmax; a little more on the negative side): %(zeroed)s of this block's %(nonzero)s nonzero "
  + "values"
  + "\n    were.", lessonParams(view));

/** ... and in the formats whose scale divides the elements (MX, NVFP4). */
const lessonScaled = (view) => say("Here the absmax is %(absmax)s, so a value is flushed to zero when |value| is"
  + "\n    at most %(threshold)s, half the element's"
  + "\n    smallest positive value times the scale: %(zeroed)s of this block's %(nonzero)s nonzero values"
  + "\n    were.", lessonParams(view));

// What differs by the format's scale rule (block_specs' "rule"): the caption's scale, how the scale was chosen,
// a NaN block and the lesson's numbers. Each function here is called through this table alone, for the page's
// own format, so block_page.py leaves the words of the other rules' functions out of the page's data
// (tests/unit/test_block_words.py holds both).
const RULES = {
  mx: { sets: setsScale, choice: choiceMx, nan: nanMx, lesson: lessonScaled },
  nvfp4: { sets: setsNvfp4, choice: choiceNvfp4, nan: nanNvfp4, lesson: lessonScaled },
  absmax: { sets: setsScale, choice: choiceAbsmax, nan: nanAbsmax, lesson: lessonAbsmax },
};

/** _block_choice.html: how the block's scale was chosen, with its numbers. */
const choiceHtml = (view, spec, rule) => (view.nanBlock ? p(rule.nan(view)) : rule.choice(view, spec));

// -- filling the page ------------------------------------------------------------------------------------------

const drawn = new WeakMap(); // element -> the markup last put in it: reading innerHTML back would serialise it

const set = (element, html) => {
  if (element && drawn.get(element) !== html) {
    element.innerHTML = html;
    drawn.set(element, html);
  }
};
const setText = (element, text) => {
  if (element && element.textContent !== String(text)) element.textContent = text;
};

/** The element table's rows, each redrawn only where it changed: an edit of one value mostly changes one row. */
function fillRows(body, view, words) {
  while (body.rows.length > view.rows.length) body.rows[body.rows.length - 1].remove();
  view.rows.forEach((row, i) => {
    const tr = body.rows[i] ?? body.appendChild(document.createElement("tr"));
    tr.setAttribute("data-element", row.index);
    tr.setAttribute("data-fate", row.fate);
    set(tr, rowHtml(row, words));
  });
}

const timesTensor = (scale) => say("× tensor %(t)s", { t: value(scale) });
const fateWord = (id) => esc(say(id)); // a fate's words from the page's data (block_present.FATE_WORDS), said

/** A refusal's sentence, in the page's language. */
function showError(section, message) {
  let error = section.querySelector("[data-error]");
  if (!error) {
    error = document.createElement("p");
    error.className = "error";
    error.setAttribute("role", "alert");
    error.setAttribute("data-error", "");
    section.querySelector(".block-form").after(error);
  }
  setText(error, message);
  section.querySelector("[data-block-chart]").setAttribute("data-stale", "");
  section.querySelector("[data-block-result]").hidden = true;
}

function fill(section, d, read, view, others) {
  const spec = d.spec, rule = RULES[d.spec.rule];
  section.querySelector("[data-error]")?.remove();
  const chart = section.querySelector("[data-block-chart]");
  chart.removeAttribute("data-stale");
  set(chart.querySelector("[data-caption]"), caption(view, rule));
  chart.querySelector("[data-bars]").setAttribute("aria-label", view.zeroed
    ? say("Bars of each element's absolute error; the tallest is %(max)s; %(zeroed)s flushed to zero.",
      { max: view.maxError.text, zeroed: view.zeroed })
    : say("Bars of each element's absolute error; the tallest is %(max)s.", { max: view.maxError.text }));
  set(chart.querySelector("[data-bar-list]"), barsHtml(view));
  for (const name of ["zeroed", "nonzero", "saturated"]) setText(chart.querySelector(`[data-count="${name}"]`), view[name]);
  chart.querySelector('.fate-legend [data-fate="nan"]').hidden = !view.nanBlock;

  const result = section.querySelector("[data-block-result]");
  result.hidden = false;
  set(result.querySelector("[data-notes]"), notesHtml(read, spec.block_size));
  setText(result.querySelector("[data-absmax]"), view.absmax.text);
  result.querySelectorAll("[data-scale-view]").forEach((box, i) => {
    const s = view.scales[i], link = box.querySelector("[data-scale-link]");
    link.href = s.href;
    link.setAttribute("aria-label", say("%(label)s %(hex)s in the %(name)s visualiser",
      { label: box.querySelector("dt").textContent, hex: s.hex, name: s.name }));
    set(link, bitRuns(s.groups));
    setText(box.querySelector("[data-scale-bits]"), s.hex);
    set(box.querySelector("[data-scale]"), value(s.value));
  });
  set(result.querySelector("[data-choice]"), choiceHtml(view, spec, rule));
  set(result.querySelector("[data-mse]"), value(view.mse));
  set(result.querySelector("[data-max-error]"), value(view.maxError));
  setText(result.querySelector('[data-count="rows"]'), view.rows.length);
  fillRows(result.querySelector("[data-element-rows]"), view, d.words);
  setText(result.querySelector('[data-count="values"]'), read.values.length);
  for (const other of others) {
    const row = result.querySelector(`tr[data-other="${other.id}"]`), name = row.querySelector("[data-other-name]");
    const otherSpec = d.formats.find((f) => f.id === other.id);
    const head = other.href && !other.current ? `<a href="${esc(other.href)}" data-hx-get="${esc(other.href)}">`
      + `${other.id}</a>` : `<span${other.current ? ' aria-current="page"' : ""}>${other.id}</span>`;
    const html = `${head}<small>${esc(otherSpec.name)}</small>`;
    if (drawn.get(name) !== html) {
      set(name, html);
      window.htmx?.process(name); // its link opens the same block in that format through htmx, as the server's
    }
    set(row.querySelector("[data-other-scale]"), other.scales.map(value).join(", ")
      + (other.tensorScale ? `<small>${timesTensor(other.tensorScale)}</small>` : ""));
    set(row.querySelector("[data-other-mse]"), value(other.mse));
    set(row.querySelector("[data-other-max-error]"), value(other.maxError));
    setText(row.querySelector("[data-other-zeroed]"), other.zeroed);
    set(row.querySelector("[data-other-largest]"), other.largest
      ? `${value(other.largest[0])} → ${value(other.largest[1])}<small>${fateWord(other.largest[2])}</small>` : "—");
  }
  const lesson = result.querySelector("[data-lesson-numbers]");
  lesson.hidden = view.threshold === null || view.nanBlock;
  if (!lesson.hidden) set(lesson, rule.lesson(view));
}

/** A preset's text as the values box shows it (block_page.Preset.values, eight values a line as _lines writes
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
  const result = quantize(read.values, spec);
  const view = explainBlock(result, spec, d);
  const links = (other) => (preset !== null ? blockUrl(other, { preset, prefix: d.prefix })
    : read.values.length <= other.block_size ? blockUrl(other, { values: text, prefix: d.prefix }) : null);
  const others = sideBySide(read.values, d.formats, spec.id, { ...d, links });
  fill(section, d, read, view, others);
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
