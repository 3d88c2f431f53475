// The visualiser at the speed of thought: a flip (click, tap, Space or Enter on a bit, or a drag that paints bits),
// a keystroke in the value box, or a change of rounding, overflow, seed or format redraws the whole view in the
// same frame from the exact codec (codec.js), with no request. The markup is the server's (visualise.html,
// _bits.html, _formula.html), written here again and held to it by tests/browser/test_visualiser_instant.py; the
// formats and what about them does not depend on the value come from the page (view_specs.py). The URL follows,
// so a reload or a shared link gets the same view from the server; a figure in a guide leaves the guide's alone.
// Without the page's data (a layout the server refused) htmx does the work, and the keyboard still moves and flips.

import {
  decode, encode, InputError, nextDown, nextUp, overflowPolicy, parseBits, realText, roundingMode, seedValue, shown,
  stochasticOdds, ulp,
} from "./codec.js";
import { compare, divideToDouble, fraction, fractionText, ofDouble, readFraction } from "./exact.js";
import { typedNumber } from "./locale_input.js";
import { visualiseUrl } from "./urls.js";
import { learn, say, sayN } from "./words.js";

const FULL = 4000; // exact values in full up to this many characters, as pages.FULL
const STEPS = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
const BIT = "[data-bit-grid] [data-bit]";
const views = new WeakMap(); // the section of each visualiser on the page -> its state
const statics = new WeakMap(); // a format's view spec -> the markup that does not depend on the value
const pending = { bit: null, refocus: false }; // keyboard focus across an htmx swap (pages without data)
let paint = null; // the drag in progress: {view, value}
let painted = false; // the click that ends a paint is not a flip of its own

// -- markup -----------------------------------------------------------------------------------------------

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;" };
const esc = (text) => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
const num = (v) => (v === null ? "—" : v.text !== v.full
  ? `<span class="num" title="${esc(v.full)}">${esc(v.text)}</span>` : `<span class="num">${esc(v.text)}</span>`);

/** A bit's role and a value's class as words of the page (_bits.html's names and class_word). */
const roleWord = (role) => ({ sign: say("sign"), exponent: say("exponent"), mantissa: say("mantissa"),
  integer: say("integer"), code: say("code") })[role] ?? role;
const classWord = (cls) => ({ normal: say("normal"), subnormal: say("subnormal"), zero: say("zero"), inf: say("inf"),
  nan: say("nan") })[cls] ?? cls;
const bitCount = (count) => sayN("%(count)s bit", "%(count)s bits", count);

/** Python's round(x, 2) of a double, as str() writes the float it gives. */
function round2(x) {
  const { num: n, den } = ofDouble(x * 1), scaled = n * 100n, q = scaled / den, r = scaled % den;
  const up = 2n * r > den || (2n * r === den && q % 2n === 1n);
  const y = Number(up ? q + 1n : q) / 100;
  return Number.isInteger(y) ? y.toFixed(1) : String(y);
}

/** Python's round(x) of a double: half to even. */
function roundEven(x) {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 ? r - 1 : r;
}

/** Python's math.log2 of a positive integer: through a double, or its frexp where that overflows. */
function log2Int(n) {
  const x = Number(n);
  if (x !== Infinity) return Math.log2(x);
  const e = n.toString(2).length, shift = BigInt(e - 55);
  let top = n >> shift;
  if (top << shift !== n) top |= 1n; // a sticky bit, so that the double is rounded once and correctly
  return Math.log2(Number(top) / 2 ** 55) + e;
}

/** The fixed parts of a format's view: its legend, the marks of its number line and their list. */
function fixed(spec) {
  let known = statics.get(spec);
  if (known) return known;
  const c = spec.codec, line = spec.line;
  const marks = line.marks.map((m) => ({ ...m,
    value: m.of ? shown(m.of === "one" ? { num: 1n, den: 1n } : readFraction(c[m.of])) : { text: m.text, full: m.full } }));
  const roles = spec.fields.flatMap(([role, count]) => Array(count).fill(role));
  const label = (index, value) => esc(say("bit %(index)s, %(role)s, %(value)s",
    { index, role: roleWord(roles[roles.length - 1 - index]), value }));
  const legendName = say("Legend of the bit colours");
  known = {
    marks,
    roles,
    labels: roles.map((_, index) => [label(index, 0), label(index, 1)]), // by bit index, then value
    legend: `<ul class="legend" lang="${esc(document.documentElement.lang || "en")}" aria-label="${
      esc(legendName)}">${spec.fields.map(([role, count]) =>
      `<li data-role="${role}"><span class="swatch" aria-hidden="true"></span>${roleWord(role)}${count
        ? ` (${bitCount(count)})` : ""}</li>`).join("")}</ul>`,
    ticks: marks.map((m) => `<line class="nl-tick" x1="${m.x}%" x2="${m.x}%" y1="29" y2="43"></line><text `
      + `class="nl-label" x="${m.x}%" y="${42 + 16 * m.row}" text-anchor="${m.anchor}">${esc(say(m.label))}</text>`)
      .join(""),
    list: marks.filter((m) => m.label !== "1").map((m) => `<li>${esc(say(m.label))} = ${num(m.value)}</li>`).join(""),
  };
  statics.set(spec, known);
  return known;
}

/** present.number_line: where |value| sits on a log scale from the smallest positive value to max. */
function numberLine(spec, marks, v) {
  const { low, high } = spec.line;
  const mark = (x) => {
    const share = x.num === 0n || high === low ? 0 : (log2Int(x.num) - log2Int(x.den) - low) / (high - low);
    const at = round2(2 + 96 * Math.min(Math.max(share, 0), 1));
    return { x: at, anchor: at < 12 ? "start" : at > 88 ? "end" : "middle", text: shown(x).text };
  };
  if (v.kind === "nan") return [null, say("NaN is not a number, so it has no place on the line.")];
  if (v.kind === "inf") return [{ x: "100.0", anchor: "end", text: "inf" }, say("Infinity lies past max.")];
  if (v.num === 0n) return [mark({ num: 0n, den: 1n }), say("Zero sits left of the smallest positive value.")];
  const where = mark({ num: v.num, den: v.den }); // |value|
  return [where, say("|value| sits %(share)s%% of the way along the log scale from the smallest positive value "
    + "%(low)s to max %(high)s.", { share: roundEven((Number(where.x) - 2) / 96 * 100), low: marks[0].value.text,
    high: marks[marks.length - 1].value.text })];
}

/** _formula.html: how the bits give the value, with the numbers filled in. */
function formula(c, enc, storedShort) {
  const sign = enc.sign, cls = enc.cls, p = (html) => `<p class="formula">${html}</p>`;
  if (c.kind === "float" && enc.exponent !== null) {
    const signed = sign !== null;
    const m = c.mantissa_bits, binary = (cls === "normal" ? "1" : "0")
      + (m ? `.${enc.mantissaField.toString(2).padStart(m, "0")}` : "");
    const subnormal = say("Exponent field 0 means subnormal: the exponent stays at 1 − bias = %(e)s and the leading "
      + "digit is 0.", { e: enc.exponent });
    const normal = say("Exponent field %(field)s minus the bias %(bias)s; the leading 1 of the significand is "
      + "implicit.", { field: enc.exponentField, bias: c.bias });
    const value = say("value"), signWord = say("sign"), exponent = say("exponent"), significand = say("significand");
    return p(`${value} = ${signed ? `(−1)<sup>${signWord}</sup> × ` : ""}2<sup>${exponent}</sup> × ${significand}`)
      + p(`= ${signed ? `(−1)<sup>${sign}</sup> × ` : ""}2<sup>${cls === "subnormal" ? 1 : enc.exponentField} − `
        + `${c.bias}</sup> × ${binary}<sub>2</sub>`)
      + p(`= ${signed ? `${sign ? "−1" : "+1"} × ` : ""}2<sup>${enc.exponent}</sup> × `
        + `${num(shown(enc.significand, FULL))}`)
      + p(`= ${num(storedShort)}`)
      + `<p class="help">${cls === "subnormal" ? subnormal : normal}</p>`;
  }
  if (c.kind === "float") {
    const id = esc(c.id);
    return p(cls === "zero" ? say("Exponent and mantissa fields all zero: %(zero)s.", { zero: sign ? "−0" : "+0" })
      : cls === "inf" ? say("Exponent field all ones and mantissa zero: %(s)sinfinity.", { s: sign ? "−" : "+" })
      : c.nan_style === "fn" ? say("Exponent and mantissa fields all ones: NaN (%(id)s has no infinity).", { id })
      : c.nan_style === "fnuz" ? say("The pattern of −0 (sign 1, everything else 0) is %(id)s's only NaN.", { id })
      : c.nan_style === "e8m0" ? say("All bits one is %(id)s's NaN.", { id })
      : say("Exponent field all ones and mantissa not zero: NaN."));
  }
  if (c.kind === "int") {
    const v = esc(enc.exactString), n = c.bits - 1;
    if (!c.signed) return p(say("value = the bits read as a binary number = %(v)s", { v }));
    const top = 1n << BigInt(n);
    const weighs = say("Two's complement: the top bit weighs −2<sup>%(n)s</sup>.", { n });
    return p(say("value = −2<sup>%(n)s</sup> × sign + the other bits", { n }))
      + p(`= ${-top} × ${sign} + ${enc.bits & (top - 1n)} = ${v}`)
      + `<p class="help">${weighs}</p>`;
  }
  const indexes = say("The 4-bit code indexes the NF4 codebook; in use the value is scaled by its block's absmax.");
  const indexed = say("value = codebook[%(code)s]", { code: enc.bits });
  return p(`${indexed} = ${num(storedShort)}`)
    + `<p class="help">${indexes}</p>`
    + `<ol class="codebook" start="0">${c.codebook.map((_, code) => `<li${BigInt(code) === enc.bits
      ? ' aria-current="true"' : ""}>${esc(decode(c, code).exactString)}</li>`).join("")}</ol>`;
}

const subtract = (a, b) => fraction(a.num * b.den - b.num * a.den, a.den * b.den);

/** A codebook's levels on a line (codebook_line.level_line), the stored one marked, the typed value where it lies. */
function levelLine(view, spec, enc, typed) {
  const block = spec.block, ends = spec.levels.filter((l) => ["-1", "0", "1"].includes(l.text)); // labelled
  const c = spec.codec, codes = c.codebook.map(readFraction), low = codes[0], high = codes[codes.length - 1];
  const current = spec.levels[Number(enc.bits)], at = Number(current.x);
  let typedX = null;
  if (typed && typed.kind === "finite") {
    const t = typed.negative ? { num: -typed.num, den: typed.den } : typed;
    const span = subtract(high, low), offset = subtract(t, low);
    if (compare(t, low) >= 0 && compare(t, high) <= 0 && compare(t, codes[Number(enc.bits)]) !== 0) {
      const q = { num: offset.num * span.den, den: offset.den * span.num };
      typedX = round2(2 + 96 * (q.num === 0n ? 0 : divideToDouble(q.num, q.den)));
    }
  }
  const description = say("The %(n)s levels of %(name)s from %(low)s to %(high)s, to scale; code %(code)s (%(value)s) "
    + "is stored. The levels crowd near 0, where most of a normal distribution lies.", { n: codes.length, name: c.name,
    low: fractionText(low), high: fractionText(high), code: enc.bits, value: current.text });
  const caption = say("%(name)s's %(n)s levels, to scale, and the one stored", { name: esc(c.name), n: codes.length });
  const inUse = block && say("In use, a block of %(size)s codes shares one absmax: <a href=\"%(href)s\" "
    + "data-block-view>see a whole %(name)s block</a>.", { size: block.size, href: esc(view.data.prefix + block.href),
    name: esc(block.name) });
  return `<figure class="numberline levels" data-levels data-hide-group="numberline">
<figcaption>${caption}</figcaption>
<svg class="nl" width="100%" height="102" role="img" aria-label="${esc(description)}"><line class="nl-axis" x1="2%" `
    + `x2="98%" y1="40" y2="40"></line>${spec.levels.map((l) => `<line class="nl-tick" x1="${l.x}%" x2="${l.x}%" `
    + `y1="33" y2="47" data-level="${l.code}"></line><text class="nl-label" x="${l.x}%" y="${62 + 14 * l.row}" `
    + `text-anchor="middle" data-level-code="${l.code}">${l.code}</text>`).join("")}${ends.map((l, k) => `<text `
    + `class="nl-label nl-level-value" x="${l.x}%" y="96" text-anchor="${k === 0 ? "start" : k === ends.length - 1
      ? "end" : "middle"}">${say("value %(v)s", { v: esc(l.text.replaceAll("-", "−")) })}</text>`).join("")}${typedX === null ? ""
    : `<line class="nl-typed" x1="${typedX}%" x2="${typedX}%" y1="24" y2="56" data-level-typed></line>`}<circle class="nl-value" cx="${current.x}%" cy="40" r="7" data-level-current="${current.code}">`
    + `</circle><text class="nl-value-label" x="${current.x}%" y="18" text-anchor="${at < 12 ? "start" : at > 88
      ? "end" : "middle"}" data-level-value>${esc(current.text)}</text></svg>
<p class="help">${esc(description)}${block ? ` ${inUse}` : ""}</p>
</figure>`;
}

/** odds.chance: a probability's decimal when short, else its fraction when short, else ≈3 digits. */
function chance(p) {
  const text = shown(p, 10, 3), fraction = fractionText(p);
  return text.text !== text.full && fraction.length <= 9 ? { text: fraction, full: text.full } : text;
}

/** The stochastic rounding box: where the draw can go and how likely each way is. */
function odds(spec, result, overflow, stored) {
  const o = stochasticOdds(spec, result.input, overflow);
  if (!o) {
    const none = say("Stochastic rounding has nothing to choose here: every draw stores this pattern.");
    return `<p data-odds>${none}</p>`;
  }
  const to = (r) => num(shown(r.encoding.value, 24, 9)), went = stored.bits === o.up.encoding.bits ? say("up")
    : say("down");
  const sentence = say("Stochastic rounding: rounds up with probability <span data-p-up>%(p_up)s</span> (to "
    + "<span data-odds-up>%(up)s</span>), down with <span data-p-down>%(p_down)s</span> (to <span data-odds-down>"
    + "%(down)s</span>); this draw went <strong data-odds-went>%(went)s</strong>.", { p_up: num(chance(o.pUp)),
    up: to(o.up), p_down: num(chance({ num: o.pUp.den - o.pUp.num, den: o.pUp.den })), down: to(o.down), went });
  return `<p data-odds>${sentence}</p>`;
}

/** visualise.html's section for one stored pattern; the form and the format pills are kept, not redrawn. */
function section(view, model) {
  const spec = view.data.formats[view.key], c = spec.codec, { enc, result, links } = model;
  const prefix = esc(view.data.prefix), f = fixed(spec), bits = c.bits, width = (bits + 3) >> 2;
  const hrefOf = (pattern) => esc(visualiseUrl(c.id, { ...links, bits: `0x${pattern.toString(16).padStart(width, "0")}` }));
  let cells = "", run = "", binary = "";
  for (let i = bits - 1; i >= 0; i--) {
    const role = f.roles[bits - 1 - i], value = Number((enc.bits >> BigInt(i)) & 1n), href = hrefOf(enc.bits ^ (1n << BigInt(i)));
    if (role !== run) {
      cells += `${run ? "</span>" : ""}\n<span class="bit-group" data-role="${role}">`;
      binary += run ? " " : "";
      run = role;
    }
    cells += `<a class="bit" href="${href}" data-hx-get="${href}" data-bit="${i}" data-role="${role}" `
      + `data-value="${value}" aria-label="${f.labels[i][value]}">${value}</a>`;
    binary += value;
  }
  const [stored, storedExact] = realText(enc.value), storedShort = shown(enc.value, 60, 17);
  const note = result && (result.note || result.overflowed || result.underflowed)
    ? `<div class="notes" data-note>\n${result.overflowed ? `<strong class="flag" data-flag="overflow">${say("overflow")}`
      + "</strong>" : ""}\n${result.underflowed ? `<strong class="flag" data-flag="underflow">${say("underflow")}</strong>`
      : ""}\n${result.note ? `<span>${esc(result.note.said)}</span>` : ""}\n</div>` : "";
  const stochastic = result && links.rounding === "stochastic"
    ? `<div class="stochastic" data-stochastic>${odds(c, result, links.overflow, enc)}</div>` : "";
  const w = { typed: say("You typed"), error: say("Rounding error"), difference: say("stored − typed"),
    relative: say("relative:"), hint: say("Click, tap, or press Space or Enter on a bit to flip it; arrow keys move "
      + "between bits."), stored: say("Stored value"), exact: say("exact"),
    rounded: say("≈, 40 digits: its exact decimal has over 1200"), bits: say("Bits"), read: say("How it is read"),
    neighbours: say("Neighbours"),
    change: say("Change this layout: its exponent and mantissa bits, bias, inf and NaN") };
  const typed = result ? `<div><dt>${w.typed}</dt><dd data-typed>${num(shown(result.input, FULL))}</dd></div>`
    + `<div><dt>${w.error}</dt><dd>${w.difference} = <span data-error-value>${num(shown(result.error, FULL))}</span>`
    + `<br>${w.relative} ${result.relErrorText}</dd></div>` : "";
  const steps = [["next down", nextDown(enc), say("next down"), say("no next down")],
    ["next up", nextUp(enc), say("next up"), say("no next up")]];
  const neighbours = steps.map(([label, step, word, none]) => {
    if (!step) return `<span class="button disabled">${none}</span>`;
    const href = hrefOf(step.bits);
    return `<a class="button" href="${href}" data-hx-get="${href}" data-step="${label.replace(" ", "-")}">`
      + `${label === "next down" ? "←" : ""} ${word}: ${num(shown(step.value, FULL))} ${label === "next up" ? "→" : ""}</a>`;
  }).join(" ");
  const custom = spec.custom && visualiseUrl("custom", { ...links, layout: spec.custom, value: model.carried });
  let line;
  if (spec.levels) line = levelLine(view, spec, enc, result && result.input);
  else {
    const [where, description] = numberLine(spec, f.marks, enc.value);
    const where0 = say("Where |value| sits in %(id)s's range, on a log scale", { id: esc(c.id) });
    line = `<figure class="numberline" data-hide-group="numberline">
<figcaption>${where0}</figcaption>
<svg class="nl" width="100%" height="84" role="img" aria-label="${esc(description)}"><line class="nl-axis" x1="2%" `
    + `x2="98%" y1="36" y2="36"></line>${f.ticks}${where ? `<circle class="nl-value" cx="${where.x}%" cy="36" r="7">`
    + `</circle><text class="nl-value-label" x="${where.x}%" y="18" text-anchor="${where.anchor}">${esc(where.text)}`
    + "</text>" : ""}</svg>
<p class="help">${esc(description)}</p>
<ul class="nl-marks">${f.list}</ul>
</figure>`;
  }
  const parts = {
    data: '<script data-keep="data"></script>',
    title: `<h1>${esc(c.name)} <span class="format-id">${esc(c.id)}${bits ? ` · ${bitCount(bits)}` : ""}</span></h1>`,
    lead: `<p class="lead" data-hide-group="intro">${esc(spec.summary)}</p>`,
    figure: `<div class="figure-first" data-figure>
<div class="grid-box" id="bits" tabindex="-1" data-bits-box${bits > 64 ? " data-bits-wide" : ""}>${f.legend}<div `
      + `class="bits" data-bit-grid>${cells}</span></div>
<p class="hint">${w.hint}</p></div>
<dl class="facts stored-box"><div><dt>${w.stored} (${storedExact ? w.exact : w.rounded})</dt><dd class="stored${stored.length > 48 ? " stored-long" : ""}" `
      + `data-stored>${esc(stored)}</dd></div></dl>
${note}
${stochastic}
</div>`,
    form: `<form data-keep="form" class="controls" data-hide-group="controls" action="${prefix}/visualise/${esc(c.id)}" method="get" `
      + `data-hx-get="${prefix}/visualise/${esc(c.id)}" data-hx-trigger="submit, change from:#rounding, change from:#overflow">`
      + "</form>",
    custom: custom ? `<p class="help"><a href="${esc(custom)}" data-custom-layout>${w.change}</a></p>` : "",
    nav: '<nav data-keep="nav"></nav>',
    facts: `<dl class="facts">
<div><dt>${w.bits}</dt><dd><code data-bits>${enc.hex}</code> = <code class="binary">${binary}</code></dd></div>
<div><dt>${w.read}</dt><dd>${formula(c, enc, storedShort)}</dd></div>
${typed}
${spec.levels ? "" : `<div><dt>${say("Class")}</dt><dd data-class>${classWord(enc.cls)}</dd></div>
<div><dt>${say("ULP")}</dt><dd data-ulp>${num(shown(ulp(enc), FULL))}</dd></div>`}
<div><dt>${w.neighbours}</dt><dd class="neighbours">${neighbours}</dd></div>
</dl>`,
    line,
  };
  return ORDER.map((name) => parts[name]).join("\n");
}

// the section's parts in visualise.html's order (an error, when there is one, follows the form)
const ORDER = ["data", "title", "figure", "form", "lead", "custom", "nav", "facts", "line"];

// -- the state and the page ---------------------------------------------------------------------------------

const field = (view, name) => view.root.querySelector(`form [name="${name}"]`);

/** What the server works out for the page's query (pages._scalar_page), or {error} with its sentence. */
function model(view) {
  const spec = view.data.formats[view.key].codec;
  const rounding = field(view, "rounding").value, overflow = field(view, "overflow").value;
  const seedBox = field(view, "seed");
  try {
    roundingMode(rounding);
    overflowPolicy(overflow);
    if (rounding === "stochastic" && seedBox.value === "") seedBox.value = freshSeed(); // as the server draws one
    const seed = seedValue(seedBox.value);
    const links = { rounding, overflow, seed, prefix: view.data.prefix, layout: view.data.formats[view.key].layout };
    const { rounded, encoding } = view.fromBits ? { rounded: null, encoding: decode(spec, parseBits(view.text, spec)) }
      : encode(spec, typedNumber(view.text), rounding, overflow, seed);
    return { enc: encoding, result: rounded, links, carried: rounded ? view.text : encoding.exactString };
  } catch (error) {
    if (error instanceof InputError) return { error: error.phrase.said };
    throw error;
  }
}

/** A seed in the range the server takes (0 to 2^63 − 1), for stochastic rounding asked for without one. */
function freshSeed() {
  const [high, low] = crypto.getRandomValues(new Uint32Array(2));
  return String(((BigInt(high) << 32n) | BigInt(low)) & ((1n << 63n) - 1n));
}

/** Put the new children of `next` in `live`, keeping in place the live elements that the placeholders name (the
 * form keeps its focus and what was typed in it): nothing kept is ever taken out of the page. */
function morph(live, next, kept) {
  const wanted = [...next.childNodes].map((child) => {
    const keep = child.nodeType === 1 && (child.matches("[data-keep]") ? child : child.querySelector("[data-keep]"));
    if (!keep) return child;
    let own = kept[keep.dataset.keep];
    if (keep.dataset.keep === "form") {
      for (const { name } of [...own.attributes]) if (!keep.hasAttribute(name)) own.removeAttribute(name);
      for (const { name, value } of keep.attributes) if (name !== "data-keep") own.setAttribute(name, value);
    }
    while (own.parentNode !== live) own = own.parentNode;
    if (child !== keep) morph(own, child, kept);
    return own;
  });
  for (const node of [...live.childNodes]) if (!wanted.includes(node)) node.remove();
  let ref = live.firstChild;
  for (const node of wanted) {
    if (node === ref) ref = ref.nextSibling;
    else live.insertBefore(node, ref);
  }
}

/** Redraw the view from its state; `how` says what the URL does: "push", "replace" or nothing. */
function render(view, how) {
  const root = view.root, m = model(view);
  let error = root.querySelector("[data-error]");
  if (m.error) { // the sentence the server gives, beside the last view that stood
    if (!error) {
      error = Object.assign(document.createElement("p"), { className: "error" });
      error.setAttribute("role", "alert");
      error.setAttribute("data-error", "");
      root.querySelector("form").after(error);
    }
    error.textContent = m.error;
    announce(view);
    return;
  }
  const focused = document.activeElement?.closest?.(BIT);
  const bit = view.focusBit ?? (focused && root.contains(focused) ? focused.dataset.bit : null);
  const template = document.createElement("template");
  template.innerHTML = section(view, m);
  const form = root.querySelector("form");
  if (view.key !== "custom") form.querySelector("[data-layout]")?.remove();
  morph(root, template.content,
    { form, nav: root.querySelector(".switcher"), data: root.querySelector("script[data-visualiser-data]") });
  root.dataset.format = view.key;
  view.carried = m.carried;
  syncForm(view, form);
  pills(view, m);
  const custom = root.querySelector("[data-custom-layout]");
  if (custom) window.htmx?.process(custom); // the one link this script leaves to htmx
  roving(root, bit, bit !== null && (view.focusBit !== null || focused));
  view.focusBit = null;
  announce(view);
  if (how && view.history) {
    const href = visualiseUrl(view.key, { ...m.links, [view.fromBits ? "bits" : "value"]: view.text });
    const state = { visualiser: snapshot(view) };
    if (how === "push" && href !== location.pathname + location.search) history.pushState(state, "", href);
    else history.replaceState(state, "", href);
    const title = say("%(name)s visualiser", { name: view.data.formats[view.key].codec.name });
    document.title = `${title} · Precision Lab`;
    document.dispatchEvent(new CustomEvent("visualiser:moved")); // embed.js follows the URL
  }
}

function syncForm(view, form) {
  const box = form.querySelector("[name=value]");
  if (box.value !== view.text) box.value = view.text;
  box.setAttribute("value", view.text);
  for (const name of ["rounding", "overflow"]) {
    for (const option of form.querySelector(`[name=${name}]`).options) option.defaultSelected = option.selected;
  }
  const seed = form.querySelector("[name=seed]");
  seed.setAttribute("value", seed.value);
}

/** The format pills carry the value to each format, as pages._switch_links makes them. */
function pills(view, m) {
  const plain = { ...m.links, layout: [], value: m.carried };
  for (const pill of view.root.querySelectorAll(".switcher a[data-format]")) {
    const id = pill.dataset.format, spec = view.data.formats[id];
    if (id === "custom" && view.key !== "custom") { // the server shows the custom pill on its own page only
      const group = pill.closest("[data-format-group]");
      (group && group.querySelectorAll("a").length === 1 ? group : pill.closest("li") ?? pill).remove();
      continue;
    }
    if (!spec) continue;
    const href = visualiseUrl(id, id === "custom" ? { ...plain, layout: spec.layout } : plain);
    pill.setAttribute("href", href);
    pill.setAttribute("data-hx-get", href);
    if (id === view.key) pill.setAttribute("aria-current", "page");
    else pill.removeAttribute("aria-current");
  }
}

function snapshot(view) {
  const value = (name) => field(view, name).value;
  return { key: view.key, text: view.text, fromBits: view.fromBits, rounding: value("rounding"),
    overflow: value("overflow"), seed: value("seed") };
}

function announce(view) {
  const live = view.root.closest("[data-figure]")?.querySelector("[data-announce]")
    ?? document.querySelector("[data-announce]");
  const error = view.root.querySelector("[data-error]"), stored = view.root.querySelector("[data-stored]");
  if (live) {
    live.textContent = error ? error.textContent : stored ? say("Stored value %(stored)s", { stored: stored.textContent })
      : "";
  }
}

/** One bit focusable by Tab (the focused one, else the first), focused again after a redraw when it had focus. */
function roving(root, bit, refocus) {
  const all = [...root.querySelectorAll(BIT)];
  const current = all.find((cell) => cell.dataset.bit === bit) || all[0];
  for (const cell of all) cell.tabIndex = cell === current ? 0 : -1;
  if (current && refocus) current.focus();
}


function init(root) {
  const script = root.querySelector("script[data-visualiser-data]");
  if (views.has(root) || !script) return;
  const data = JSON.parse(script.textContent);
  learn(data.words); // the sentences in the page's language
  const view = { root, data, key: data.format, text: data.typed, fromBits: data.bits, focusBit: null,
    history: !root.closest("[data-figure]"), carried: null };
  view.layout = layoutOf(view);
  views.set(root, view);
  // a seed the server drew for stochastic rounding goes into the address, so that a reload keeps it
  const seeded = root.querySelector("[data-seed-link]")?.getAttribute("href") ?? location.href;
  if (view.history) history.replaceState({ ...history.state, visualiser: snapshot(view) }, "", seeded);
}

function scan(node) {
  if (!(node instanceof Element || node instanceof Document)) return;
  for (const root of node.querySelectorAll("section[data-format]")) init(root);
  if (node instanceof Element && node.matches("section[data-format]")) init(node);
  roving(node instanceof Document ? node : node.closest("section") ?? node, pending.bit, pending.refocus);
  pending.refocus = false;
}

const viewOf = (node) => (node instanceof Element ? views.get(node.closest("section[data-format]")) : undefined);
const bitOf = (node) => (node instanceof Element ? node.closest(BIT) : null);

function flip(view, cell, value) {
  const enc = view.root.querySelector("[data-bits]").textContent, bits = view.data.formats[view.key].codec.bits;
  const mask = 1n << BigInt(cell.dataset.bit), current = BigInt(enc);
  const next = value === undefined ? current ^ mask : value ? current | mask : current & ~mask;
  Object.assign(view, { text: `0x${next.toString(16).padStart((bits + 3) >> 2, "0")}`, fromBits: true });
}

// A layout changed in the custom format's form is the server's to check: that submit goes through htmx.
const layoutOf = (view) => [...view.root.querySelectorAll("[data-layout] [name]")].map((el) => el.value).join();
const layoutEdited = (view) => layoutOf(view) !== view.layout;
const shownEncoding = (view) => decode(view.data.formats[view.key].codec,
  BigInt(view.root.querySelector("[data-bits]").textContent));

// -- events ---------------------------------------------------------------------------------------------------

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
    const step = (link.dataset.step === "next-up" ? nextUp : nextDown)(shownEncoding(view));
    Object.assign(view, { text: step.hex, fromBits: true });
    render(view, "push");
  } else if (id && view.data.formats[id]) {
    if (view.carried === null) view.carried = model(view).carried; // the page's own, before any redraw
    Object.assign(view, { key: id, text: view.carried ?? view.text, fromBits: false });
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
  const index = all.indexOf(cell), step = STEPS[event.key];
  const next = step ? all[Math.min(Math.max(index + step, 0), all.length - 1)]
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
  if (!view.data.formats[saved.key]) {
    location.reload();
    return;
  }
  Object.assign(view, { key: saved.key, text: saved.text, fromBits: saved.fromBits });
  for (const name of ["rounding", "overflow", "seed"]) field(view, name).value = saved[name];
  render(view);
});

document.addEventListener("htmx:load", (event) => scan(event.target));
scan(document);
