// Charts of settings that are no longer on the form: dimmed, with a banner that says so and a line in each chart
// legend, until Start is pressed or the form's settings are those of the run shown again.

import { say } from "./words.js";

let marked = false;

export function markStale(stale, announce) {
  document.querySelector("[data-stale-banner]").hidden = !stale;
  const shown = [document.querySelector("[data-live]"), document.querySelector("[data-finished]"),
    document.querySelector("#train-final")];
  for (const element of shown) element?.classList.toggle("is-stale", stale);
  for (const legend of document.querySelectorAll(".chart-legend")) {
    legend.querySelector(".legend-stale")?.remove();
    legend.setAttribute("aria-label", stale ? say("Recipes in the charts, for the previous settings (stale)")
      : say("Recipes in the charts"));
    if (stale) {
      const item = document.createElement("li");
      item.className = "legend-stale";
      item.textContent = say("Stale: previous settings");
      legend.prepend(item);
    }
  }
  if (stale && !marked) {
    announce(say("The charts are stale: they are for the previous settings. Press Start to train with these."));
  }
  marked = stale;
}
