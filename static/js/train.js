// The training page. The form is the configuration, mirrored in the URL as it changes; Start streams the run
// from /train/stream and draws each step as it comes; Stop ends the stream, and the server stops training.

import { drawBoundaries } from "./train_boundary.js";
import { LiveCharts, loadUPlot } from "./train_charts.js";
import { drawHistograms, makeHistograms } from "./train_histogram.js";
import { readEvents } from "./train_stream.js";

const MEMORY_DELAY_MS = 300;

const $ = (selector) => document.querySelector(selector);
const form = $("[data-train-form]");
const page = form.getAttribute("action"); // /train, or /embed/train in a frame
const live = $("[data-live]");
const boundaryNote = $("[data-boundaries]").firstElementChild; // "drawn when the run finishes"

const state = { status: "idle", step: 0, steps: 0, message: "" };
const STATUS = {
  idle: () => "",
  loading: () => "Starting…",
  running: () => "Training…",
  stopped: (s) => `Stopped at step ${s.step} of ${s.steps}.`,
  done: (s) => `Done: ${s.steps} steps.`,
  error: () => "The run did not finish.",
};
let run = null; // the current run: { controller, query, start, charts }
let drawing = false;
let memoryTimer = 0;

function render() {
  drawing = false;
  const running = state.status === "loading" || state.status === "running";
  const stop = $("[data-action=stop]");
  stop.hidden = false;
  stop.disabled = !running;
  $("[data-status]").textContent = STATUS[state.status](state);
  const progress = $("[data-progress]");
  progress.max = Math.max(state.steps, 1);
  progress.value = state.step;
  $("[data-step]").textContent = `Step ${state.step} of ${state.steps}`;
  const error = $("[data-live-error]");
  error.hidden = !state.message;
  error.textContent = state.message;
  live.dataset.state = state.status;
}

function schedule() {
  if (!drawing) {
    drawing = true;
    requestAnimationFrame(render);
  }
}

function query() {
  const params = new URLSearchParams();
  for (const [name, value] of new FormData(form)) if (value !== "") params.append(name, value);
  return params;
}

function syncUrl(finished) {
  const params = query();
  if (finished) params.set("run", "1");
  history.replaceState(history.state, "", `${location.pathname}?${params}`);
}

function legend(start) {
  $("[data-legend]").replaceChildren(
    ...Object.entries(start.recipes).map(([id, info]) => {
      const item = document.createElement("li");
      const key = document.createElement("span");
      key.className = "recipe-key";
      key.dataset.recipe = id;
      key.setAttribute("aria-hidden", "true");
      item.append(key, info.name);
      return item;
    }),
  );
}

function handle(current, uPlot, event) {
  if (event.type === "start") {
    current.start = event;
    current.charts = new LiveCharts(uPlot, live, event);
    legend(event);
    makeHistograms($("[data-histograms]"), event);
    $("[data-scenario-title]").textContent = event.scenario.title;
    $("[data-explanation]").textContent = event.scenario.explanation;
    Object.assign(state, { status: "running", steps: event.config.steps });
  } else if (event.type === "step") {
    current.charts.step(event);
    if (event.histograms) drawHistograms($("[data-histograms]"), current.start, event.histograms);
    state.step = event.step;
  } else if (event.type === "done") {
    drawBoundaries($("[data-boundaries]"), current.start, event);
    state.status = "done";
    syncUrl(true);
    // the table of final numbers comes from the server, which has just cached this run
    window.htmx.ajax("GET", `${page}?${current.query}&run=1`, { target: "#train-final", select: "#train-final", swap: "outerHTML" });
  } else if (event.type === "diverged") {
    const item = document.createElement("li");
    item.dataset.recipe = event.recipe;
    const name = document.createElement("strong");
    name.textContent = current.start.recipes[event.recipe].name;
    item.append(name, `: ${event.detail}`);
    $("[data-live-diverged]").append(item);
  } else if (event.type === "error") {
    // the server stopped the run (its time limit); its sentence says why
    Object.assign(state, { status: "error", message: event.detail });
  }
  schedule();
}

async function refusal(response) {
  try {
    return (await response.json()).detail;
  } catch {
    return `The server answered ${response.status}.`;
  }
}

async function start() {
  run?.controller.abort();
  run?.charts?.destroy();
  const current = { controller: new AbortController(), query: query(), start: null, charts: null };
  run = current;
  Object.assign(state, { status: "loading", step: 0, steps: 0, message: "" });
  syncUrl(false);
  $("[data-finished]")?.remove(); // the server's charts of an earlier run
  $("#train-final").replaceChildren();
  $("[data-live-diverged]").replaceChildren();
  $("[data-boundaries]").replaceChildren(boundaryNote);
  live.hidden = false;
  render();
  try {
    const [uPlot, response] = await Promise.all([
      loadUPlot(),
      fetch(`/train/stream?${current.query}`, { signal: current.controller.signal }),
    ]);
    if (!response.ok) {
      Object.assign(state, { status: "error", message: await refusal(response) });
    } else {
      for await (const event of readEvents(response)) if (run === current) handle(current, uPlot, event);
    }
  } catch (error) {
    if (error.name !== "AbortError") Object.assign(state, { status: "error", message: error.message });
  }
  if (run === current && state.status !== "done" && state.status !== "stopped" && !state.message) {
    Object.assign(state, { status: "error", message: "The connection closed before the run finished." });
  }
  render();
}

function stop() {
  if (run && (state.status === "loading" || state.status === "running")) {
    run.controller.abort();
    state.status = "stopped";
    render();
  }
}

function applyScenario(option) {
  for (const [name, value] of Object.entries(JSON.parse(option.dataset.defaults))) {
    if (name === "recipe") {
      for (const box of form.querySelectorAll("[name=recipe]")) box.checked = value.includes(box.value);
    } else {
      form.elements.namedItem(name).value = value;
    }
  }
  $("[data-scenario-title]").textContent = option.dataset.title;
  $("[data-explanation]").textContent = option.dataset.explanation;
  for (const link of document.querySelectorAll("[data-scenario-link]")) {
    if (link.dataset.scenarioLink === option.value) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

function refreshMemory() {
  clearTimeout(memoryTimer);
  memoryTimer = setTimeout(() => {
    window.htmx.ajax("GET", `${page}?${query()}`, { target: "#train-memory", select: "#train-memory", swap: "outerHTML" });
  }, MEMORY_DELAY_MS);
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  start();
});
form.addEventListener("input", (event) => {
  if (event.target.name === "scenario") applyScenario(event.target.selectedOptions[0]);
  syncUrl(false);
  refreshMemory();
});
$("[data-action=stop]").addEventListener("click", stop);
render();
