// /dot in the browser: every keystroke in the vectors, promote every or step, and every change of format, method
// or the step's method computes the figure in the same frame with no request (dot_core.js and its modules: the
// exact core, held to app/formats by tests/js/test_dot_parity.py), and the URL follows. The server's page
// (templates/dot.html) is the first paint, the path without JavaScript and the only markup: dot_fill.js fills it.
// numpy's seeded draws are not made here: the page's JSON carries the doubles drawn for its seed, n and
// distribution, stored here in any format; a new seed, n or distribution asks the server for its page.

import { InputError, quoted } from "./codec.js";
import { codePoints } from "./codec_quote.js";
import { typedList } from "./decimal_comma.js";
import { DEFAULT_PROMOTE_EVERY, MAX_DOT_LENGTH, checkedFormat, checkedMethod, methodsFor, setModels } from "./dot_core.js";
import { fillFigure, notation } from "./dot_fill.js";
import { MAX_DOT_SEED, parseSetting, storedDraws, strip, typedItem, vectorItems } from "./dot_inputs.js";
import { dotProduct } from "./dot_product.js";
import { stepBits } from "./dot_steps.js";
import { quote } from "./urls.js";
import { setAttr, setText } from "./view_slots.js";
import { learn } from "./words.js";

// The page's JSON (app/web/dot/data.py): the formats' specs, the models, the draws, the digits, the words.
const data = JSON.parse(document.getElementById("dot-data").textContent);
learn(data.words);
setModels(data.models);
const specs = Object.fromEntries(data.specs.map((spec) => [spec.id, spec]));
const numbers = notation(data.digits);
const form = document.querySelector("[data-dot-form]");
const field = (name) => form.elements.namedItem(name);
const root = document.getElementById("dot-figure");
const result = root.querySelector("[data-dot-result]"), errorLine = root.querySelector("[data-error]");
const sources = document.querySelector("[data-sources]");
const DEFAULTS = { format: "bfloat16", distribution: "normal", n: "1024", seed: "0",
  promote_every: String(DEFAULT_PROMOTE_EVERY) };
const textOf = (node) => node.textContent.trim();
const words = {
  methods: Object.fromEntries([...root.querySelectorAll(".dot-legend li[data-series]")]
    .map((li) => [li.dataset.series, textOf(li.querySelector("[data-name]"))])),
  distributions: Object.fromEntries([...field("distribution").options].map((o) => [o.value, textOf(o)])),
  formats: Object.fromEntries(data.specs.map((spec) => [spec.id, spec.name])),
  cores: Object.fromEntries(Object.entries(data.models.cores).map(([id, core]) => [id, core.name])),
};
const boxes = () => [...form.querySelectorAll('input[name="method"]')];
const storedOf = new Map(); // format and typed item -> [units, clamped, zeroed]: a keystroke reads one item anew
// needsServer: the form asks for a draw the page does not carry; draws: the page's draws stored in a format
const state = { needsServer: false, draws: null };

/** The form as typed. */
function typed() {
  return { format: field("format").value, a: field("a").value, b: field("b").value,
    distribution: field("distribution").value, n: field("n").value, seed: field("seed").value,
    methods: boxes().filter((box) => box.checked).map((box) => box.value), promote: field("promote_every").value,
    step: field("step").value, bits: field("bits").value };
}

/** parse_vector and stored_vector of one typed vector, each item stored once per format. */
function typedVector(text, name, spec) {
  const items = vectorItems(typedList(text), name), units = [];
  let clamped = 0, zeroed = 0;
  items.forEach((item, i) => {
    const key = `${spec.id}\u0000${item}`;
    let stored = storedOf.get(key);
    if (!stored) {
      stored = typedItem(item, i + 1, name, spec);
      if (storedOf.size > 50000) storedOf.clear();
      storedOf.set(key, stored);
    }
    units.push(stored[0]);
    clamped += stored[1];
    zeroed += stored[2];
  });
  return { units, clamped, zeroed, count: items.length };
}

/** The server would draw new vectors: the page cannot make numpy's draws. */
class NeedsServer extends Error {}

/** pages._figure and figure.compute, in their order of checks: the figure, or an InputError. */
function compute(choice) {
  const spec = specs[checkedFormat(choice.format)]; // the form offers no other: parsing first needs the format
  const a = strip(choice.a) ? typedVector(choice.a, "a", spec) : null;
  const b = strip(choice.b) ? typedVector(choice.b, "b", spec) : null;
  const length = parseSetting(choice.n, "n", 1, MAX_DOT_LENGTH);
  const every = parseSetting(choice.promote, "promote_every", 1, MAX_DOT_LENGTH);
  let step = strip(choice.step) ? parseSetting(choice.step, "step", 1, MAX_DOT_LENGTH) : null;
  const seed = parseSetting(choice.seed, "seed", 0, MAX_DOT_SEED);
  if (step === null) step = a && b ? a.count : length;
  const offered = methodsFor(choice.format);
  const chosen = choice.methods.length ? offered.filter((m) => choice.methods.includes(m)) : offered;
  for (const method of choice.methods) checkedMethod(method, choice.format);
  let stored;
  if (!a && !b) stored = drawn(choice, spec, length, seed);
  else if (!a || !b) throw new InputError("Give both vectors, a and b, or neither to draw them from a distribution.");
  else if (a.count !== b.count) {
    throw new InputError("Vector a has %(a)s numbers and vector b %(b)s; a dot product needs as many in each.",
      { a: String(a.count), b: String(b.count) });
  } else stored = [a, b];
  const figure = dotProduct(spec, stored[0].units, stored[1].units, chosen, every, specs);
  const method = choice.bits || chosen[0];
  return { figure, a: stored[0], b: stored[1], drawn: !a, format: spec, distribution: choice.distribution,
    seedText: choice.seed, bits: choice.bits, step: stepBits(figure, method, step, spec, specs) };
}

/** drawn_vectors from the doubles the page carries; NeedsServer for a draw it does not carry. */
function drawn(choice, spec, n, seed) {
  if (!(choice.distribution in words.distributions)) {
    throw new InputError("%(input)s is not a distribution here; choose from %(known)s.",
      { input: quoted(codePoints(choice.distribution).slice(0, 40).join("")),
        known: Object.keys(words.distributions).join(", ") });
  }
  const draw = data.drawn;
  if (!draw || draw.distribution !== choice.distribution || draw.n !== n || draw.seed !== seed) throw new NeedsServer();
  if (!state.draws || state.draws.format !== spec.id) {
    state.draws = { format: spec.id, stored: [storedDraws(draw.a, spec), storedDraws(draw.b, spec)] };
  }
  return state.draws.stored;
}

/** The page's own URL for the form, so that a shared link restores it. */
function pageUrl(choice) {
  const offered = methodsFor(choice.format), all = offered.every((m) => choice.methods.includes(m));
  const methods = all && choice.methods.length === offered.length ? [] : choice.methods;
  const pairs = [["format", choice.format], ["a", choice.a], ["b", choice.b], ["distribution", choice.distribution],
    ["n", choice.n], ["seed", choice.seed], ...methods.map((m) => ["method", m]), ["promote_every", choice.promote],
    ["step", choice.step], ["bits", choice.bits]];
  // a value as its default, or empty where the default is empty, goes without saying; an empty n is refused
  const said = ([k, v]) => v !== DEFAULTS[k] && (k in DEFAULTS || strip(v) !== "");
  const params = pairs.filter(said).map(([k, v]) => `${k}=${quote(v)}`);
  return `${location.pathname}${params.length ? `?${params.join("&")}` : ""}${location.hash}`;
}

/** The refusal's sentence in the page's language, or none; marked English where the catalog lacks it. */
function showError(phrase) {
  errorLine.hidden = phrase === null;
  result.hidden = phrase !== null;
  sources.hidden = phrase !== null;
  setAttr(errorLine, "role", phrase === null ? null : "alert");
  if (phrase === null) return;
  const said = phrase.said;
  setText(errorLine, said);
  setAttr(errorLine, "lang", document.documentElement.lang !== "en" && said === String(phrase) ? "en" : null);
}

/** A new format offers other methods: the boxes and the step's choices follow (all checked stay all checked). */
function offerMethods(format) {
  const offered = methodsFor(format), all = boxes().filter((box) => !box.closest("label").hidden)
    .every((box) => box.checked);
  for (const box of boxes()) {
    const takes = offered.includes(box.value);
    box.closest("label").hidden = !takes;
    box.checked = takes && (all || box.checked);
  }
  for (const option of field("bits").options) option.hidden = option.value !== "" && !offered.includes(option.value);
  if (field("bits").selectedOptions[0]?.hidden) field("bits").value = "";
}

function render(event) {
  if (event?.target === field("format")) offerMethods(field("format").value);
  const choice = typed();
  state.needsServer = false;
  try {
    const done = compute(choice);
    fillFigure(root, done, words, numbers);
    for (const item of sources.children) item.hidden = item.dataset.format !== choice.format;
    showError(null);
  } catch (error) {
    if (error instanceof NeedsServer) {
      state.needsServer = true; // the figure stays as it was until the field is left (change)
      return;
    }
    if (!(error instanceof InputError)) throw error;
    showError(error.phrase);
  }
  history.replaceState(history.state, "", pageUrl(choice));
}

form.addEventListener("input", render);
// A new seed, n or distribution once chosen (Enter, leaving the box, a new choice): the server's page draws it
form.addEventListener("change", () => { if (state.needsServer) form.submit(); });
