"""The language an attempt was taken in, so that its certificate and credential speak it later; attempts taken
before were all in English.

Revision ID: 0004
Revises: 0003
Create Date: 2027-01-10
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        batch.add_column(sa.Column("language", sa.String(length=8), server_default="en", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        batch.drop_column("language")
