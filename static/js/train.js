// The training page. The form is the configuration, mirrored in the URL as it changes; Start streams the run
// from /train/stream, and the player (train_player.js) shows its steps at a pace a person can follow; Stop ends
// the stream, and the server stops training. A change of settings marks the charts stale (train_stale.js) until
// Start, or until the settings are those of a run this page has already finished, which is shown again.

import { drawBoundaries, makeBoundaries } from "./train_boundary.js";
import { LiveCharts, loadUPlot } from "./train_charts.js";
import { applyScenario, followScenarioLinks, form, page, query, refreshMemory, runKey } from "./train_form.js";
import { drawHistograms, makeHistograms } from "./train_histogram.js";
import { Player } from "./train_player.js";
import { markStale } from "./train_stale.js";
import "./train_script.js"; // Take it home: its links and script follow the form
import { readEvents } from "./train_stream.js";
import { englishPage, learn, say } from "./words.js";

// The page's words in its language (null on an English page), before anything is said. A recipe's name is said by
// its English name, as the run's events give it; the page's words carry its translation.
learn(JSON.parse(document.querySelector("[data-train-words]").textContent));

const KEPT_RUNS = 8; // finished runs this page keeps, to show again when their settings come back

const $ = (selector) => document.querySelector(selector);
const live = $("[data-live]");

// message: what went wrong; english: whether it is the server's sentence, in English on every page
const state = { status: "idle", step: 0, steps: 0, message: "", english: false };
const STATUS = {
  idle: () => "",
  loading: () => say("Starting…"),
  running: () => say("Training…"),
  stopped: (s) => say("Stopped at step %(step)s of %(steps)s.", { step: s.step, steps: s.steps }),
  done: (s) => say("Done: %(steps)s steps.", { steps: s.steps }),
  error: () => say("The run did not finish."),
};
// The run on the page: { key, query, controller, start, events, snapshots, diverged, done, charts, table, stopped }
let run = null;
const finished = new Map(); // finished runs by key, the most recent last
let drawing = false;

const announce = (text) => {
  $("[data-announce]").textContent = text;
};
const player = new Player($("[data-playback]"), { show: showStep, announce });

// The server's charts of a finished run (the page opened with run=1), or null.
let serverKey = $("[data-finished]") ? runKey(query()) : null;
const shownKey = () => run?.key ?? serverKey;
const isStale = () => shownKey() !== null && shownKey() !== runKey(query());

function syncUrl() {
  const params = query();
  if (!isStale() && (run ? run.done : serverKey !== null)) params.set("run", "1");
  history.replaceState(history.state, "", `${location.pathname}?${params}`);
}

function render() {
  drawing = false;
  const running = state.status === "loading" || state.status === "running";
  const stop = $("[data-action=stop]");
  stop.hidden = false;
  stop.disabled = !running;
  $("[data-status]").textContent = STATUS[state.status](state);
  const progress = $("[data-progress]");
  progress.max = Math.max(state.steps, 1);
  progress.value = run ? run.events.length : 0;
  $("[data-computed]").textContent = say("%(done)s of %(steps)s steps", { done: progress.value, steps: state.steps });
  const error = $("[data-live-error]");
  error.hidden = !state.message;
  error.textContent = state.message;
  if (state.english && !englishPage()) error.lang = "en";
  else error.removeAttribute("lang");
  live.dataset.state = state.status;
}

function schedule() {
  if (!drawing) {
    drawing = true;
    requestAnimationFrame(render);
  }
}

// What step n of the run on the page shows: the charts' first n steps, the histogram and decision boundary
// snapshot up to it, and the recipes that had diverged by then.
function showStep(n) {
  if (!run?.charts) return;
  run.charts.show(n);
  drawHistograms($("[data-histograms]"), run.start, run.snapshots, n);
  // a regression reports a loss and no accuracy
  const regression = run.events.length > 0 && Object.values(run.events[0].recipes)[0].accuracy == null;
  drawBoundaries($("[data-boundaries]"), run.start, run.snapshots, n, { regression, done: run.done });
  $("[data-step]").textContent = say("Step %(step)s of %(steps)s", { step: n, steps: run.start.config.steps });
  const diverged = run.diverged.filter((event) => event.step <= n);
  const list = $("[data-live-diverged]");
  if (list.childElementCount !== diverged.length) {
    list.replaceChildren(...diverged.map((event) => {
      const item = document.createElement("li");
      item.dataset.recipe = event.recipe;
      const name = document.createElement("strong");
      name.textContent = say(run.start.recipes[event.recipe].name);
      if (englishPage()) {
        item.append(name, `: ${event.detail}`);
      } else { // the server's sentence, in English
        const detail = Object.assign(document.createElement("span"), { lang: "en", textContent: event.detail });
        item.append(name, ": ", detail);
      }
      return item;
    }));
  }
}

function legend(start) {
  $("[data-legend]").replaceChildren(
    ...Object.entries(start.recipes).map(([id, info]) => {
      const item = document.createElement("li");
      const key = document.createElement("span");
      key.className = "recipe-key";
      key.dataset.recipe = id;
      key.setAttribute("aria-hidden", "true");
      item.append(key, say(info.name));
      return item;
    }),
  );
}

// Draw a run's start on the page: its charts (empty), legend, histogram figures and scenario.
function begin(current, uPlot) {
  const { start } = current;
  current.charts = new LiveCharts(uPlot, live, start);
  legend(start);
  makeHistograms($("[data-histograms]"), start);
  makeBoundaries($("[data-boundaries]"), start);
  // the scenario's words as the page has them, in its language (the run's events give them in English)
  const option = form.querySelector(`#scenario option[value="${start.scenario.id}"]`);
  $("[data-scenario-title]").textContent = option?.dataset.title ?? start.scenario.title;
  $("[data-explanation]").textContent = option?.dataset.explanation ?? start.scenario.explanation;
  $("[data-idle]").hidden = true;
  $("[data-live-body]").hidden = false;
}

function handle(current, uPlot, event) {
  if (event.type === "start") {
    current.start = event;
    begin(current, uPlot);
    Object.assign(state, { status: "running", steps: event.config.steps });
    player.load(event.config.steps);
  } else if (event.type === "step") {
    current.events.push(event);
    current.charts.append(event);
    if (event.histograms) {
      current.snapshots.push({ step: event.step, histograms: event.histograms, grids: event.decision_grids });
    }
    player.receive(current.events.length);
  } else if (event.type === "done") {
    current.done = event;
    state.status = "done";
    finished.delete(current.key);
    finished.set(current.key, current);
    if (finished.size > KEPT_RUNS) finished.delete(finished.keys().next().value);
    syncUrl();
    loadTable(current);
    player.redraw();
  } else if (event.type === "diverged") {
    current.diverged.push(event);
    player.redraw();
  } else if (event.type === "error") {
    // the server stopped the run (its time limit); its sentence says why
    Object.assign(state, { status: "error", message: event.detail, english: true });
  }
  schedule();
}

// The table of final numbers, from the server, which has just cached this run; kept with the run.
async function loadTable(current) {
  try {
    const response = await fetch(`${page}?${current.query}&run=1`, { headers: { "HX-Request": "true" } });
    const html = new DOMParser().parseFromString(await response.text(), "text/html");
    current.table = html.querySelector("#train-final");
  } catch {
    return; // the charts stand without it
  }
  if (run === current && current.table) showTable(current);
}

function showTable(current) {
  $("#train-final").replaceWith(current.table.cloneNode(true));
  markStale(isStale(), announce);
}

// The server's sentence (English on every page), or what the page can say of its answer.
async function refusal(response) {
  try {
    return { message: (await response.json()).detail, english: true };
  } catch {
    return { message: say("The server answered %(status)s.", { status: response.status }), english: false };
  }
}

function leave() {
  run?.controller?.abort();
  run?.charts?.destroy();
  $("[data-finished]")?.remove(); // the server's charts of an earlier run
  serverKey = null;
  $("#train-final").replaceChildren();
  $("[data-live-diverged]").replaceChildren();
  $("[data-boundaries]").replaceChildren();
  live.hidden = false;
}

async function start() {
  leave();
  const current = { key: runKey(query()), query: query(), controller: new AbortController(), start: null,
    events: [], snapshots: [], diverged: [], done: null, charts: null, table: null, stopped: false };
  run = current;
  Object.assign(state, { status: "loading", step: 0, steps: 0, message: "", english: false });
  syncUrl();
  markStale(false, announce);
  render();
  try {
    const [uPlot, response] = await Promise.all([
      loadUPlot(),
      fetch(`/train/stream?${current.query}`, { signal: current.controller.signal }),
    ]);
    if (!response.ok) {
      Object.assign(state, { status: "error", ...(await refusal(response)) });
    } else {
      for await (const event of readEvents(response)) {
        if (run === current && !current.stopped) handle(current, uPlot, event);
      }
    }
  } catch (error) {
    if (error.name !== "AbortError") Object.assign(state, { status: "error", message: error.message, english: false });
  }
  if (run === current && state.status !== "done" && state.status !== "stopped" && !state.message) {
    const message = say("The connection closed before the run finished.");
    Object.assign(state, { status: "error", message, english: false });
  }
  if (run === current) render();
}

// Stop training; the run ends at the step shown.
function stop() {
  if (run && (state.status === "loading" || state.status === "running")) {
    run.stopped = true;
    run.controller.abort();
    const at = Math.max(player.halt(), 0);
    run.events.length = Math.min(run.events.length, at);
    run.snapshots = run.snapshots.filter((snapshot) => snapshot.step <= at);
    run.diverged = run.diverged.filter((event) => event.step <= at);
    run.charts?.truncate(at);
    player.receive(run.events.length);
    Object.assign(state, { status: "stopped", step: run.events.length });
    render();
  }
}

// A run this page finished, shown again at its last step (its settings are on the form again).
async function showFinished(record) {
  const uPlot = await loadUPlot();
  leave();
  run = record;
  begin(record, uPlot);
  for (const event of record.events) record.charts.append(event);
  Object.assign(state, { status: "done", steps: record.start.config.steps, message: "", english: false });
  player.load(record.start.config.steps, { playing: false, at: record.events.length });
  if (record.table) showTable(record);
  markStale(false, announce);
  syncUrl();
  render();
  announce(say("These settings were trained already: their run is shown, at step %(step)s.",
    { step: record.events.length }));
}

function settingsChanged() {
  const again = finished.get(runKey(query()));
  if (again && again !== run) {
    showFinished(again);
  } else {
    if (isStale() && player.playing) player.halt(); // stale charts stand still, and what is said about them stays
    markStale(isStale(), announce);
  }
  syncUrl();
  refreshMemory();
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  start();
});
form.addEventListener("input", (event) => {
  if (event.target.name === "scenario") applyScenario(event.target.selectedOptions[0]);
  settingsChanged();
});
followScenarioLinks(settingsChanged);
$("[data-action=stop]").addEventListener("click", stop);
player.listen(() => Boolean(run?.charts) && !live.hidden);
live.hidden = serverKey !== null; // the server's charts stand where the live ones would
render();
