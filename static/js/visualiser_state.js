// The visualiser's state and its one render (visualiser.js holds the events): a flip, a keystroke or a change of
// rounding, overflow or seed fills the server's own markup of the view in the same frame from the exact codec
// (codec.js), with no request (visualiser_fill.js writes the text and attributes). Another format's view is the
// server's: a format pill fetches its fragment once, and the form stays as it is, focus and all. The URL follows,
// so a reload or a shared link gets the same view from the server; a figure in a guide leaves the guide's alone.

import {
  decode, encode, InputError, nextDown, nextUp, overflowPolicy, parseBits, roundingMode, seedValue,
} from "./codec.js";
import { typedNumber } from "./decimal_comma.js";
import { visualiseUrl } from "./urls.js";
import { fill } from "./visualiser_fill.js";
import { setAttr, setText } from "./view_slots.js";
import { learn, say } from "./words.js";

const BIT = "[data-bit-grid] [data-bit]";
const views = new WeakMap(); // the section of each visualiser on the page -> its state

const field = (view, name) => view.root.querySelector(`form [name="${name}"]`);

/** What the server works out for the page's query (pages._scalar_page), or {error} with its sentence. */
function model(view) {
  const spec = view.spec.codec;
  const rounding = field(view, "rounding").value, overflow = field(view, "overflow").value;
  const seedBox = field(view, "seed");
  try {
    roundingMode(rounding);
    overflowPolicy(overflow);
    if (rounding === "stochastic" && seedBox.value === "") seedBox.value = freshSeed(); // as the server draws one
    const seed = seedValue(seedBox.value);
    const links = { rounding, overflow, seed, prefix: view.data.prefix, layout: view.spec.layout };
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

const addressOf = (view, m) => visualiseUrl(view.key, { ...m.links, [view.fromBits ? "bits" : "value"]: view.text });

/** Show the view's state; `how` says what the URL does: "push", "replace" or nothing. */
function render(view, how) {
  const root = view.root, m = model(view), error = root.querySelector("[data-error]");
  if (m.error) { // the sentence the server gives, beside the last view that stood
    setText(error, m.error);
    setAttr(error, "role", "alert");
    error.hidden = false;
    announce(view);
    return;
  }
  if (!root.querySelector("[data-stored]")) { // a page refused when it was served has no view to fill yet
    load(view, addressOf(view, m), how);
    return;
  }
  setText(error, "");
  setAttr(error, "lang", null);
  error.hidden = true;
  const focused = document.activeElement?.closest?.(BIT);
  const bit = view.focusBit ?? (focused && root.contains(focused) ? focused.dataset.bit : null);
  roving(root, bit, bit !== null && (view.focusBit !== null || focused)); // before the writes: no layout to redo
  view.focusBit = null;
  fill(view, m);
  view.carried = m.carried;
  syncForm(view);
  pills(view, m);
  announce(view);
  if (how) moved(view, addressOf(view, m), how);
}

/** The address bar follows the view (not in a guide's figure): a new entry, or this one replaced. */
function moved(view, href, how) {
  if (!view.history) return;
  const state = { visualiser: snapshot(view) };
  if (how === "push" && href !== location.pathname + location.search) history.pushState(state, "", href);
  else history.replaceState(state, "", href);
  const title = say("%(name)s visualiser", { name: view.spec.codec.name });
  document.title = `${title} · Precision Lab`;
  document.dispatchEvent(new CustomEvent("visualiser:moved")); // embed.js follows the URL
}

/** Another format's view (or the view of a page the server refused), from the server: its fragment in place of
 * this one's, around the live form, which keeps its focus and what was typed. */
async function load(view, href, how) {
  view.loading?.abort();
  const loading = (view.loading = new AbortController()), typed = field(view, "value").value;
  let next;
  try {
    const response = await fetch(href, { headers: { "HX-Request": "true" }, signal: loading.signal });
    next = new DOMParser().parseFromString(await response.text(), "text/html").querySelector("section[data-format]");
  } catch (error) {
    if (error.name !== "AbortError") location.assign(href); // offline, or the server gone: the browser says so
    return;
  }
  if (view.loading !== loading) return;
  view.loading = null;
  if (!next) return location.assign(href);
  const pill = document.activeElement?.closest?.(".switcher a[data-format]")?.dataset.format;
  swap(view.root, document.adoptNode(next));
  adopt(view, JSON.parse(view.root.querySelector("script[data-visualiser-data]").textContent));
  window.htmx?.process(view.root); // a guide's figure: the links this script leaves to htmx
  if (pill) view.root.querySelector(`.switcher a[data-format="${pill}"]`)?.focus();
  roving(view.root, null, false);
  const box = field(view, "value").value;
  if (box !== typed) { // typed while it loaded
    Object.assign(view, { text: box, fromBits: false });
    return render(view, "replace");
  }
  syncForm(view);
  announce(view);
  if (view.root.querySelector("[data-stored]")) moved(view, href, how ?? "replace");
}

/** The children of `next` in `root`'s place, but for the form: the live one stays, with next's attributes and
 * layout fields (a custom format's). */
function swap(root, next) {
  const form = root.querySelector("form"), fresh = next.querySelector("form");
  for (const { name } of [...form.attributes]) if (!fresh.hasAttribute(name)) form.removeAttribute(name);
  for (const { name, value } of fresh.attributes) form.setAttribute(name, value);
  form.querySelector("[data-layout]")?.remove();
  const layout = fresh.querySelector("[data-layout]");
  if (layout) form.querySelector(".field-value").after(layout);
  const nodes = [...next.childNodes], at = nodes.indexOf(fresh);
  for (const node of [...root.childNodes]) if (node !== form) node.remove();
  form.before(...nodes.slice(0, at));
  form.after(...nodes.slice(at + 1));
  root.dataset.format = next.dataset.format;
}

function syncForm(view) {
  const form = view.root.querySelector("form"), box = form.querySelector("[name=value]");
  if (box.value !== view.text) box.value = view.text;
  box.setAttribute("value", view.text);
  for (const name of ["rounding", "overflow"]) {
    for (const option of form.querySelector(`[name=${name}]`).options) option.defaultSelected = option.selected;
  }
  const seed = form.querySelector("[name=seed]");
  seed.setAttribute("value", seed.value);
}

/** The format pills carry the value to each format, as switcher.format_groups makes them. */
function pills(view, m) {
  const plain = { ...m.links, layout: [], value: m.carried };
  for (const pill of view.root.querySelectorAll(".switcher a[data-format]")) {
    const id = pill.dataset.format;
    const href = visualiseUrl(id, id === "custom" ? { ...plain, layout: view.spec.layout } : plain);
    setAttr(pill, "href", href);
    setAttr(pill, "data-hx-get", href);
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
  const error = view.root.querySelector("[data-error]:not([hidden])"), stored = view.root.querySelector("[data-stored]");
  if (live) {
    live.textContent = error ? error.textContent : stored ? say("Stored value %(stored)s", { stored: stored.textContent })
      : "";
  }
}

/** One bit focusable by Tab (the focused one, else the first), focused again after a redraw when it had focus. */
function roving(root, bit, refocus) {
  const all = [...root.querySelectorAll(BIT)];
  const current = all.find((cell) => cell.dataset.bit === bit) || all[0];
  for (const cell of all) setAttr(cell, "tabindex", cell === current ? 0 : -1);
  if (current && refocus && document.activeElement !== current) current.focus(); // a focus lays the page out
}

/** The view's state from the page's data (visualise.html's JSON block, view_specs.visualiser_data). */
function adopt(view, data) {
  learn(data.words); // the sentences in the page's language
  Object.assign(view, { data, spec: data.spec, key: data.format, text: data.typed, fromBits: data.bits, cells: null,
    carried: null });
  view.layout = layoutOf(view);
}

export function init(root) {
  const script = root.querySelector("script[data-visualiser-data]");
  if (views.has(root) || !script) return;
  const view = { root, focusBit: null, history: !root.closest("[data-figure]"), loading: null };
  adopt(view, JSON.parse(script.textContent));
  views.set(root, view);
  // a seed the server drew for stochastic rounding goes into the address, so that a reload keeps it
  const seeded = root.querySelector("[data-seed-link]")?.getAttribute("href") ?? location.href;
  if (view.history) history.replaceState({ ...history.state, visualiser: snapshot(view) }, "", seeded);
}

export const viewOf = (node) => (node instanceof Element ? views.get(node.closest("section[data-format]")) : undefined);
export const bitOf = (node) => (node instanceof Element ? node.closest(BIT) : null);

/** Flip one bit of the pattern shown (or set it to `value`): the state becomes that pattern. */
export function flip(view, cell, value) {
  const shown = view.root.querySelector("[data-bits]").textContent, bits = view.spec.codec.bits;
  const mask = 1n << BigInt(cell.dataset.bit), current = BigInt(shown);
  const next = value === undefined ? current ^ mask : value ? current | mask : current & ~mask;
  Object.assign(view, { text: `0x${next.toString(16).padStart((bits + 3) >> 2, "0")}`, fromBits: true });
}

// A layout changed in the custom format's form is the server's to check: that submit goes to the server.
const layoutOf = (view) => [...view.root.querySelectorAll("[data-layout] [name]")].map((el) => el.value).join();
export const layoutEdited = (view) => layoutOf(view) !== view.layout;

/** The pattern a neighbour button steps to. */
export function step(view, which) {
  const shown = decode(view.spec.codec, BigInt(view.root.querySelector("[data-bits]").textContent));
  return (which === "next-up" ? nextUp : nextDown)(shown);
}

export { BIT, field, load, render, roving, views };
