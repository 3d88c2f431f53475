// The training page's form: the settings as a query, the key of the run they make, a scenario's defaults put in
// the form, the scenario links, and the memory table brought in step with the settings (the server's own table for
// them, fetched a moment after the last change). train.js holds the run; this holds what the form says.

const MEMORY_DELAY_MS = 300;

export const form = document.querySelector("[data-train-form]");
export const page = form.getAttribute("action"); // /train, or /embed/train in a frame

let memoryTimer = 0;
let memoryFetch = null; // the memory table's request in flight, called off by a newer one

/** The settings that make a run: the form without the memory table's model size. */
export function runKey(params) {
  const key = new URLSearchParams(params);
  key.delete("params");
  key.delete("run");
  return key.toString();
}

/** The form as a query, its empty fields left out. */
export function query() {
  const params = new URLSearchParams();
  for (const [name, value] of new FormData(form)) if (value !== "") params.append(name, value);
  return params;
}

/** Put a scenario's defaults (its <option>'s data) in the form, with its title and explanation. */
export function applyScenario(option) {
  for (const [name, value] of Object.entries(JSON.parse(option.dataset.defaults))) {
    if (name === "recipe") {
      for (const box of form.querySelectorAll("[name=recipe]")) box.checked = value.includes(box.value);
    } else {
      form.elements.namedItem(name).value = value;
    }
  }
  document.querySelector("[data-scenario-title]").textContent = option.dataset.title;
  document.querySelector("[data-explanation]").textContent = option.dataset.explanation;
  for (const link of document.querySelectorAll("[data-scenario-link]")) {
    if (link.dataset.scenarioLink === option.value) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

/** The scenario links load a scenario's settings into the form, as the Scenario list does (without JavaScript
 * they open its page); `changed` runs after. */
export function followScenarioLinks(changed) {
  for (const link of document.querySelectorAll("[data-scenario-link]")) {
    link.addEventListener("click", (event) => {
      if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      const select = form.elements.namedItem("scenario");
      select.value = link.dataset.scenarioLink;
      applyScenario(select.selectedOptions[0]);
      changed();
    });
  }
}

/** The server's page for these settings, its memory table put in place, a moment after the last change. */
export function refreshMemory() {
  clearTimeout(memoryTimer);
  memoryTimer = setTimeout(async () => {
    memoryFetch?.abort();
    memoryFetch = new AbortController();
    try {
      const response = await fetch(`${page}?${query()}`, { signal: memoryFetch.signal });
      if (!response.ok && response.status !== 422) return; // as htmx's responseHandling (base.html): no swap
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html").querySelector("#train-memory");
      if (fresh) document.querySelector("#train-memory")?.replaceWith(document.adoptNode(fresh));
    } catch (error) {
      if (error.name !== "AbortError") throw error;
    }
  }, MEMORY_DELAY_MS);
}
