"""The updates whose change to the books was committed (update_id, chat), so that an update
Telegram delivers again after a crash is recognised instead of being booked twice.

Revision ID: 0005_handled_updates
Revises: 0004_aggregates
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_handled_updates"
down_revision: str | None = "0004_aggregates"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "handled_updates",
        sa.Column("update_id", sa.BigInteger(), nullable=False, autoincrement=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False, autoincrement=False),
        sa.Column("handled_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("update_id", "chat_id", name=op.f("pk_handled_updates")),
    )
    op.create_index(op.f("ix_handled_updates_handled_at"), "handled_updates", ["handled_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_handled_updates_handled_at"), table_name="handled_updates")
    op.drop_table("handled_updates")
