"""The engine and sessions for a database URL, and `migrate` to bring its schema to the newest revision."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, make_url
from sqlalchemy.orm import Session

_MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def normalise_url(url: str) -> str:
    """The URL with psycopg 3 as the PostgreSQL driver (hosting platforms give plain postgres:// URLs)."""
    parsed = make_url(url)
    if parsed.drivername in ("postgres", "postgresql"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


CONNECT_TIMEOUT_SECONDS = 5


def create_database_engine(url: str) -> Engine:
    """An engine for url: SQLite in WAL mode with foreign keys on, PostgreSQL with a pre-ping pool.

    A PostgreSQL server that does not answer fails a connection after CONNECT_TIMEOUT_SECONDS rather than
    the operating system's minutes, so /readyz and a request answer 503 in time.
    """
    url = normalise_url(url)
    if make_url(url).get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True, connect_args={"connect_timeout": CONNECT_TIMEOUT_SECONDS})
    engine = create_engine(url, connect_args={"timeout": 15})
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    # WAL lets readers go on while one worker writes; SQLite leaves foreign keys off unless asked.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def open_session(engine: Engine) -> Session:
    """A session whose objects stay readable after commit, as a request or a command uses them."""
    return Session(engine, expire_on_commit=False)


def migrate(url: str) -> None:
    """Upgrade the database at url to the newest Alembic revision (creating the schema on a new one)."""
    engine = create_database_engine(url)
    try:
        with engine.begin() as connection:
            config = Config()
            config.set_main_option("script_location", str(_MIGRATIONS))
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    finally:
        engine.dispose()
