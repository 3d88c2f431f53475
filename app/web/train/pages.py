"""The live training demo: the /train page, the run's event stream, and (in train_api) POST /api/train.

Without JavaScript the form asks for `run=1` and the page shows the finished run as SVG charts; with it,
the page streams /train/stream?<the same query> and draws every step as it comes.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from starlette.types import Message, Receive, Scope, Send

from app.deps import RunsDep, rate_limited
from app.refusal import Refusal
from app.services.training_runs import Run, replay, result
from app.training import HISTOGRAM_SNAPSHOTS, OPTIMIZERS, RECIPES, SCENARIOS
from app.web.platform.catalogs import gettext
from app.web.platform.rate_limiting import count_request
from app.web.platform.refusal_sentences import refusal_sentence
from app.web.platform.rendering import EMBED_PREFIX, link_prefix, render
from app.web.platform.script_words import script_words
from app.web.train.charts import charts
from app.web.train.inputs import (
    DEFAULT_MODEL_SIZE,
    SETTINGS,
    config_from_query,
    form_values,
    model_size,
    scenario_defaults,
)
from app.web.train.present import FINAL_COLUMNS, MEMORY_PARTS, final_rows, in_words, memory_rows
from app.web.train.recipe_styles import RECIPE_STYLESHEET

router = APIRouter()

# Beside Start: how long the run is and its dice; every other setting folds under "More settings".
RUN_SETTINGS = ("steps", "seed")


class EventStream(StreamingResponse):
    """Server-sent events. A live run's stream cancels its run however the response ends (the client gone
    included), and bounds each write: a client that takes nothing for the run's stall limit (train_send_timeout)
    loses the run and the stream ends unfinished; at the run's deadline the run ends, its slot given back, while
    the write may still finish."""

    media_type = "text/event-stream"

    def __init__(self, content: AsyncIterator[bytes], run: Run | None = None) -> None:
        super().__init__(content, headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        self.run = run

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.run is None:
            return await super().__call__(scope, receive, send)
        try:
            await super().__call__(scope, receive, functools.partial(_send_in_time, self.run, send))
        except TimeoutError:
            pass  # the client stalled: the server closes a connection whose response ended unfinished
        finally:
            self.run.cancel()


async def _send_in_time(run: Run, send: Send, message: Message) -> None:
    sending = asyncio.ensure_future(send(message))
    left = run.deadline.left()
    if left < run.send_timeout:
        await asyncio.wait({sending}, timeout=max(left, 0))
        if not sending.done():
            run.cancel()  # its time is up while its client waits: its slot goes back now
    if not (await asyncio.wait({sending}, timeout=run.send_timeout))[0]:
        sending.cancel()
        raise TimeoutError
    sending.result()


def _page_context(values: dict[str, Any], prefix: str) -> dict[str, Any]:
    scenario = SCENARIOS.get(values["scenario"], SCENARIOS["baseline"])
    defaults = {s: scenario_defaults(s) for s in SCENARIOS}
    more = [s for s in SETTINGS if s.name not in RUN_SETTINGS]
    return {
        "prefix": prefix, "recipe_stylesheet": RECIPE_STYLESHEET,
        "values": values, "recipes": RECIPES.values(), "scenarios": SCENARIOS.values(),
        "run_settings": [s for s in SETTINGS if s.name in RUN_SETTINGS], "more_settings": more,
        # a URL that changes a folded setting from its scenario's opens the fold, so that the change is seen
        "more_open": any(values[s.name] != defaults[scenario.id][s.name] for s in more)
                     or values["params"] != DEFAULT_MODEL_SIZE,
        "histogram_snapshots": HISTOGRAM_SNAPSHOTS,
        "scenario": scenario, "defaults": defaults,
        "final_columns": FINAL_COLUMNS, "memory_parts": MEMORY_PARTS,
        # the words its scripts say, and the recipes' names (the run's events give them in English), translated
        "words": script_words(["train.js"], [r.name for r in RECIPES.values()]),
        "error": None, "error_in_english": False,
        "result": None, "charts": [], "final": [], "memory": [], "model_size": None,
    }


@router.get("/train", include_in_schema=False)
@router.get(EMBED_PREFIX + "/train", include_in_schema=False)
def train_page(request: Request, runs: RunsDep) -> HTMLResponse:
    """The demo page; under /embed/ (app/web/embed/pages.py) the same page, framed, its links kept in the frame."""
    query = request.query_params
    context = _page_context(form_values(query), link_prefix(request.url.path))
    status, headers = 200, {}
    try:
        config = config_from_query(query)
        resolved = config.resolved()
        size = model_size(query.get("params"))
        context |= {"memory": memory_rows(resolved.recipes, resolved.optimizer, size),
                    "model_size": in_words(size), "optimizer_name": gettext(OPTIMIZERS[resolved.optimizer].name)}
        if query.get("run"):
            # Only a run that trains counts: not the form, and not the finished table the script fetches
            # from the cache after streaming the run (the stream counted it).
            if runs.cached(config) is None:
                count_request(request, "train")
            finished = result(runs.record(config))
            context |= {"result": finished, "charts": charts(finished), "final": final_rows(finished)}
    except Refusal as refused:
        # the sentence in the page's language where the catalogs have it; else the core's English, marked so
        context["error"], status = refusal_sentence(refused), refused.status
        context["error_in_english"] = context["error"] == str(refused)
        if refused.retry_after is not None:
            headers["Retry-After"] = str(refused.retry_after)
    response = render(request, "train.html", context, fragment="results", status_code=status)
    response.headers.update(headers)
    return response


@router.get("/train/stream", include_in_schema=False, dependencies=[rate_limited("train")])
def train_stream(request: Request, runs: RunsDep) -> Response:
    """The run as server-sent events: start, one per step, done; a cached run is replayed at once."""
    config = config_from_query(request.query_params)
    recorded = runs.cached(config)
    if recorded is not None:
        return EventStream(replay(recorded))
    run = runs.start(config)  # a refusal is answered in JSON, which the page's script shows
    return EventStream(run.frames(), run)
