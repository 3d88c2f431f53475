// The language switcher follows the address: a page whose script moves the URL (history.replaceState/pushState:
// the visualiser, the comparison, the block view, the training demo) keeps its switcher's links on the same
// path and query under each language's prefix, as the server made them (languages.switch_links), so that
// switching language keeps what is on screen. Without JavaScript the server's links are already right.

import { switchHref } from "./locale_links.js";

function update() {
  for (const nav of document.querySelectorAll("[data-language-switch], [data-translation-note]")) {
    const here = nav.dataset.languagePrefix || "";
    for (const link of nav.querySelectorAll("a[data-language-link]")) {
      const href = switchHref(location.pathname, location.search, here, link.dataset.languagePrefix || "",
        link.dataset.languageLink);
      if (href !== null && link.getAttribute("href") !== href) link.setAttribute("href", href);
    }
  }
}

// The same events embed.js follows the URL by, after the page's own handlers have moved it; and the moment a
// link is about to be used (pointer, focus, context menu), so that the address read is the latest.
const CHANGES = ["input", "change", "submit", "htmx:pushedIntoHistory", "htmx:historyRestore", "htmx:afterSettle",
  "visualiser:moved"];
for (const name of CHANGES) document.addEventListener(name, () => setTimeout(update, 0));
window.addEventListener("popstate", update);
document.addEventListener("language:moved", update); // for a script that moves the URL on no event above
for (const name of ["pointerdown", "focusin", "contextmenu", "mouseover"]) {
  document.addEventListener(name, (event) => {
    if (event.target instanceof Element && event.target.closest("[data-language-switch], [data-translation-note]")) {
      update();
    }
  });
}
update();
