// "Take it home" (templates/_train_script.html): the download links and the script shown follow the form, as the
// URL does. The server writes every script; this builds the links' queries and fetches the first recipe's script.

import { englishPage, say } from "./words.js"; // the page's words, which train.js learns before any event

const section = document.querySelector("[data-take-home]");
const form = document.querySelector("[data-train-form]");
const download = `${form.getAttribute("action")}/script.py`; // under /embed/ in a frame
const list = section.querySelector("[data-script-links]");
const view = section.querySelector("[data-script-view]");
const message = section.querySelector("[data-script-message]");
const recipes = JSON.parse(section.querySelector("[data-script-recipes]").textContent); // id: {name, filename}
const OTHER = new Set(["recipe", "params", "run"]); // not the run's settings

// The form's settings and, apart, its recipes; then one recipe's query.
function chosen() {
  const settings = new URLSearchParams();
  const ids = [];
  for (const [name, value] of new FormData(form)) {
    if (value === "") continue;
    if (name === "recipe") ids.push(value);
    else if (!OTHER.has(name)) settings.append(name, value);
  }
  return { settings, ids: ids.filter((id) => id in recipes) };
}
function query(settings, id) {
  const params = new URLSearchParams(settings);
  params.append("recipe", id);
  return params.toString();
}

function link(settings, id) {
  const item = document.createElement("li");
  const anchor = item.appendChild(document.createElement("a"));
  Object.assign(anchor, { href: `${download}?${query(settings, id)}`, download: recipes[id].filename });
  anchor.dataset.scriptLink = id;
  const key = anchor.appendChild(document.createElement("span"));
  key.className = "recipe-key";
  key.setAttribute("aria-hidden", "true");
  key.dataset.recipe = id;
  anchor.append(recipes[id].name);
  const file = item.appendChild(document.createElement("small"));
  Object.assign(file, { className: "num", textContent: recipes[id].filename });
  return item;
}

// english: the text is the server's sentence (a refusal), in English on every page
function show(ok, text = "", english = false) {
  list.hidden = view.hidden = !ok;
  message.textContent = text;
  if (english && !englishPage()) message.lang = "en";
  else message.removeAttribute("lang");
}

const first = chosen();
let shown = view.hidden || !first.ids.length ? null : query(first.settings, first.ids[0]); // the server's
let asked = 0;

async function update() {
  const { settings, ids } = chosen();
  list.replaceChildren(...ids.map((id) => link(settings, id)));
  if (!ids.length) return show(false, say("Choose a recipe above to get its script."));
  const wanted = query(settings, ids[0]);
  if (wanted === shown) return show(true);
  const ticket = ++asked;
  try {
    const response = await fetch(`/train/script.json?${wanted}`);
    const body = await response.json();
    if (ticket !== asked) return;
    if (!response.ok) return show(false, body.detail, true);
    section.querySelector("[data-script-code]").textContent = body.script;
    section.querySelector("[data-script-name]").textContent = recipes[body.recipe]?.name ?? body.name;
    shown = wanted;
    show(true);
  } catch {
    if (ticket === asked) {
      message.textContent = say("The script could not be fetched just now; its links still work.");
      message.removeAttribute("lang");
    }
  }
}

let timer = 0;
const later = () => {
  clearTimeout(timer);
  timer = setTimeout(update, 300);
};
form.addEventListener("input", later);
form.addEventListener("change", later);
// The scenario links fill the form without an input event (train.js).
for (const scenario of document.querySelectorAll("[data-scenario-link]")) scenario.addEventListener("click", later);
