"""Alembic migrations of the Precision Lab database (a package so that installs carry them)."""
