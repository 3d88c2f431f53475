"""Alembic environment: `migrate(url)` hands over a connection; the `alembic` command uses the app's settings."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from app.store.models import Base

config = context.config


def _run_on(connection: Connection) -> None:
    # Batch mode lets later migrations alter tables on SQLite, which has no ALTER COLUMN.
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


def _run_from_settings() -> None:
    from app.settings import get_settings
    from app.store.database import create_database_engine, normalise_url

    url = get_settings().database_url
    if context.is_offline_mode():
        context.configure(url=normalise_url(url), target_metadata=Base.metadata, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_database_engine(url)
    try:
        with engine.begin() as connection:
            _run_on(connection)
    finally:
        engine.dispose()


if config.attributes.get("connection") is not None:
    _run_on(config.attributes["connection"])
else:
    _run_from_settings()
