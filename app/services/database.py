"""The database as the web layer meets it: a session per request, and whether the schema can serve."""

from app.store.database import open_session
from app.store.readiness import unready_reason

__all__ = ["open_session", "unready_reason"]
