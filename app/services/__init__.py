"""What the web layer asks of the store and the long-running machinery: the quiz attempt workflow, certificates,
training runs and their worker processes, the rate-limit counters. Routes parse, call a service, and render;
only this package (and the wiring in app/main.py and app/cli.py) imports app.store."""

from app.store.database import open_session

__all__ = ["open_session"]
