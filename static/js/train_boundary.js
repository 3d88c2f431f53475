// The decision boundary as the model trains: its prediction on a grid over the inputs, one small canvas per
// recipe, a colour per class (or, for regression, from one colour through the background to another). The server
// predicts the grid at each gradient-histogram snapshot; the page draws the last one at or before the step shown.

import { proseNumber, say } from "./words.js";

const CLASS_COLOURS = ["--exponent", "--sign", "--mantissa"];

function colour(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

// `extent`: the largest |value| a regression's colours reach full strength at.
function paint(canvas, values, regression, extent) {
  const rows = values.length;
  const columns = values[0].length;
  canvas.width = columns;
  canvas.height = rows;
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, columns, rows);
  const classes = CLASS_COLOURS.map(colour);
  values.forEach((row, j) => {
    row.forEach((value, i) => {
      if (value == null) return;
      if (regression) {
        ctx.fillStyle = value < 0 ? classes[0] : classes[1];
        ctx.globalAlpha = Math.min(1, Math.abs(value) / extent);
      } else {
        ctx.fillStyle = classes[value % classes.length];
        ctx.globalAlpha = 1;
      }
      ctx.fillRect(i, rows - 1 - j, 1, 1); // the grid's first row is the lowest y
    });
  });
}

// One figure per recipe, made at the start of a run; drawn at each snapshot by drawBoundaries.
export function makeBoundaries(root, start) {
  root.replaceChildren();
  delete root.dataset.drawnStep; // what drawBoundaries last drew
  delete root.dataset.drawnSnapshots;
  for (const [id, info] of Object.entries(start.recipes)) {
    const figure = document.createElement("figure");
    figure.className = "boundary";
    figure.dataset.boundary = id;
    const canvas = document.createElement("canvas");
    canvas.setAttribute("role", "img");
    const name = say(info.name);
    canvas.setAttribute("aria-label", name);
    const caption = document.createElement("figcaption");
    const note = document.createElement("small");
    note.dataset.boundaryStep = "";
    note.textContent = say("Drawn at the first snapshot, after a few steps.");
    note.dataset.waiting = note.textContent;
    const test = document.createElement("small");
    test.dataset.boundaryTest = "";
    caption.append(name, note, test);
    figure.append(canvas, caption);
    root.append(figure);
  }
}

function testNote(final) {
  if (final.test_accuracy != null) {
    return say("test accuracy ≈%(value)s%%", { value: proseNumber((100 * final.test_accuracy).toFixed(1)) });
  }
  if (final.test_loss == null) return say("test loss not finite");
  return say("test loss ≈%(value)s", { value: proseNumber(final.test_loss.toPrecision(3)) });
}

// The last snapshot at or before `step` ({step, grids}, in step order, from the step events' decision_grids);
// `regression`: whether the grids hold values rather than classes; `done`: the run's done event, or null. At the
// run's last step the trained model's test numbers are added; before the first snapshot the figures say when
// it comes.
export function drawBoundaries(root, start, snapshots, step, { regression, done }) {
  let shown = null;
  for (const snapshot of snapshots) {
    if (snapshot.step > step) break;
    shown = snapshot;
  }
  const final = Boolean(done) && shown?.step === start.config.steps;
  const key = `${shown?.step ?? 0} ${final}`;
  if (root.dataset.drawnStep === key && root.dataset.drawnSnapshots === String(snapshots.length)) return;
  root.dataset.drawnStep = key;
  root.dataset.drawnSnapshots = String(snapshots.length);
  // a regression's colours keep one scale over every snapshot so far, so that a surface is seen to grow
  let extent = 1e-9;
  if (regression) {
    for (const { grids } of snapshots) {
      for (const values of Object.values(grids)) {
        for (const row of values) for (const v of row) if (v != null) extent = Math.max(extent, Math.abs(v));
      }
    }
  }
  const over = (slots) => (regression ? say("%(name)s: predicted value over the input plane at step %(step)s", slots)
    : say("%(name)s: predicted class over the input plane at step %(step)s", slots));
  for (const [id, info] of Object.entries(start.recipes)) {
    const figure = root.querySelector(`[data-boundary="${id}"]`);
    const canvas = figure.querySelector("canvas");
    const note = figure.querySelector("[data-boundary-step]");
    figure.querySelector("[data-boundary-test]").textContent = final ? testNote(done.recipes[id]) : "";
    if (!shown) {
      canvas.width = canvas.height = 1;
      canvas.getContext("2d").clearRect(0, 0, 1, 1);
      canvas.setAttribute("aria-label", say(info.name));
      note.textContent = note.dataset.waiting;
      continue;
    }
    paint(canvas, shown.grids[id], regression, extent);
    canvas.setAttribute("aria-label", over({ name: say(info.name), step: shown.step }));
    note.textContent = say("At step %(step)s", { step: shown.step });
  }
  root.dataset.shownStep = String(shown?.step ?? 0); // the snapshot drawn, for a test to read
}
