"""The Alembic migrations create the schema the models describe, and undo it."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, text

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


def test_certificates_issued_before_the_revocation_lists_each_get_their_own_bit(database_url: str) -> None:
    config = _config()
    engine = create_database_engine(database_url)
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "0002")
        moment = "2026-01-31 12:00:00"
        with engine.begin() as connection:
            for number in range(40):
                connection.execute(text(
                    "INSERT INTO attempts (id, owner_hash, seed, question_ids, created_at) "
                    "VALUES (:id, 'o', 1, '[]', :at)"), {"id": f"a{number}", "at": moment})
                connection.execute(text(
                    "INSERT INTO certificates (id, attempt_id, name, quiz, score, total, issued_at, status, signature, "
                    "key_id) VALUES (:id, :attempt, 'Ada', 'Quiz', 9, 10, :at, 'valid', 's', 'k')"),
                    {"id": f"C{number}", "attempt": f"a{number}", "at": moment})
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
        with engine.connect() as connection:
            indexes = list(connection.scalars(text("SELECT status_index FROM certificates")))
        assert len(indexes) == 40 and len(set(indexes)) == 40
        assert all(0 <= index < 131_072 for index in indexes)
    finally:
        engine.dispose()
