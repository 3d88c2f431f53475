"""Each certificate's bit in the published revocation lists; certificates issued before get one drawn now.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LIST_BITS = 131_072  # as app.quiz.status_list had it when this was written
_certificates = sa.table("certificates", sa.column("id", sa.String), sa.column("status_index", sa.Integer))


def upgrade() -> None:
    with op.batch_alter_table("certificates") as batch:
        batch.add_column(sa.Column("status_index", sa.Integer(), nullable=True))
    connection = op.get_bind()
    ids = list(connection.scalars(sa.select(_certificates.c.id).order_by(_certificates.c.id)))
    places = (1 + 2 * len(ids) // LIST_BITS) * LIST_BITS  # at most half of them taken, as new ones are drawn
    indexes = secrets.SystemRandom().sample(range(places), len(ids))
    for certificate_id, index in zip(ids, indexes, strict=True):
        connection.execute(sa.update(_certificates).where(_certificates.c.id == certificate_id)
                           .values(status_index=index))
    with op.batch_alter_table("certificates") as batch:
        batch.alter_column("status_index", existing_type=sa.Integer(), nullable=False)
        batch.create_unique_constraint("uq_certificates_status_index", ["status_index"])


def downgrade() -> None:
    with op.batch_alter_table("certificates") as batch:
        batch.drop_constraint("uq_certificates_status_index", type_="unique")
        batch.drop_column("status_index")
