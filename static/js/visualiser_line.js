// Where the value sits, in the server's markup of the visualiser (templates/_visualise_line.html): the marker of
// |value| on the format's log scale, or a codebook's stored level and the typed value between its levels. Positions
// are plain double arithmetic (a hundredth of a percent from the server's rounding is no difference a person sees);
// the sentences' numbers go into their slots, and the picture's accessible name is the sentence shown under it.

import { decode, shown } from "./codec.js";
import { bitLength, compare, divideToDouble, readFraction } from "./exact.js";
import { setAttr, setText } from "./view_slots.js";

/** log2 of a positive BigInt, through a double (its top 64 bits where it is too large for one). */
function log2(n) {
  const shift = Math.max(bitLength(n) - 64, 0);
  return Math.log2(Number(n >> BigInt(shift))) + shift;
}

/** An SVG mark shown or hidden (an SVG element has no `hidden` property: the attribute, which the page's CSS reads). */
const showMark = (node, shown) => setAttr(node, "hidden", shown ? null : "");

const anchor = (x) => (x < 12 ? "start" : x > 88 ? "end" : "middle");
const percent = (x) => `${x.toFixed(2)}%`;

/** The picture's accessible name: the description under it, the variant of it that is shown. */
function describe(figure) {
  const description = figure.querySelector('[data-slot="description"]');
  const shownPart = [...description.children].find((part) => !part.hidden && part.matches("[data-if]"));
  setAttr(figure.querySelector("svg.nl"), "aria-label", (shownPart ?? description).textContent.trim());
}

/** |value| on the log scale from the smallest positive value (line.low, a log2) to max (line.high). */
export function placeValue(root, line, enc) {
  const v = enc.value, figure = root.querySelector("figure.numberline");
  let x = 2, text = "0";
  if (v.kind === "inf") [x, text] = [100, "inf"];
  else if (v.kind === "finite" && v.num !== 0n) {
    const share = line.high === line.low ? 0 : (log2(v.num) - log2(v.den) - line.low) / (line.high - line.low);
    x = 2 + 96 * Math.min(Math.max(share, 0), 1);
    text = shown({ num: v.num, den: v.den }).text;
    setText(figure.querySelector('[data-slot="share"]'), Math.round((x - 2) / 96 * 100));
  }
  const circle = figure.querySelector("circle.nl-value"), label = figure.querySelector("text.nl-value-label");
  showMark(circle, v.kind !== "nan");
  showMark(label, v.kind !== "nan");
  if (v.kind !== "nan") {
    setAttr(circle, "cx", percent(x));
    setAttr(label, "x", percent(x));
    setAttr(label, "text-anchor", anchor(x));
    setText(label, text);
  }
  describe(figure);
}

/** Where a typed value lies among a codebook's levels (x in percent), or null where it is off the line or on a
 * level. */
export function typedLevel(c, enc, typed) {
  if (!typed || typed.kind !== "finite") return null;
  const codes = c.codebook.map(readFraction), low = codes[0], high = codes[codes.length - 1];
  const t = typed.negative ? { num: -typed.num, den: typed.den } : typed;
  if (compare(t, low) < 0 || compare(t, high) > 0 || compare(t, codes[Number(enc.bits)]) === 0) return null;
  const offset = t.num * low.den - low.num * t.den, span = high.num * low.den - low.num * high.den;
  return 2 + 96 * divideToDouble(offset * low.den * high.den, span * low.den * t.den);
}

/** A codebook's stored level marked, its value said, and the typed value's place (typedX, or null). */
export function placeLevels(root, c, enc, typedX) {
  const code = Number(enc.bits), figure = root.querySelector("[data-levels]");
  const x = figure.querySelector(`[data-level="${code}"]`).getAttribute("x1"), at = Number.parseFloat(x);
  const text = shown(decode(c, code).value, 24, 7).text;
  const current = figure.querySelector("[data-level-current]"), label = figure.querySelector("[data-level-value]");
  setAttr(current, "cx", x);
  setAttr(current, "data-level-current", code);
  setAttr(label, "x", x);
  setAttr(label, "text-anchor", anchor(at));
  setText(label, text);
  setText(figure.querySelector('[data-slot="level-code"]'), code);
  setText(figure.querySelector('[data-slot="level-value"]'), text);
  const typed = figure.querySelector("[data-level-typed]");
  showMark(typed, typedX !== null);
  if (typedX !== null) {
    setAttr(typed, "x1", percent(typedX));
    setAttr(typed, "x2", percent(typedX));
  }
  describe(figure);
}
