// The Embed button of an embeddable page. The page's state lives in its URL, which htmx and train.js change as
// the person works, so the snippet's iframe src (and, in a frame, the "Open in Precision Lab" link) is derived
// from location on every change; Copy puts the snippet on the clipboard, or selects it where that is refused.

const EMBED = "/embed";
const SRC = /src="([^"]*)"/; // the iframe's first attribute in the server's snippet
const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" }; // as Python's html.escape

const state = { copied: "" }; // what the status line says after a copy

// The full page's path and query of the current state, whether this page is the full one or the framed one.
function fullPage() {
  const path = location.pathname.startsWith(`${EMBED}/`) ? location.pathname.slice(EMBED.length) : location.pathname;
  return path + location.search;
}

function render() {
  // queried each time: htmx restoring history puts new elements in place
  const snippet = document.querySelector("[data-embed-snippet]");
  if (!snippet) return;
  // edited as text: parsing the snippet would apply its style attribute, which this page's CSP refuses
  const text = snippet.textContent;
  const src = new URL(EMBED + fullPage(), new URL(text.match(SRC)[1]).origin).href;
  const next = text.replace(SRC, () => `src="${src.replace(/[&<>"']/g, (c) => ESCAPES[c])}"`);
  if (next !== text) snippet.textContent = next; // only then: rewriting it would drop a selection to copy by hand
  const open = document.querySelector("[data-open-full]");
  if (open) open.setAttribute("href", fullPage());
  document.querySelector("[data-embed-copy]").hidden = false;
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
  // where neither worked, the selection is there to copy by hand
  state.copied = copied ? "Copied." : "Selected: press Ctrl+C (⌘C on a Mac) to copy.";
  render();
}

function changed() {
  state.copied = "";
  render();
}

document.addEventListener("click", (event) => {
  if (event.target instanceof Element && event.target.closest("[data-embed-copy]")) copy();
});
// `toggle` does not bubble, hence the capture; `input` reaches the document after train.js has moved the URL
document.addEventListener("toggle", changed, true);
const CHANGES = ["input", "change", "submit", "htmx:pushedIntoHistory", "htmx:historyRestore", "htmx:afterSettle"];
for (const name of CHANGES) document.addEventListener(name, changed);
window.addEventListener("popstate", changed);
render();
