// Playback of a run on the /train page. The server trains at full speed and the page receives steps as fast as
// they come; the player decides which step is shown: it plays them at a chosen number of steps a second, pauses,
// steps one at a time and seeks (the scrubber). With prefers-reduced-motion it does not animate on its own: it
// shows the last step received, and plays only when asked to.
//
// Keys, outside the form's fields: k or Space play and pause; "," and "." (or the left and right arrows) step.

import { say } from "./words.js";

const MAX_FRAME_MS = 250; // a longer gap between frames (a busy machine) counts as this much

const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");

export class Player {
  // root: the element with the playback controls; show(step): draws that step; announce(text): says it.
  constructor(root, { show, announce }) {
    this.root = root;
    this.showStep = show;
    this.announce = announce;
    this.play$ = root.querySelector("[data-playback-action=play]");
    this.back$ = root.querySelector("[data-playback-action=back]");
    this.forward$ = root.querySelector("[data-playback-action=forward]");
    this.speed$ = root.querySelector("[data-speed]");
    this.scrub$ = root.querySelector("[data-scrub]");
    this.total = 0; // the run's steps
    this.received = 0; // steps the page has
    this.position = 0; // the step shown, with the fraction of the next one that has played
    this.shown = -1;
    this.playing = false;
    this.follow = false; // show each step as it arrives (reduced motion)
    this.frame = 0;
    this.last = 0;
    this.pending = false;
    this.play$.addEventListener("click", () => this.toggle(true));
    this.back$.addEventListener("click", () => this.stepBy(-1, true));
    this.forward$.addEventListener("click", () => this.stepBy(1, true));
    this.speed$.addEventListener("change", () => {
      this.announce(say("Speed: %(speed)s steps a second.", { speed: this.speed }));
    });
    this.scrub$.addEventListener("input", () => this.seek(Number(this.scrub$.value)));
    this.scrub$.addEventListener("change", () => this.announce(this.where()));
    root.player = this;
  }

  get speed() {
    return Number(this.speed$.value);
  }

  // A new run of `total` steps, none received yet: it plays as its steps come, or follows them.
  load(total, { playing = !reducedMotion.matches, at = 0 } = {}) {
    Object.assign(this, { total, received: at, position: at, shown: -1, follow: reducedMotion.matches && !playing });
    this.setPlaying(playing);
    this.render();
  }

  // `count` steps are in (more as a run streams, fewer when a stopped run is cut where it was shown); drawn at
  // the next frame, so that a burst of steps is drawn once.
  receive(count) {
    this.received = count;
    if (this.follow || this.position > count) this.position = count;
    if (!this.pending) {
      this.pending = true;
      requestAnimationFrame(() => {
        this.pending = false;
        this.render();
      });
    }
  }

  // Draw the shown step again (what it shows changed: the run finished, a recipe diverged).
  redraw() {
    this.shown = -1;
    this.render();
  }

  // Pause where the run is shown, and say so; the shown step, for the caller to cut the run there.
  halt() {
    this.setPlaying(false);
    this.follow = false;
    this.render();
    return this.shown;
  }

  toggle(announce) {
    if (this.playing) {
      this.setPlaying(false);
    } else {
      if (this.position >= this.total) this.position = 0; // play a finished run again from its start
      this.follow = false;
      this.setPlaying(true);
    }
    this.render();
    if (announce) {
      this.announce(this.playing ? say("Playing at %(speed)s steps a second.", { speed: this.speed })
        : say("Paused. %(where)s", { where: this.where() }));
    }
  }

  stepBy(delta, announce) {
    this.setPlaying(false);
    this.follow = false;
    this.position = Math.min(Math.max(Math.floor(this.position) + delta, 0), this.received);
    this.render();
    if (announce) this.announce(this.where());
  }

  seek(step) {
    this.setPlaying(false);
    this.follow = false;
    this.position = Math.min(Math.max(Math.round(step), 0), this.received);
    this.render();
  }

  // Play `ms` milliseconds at the chosen speed: what each animation frame does while playing (and what a test
  // does, through the element's `player`, without a clock).
  advance(ms) {
    this.position = Math.min(this.position + (this.speed * ms) / 1000, this.received);
    const ended = this.playing && this.position >= this.total && this.total > 0;
    if (ended) this.setPlaying(false);
    this.render();
    if (ended) this.announce(say("Played to the end. %(where)s", { where: this.where() }));
  }

  setPlaying(playing) {
    this.playing = playing;
    this.play$.textContent = playing ? say("Pause") : say("Play");
    this.root.dataset.playback = playing ? "playing" : "paused";
    cancelAnimationFrame(this.frame);
    if (playing) {
      this.last = performance.now();
      const tick = (now) => {
        this.frame = requestAnimationFrame(tick);
        this.advance(Math.min(now - this.last, MAX_FRAME_MS));
        this.last = now;
      };
      this.frame = requestAnimationFrame(tick);
    }
  }

  where() {
    return say("Step %(step)s of %(steps)s.", { step: this.shown, steps: this.total });
  }

  render() {
    const shown = Math.floor(this.position);
    this.back$.disabled = shown <= 0;
    this.forward$.disabled = shown >= this.received;
    this.play$.disabled = this.total === 0;
    this.scrub$.max = String(this.total);
    this.scrub$.value = String(shown);
    this.scrub$.disabled = this.received === 0;
    this.scrub$.setAttribute("aria-valuetext", say("Step %(step)s of %(steps)s", { step: shown, steps: this.total }));
    if (shown !== this.shown) {
      this.shown = shown;
      this.showStep(shown);
    }
  }

  // The keys, on the whole page while a run is on it: not in a field, nor Space on a button or link.
  listen(active) {
    document.addEventListener("keydown", (event) => {
      if (!active() || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
      const target = event.target;
      if (target.closest?.("input, select, textarea, [contenteditable]:not([contenteditable=false])")) return;
      const key = event.key;
      if (key === " " && target.closest?.("button, a, summary")) return;
      if (key === "k" || key === "K" || key === " ") this.toggle(true);
      else if (key === "," || key === "ArrowLeft") this.stepBy(-1, true);
      else if (key === "." || key === "ArrowRight") this.stepBy(1, true);
      else return;
      event.preventDefault();
    });
  }
}
