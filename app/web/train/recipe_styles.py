"""The recipes' colours and dash patterns as a stylesheet, built from the recipe registry at start-up.

The Content-Security-Policy allows styles from this origin's files only (no inline <style> and no style
attributes), so the rules are a file of their own. Like the static files, it is served under a digest of its
content and cached for ever: the URL changes whenever a recipe's colour or dash does. The rules are the ones
train.css used to hold: `--recipe-<id>` for light and dark pages, and under `[data-recipe="<id>"]` the `--recipe`
and `--dash` that the server's SVG charts and train_charts.js read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from fastapi import APIRouter, HTTPException
from fastapi.responses import Response

from app.training import RECIPES, Recipe
from app.web.platform.rendering import templates
from app.web.platform.static_files import IMMUTABLE

router = APIRouter()

# a dash pattern that starts with a dash this short reads as dots in the key beside the name
_DOTTED_UP_TO = 2


def _dasharray(dash: tuple[int, ...]) -> str:
    """The value of SVG's stroke-dasharray (and uPlot's dash) for a dash pattern."""
    return " ".join(map(str, dash)) or "none"


def _key_border(dash: tuple[int, ...]) -> str:
    """The border style of a dashed recipe's key, the short line beside its name: as near its chart line as CSS
    comes (train.css draws every key solid unless told)."""
    return "dotted" if dash[0] <= _DOTTED_UP_TO else "dashed"


def recipe_stylesheet(recipes: Iterable[Recipe]) -> str:
    recipes = tuple(recipes)
    light = "".join(f"  --recipe-{r.id}: {r.colour.light};\n" for r in recipes)
    dark = "".join(f"    --recipe-{r.id}: {r.colour.dark};\n" for r in recipes)
    rules = "".join(f'[data-recipe="{r.id}"] {{ --recipe: var(--recipe-{r.id}); --dash: {_dasharray(r.dash)}; }}\n'
                    for r in recipes)
    keys = "".join(f'[data-recipe="{r.id}"].recipe-key {{ border-top-style: {_key_border(r.dash)}; }}\n'
                   for r in recipes if r.dash)
    return (
        "/* Built from app/training/recipes.py: each recipe's colour (light and dark pages) and dash pattern. */\n"
        f":root {{\n{light}}}\n\n@media (prefers-color-scheme: dark) {{\n  :root {{\n{dark}  }}\n}}\n\n{rules}\n{keys}"
    )


RECIPE_CSS = recipe_stylesheet(RECIPES.values())
RECIPE_CSS_DIGEST = hashlib.sha256(RECIPE_CSS.encode()).hexdigest()[:12]
RECIPE_STYLESHEET = f"/static-generated/{RECIPE_CSS_DIGEST}/recipes.css"  # what pages link
templates.env.globals["recipe_stylesheet"] = RECIPE_STYLESHEET  # the training page, and a guide's training figure


@router.get("/static-generated/{digest}/recipes.css", include_in_schema=False)
def recipes_css(digest: str) -> Response:
    if digest != RECIPE_CSS_DIGEST:
        raise HTTPException(404)  # a page of another deploy: as /static/<version>/ of another version
    return Response(RECIPE_CSS, media_type="text/css", headers={"Cache-Control": IMMUTABLE})
