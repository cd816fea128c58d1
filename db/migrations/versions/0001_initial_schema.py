"""Initial schema: chats, people, sessions with running totals, hands with ledger entries and
voids, payments, drafts.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen copies of the model types (a migration must not change when the models do).
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TS = sa.DateTime(timezone=True)


def _fk(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([column], [f"{target}.id"], name=op.f(f"fk_{table}_{column}_{target}"))


def upgrade() -> None:
    op.create_table(
        "chats",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("language", sa.String(16)),
        sa.Column("house_rules", JSON, nullable=False),
        sa.Column("migrated_to", sa.BigInteger()),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chats")),
    )
    op.create_table(
        "people",
        sa.Column("id", ID, nullable=False),
        sa.Column("telegram_id", sa.BigInteger()),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("username", sa.String(64)),
        sa.Column("language_code", sa.String(16)),
        sa.Column("guest_chat_id", sa.BigInteger()),
        sa.Column("guest_key", sa.String(128)),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_people")),
        sa.CheckConstraint("(telegram_id IS NULL) <> (guest_chat_id IS NULL)",
                           name=op.f("ck_people_user_xor_guest")),
        sa.ForeignKeyConstraint(["guest_chat_id"], ["chats.id"], name=op.f("fk_people_guest_chat_id_chats")),
        sa.UniqueConstraint("guest_chat_id", "guest_key", name=op.f("uq_people_guest_chat_id_guest_key")),
        sa.UniqueConstraint("telegram_id", name=op.f("uq_people_telegram_id")),
    )
    op.create_table(
        "sessions",
        sa.Column("id", ID, nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("rules", JSON, nullable=False),
        sa.Column("stake_cents", sa.BigInteger(), nullable=False),
        *(sa.Column(f"seat{i}", ID) for i in range(4)),
        sa.Column("started_by", ID),
        sa.Column("started_at", TS, nullable=False),
        sa.Column("ended_at", TS),
        sa.Column("settled_at", TS),
        sa.Column("hand_count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
        sa.CheckConstraint("hand_count >= 0", name=op.f("ck_sessions_hand_count_not_negative")),
        sa.CheckConstraint("seat0 <> seat1 AND seat0 <> seat2 AND seat0 <> seat3 AND seat1 <> seat2 "
                           "AND seat1 <> seat3 AND seat2 <> seat3", name=op.f("ck_sessions_seats_distinct")),
        sa.CheckConstraint("stake_cents >= 0", name=op.f("ck_sessions_stake_not_negative")),
        sa.ForeignKeyConstraint(["chat_id"], ["chats.id"], name=op.f("fk_sessions_chat_id_chats")),
        *(_fk("sessions", f"seat{i}", "people") for i in range(4)),
        _fk("sessions", "started_by", "people"),
    )
    op.create_index(op.f("ix_sessions_chat_id_started_at"), "sessions", ["chat_id", "started_at"])
    # One running session per chat.
    op.create_index("uq_sessions_running_chat", "sessions", ["chat_id"], unique=True,
                    sqlite_where=sa.text("ended_at IS NULL"), postgresql_where=sa.text("ended_at IS NULL"))
    op.create_table(
        "session_totals",
        sa.Column("session_id", ID, nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("session_id", "seat", name=op.f("pk_session_totals")),
        _fk("session_totals", "session_id", "sessions"),
    )
    op.create_table(
        "hands",
        sa.Column("id", ID, nullable=False),
        sa.Column("session_id", ID, nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("level", sa.Integer()),
        sa.Column("record", JSON, nullable=False),
        sa.Column("outcome", JSON, nullable=False),
        sa.Column("entered_by", ID),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("idempotency_key", sa.String(200), nullable=False),
        sa.Column("voided", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hands")),
        _fk("hands", "entered_by", "people"),
        _fk("hands", "session_id", "sessions"),
        sa.UniqueConstraint("idempotency_key", name=op.f("uq_hands_idempotency_key")),
        sa.UniqueConstraint("session_id", "seq", name=op.f("uq_hands_session_id_seq")),
    )
    op.create_index(op.f("ix_hands_session_id_level"), "hands", ["session_id", "level"])
    op.create_table(
        "hand_voids",
        sa.Column("hand_id", ID, nullable=False),
        sa.Column("voided_by", ID),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("voided_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("hand_id", name=op.f("pk_hand_voids")),
        _fk("hand_voids", "hand_id", "hands"),
        _fk("hand_voids", "voided_by", "people"),
    )
    op.create_table(
        "ledger_entries",
        sa.Column("hand_id", ID, nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("session_id", ID, nullable=False),
        sa.Column("person_id", ID, nullable=False),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("hand_id", "seat", name=op.f("pk_ledger_entries")),
        _fk("ledger_entries", "hand_id", "hands"),
        _fk("ledger_entries", "person_id", "people"),
        _fk("ledger_entries", "session_id", "sessions"),
    )
    op.create_index(op.f("ix_ledger_entries_person_id"), "ledger_entries", ["person_id"])
    op.create_index(op.f("ix_ledger_entries_session_id_seat"), "ledger_entries", ["session_id", "seat"])
    op.create_table(
        "payments",
        sa.Column("id", ID, nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("from_person", ID, nullable=False),
        sa.Column("to_person", ID, nullable=False),
        sa.Column("cents", sa.BigInteger(), nullable=False),
        sa.Column("session_id", ID),
        sa.Column("recorded_by", ID),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("settled", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_payments")),
        sa.CheckConstraint("cents > 0", name=op.f("ck_payments_cents_positive")),
        sa.CheckConstraint("from_person <> to_person", name=op.f("ck_payments_not_to_self")),
        sa.ForeignKeyConstraint(["chat_id"], ["chats.id"], name=op.f("fk_payments_chat_id_chats")),
        _fk("payments", "from_person", "people"),
        _fk("payments", "to_person", "people"),
        _fk("payments", "recorded_by", "people"),
        _fk("payments", "session_id", "sessions"),
    )
    op.create_index(op.f("ix_payments_chat_id_settled"), "payments", ["chat_id", "settled"])
    op.create_table(
        "drafts",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=False),
        sa.Column("session_id", ID, nullable=False),
        sa.Column("data", JSON, nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("chat_id", "message_id", name=op.f("pk_drafts")),
        sa.ForeignKeyConstraint(["chat_id"], ["chats.id"], name=op.f("fk_drafts_chat_id_chats")),
        _fk("drafts", "session_id", "sessions"),
    )
    op.create_index(op.f("ix_drafts_session_id"), "drafts", ["session_id"])


def downgrade() -> None:
    for table in ("drafts", "payments", "ledger_entries", "hand_voids", "hands", "session_totals",
                  "sessions", "people", "chats"):
        op.drop_table(table)  # their indexes go with them
