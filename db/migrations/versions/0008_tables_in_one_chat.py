"""Two or more tables in one chat: a chat may run several sessions at once (one per table), so
the unique index that allowed one running session per chat becomes a plain one on the same rows
(the running sessions are still found along it). Nothing stored changes: every chat keeps its
books as they were, its one running session, if any, now its only table.

Self-contained: it names the index directly and depends on no other change.

Revision ID: 0008_tables_in_one_chat
Revises: 0007_session_numbers
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_tables_in_one_chat"
down_revision: str | None = "0007_session_numbers"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RUNNING = sa.text("ended_at IS NULL")


def upgrade() -> None:
    op.drop_index("uq_sessions_running_chat", table_name="sessions")
    op.create_index("ix_sessions_running_chat", "sessions", ["chat_id"], unique=False,
                    sqlite_where=RUNNING, postgresql_where=RUNNING)


def downgrade() -> None:
    # one running session per chat again: a chat with several running tables cannot go back
    # until they are ended (refused here rather than ending someone's table unasked)
    crowded = op.get_bind().execute(sa.text(
        "SELECT chat_id FROM sessions WHERE ended_at IS NULL GROUP BY chat_id "
        "HAVING count(*) > 1")).first()
    if crowded is not None:
        raise RuntimeError(f"chat {crowded[0]} has several running tables; end all but one "
                           "before downgrading")
    op.drop_index("ix_sessions_running_chat", table_name="sessions")
    op.create_index("uq_sessions_running_chat", "sessions", ["chat_id"], unique=True,
                    sqlite_where=RUNNING, postgresql_where=RUNNING)
