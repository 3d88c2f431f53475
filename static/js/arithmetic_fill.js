// /arithmetic's figure in the browser: one operation (or its tape) as app/web/arithmetic/present.py shows it,
// written into the server's markup (templates/arithmetic.html, _arithmetic_parts.html): text and attributes into
// its slots, the variants that apply shown, and the bit cells and the tape's rows cloned from the server's first.

import { errorOf, realText, relative, shown, ulp } from "./codec.js";
import { divideToDouble, floatG, layout, roundedDigits } from "./exact.js";
import { rule } from "./arithmetic_rules.js";
import { visualiseUrl } from "./urls.js";
import { setAttr, setNum, setText, sized } from "./view_slots.js";

const ROUNDED_DIGITS = 40;
const slot = (root, name) => root.querySelector(`[data-slot="${name}"]`);
const show = (node, visible) => { if (node.hidden === visible) node.hidden = !visible; };

/** schemas.known_json: a value known exactly, or only to past 40 digits (an irrational root's stand-in). */
function knownText(value, rational) {
  if (rational || value.kind !== "finite") return realText(value);
  const [digits, point] = roundedDigits({ num: value.num, den: value.den }, ROUNDED_DIGITS);
  return [(value.negative ? "-" : "") + layout(digits, point), false];
}

/** present.exact_shown: exact where short, else "≈" and 17 digits, the full text (40 digits when not known). */
export function exactShown(exact) {
  const [text, isExact] = knownText(exact.value, exact.rational);
  const full = shown(exact.value, 40, 17);
  if (isExact || full === null) return [full, isExact];
  return [{ text: full.text.startsWith("≈") ? full.text : `≈${full.text}`, full: text }, false];
}

/** schemas.ulp_error as present.result_view writes it: stored − exact over the stored value's ulp, "+.3g". */
export function ulpText(result) {
  const error = result.error, gap = ulp(result.encoding);
  if (error.kind !== "finite" || gap === null || gap.num === 0n) return "—";
  if (error.num === 0n) return "0";
  const ulps = (error.negative ? -1 : 1) * divideToDouble(error.num * gap.den, error.den * gap.num);
  return (ulps > 0 ? "+" : "") + floatG(ulps, 3);
}

/** The bit cells of `container` (_bits.html's cells) for this pattern: a group a field, as its format's roles. */
function fillBits(container, enc, roles) {
  const binary = enc.binary;
  let at = 0;
  sized(container, roles.length).forEach((group, i) => {
    const [role, count] = roles[i];
    setAttr(group, "data-role", role);
    sized(group, count).forEach((cell, j) => {
      const bit = binary[at + j];
      setAttr(cell, "data-value", bit);
      setText(cell, bit);
    });
    at += count;
  });
}

/** A stored value's cells (_arithmetic_parts.html stored_cells): value, class, bits, link, error. */
function fillStored(row, rounded, spec, links) {
  const enc = rounded.encoding;
  setNum(slot(row, "stored"), shown(enc.value, 40, 17));
  for (const cls of row.querySelectorAll("[data-class]")) show(cls, cls.dataset.class === enc.cls);
  fillBits(row.querySelector(".bits"), enc, spec.roles);
  const hex = row.querySelector("[data-hex]");
  setAttr(hex, "href", visualiseUrl(spec.id, { bits: enc.hex, rounding: links.rounding, overflow: links.overflow,
    prefix: links.prefix }));
  setText(hex.querySelector("code"), enc.hex);
  setNum(slot(row, "error"), shown(rounded.error, 32, 6));
}

/** The operation's figure: `done` (arithmetic_core.operate's), its formats' specs (with roles), the choices. */
export function fillOperation(root, done, specs, links) {
  const [exact, isExact] = exactShown(done.exact);
  for (const name of root.querySelectorAll("[data-op-name]")) show(name, name.dataset.opName === done.op);
  for (const node of root.querySelectorAll('[data-slot="format-name"]')) setText(node, specs.operand.name);
  for (const node of root.querySelectorAll('[data-slot="result-format-name"]')) setText(node, specs.result.name);
  setNum(slot(root, "answer-exact"), exact);
  setNum(slot(root, "answer-stored"), shown(done.result.encoding.value, 40, 17));
  for (const chip of root.querySelector("[data-answer]").querySelectorAll("[data-flag-chip]")) {
    show(chip, done.flags.includes(chip.dataset.flagChip));
  }
  ["a", "b", "c"].forEach((name, i) => {
    const row = root.querySelector(`tr[data-line="${name}"]`);
    show(row, i < done.operands.length);
    if (i >= done.operands.length) return;
    setNum(slot(row, "asked"), shown(done.operands[i].input, 40, 17));
    fillStored(row, done.operands[i], specs.operand, links);
  });
  setNum(slot(root, "exact"), exact);
  for (const note of root.querySelectorAll("[data-exact-note]")) show(note, (note.dataset.exactNote === "exact") === isExact);
  fillStored(root.querySelector('tr[data-line="result"]'), done.result, specs.result, links);
  setText(root.querySelector("[data-rule]"), rule(done, links.rounding).said);
  const result = done.result, note = root.querySelector("[data-note]");
  const said = result.note && !(result.overflowed || result.underflowed) ? result.note.said : "";
  show(note, Boolean(said));
  setText(note, said);
  for (const flag of root.querySelectorAll("li[data-flag]")) {
    const raised = done.flags.includes(flag.dataset.flag);
    setAttr(flag, "data-raised", String(raised));
    for (const state of flag.querySelectorAll("[data-state]")) show(state, (state.dataset.state === "raised") === raised);
  }
  setNum(slot(root, "result-error"), shown(result.error, 32, 6));
  setText(root.querySelector("[data-rel-error]"), relative(result.relError));
  setText(root.querySelector("[data-ulp-error]"), ulpText(result));
  const roles = new Set([specs.operand, specs.result].flatMap((s) => s.roles.map(([role]) => role)));
  for (const item of root.querySelectorAll(".legend [data-role]")) show(item, roles.has(item.dataset.role));
}

/** The tape (present.chain_rows): each step's row cloned from the first, or the tape hidden without steps. */
export function fillChain(root, chain, resultSpec, links) {
  const tape = root.querySelector("[data-tape]");
  show(tape, chain !== null);
  if (chain === null) return;
  const rows = sized(tape.querySelector("[data-chain-rows]"), chain.steps.length);
  chain.steps.forEach((done, i) => {
    const row = rows[i], operand = done.operands[1] ?? null, exact = chain.exact[i];
    setAttr(row, "data-step", String(i + 1));
    setText(row.querySelector("[data-step-number]"), String(i + 1));
    for (const op of row.querySelectorAll("[data-step-op]")) show(op, op.dataset.stepOp === done.op);
    setNum(slot(row, "operand"), operand && shown(operand.encoding.value, 24, 8));
    const enc = done.result.encoding;
    setAttr(row.querySelector("[data-step-link]"), "href", visualiseUrl(resultSpec.id, { bits: enc.hex,
      rounding: links.rounding, overflow: links.overflow, prefix: links.prefix }));
    setNum(slot(row, "stored"), shown(enc.value, 40, 17));
    const hex = row.querySelector("[data-step-hex]");
    setText(hex, enc.hex);
    setAttr(hex, "title", rule(done, links.rounding).said);
    for (const chip of row.querySelectorAll("[data-flag-chip]")) show(chip, done.flags.includes(chip.dataset.flagChip));
    setNum(slot(row, "exact-chain"), exactShown(exact)[0]);
    setNum(slot(row, "drift"), shown(errorOf(enc.value, exact.value), 24, 4));
  });
}
