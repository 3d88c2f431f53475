// /arithmetic in the browser: every keystroke in a, b, c or a step of the tape, and every change of format,
// operation, rounding, overflow or seed, computes the operation and its tape in the same frame with no request
// (arithmetic_core.js, arithmetic_chain.js: the exact core, held to app/formats by tests/js/), and the URL follows.
// The server's page (templates/arithmetic.html) is the first paint, the path without JavaScript and the only
// markup: arithmetic_fill.js fills it. A new step typed and sent with Enter goes to the server, which adds a box.

import { operate } from "./arithmetic_core.js";
import { runChain } from "./arithmetic_chain.js";
import { fillChain, fillOperation } from "./arithmetic_fill.js";
import { operands, tape } from "./arithmetic_inputs.js";
import { InputError, seedValue, shownSeed } from "./codec.js";
import { arithmeticUrl } from "./urls.js";
import { setAttr, setText } from "./view_slots.js";
import { learn } from "./words.js";

// The page's JSON (app/web/arithmetic/data.py): every scalar format's specification with its bits' roles, a
// custom layout's where the page has one, and the words the scripts say, in the page's language.
const data = JSON.parse(document.getElementById("arithmetic-data").textContent);
learn(data.words);
const specs = new Map(data.specs.map((spec) => [spec.id, spec]));
const form = document.querySelector("[data-arithmetic-form]");
const field = (name) => form.elements.namedItem(name);
const root = document.querySelector("[data-arithmetic-figure]");
const result = root.querySelector("[data-arithmetic-result]"), errorLine = root.querySelector("[data-error]");
const state = { drawn: null }; // a seed drawn here for stochastic rounding while the seed box is empty

/** The form as typed. */
function typed() {
  const steps = [...form.querySelectorAll('input[name="step"]')].map((box) => box.value);
  return { format: field("format").value, op: field("op").value, a: field("a").value, b: field("b").value,
    c: field("c").value, resultFormat: field("result_format").value, rounding: field("rounding").value,
    overflow: field("overflow").value, seedText: field("seed").value, steps };
}

/** The seed of stochastic rounding: typed, or drawn here and shown (unless the visitor is clearing the box). */
function seedOf(choice, editingSeed) {
  let seed = seedValue(choice.seedText);
  if (seed === null && choice.rounding === "stochastic") {
    seed = state.drawn ??= shownSeed();
    if (!editingSeed) field("seed").value = choice.seedText = String(seed);
  }
  return seed;
}

/** The page's own URL for the form (urls.js arithmeticUrl, as the server's present.arithmetic_url writes it; a
 * box of spaces only is empty), so that a shared link restores it. */
function pageUrl(choice) {
  const pairs = [["format", choice.format], ...data.layout, ["op", choice.op], ["a", choice.a], ["b", choice.b],
    ["c", choice.c], ["result_format", choice.resultFormat], ["rounding", choice.rounding],
    ["overflow", choice.overflow], ["seed", choice.seedText], ...choice.steps.map((s) => ["step", s])];
  return arithmeticUrl(data.prefix, pairs.filter(([, v]) => v.trim() !== "")) + location.hash;
}

/** The refusal's sentence in the page's language, or none; marked English where the catalog lacks it. */
function showError(phrase) {
  errorLine.hidden = phrase === null;
  result.hidden = phrase !== null;
  setAttr(errorLine, "role", phrase === null ? null : "alert");
  if (phrase === null) return;
  const said = phrase.said;
  setText(errorLine, said);
  setAttr(errorLine, "lang", document.documentElement.lang !== "en" && said === String(phrase) ? "en" : null);
}

function render(event) {
  const choice = typed();
  try {
    const seed = seedOf(choice, event?.target === field("seed"));
    const spec = specs.get(choice.format), resultSpec = specs.get(choice.resultFormat || choice.format);
    const links = { prefix: data.prefix, rounding: choice.rounding, overflow: choice.overflow };
    const values = operands(choice.op, [choice.a, choice.b, choice.c], spec);
    const steps = choice.steps.filter((s) => s.trim() !== "");
    // the tape's first step is the operation itself, its draws the same: it is not done twice
    const chain = steps.length ? runChain(values[0], tape(choice.op, choice.b, steps), spec, resultSpec,
      choice.rounding, choice.overflow, seed) : null;
    const done = chain ? chain.steps[0]
      : operate(choice.op, values, spec, resultSpec, choice.rounding, choice.overflow, seed);
    fillOperation(root, done, { operand: spec, result: resultSpec }, links);
    fillChain(root, chain, resultSpec, links);
    showError(null);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    showError(error.phrase);
  }
  history.replaceState(history.state, "", pageUrl(choice));
}

form.addEventListener("input", render);
form.addEventListener("change", render);
