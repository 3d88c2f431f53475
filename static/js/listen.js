// The Listen button: reads the guide aloud with the browser's own speech synthesis, so the server does nothing.
// One state object and one render. Without the API, or without JavaScript, the controls stay hidden.

const controls = document.querySelector("[data-listen]");
const synth = window.speechSynthesis;
const READABLE = "h2, h3, p, li, figcaption";
const SKIPPED = "[data-figure] > :not(figcaption), nav, table";
const LABELS = { idle: "Listen", speaking: "Pause", paused: "Resume" };
const STATUS = { idle: "", speaking: "Reading aloud.", paused: "Paused." };

const state = { status: "idle", run: 0, message: "" }; // status: idle | speaking | paused

// The guide's text in reading order, one piece per heading, paragraph or list item.
function pieces() {
  const source = document.querySelector("[data-listen-source]");
  const title = document.querySelector("[data-listen-title]");
  const parts = [...source.querySelectorAll(READABLE)].filter(
    (el) => !el.closest(SKIPPED) && !el.parentElement.closest(READABLE),
  );
  return [title, ...parts].map((el) => el.textContent.replace(/\s+/g, " ").trim()).filter(Boolean);
}

function render() {
  const toggle = controls.querySelector("[data-listen-toggle]");
  toggle.textContent = LABELS[state.status];
  controls.querySelector("[data-listen-stop]").hidden = state.status === "idle";
  controls.querySelector("[data-listen-status]").textContent = state.message || STATUS[state.status];
}

function set(changes) {
  Object.assign(state, changes);
  render();
}

function start() {
  synth.cancel();
  const run = state.run + 1;
  const texts = pieces();
  texts.forEach((text, index) => {
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = document.documentElement.lang || "en";
    utterance.addEventListener("error", (event) => {
      // cancel() interrupts the queue on purpose; any other error means this browser cannot speak
      if (run !== state.run || event.error === "interrupted" || event.error === "canceled") return;
      synth.cancel();
      set({ status: "idle", message: "Your browser could not read aloud (it may have no voice installed)." });
    });
    if (index === texts.length - 1) {
      utterance.addEventListener("end", () => run === state.run && set({ status: "idle", message: "" }));
    }
    synth.speak(utterance);
  });
  set({ status: "speaking", run, message: "" });
}

function toggle() {
  if (state.status === "idle") start();
  else if (state.status === "speaking") {
    synth.pause();
    set({ status: "paused" });
  } else {
    synth.resume();
    set({ status: "speaking" });
  }
}

function stop() {
  set({ status: "idle", run: state.run + 1, message: "" });
  synth.cancel();
}

if (controls && synth && "SpeechSynthesisUtterance" in window) {
  controls.querySelector("[data-listen-toggle]").addEventListener("click", toggle);
  controls.querySelector("[data-listen-stop]").addEventListener("click", stop);
  window.addEventListener("pagehide", () => synth.cancel());
  controls.hidden = false;
  render();
}
