"""The recipes' chart colours and dashes come from the recipe registry: the pages that draw recipes link one
generated stylesheet, served under the digest of its content, with every recipe's colour for light and dark
pages and its dash; no hand-written stylesheet names a recipe, and the CSP still allows no inline style."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.training import RECIPES

STATIC_CSS = Path(__file__).resolve().parents[3] / "static" / "css"
PAGES = ["/train", "/embed/train", "/learn/mixed-precision-training"]
# a page's link, or a guide's training figure's, which brings it when the reader gets there (data-figure-styles)
_LINK = re.compile(r'(?:<link rel="stylesheet" href="|data-figure-styles="[^"]*?)(/static-generated/[^" ]+)[" ]')
_DARK = re.compile(r"@media \(prefers-color-scheme: dark\) \{\s*:root \{(?P<body>[^}]*)\}\s*\}")


def _custom_properties(block: str) -> dict[str, str]:
    return dict(re.findall(r"(--[\w-]+):\s*([^;]+);", block))


@pytest.fixture
def stylesheet(client) -> str:
    links = _LINK.findall(client.get("/train").text)
    assert len(links) == 1, links
    response = client.get(links[0])
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/css")
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    return response.text


def _schemes(css: str) -> dict[str, dict[str, str]]:
    dark = _DARK.search(css)
    assert dark, css
    light = re.search(r"^:root \{(?P<body>[^}]*)\}", css[: dark.start()], re.MULTILINE)
    assert light, css
    return {"light": _custom_properties(light["body"]), "dark": _custom_properties(dark["body"])}


@pytest.mark.parametrize("url", PAGES)
def test_every_page_that_draws_recipes_links_the_same_stylesheet(client, url, stylesheet):
    assert _LINK.findall(client.get(url).text) == _LINK.findall(client.get("/train").text)


@pytest.mark.parametrize("recipe_id", RECIPES)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_recipe_has_its_registry_colour_in_the_served_css(stylesheet, recipe_id, scheme):
    assert _schemes(stylesheet)[scheme][f"--recipe-{recipe_id}"] == getattr(RECIPES[recipe_id].colour, scheme)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_served_colours_are_distinct(stylesheet, scheme):
    colours = [_schemes(stylesheet)[scheme][f"--recipe-{recipe_id}"] for recipe_id in RECIPES]
    assert len(set(colours)) == len(colours) == len(RECIPES)


@pytest.mark.parametrize("recipe_id", RECIPES)
def test_every_recipe_sets_the_colour_and_dash_the_charts_read(stylesheet, recipe_id):
    """train_charts.js and the server's SVG read --recipe and --dash under [data-recipe="<id>"]."""
    rule = re.search(rf'^\[data-recipe="{recipe_id}"\] \{{([^}}]*)\}}', stylesheet, re.MULTILINE)
    assert rule, recipe_id
    properties = _custom_properties(rule[1])
    assert properties["--recipe"] == f"var(--recipe-{recipe_id})"
    assert properties["--dash"] == (" ".join(map(str, RECIPES[recipe_id].dash)) or "none")


def test_no_hand_written_stylesheet_names_a_recipe():
    for path in STATIC_CSS.glob("*.css"):
        text = path.read_text()
        assert not [r for r in RECIPES if f"--recipe-{r}" in text or f'data-recipe="{r}"' in text], path.name


def test_a_stylesheet_of_another_digest_is_not_found(client, stylesheet):
    assert client.get("/static-generated/000000000000/recipes.css").status_code == 404


def test_the_policy_still_allows_styles_from_files_of_this_origin_only(client):
    policy = client.get("/train").headers["content-security-policy"]
    style = next(part.strip() for part in policy.split(";") if part.strip().startswith("style-src"))
    assert style == "style-src 'self'"
