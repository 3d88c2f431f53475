"""Take it home: the training demo's run for one recipe as a PyTorch script (app/training/pytorch_script.py).

GET /train/script.py?<the /train query, with one recipe> downloads it; GET /train/script.json?<the same> gives
{"recipe", "name", "filename", "href", "script"} for the page's script (static/js/train_script.js), refusals as
{"detail"}. The /train page lists one download per chosen recipe and shows the first one's script
(templates/_train_script.html), through `take_home`, a template global.
"""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from markupsafe import Markup
from starlette.datastructures import QueryParams

from app.formats import InputError
from app.refusal import Refusal
from app.training import RECIPES, RecipeId, TrainConfig, as_recipe_id, pytorch_script, script_filename
from app.web.platform.catalogs import gettext
from app.web.platform.rendering import EMBED_PREFIX, link_prefix, templates
from app.web.train.inputs import config_from_query

router = APIRouter()

SCRIPT_PATH = "/train/script.py"
# Query names that are not the run's settings: the memory table's model size, and the page's "train now"
_NOT_SETTINGS = ("params", "run")


def _settings(query: QueryParams) -> list[tuple[str, str]]:
    """The query's settings, without its recipes and what does not change the run."""
    return [(name, value) for name, value in query.multi_items()
            if name not in ("recipe", *_NOT_SETTINGS) and value.strip() != ""]


def script_href(settings: list[tuple[str, str]], recipe_id: str, prefix: str = "") -> str:
    """The download's URL; under /embed/ in a frame, so that the frame's links stay in it."""
    return f"{prefix}{SCRIPT_PATH}?{urlencode([*settings, ('recipe', recipe_id)])}"


def _one_recipe(query: QueryParams) -> tuple[TrainConfig, RecipeId]:
    """The configuration and the one recipe the query names; a refusal with a sentence otherwise."""
    recipes = [r for r in query.getlist("recipe") if r.strip()]
    if len(recipes) != 1:
        raise InputError(
            f"A script is for one recipe: name it once, such as recipe=fp32 (this asks for {len(recipes)})."
            if recipes else f"Name the recipe of the script, such as recipe=fp32; one of: {', '.join(RECIPES)}."
        )
    return config_from_query(query), as_recipe_id(recipes[0])


def _script(query: QueryParams) -> tuple[RecipeId, str]:
    config, recipe_id = _one_recipe(query)
    page = "/train?" + urlencode([*_settings(query), ("recipe", recipe_id)])
    return recipe_id, pytorch_script(config, recipe_id, page=page)


@router.get(SCRIPT_PATH, include_in_schema=False)
@router.get(EMBED_PREFIX + SCRIPT_PATH, include_in_schema=False)
def script_download(request: Request) -> Response:
    recipe_id, script = _script(request.query_params)
    return Response(script, media_type="text/x-python", headers={
        "Content-Disposition": f'attachment; filename="{script_filename(recipe_id)}"',
        "X-Content-Type-Options": "nosniff",
    })


@router.get("/train/script.json", include_in_schema=False)
def script_json(request: Request) -> JSONResponse:
    recipe_id, script = _script(request.query_params)
    return JSONResponse({"recipe": recipe_id, "name": RECIPES[recipe_id].name,
                         "filename": script_filename(recipe_id),
                         "href": script_href(_settings(request.query_params), recipe_id), "script": script})


def take_home(request: Request) -> dict[str, Any]:
    """What the /train page's "Take it home" section shows: a download per chosen recipe and the first one's script
    (both None when the page's settings are refused: the page says why), and every recipe's name and file name."""
    recipes = {r.id: {"name": gettext(r.name), "filename": script_filename(r.id)} for r in RECIPES.values()}
    query = request.query_params
    try:
        config = config_from_query(query)
        chosen = config.resolved().recipes
        settings = _settings(query)
        first = pytorch_script(config, chosen[0], page="/train?" + urlencode([*settings, ("recipe", chosen[0])]))
    except Refusal:
        return {"recipes": recipes, "links": None, "first": None}
    return {
        "recipes": recipes,
        "links": [{"recipe": r, **recipes[r], "href": script_href(settings, r, link_prefix(request.url.path))}
                  for r in chosen],
        # escaped for a text node only (no quotes turned into &#34;): the page carries it whole, and stays small
        "first": {"recipe": chosen[0], "name": recipes[chosen[0]]["name"],
                  "script": Markup(html.escape(first, quote=False))},
    }


templates.env.globals["take_home"] = take_home
