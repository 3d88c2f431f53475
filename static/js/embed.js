// The Embed button of an embeddable page. The page's state lives in its URL, which htmx and train.js change as
// the person works, so the snippet's iframe src (and, in a frame, the "Open in Precision Lab" link) is derived
// from location on every change, its hide flags from the dialog's checkboxes (as the server's form without
// JavaScript sends them: hide=a&hide=b, after the rest of the state); Copy puts the snippet on the clipboard, or
// selects it where that is refused. In a frame, the flags it was opened with stay in its URL when a script
// rewrites the URL from its own form, so that a reload or the snippet keeps them. A framed page also tells its
// course page its height (embed_size.js, imported here so that it costs no request of its own).

import "./embed_size.js";

const EMBED = "/embed";
const HIDE = "hide"; // the query parameter of the hide flags (app/web/embed/hide.py)
const SRC = /src="([^"]*)"/; // the iframe's first attribute in the server's snippet
const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" }; // as Python's html.escape

const state = { copied: "" }; // what the status line says after a copy

// The full page's path and query of the current state, whether this page is the full one or the framed one.
function fullPage() {
  const path = location.pathname.startsWith(`${EMBED}/`) ? location.pathname.slice(EMBED.length) : location.pathname;
  return path + location.search;
}

// The query with its hide flags replaced by `names`, the rest of the state as it was written (not re-encoded).
function withHide(search, names) {
  const kept = search.replace(/^\?/, "").split("&").filter((part) => part && part.split("=")[0] !== HIDE);
  const query = [...kept, ...names.map((name) => `${HIDE}=${encodeURIComponent(name)}`)].join("&");
  return query ? `?${query}` : "";
}

// The flags this framed page was served with (templates/embed/base.html), put back where the URL lost them.
function keepHide() {
  const marked = document.querySelector("[data-hide]")?.dataset.hide.split(" ").filter(Boolean) ?? [];
  const shown = new URLSearchParams(location.search).getAll(HIDE).flatMap((value) => value.split(","));
  if (marked.length && !marked.every((name) => shown.includes(name))) {
    history.replaceState(history.state, "", location.pathname + withHide(location.search, marked) + location.hash);
  }
}

function render() {
  keepHide();
  // queried each time: htmx restoring history puts new elements in place
  const snippet = document.querySelector("[data-embed-snippet]");
  if (!snippet) return;
  const hide = [...document.querySelectorAll("[data-embed-hide-part]:checked")].map((box) => box.value);
  const path = fullPage().split("?")[0];
  // edited as text: parsing the snippet would apply its style attribute, which this page's CSP refuses
  const text = snippet.textContent;
  const src = new URL(EMBED + path + withHide(location.search, hide), new URL(text.match(SRC)[1]).origin).href;
  const next = text.replace(SRC, () => `src="${src.replace(/[&<>"']/g, (c) => ESCAPES[c])}"`);
  if (next !== text) snippet.textContent = next; // only then: rewriting it would drop a selection to copy by hand
  const open = document.querySelector("[data-open-full]");
  if (open) open.setAttribute("href", fullPage());
  document.querySelector("[data-embed-copy]").hidden = false;
  document.querySelector("[data-embed-apply]").hidden = true; // the checkboxes change the snippet as they change
  document.querySelector("[data-embed-status]").textContent = state.copied;
}

// Chromium logs a clipboard refused by the permissions policy as an error, so a frame without it does not ask.
function clipboardAllowed() {
  const policy = document.permissionsPolicy ?? document.featurePolicy; // Chromium's; other browsers have neither
  return Boolean(navigator.clipboard) && (!policy || policy.allowsFeature("clipboard-write"));
}

async function copy() {
  state.copied = "";
  render();
  const snippet = document.querySelector("[data-embed-snippet]");
  snippet.select();
  let copied = false;
  if (clipboardAllowed()) {
    copied = await navigator.clipboard.writeText(snippet.value).then(() => true, () => false);
  } else {
    copied = document.execCommand("copy"); // the older way, open to a frame without clipboard-write
  }
  // where neither worked, the selection is there to copy by hand; the words in the page's language
  // (templates/embed/_share.html)
  const words = document.querySelector("[data-embed-status]").dataset;
  state.copied = copied ? words.copied ?? "Copied." : words.selected ?? "Selected: press Ctrl+C (⌘C on a Mac) to copy.";
  render();
}

function changed() {
  state.copied = "";
  render();
}

document.addEventListener("click", (event) => {
  if (event.target instanceof Element && event.target.closest("[data-embed-copy]")) copy();
});
document.addEventListener("submit", (event) => {
  // the reload is the way without JavaScript; here the snippet has followed the checkboxes already
  if (event.target instanceof Element && event.target.matches("[data-embed-hide]")) event.preventDefault();
});
// `toggle` does not bubble, hence the capture; `input` reaches the document after train.js has moved the URL
document.addEventListener("toggle", changed, true);
const CHANGES = ["input", "change", "submit", "htmx:pushedIntoHistory", "htmx:historyRestore", "htmx:afterSettle",
  "visualiser:moved"]; // visualiser.js moves the URL itself
for (const name of CHANGES) document.addEventListener(name, changed);
window.addEventListener("popstate", changed);
render();
