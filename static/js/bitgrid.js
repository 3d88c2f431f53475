// Keyboard handling of the bit grid: arrows move between bits, Space flips one (Enter is the link's own),
// and after htmx swaps in the new pattern, focus returns to the same bit and the result is announced.

const state = { bit: null, refocus: false };

const STEPS = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };

function cells() {
  return [...document.querySelectorAll("[data-bit-grid] [data-bit]")];
}

function announcement() {
  const stored = document.querySelector("[data-stored]");
  if (stored) return `Stored value ${stored.textContent}`;
  const error = document.querySelector("#visualiser [data-error]");
  return error ? error.textContent : "";
}

function render() {
  const all = cells();
  const current = all.find((cell) => cell.dataset.bit === state.bit) || all[0];
  for (const cell of all) cell.tabIndex = cell === current ? 0 : -1;
  if (current && state.refocus) current.focus();
  state.refocus = false;
  const live = document.querySelector("[data-announce]");
  if (live) live.textContent = announcement();
}

function cellOf(target) {
  return target instanceof Element ? target.closest("[data-bit-grid] [data-bit]") : null;
}

function target(all, index, key) {
  if (key in STEPS) return all[Math.min(Math.max(index + STEPS[key], 0), all.length - 1)];
  if (key === "Home") return all[0];
  if (key === "End") return all[all.length - 1];
  return null;
}

document.addEventListener("keydown", (event) => {
  const cell = cellOf(event.target);
  if (!cell || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === " ") {
    event.preventDefault();
    cell.click();
    return;
  }
  const all = cells();
  const next = target(all, all.indexOf(cell), event.key);
  if (!next) return;
  event.preventDefault();
  Object.assign(state, { bit: next.dataset.bit, refocus: true });
  render();
});

document.addEventListener("click", (event) => {
  const cell = cellOf(event.target);
  if (cell) Object.assign(state, { bit: cell.dataset.bit, refocus: true });
});

document.addEventListener("htmx:afterSettle", render);

render();
