// The trained model's decision boundary: its prediction on a grid over the inputs, one small canvas per
// recipe, a colour per class (or, for regression, from one colour through the background to another).

const CLASS_COLOURS = ["--exponent", "--sign", "--mantissa"];

function colour(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

function paint(canvas, grid, regression) {
  const rows = grid.values.length;
  const columns = grid.values[0].length;
  canvas.width = columns;
  canvas.height = rows;
  const ctx = canvas.getContext("2d");
  const classes = CLASS_COLOURS.map(colour);
  const finite = grid.values.flat().filter((v) => v != null);
  const extent = Math.max(1e-9, ...finite.map(Math.abs));
  grid.values.forEach((row, j) => {
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

export function drawBoundaries(root, start, done) {
  root.replaceChildren();
  for (const [id, final] of Object.entries(done.recipes)) {
    const regression = final.test_accuracy == null; // a regression has a loss but no accuracy
    const figure = document.createElement("figure");
    figure.className = "boundary";
    figure.dataset.boundary = id;
    const canvas = document.createElement("canvas");
    const what = regression ? "predicted value" : "predicted class";
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", `${start.recipes[id].name}: ${what} over the input plane`);
    paint(canvas, final.decision_grid, regression);
    const caption = document.createElement("figcaption");
    const note = document.createElement("small");
    note.textContent = final.test_accuracy == null
      ? `test loss ${final.test_loss == null ? "not finite" : `≈${final.test_loss.toPrecision(3)}`}`
      : `test accuracy ≈${(100 * final.test_accuracy).toFixed(1)}%`;
    caption.append(start.recipes[id].name, note);
    figure.append(canvas, caption);
    root.append(figure);
  }
}
