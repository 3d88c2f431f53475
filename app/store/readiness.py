"""Whether a database can serve this code: it answers, and its schema is at the newest migration."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError

from app.store import migrations


@lru_cache(maxsize=1)
def _head_revisions() -> frozenset[str]:
    """The newest revision(s) this code's migrations define; they change only with a deploy."""
    return frozenset(ScriptDirectory(str(Path(migrations.__file__).parent)).get_heads())


def unready_reason(engine: Engine) -> str | None:
    """Why the database cannot serve this code yet (a sentence), or None when it can."""
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
            current = frozenset(MigrationContext.configure(connection).get_current_heads())
    except SQLAlchemyError as error:
        return f"The database does not answer ({type(error).__name__}); check DATABASE_URL and that it is running."
    if current != _head_revisions():
        found = ", ".join(sorted(current)) or "none"
        wanted = ", ".join(sorted(_head_revisions()))
        return f"The database schema is at revision {found}, not {wanted}; run `precision-lab migrate`."
    return None
