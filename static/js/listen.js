// The Listen button: reads the guide aloud with the browser's own speech synthesis, so the server does nothing.
// One state object and one render. Without the API, or without JavaScript, the controls stay hidden.
// Each passage is spoken in its own language (the nearest lang attribute: the page's, or en on a passage not yet
// translated), with a voice of that language; where the browser lists voices but none of it, Listen says so
// instead of reading with a voice of another language. Its words come from the page (data-text-*, translated).

const controls = document.querySelector("[data-listen]");
const synth = window.speechSynthesis;
const READABLE = "h2, h3, p, li, figcaption";
const SKIPPED = "[data-figure] > :not(figcaption), nav, table";
// The English words, each replaced by the page's data-text-<name> (data-text-no-voice for noVoice)
const TEXT = Object.fromEntries(Object.entries({
  listen: "Listen", pause: "Pause", resume: "Resume", reading: "Reading aloud.", paused: "Paused.",
  failed: "Your browser could not read aloud (it may have no voice installed).",
  noVoice: "Your browser has no voice for {language}, so it cannot read this page aloud.",
}).map(([name, english]) => {
  const key = `text${name[0].toUpperCase()}${name.slice(1)}`;
  return [name, controls?.dataset[key] || english];
}));
const LABELS = { idle: TEXT.listen, speaking: TEXT.pause, paused: TEXT.resume };
const STATUS = { idle: "", speaking: TEXT.reading, paused: TEXT.paused };

const state = { status: "idle", run: 0, message: "" }; // status: idle | speaking | paused

// The guide's text in reading order, one piece per heading, paragraph or list item, each with its language.
function pieces() {
  const source = document.querySelector("[data-listen-source]");
  const title = document.querySelector("[data-listen-title]");
  const parts = [...source.querySelectorAll(READABLE)].filter(
    (el) => !el.closest(SKIPPED) && !el.parentElement.closest(READABLE),
  );
  return [title, ...parts]
    .map((el) => ({ text: el.textContent.replace(/\s+/g, " ").trim(), lang: languageOf(el) }))
    .filter((piece) => piece.text);
}

function languageOf(el) {
  return (el.closest("[lang]")?.getAttribute("lang") || "en").toLowerCase();
}

// A voice of `lang` (tr matches tr-TR and tr_TR), or null; undefined while the browser lists no voice at all,
// as headless browsers and some others do until they have loaded them: then the browser chooses.
export function voiceFor(voices, lang) {
  if (!voices.length) return undefined;
  const wanted = lang.toLowerCase();
  const fits = (voice) => {
    const code = (voice.lang || "").toLowerCase().replace(/_/g, "-");
    return code === wanted || code.startsWith(`${wanted}-`);
  };
  return voices.find((voice) => fits(voice) && voice.localService) || voices.find(fits) || null;
}

function languageName(lang) {
  try {
    const page = document.documentElement.lang || "en";
    return new Intl.DisplayNames([page], { type: "language" }).of(lang) || lang;
  } catch {
    return lang;
  }
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
  const voices = synth.getVoices();
  const missing = texts.find((piece) => voiceFor(voices, piece.lang) === null);
  if (missing) {
    set({ status: "idle", run, message: TEXT.noVoice.replace("{language}", languageName(missing.lang)) });
    return;
  }
  texts.forEach(({ text, lang }, index) => {
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = lang;
    const voice = voiceFor(voices, lang);
    if (voice) utterance.voice = voice;
    utterance.addEventListener("error", (event) => {
      // cancel() interrupts the queue on purpose; any other error means this browser cannot speak
      if (run !== state.run || event.error === "interrupted" || event.error === "canceled") return;
      synth.cancel();
      set({ status: "idle", message: TEXT.failed });
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
