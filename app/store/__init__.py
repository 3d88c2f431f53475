"""Persistence: SQLAlchemy models, the functions that read and write them, and Alembic migrations."""
