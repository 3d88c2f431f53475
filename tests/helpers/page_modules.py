"""A page's own script module, run inside the page: for tests that hold a script's rule to the server's."""

from __future__ import annotations

from playwright.sync_api import Page


def applied(page: Page, module: str, export: str, texts: list[str]) -> list[list[str]]:
    """static/js/`module`'s `export` applied to each of `texts` in the page, as `export(text, true)` and then as
    `export(text, false)` (a page that writes a decimal comma, and one that does not); the module is loaded from
    where the page loads its scripts (its source module: languages.js may be a bundle)."""
    return page.evaluate("""async ([url, name, texts]) => {
      const rule = (await import(url))[name];
      return [texts.map((t) => rule(t, true)), texts.map((t) => rule(t, false))];
    }""", [module_url(page, module), export, texts])


def module_url(page: Page, module: str) -> str:
    """Where the page loads static/js/`module` from: beside its languages.js (a bundle or its source), the source."""
    return str(page.evaluate("document.querySelector('script[src*=\"languages.js\"]').src"
                             f".replace(/\\/(bundle|js)\\/languages\\.js$/, '/js/' + {module!r})"))
