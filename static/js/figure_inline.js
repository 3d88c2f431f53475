// Figures borrowed from other pages keep the reader in the guide: a visualiser loaded into a guide brings its
// own data-hx-push-url="true", which would replace the guide's address at the first flipped bit. A figure that
// needs a page's script names it (data-figure-module), and it is loaded with the figure, when the reader gets there.

document.addEventListener("htmx:load", (event) => {
  const loaded = event.target;
  if (!(loaded instanceof Element) || !loaded.closest("[data-figure]")) return;
  const pushing = [loaded, ...loaded.querySelectorAll("[data-hx-push-url]")].filter((el) => el.hasAttribute("data-hx-push-url"));
  for (const el of pushing) el.setAttribute("data-hx-push-url", "false");
  const module = loaded.closest("[data-figure-module]")?.dataset.figureModule;
  if (module) import(module); // it finds the figure's view on the page when it starts (and later ones as they load)
});
