// Figures borrowed from other pages keep the reader in the guide: a visualiser loaded into a guide brings its
// own data-hx-push-url="true", which would replace the guide's address at the first flipped bit. A figure that
// needs a page's script names it (data-figure-module), and it is loaded with the figure, when the reader gets there;
// so are the page's stylesheets (data-figure-styles), asked for as the figure's request starts, so that they
// arrive with it and a guide's first visit carries only the guide.

document.addEventListener("htmx:beforeRequest", (event) => {
  const styles = event.target instanceof Element && event.target.dataset.figureStyles;
  if (!styles) return;
  const linked = new Set([...document.querySelectorAll('link[rel="stylesheet"]')].map((link) => link.href));
  for (const href of styles.split(" ").filter(Boolean)) {
    const link = Object.assign(document.createElement("link"), { rel: "stylesheet", href });
    if (!linked.has(link.href)) document.head.append(link);
  }
});

document.addEventListener("htmx:load", (event) => {
  const loaded = event.target;
  if (!(loaded instanceof Element) || !loaded.closest("[data-figure]")) return;
  const pushing = [loaded, ...loaded.querySelectorAll("[data-hx-push-url]")].filter((el) => el.hasAttribute("data-hx-push-url"));
  for (const el of pushing) el.setAttribute("data-hx-push-url", "false");
  const module = loaded.closest("[data-figure-module]")?.dataset.figureModule;
  if (module) import(module); // it finds the figure's view on the page when it starts (and later ones as they load)
});
