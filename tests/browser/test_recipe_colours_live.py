"""In Chromium, every recipe's chart colour and dash, as train_charts.js reads them from the stylesheet, are the
recipe registry's, on light and on dark pages."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from app.training import RECIPES

# what train_charts.js's recipeStyle does: a probe with data-recipe, and its computed --recipe and --dash
_READ = """ids => ids.map(id => {
  const probe = document.createElement("span");
  probe.dataset.recipe = id;
  document.body.append(probe);
  const style = getComputedStyle(probe);
  const read = [style.getPropertyValue("--recipe").trim(), style.getPropertyValue("--dash").trim()];
  probe.remove();
  return read;
})"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_charts_read_each_recipes_colour_and_dash_from_the_registry(page: Page, scheme: str):
    page.emulate_media(color_scheme=scheme)
    page.goto("/train")
    read = page.evaluate(_READ, list(RECIPES))
    expected = [[getattr(r.colour, scheme), " ".join(map(str, r.dash)) or "none"] for r in RECIPES.values()]
    assert read == expected
