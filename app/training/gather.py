"""run()'s result gathered from a stream's events, so that a run streamed once can be served again.

`gather(stream(config)) == run(config)`: a page records the events it streams, and the JSON API answers
from that record without training again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["SERIES", "gather"]

SERIES = ("loss", "accuracy", "underflow_fraction", "nonfinite_count", "loss_scale", "update_ratio")


def gather(events: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The result of POST /api/train (see `runner.run`) from the start, step, diverged and done events of one run."""
    events = iter(events)
    start = next(events)
    recipes: dict[str, dict[str, Any]] = {
        recipe_id: {**info, **{name: [] for name in SERIES}, "skipped_steps": [], "histograms": [],
                    "decision_grids": [], "diverged": None}
        for recipe_id, info in start["recipes"].items()
    }
    for event in events:
        if event["type"] == "done":
            for recipe_id, final in event["recipes"].items():
                recipes[recipe_id].update(final)
            break
        if event["type"] == "diverged":
            recipes[event["recipe"]]["diverged"] = {"step": event["step"], "detail": event["detail"]}
            continue
        for recipe_id, values in event["recipes"].items():
            record = recipes[recipe_id]
            for name in SERIES:
                record[name].append(values[name])
            if values["skipped"]:
                record["skipped_steps"].append(event["step"])
        for recipe_id, histogram in event.get("histograms", {}).items():
            recipes[recipe_id]["histograms"].append({"step": event["step"], **histogram})
        for recipe_id, values in event.get("decision_grids", {}).items():
            recipes[recipe_id]["decision_grids"].append({"step": event["step"], "values": values})
    return {"config": start["config"], "scenario": start["scenario"], "n_params": start["n_params"],
            "recipes": recipes}
