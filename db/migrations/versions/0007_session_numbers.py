"""Each chat numbers its own sessions: sessions.number, 1, 2, … per chat in the order they were
created, unique per chat. (Before, a chat called a session by its id, so a new group's first
session could be "session 5".)

Revision ID: 0007_session_numbers
Revises: 0006_hand_effects
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_session_numbers"
down_revision: str | None = "0006_hand_effects"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # NOT NULL at once, with a default for the rows already there (SQLite cannot change a
    # column's nullability without copying the table, which the hands' foreign keys forbid)
    op.add_column("sessions", sa.Column("number", sa.Integer(), nullable=False, server_default="0"))
    # the chat's sessions created up to this one (ids grow in creation order)
    op.execute("UPDATE sessions SET number = (SELECT count(*) FROM sessions AS earlier "
               "WHERE earlier.chat_id = sessions.chat_id AND earlier.id <= sessions.id)")
    if op.get_context().dialect.name != "sqlite":  # the store always gives the number
        op.alter_column("sessions", "number", server_default=None)
    op.create_index("uq_sessions_chat_number", "sessions", ["chat_id", "number"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_sessions_chat_number", table_name="sessions")
    op.drop_column("sessions", "number")
