// One stored pattern written into the server's markup of the visualiser (templates/visualise.html and its
// _visualise_*.html, _formula.html and _bits.html): text and attributes into the slots, the variants that apply
// shown and the others hidden. The markup is written once, by the server; nothing here builds any.

import { nextDown, nextUp, realText, shown, stochasticOdds, ulp } from "./codec.js";
import { fractionText } from "./exact.js";
import { arithmeticUrl, visualiseUrl } from "./urls.js";
import { placeLevels, placeValue, typedLevel } from "./visualiser_line.js";
import { setAttr, setNum, setText, showVariants } from "./view_slots.js";
import { say } from "./words.js";

const FULL = 4000; // exact values in full up to this many characters, as scalar_view.FULL

/** A bit's role and a value's class as words of the page (_bits.html's names and class_word). */
const roleWord = (role) => ({ sign: say("sign"), exponent: say("exponent"), mantissa: say("mantissa"),
  integer: say("integer"), code: say("code") })[role] ?? role;
const classWord = (cls) => ({ normal: say("normal"), subnormal: say("subnormal"), zero: say("zero"), inf: say("inf"),
  nan: say("nan") })[cls] ?? cls;

/** odds.chance: a probability's decimal when short, else its fraction when short, else ≈3 digits. */
function chance(p) {
  const text = shown(p, 10, 3), fraction = fractionText(p);
  return text.text !== text.full && fraction.length <= 9 ? { text: fraction, full: text.full } : text;
}

/** The cells of the bit grid, each with its two labels (for 0 and 1), found once per view. */
function cellsOf(view) {
  if (!view.cells) {
    view.cells = [...view.root.querySelectorAll("[data-bit-grid] [data-bit]")].map((node) => {
      const label = (value) => say("bit %(index)s, %(role)s, %(value)s",
        { index: node.dataset.bit, role: roleWord(node.dataset.role), value });
      return { node, index: BigInt(node.dataset.bit), role: node.dataset.role, labels: [label(0), label(1)] };
    });
  }
  return view.cells;
}

/** Each bit's value, label and link (the pattern with that bit flipped); the pattern in binary, a space a field. */
function fillBits(view, enc, link) {
  const width = (view.spec.codec.bits + 3) >> 2;
  let binary = "", role = null;
  for (const cell of cellsOf(view)) {
    const value = Number((enc.bits >> cell.index) & 1n);
    const href = link(`0x${(enc.bits ^ (1n << cell.index)).toString(16).padStart(width, "0")}`);
    setAttr(cell.node, "data-value", value);
    setText(cell.node, value);
    setAttr(cell.node, "aria-label", cell.labels[value]);
    setAttr(cell.node, "href", href);
    setAttr(cell.node, "data-hx-get", href);
    binary += (role !== null && cell.role !== role ? " " : "") + value;
    role = cell.role;
  }
  return binary;
}

/** _formula.html's numbers for this pattern. */
function fillFormula(put, c, enc, storedShort) {
  const sign = enc.sign;
  if (c.kind === "float") {
    put("zero-sign", sign ? "−0" : "+0");
    put("inf-sign", sign ? "−" : "+");
    if (enc.exponent === null) return;
    const m = c.mantissa_bits, subnormal = enc.cls === "subnormal";
    put("sign", sign);
    put("biased", subnormal ? 1 : enc.exponentField);
    put("significand-bits", (subnormal ? "0" : "1") + (m ? `.${enc.mantissaField.toString(2).padStart(m, "0")}` : ""));
    put("sign-one", sign ? "−1" : "+1");
    put("exponent", enc.exponent);
    put("significand", shown(enc.significand, FULL));
    put("stored-short", storedShort);
    put(subnormal ? "subnormal-exponent" : "exponent-field", subnormal ? enc.exponent : enc.exponentField);
  } else if (c.kind === "int") {
    const top = 1n << BigInt(c.bits - 1);
    put("int-sign", sign);
    put("int-rest", enc.bits & (top - 1n));
    put("int-value", enc.exactString);
  } else {
    put("code", enc.bits);
    put("stored-short", storedShort);
  }
}

/** Everything the view shows of one stored pattern (pages._scalar_page's model: enc, result, links, carried). */
export function fill(view, { enc, result, links, carried }) {
  const root = view.root, spec = view.spec, c = spec.codec;
  const slots = new Map([...root.querySelectorAll("[data-slot]")].map((node) => [node.dataset.slot, node]));
  const put = (name, value) => {
    const node = slots.get(name);
    if (node?.classList.contains("num")) setNum(node, value);
    else if (node) setText(node, value ?? "");
  };
  const [head, tail] = visualiseUrl(c.id, { ...links, bits: "\u0001" }).split("%01");
  const link = (bits) => head + bits + tail;
  const stochastic = Boolean(result) && links.rounding === "stochastic";
  const odds = stochastic ? stochasticOdds(c, result.input, links.overflow) : null;
  const down = nextDown(enc), up = nextUp(enc);
  const typedX = c.kind === "codebook" ? typedLevel(c, enc, result && result.input) : null;
  showVariants(root, { [enc.cls]: true, finite: enc.cls === "normal" || enc.cls === "subnormal",
    notes: Boolean(result && (result.note || result.overflowed || result.underflowed)),
    overflow: Boolean(result?.overflowed), underflow: Boolean(result?.underflowed), stochastic, odds: Boolean(odds),
    certain: stochastic && !odds, typed: Boolean(result), "has-down": Boolean(down),
    "has-up": Boolean(up), drawn: false });

  put("binary", fillBits(view, enc, link));
  const [stored, exact] = realText(enc.value), storedNode = root.querySelector("[data-stored]");
  put("exactness", exact ? say("exact") : say("≈, 40 digits: its exact decimal has over 1200"));
  setText(storedNode, stored);
  storedNode.classList.toggle("stored-long", stored.length > 48);
  setText(root.querySelector("[data-note] > span"), result?.note ? result.note.said : "");
  if (odds) {
    const p = odds.pUp;
    put("p-up", chance(p));
    put("odds-up", shown(odds.up.encoding.value, 24, 9));
    put("p-down", chance({ num: p.den - p.num, den: p.den }));
    put("odds-down", shown(odds.down.encoding.value, 24, 9));
    setText(root.querySelector("[data-odds-went]"), enc.bits === odds.up.encoding.bits ? say("up") : say("down"));
  }
  setText(root.querySelector("[data-bits]"), enc.hex);
  const storedShort = shown(enc.value, 60, 17);
  fillFormula(put, c, enc, storedShort);
  for (const [code, item] of [...root.querySelectorAll("ol.codebook li")].entries()) {
    setAttr(item, "aria-current", BigInt(code) === enc.bits ? "true" : null);
  }
  if (result) {
    put("typed", shown(result.input, FULL));
    put("error-value", shown(result.error, FULL));
    put("relative", result.relErrorText);
  }
  const cls = root.querySelector("[data-class]");
  if (cls) setText(cls, classWord(enc.cls));
  put("ulp", shown(ulp(enc), FULL));
  for (const [name, step] of [["next-down", down], ["next-up", up]]) {
    if (!step) continue;
    const href = link(step.hex), node = root.querySelector(`[data-step="${name}"]`);
    setAttr(node, "href", href);
    setAttr(node, "data-hx-get", href);
    put(name, shown(step.value, FULL));
  }
  if (c.kind === "codebook") placeLevels(root, c, enc, typedX);
  else placeValue(root, spec.line, enc);
  setAttr(root.querySelector("[data-operate]"), "href", arithmeticUrl(links.prefix, [["format", c.id],
    ...(links.layout ?? []), ["op", "add"], ["a", enc.hex], ["b", "1"], ["rounding", links.rounding],
    ["overflow", links.overflow], ["seed", links.rounding === "stochastic" && links.seed !== null
      && links.seed !== undefined ? String(links.seed) : null]]));
  const custom = root.querySelector("[data-custom-layout]");
  if (custom) setAttr(custom, "href", visualiseUrl("custom", { ...links, layout: spec.custom, value: carried }));
}
