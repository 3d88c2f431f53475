// A framed page's half of the height protocol: whenever its content's height changes (at load, as it lays out at
// the frame's width, after a run, when the Embed panel opens), it posts {type: "precision-lab:height", height, id}
// to the page framing it, which the host script of the Embed snippet (app/web/embed/pages.py `host_script`) takes
// to set the frame's height; `id` is the frame's name where the course page gave it one. Heights are not secret,
// so any parent may read them ("*"); the host checks the message's origin and source.

const TYPE = "precision-lab:height";
const PANEL_GAP = 8; // px below an open Embed panel, which floats over the page and so is outside its height

let sent = 0;

function contentHeight() {
  // the root's box, not its scrollHeight: that is never less than the frame, so a frame could never shrink
  let height = document.documentElement.getBoundingClientRect().height;
  for (const panel of document.querySelectorAll("[data-embed][open] .embed-panel")) {
    height = Math.max(height, panel.getBoundingClientRect().bottom + window.scrollY + PANEL_GAP);
  }
  return Math.ceil(height);
}

function send() {
  const height = contentHeight();
  if (height === sent) return; // only changes: the host's resize of the frame comes back here as one
  sent = height;
  window.parent.postMessage({ type: TYPE, height, id: window.name || null }, "*");
}

if (window.parent !== window) {
  const observer = new ResizeObserver(send);
  observer.observe(document.documentElement);
  // the panel is out of the flow: watched itself (it is laid out only while its details is open)
  for (const panel of document.querySelectorAll(".embed-panel")) observer.observe(panel);
  document.addEventListener("toggle", send, true);
}
