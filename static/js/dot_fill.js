// /dot's figure in the browser, as app/web/dot/present.py and pages.py show it, written into the server's markup
// (templates/dot.html): text and attributes into its slots, the variants that apply shown, the step's term rows
// cloned from the server's first, and the chart's SVG (dot_chart.js). Nothing here builds markup from a string.

import { relative, shown } from "./codec.js";
import { chartOf, fillChart } from "./dot_chart.js";
import { floatG } from "./exact.js";
import { setAttr, setText, sized } from "./view_slots.js";
import { say } from "./words.js";

const show = (node, visible) => { if (node.hidden === visible) node.hidden = !visible; };
const slots = (root, name) => root.querySelectorAll(`[data-slot="${name}"]`);
const fillAll = (root, name, text) => { for (const node of slots(root, name)) setText(node, text); };

/** The page's notation for numbers: {decimal, group} symbols (babel's, from the page's JSON). */
export function notation(digits) {
  return {
    /** prose_decimal of a whole number: grouped by thousands. */
    prose: (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, digits.group),
    /** local_digits: a number the lab wrote with "," grouping and "." decimals, in the page's symbols. */
    digits: (text) => text.replace(/[.,]/g, (c) => (c === "," ? digits.group : digits.decimal)),
  };
}

/** A term's label (present.ROLES), its element in the page's notation. */
function roleLabel(role, element, prose) {
  const params = { element: prose(element ?? 0) };
  if (role === "accumulator") return say("accumulator");
  if (role === "product") return say("product of element %(element)s", params);
  if (role === "corrected_product") return say("product of element %(element)s less the compensation", params);
  return say("exact sum");
}

/** present._row: the bits split at the cut's column (all of them where nothing is cut). */
function fillTerm(row, term, cutColumn, isCut, prose, label = true) {
  const split = cutColumn === null ? term.bits.length : cutColumn + 1, text = shown(term.value, 28, 8).text;
  if (label) setText(row.querySelector("th"), roleLabel(term.role, term.element, prose));
  const value = row.querySelector("[data-value], [data-step-result]");
  if (value.hasAttribute("data-value")) {
    setText(value, text);
    setAttr(value, "title", text);
  }
  setText(row.querySelector("[data-sign]"), term.negative ? "−" : "+");
  setText(row.querySelector(".kept"), term.bits.slice(0, split));
  const dropped = row.querySelector("[data-dropped]");
  setText(dropped, term.bits.slice(split));
  if (label) setAttr(dropped, "class", isCut ? "dropped" : "below");
  const more = row.querySelector("[data-more]");
  if (more) show(more, term.moreBelow);
}

/** present.step_view written into the step's section: its wording, its rows, what it lost and promoted. */
function fillStep(root, step, names, coreName, prose) {
  const section = root.querySelector("[data-step]");
  show(section, step !== null);
  if (step === null) return;
  const block = step.kind === "aligned_block", cutColumn = step.cut === null ? null : step.top - step.cut;
  for (const node of section.querySelectorAll("[data-kind]")) show(node, node.dataset.kind === step.kind);
  fillAll(section, "block-method", coreName ?? names[step.method]);
  fillAll(section, "sum-method", names[step.method]);
  fillAll(section, "first", prose(step.first));
  fillAll(section, "last", prose(step.last));
  fillAll(section, "step", prose(step.step));
  fillAll(section, "top", String(step.top));
  fillAll(section, "cut", step.cut === null ? "—" : String(step.cut));
  sized(section.querySelector("[data-terms]"), step.terms.length).forEach((row, i) => {
    setAttr(row, "data-role", step.terms[i].role);
    fillTerm(row, step.terms[i], cutColumn, block, prose);
  });
  fillTerm(section.querySelector('tr[data-role="sum"]'), step.exactSumBits, cutColumn, !block, prose);
  const result = section.querySelector('tr[data-role="result"]');
  fillTerm(result, step.resultBits, cutColumn, false, prose, false);
  setText(result.querySelector("[data-step-result]"), shown(step.result, 28, 8).text);
  fillAll(section, "lost", shown(step.lost, 28, 6).text);
  show(section.querySelector("[data-promoted]"), step.promoted !== null);
  if (step.promoted) {
    fillAll(section, "before", shown(step.promoted[0], 28, 8).text);
    fillAll(section, "after", shown(step.promoted[1], 28, 8).text);
  }
}

const ulpsText = (x, digits) => (x === null ? "—" : digits(x === 0 ? "0" : floatG(x, 3)));

/** Show one plural variant of a count's sentence ([data-<name>="1"] or "2"), or neither for none. */
function fillCount(root, name, count, prose) {
  for (const node of root.querySelectorAll(`[data-${name}]`)) {
    show(node, count > 0 && (count === 1) === (node.getAttribute(`data-${name}`) === "1"));
  }
  fillAll(root, name, prose(count));
}

/** The whole figure: `done` {figure, a, b, drawn, step, format, distribution, seedText}, the page's `names` of
 * methods and distributions, `cores` (the tensor cores' names), `numbers` (notation()). */
export function fillFigure(root, done, words, numbers) {
  const { figure, format } = done, { prose, digits } = numbers;
  const shownMethods = new Set(figure.results.map((r) => r.method));
  fillAll(root, "n", prose(figure.n));
  fillAll(root, "format-name", format.name);
  const exact = shown(figure.exact, 40, 12), strong = root.querySelector("[data-exact]");
  setText(strong, exact.text);
  setAttr(strong, "title", exact.full);
  show(root.querySelector("[data-drawn]"), done.drawn);
  fillAll(root, "distribution", done.drawn ? words.distributions[done.distribution] : "");
  fillAll(root, "seed", done.seedText);
  fillCount(root, "clamped", done.a.clamped + done.b.clamped, prose);
  fillCount(root, "zeroed", done.a.zeroed + done.b.zeroed, prose);
  for (const item of root.querySelectorAll(".dot-legend li[data-series]")) show(item, shownMethods.has(item.dataset.series));
  for (const row of root.querySelectorAll("tr[data-method]")) {
    const r = figure.results.find((x) => x.method === row.dataset.method);
    show(row, r !== undefined);
    if (!r) continue;
    setText(row.querySelector("[data-output-format]"), words.formats[r.outputFormat]);
    for (const [name, v] of [["data-result", shown(r.value, 24, 8)], ["data-abs-error", shown(r.error, 24, 4)]]) {
      const cell = row.querySelector(`[${name}]`);
      setText(cell, v.text);
      setAttr(cell, "title", v.full);
    }
    setText(row.querySelector("[data-rel-error]"), relative(r.relError));
    setText(row.querySelector("[data-ulps]"), ulpsText(r.ulpError, digits));
  }
  const parts = figure.results.map((r) => `${words.methods[r.method]}: ${relative(r.relError)}`).join("; ");
  const description = say("Running absolute error of each method against the number of elements, on a log scale, "
    + "for a dot product of %(n)s elements in %(format)s. Relative errors at the end: %(errors)s.",
  { n: prose(figure.n), format: format.name, errors: parts });
  fillChart(root.querySelector("[data-svg]"), chartOf(figure, prose, digits), description);
  const step = done.step;
  fillStep(root, step, words.methods, step && words.cores[step.method], prose);
  show(root.querySelector("[data-step-none]"), step === null && done.bits === "pairwise");
}
