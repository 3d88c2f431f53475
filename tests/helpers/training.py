"""The training demo as the web tests drive it: a run small enough to train at once, and its event stream."""

from __future__ import annotations

import json

SHORT = {"steps": 12, "width": 8, "batch_size": 16}  # as POST /api/train takes it
SHORT_QUERY = "steps=12&width=8&batch=16"  # the same run as the page and the stream take it


def frames(text: str) -> list[dict]:
    """The events of a server-sent event stream."""
    return [json.loads(frame.split("\ndata: ", 1)[1]) for frame in text.strip().split("\n\n")]
