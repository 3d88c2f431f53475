"""The Alembic migrations create the schema the models describe, and undo it."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect

import app.store.database
from app.store.database import create_database_engine, migrate
from app.store.models import Base

MIGRATIONS = Path(app.store.database.__file__).parent / "migrations"


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def test_migrate_creates_every_table(engine: Engine) -> None:
    tables = set(inspect(engine).get_table_names())
    assert {"attempts", "answers", "certificates", "alembic_version"} <= tables


def test_migrate_reaches_the_single_head(engine: Engine) -> None:
    with engine.connect() as connection:
        current = MigrationContext.configure(connection).get_current_revision()
    assert current == ScriptDirectory.from_config(_config()).get_current_head()


def test_migrations_match_the_models(engine: Engine) -> None:
    with engine.connect() as connection:
        differences = compare_metadata(
            MigrationContext.configure(connection, opts={"compare_type": True}), Base.metadata
        )
    assert differences == []


def test_migrate_twice_changes_nothing(database_url: str) -> None:
    migrate(database_url)
    migrate(database_url)
    engine = create_database_engine(database_url)
    try:
        assert "certificates" in inspect(engine).get_table_names()
    finally:
        engine.dispose()


def test_downgrade_to_base_and_back(engine: Engine) -> None:
    config = _config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
    assert "answers" in inspect(engine).get_table_names()
