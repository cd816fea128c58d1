"""The tables. Only db.store and the migrations use these; the bot sees frozen dataclasses.

Changing anything here needs a new migration in db/migrations/versions (a test compares the
migrated schema with these models)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Surrogate keys: 64-bit on PostgreSQL; SQLite only auto-increments an INTEGER PRIMARY KEY.
Id = BigInteger().with_variant(Integer(), "sqlite")
Json = JSON().with_variant(JSONB(), "postgresql")
Timestamp = DateTime(timezone=True)

# Deterministic constraint names, so migrations can refer to them on both databases.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Chat(Base):
    """A Telegram chat (group, supergroup or private)."""

    __tablename__ = "chats"
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    language: Mapped[str | None] = mapped_column(String(16))
    house_rules: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)  # variant -> rules
    migrated_to: Mapped[int | None] = mapped_column(BigInteger)  # the supergroup it became
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)


class Person(Base):
    """A Telegram user (telegram_id set) or a named guest of one chat (guest_chat_id set)."""

    __tablename__ = "people"
    __table_args__ = (
        CheckConstraint("(telegram_id IS NULL) <> (guest_chat_id IS NULL)", name="user_xor_guest"),
        # NULLs are distinct in unique constraints, so this binds guests only.
        UniqueConstraint("guest_chat_id", "guest_key"),
    )
    id: Mapped[int] = mapped_column(Id, primary_key=True)
    telegram_id: Mapped[int | None] = mapped_column(BigInteger, unique=True)
    name: Mapped[str] = mapped_column(String(128))
    username: Mapped[str | None] = mapped_column(String(64))
    language_code: Mapped[str | None] = mapped_column(String(16))
    guest_chat_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("chats.id"))
    guest_key: Mapped[str | None] = mapped_column(String(128))  # casefolded name
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)


SEAT_COLUMNS = ("seat0", "seat1", "seat2", "seat3")


class Session(Base):
    """A sitting of four players in one chat, playing one variant: one table. Several may run
    in one chat at once; a person sits at one of them at a time (the store checks it)."""

    __tablename__ = "sessions"
    __table_args__ = (
        # A chat's running sessions (its tables: several may run at once, migration 0008),
        # found along this index however many sessions the chat has had.
        Index("ix_sessions_running_chat", "chat_id",
              sqlite_where=text("ended_at IS NULL"), postgresql_where=text("ended_at IS NULL")),
        Index(None, "chat_id", "started_at"),
        # Each chat counts its own sessions: "session 1" is its first, whatever other chats did.
        Index("uq_sessions_chat_number", "chat_id", "number", unique=True),
        CheckConstraint("stake_cents >= 0", name="stake_not_negative"),
        CheckConstraint("hand_count >= 0", name="hand_count_not_negative"),
        # A NULL comparison passes a CHECK, so empty seats are fine; a person sits once.
        CheckConstraint("seat0 <> seat1 AND seat0 <> seat2 AND seat0 <> seat3 AND seat1 <> seat2 "
                        "AND seat1 <> seat3 AND seat2 <> seat3", name="seats_distinct"),
    )
    id: Mapped[int] = mapped_column(Id, primary_key=True)
    chat_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("chats.id"))
    number: Mapped[int] = mapped_column(Integer)
    variant: Mapped[str] = mapped_column(String(32))
    rules: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    stake_cents: Mapped[int] = mapped_column(BigInteger, default=0)
    seat0: Mapped[int | None] = mapped_column(Id, ForeignKey("people.id"))
    seat1: Mapped[int | None] = mapped_column(Id, ForeignKey("people.id"))
    seat2: Mapped[int | None] = mapped_column(Id, ForeignKey("people.id"))
    seat3: Mapped[int | None] = mapped_column(Id, ForeignKey("people.id"))
    started_by: Mapped[int | None] = mapped_column(Id, ForeignKey("people.id"))
    started_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(Timestamp)
    settled_at: Mapped[datetime | None] = mapped_column(Timestamp)
    # Every hand recorded, voided ones included: the last sequence number used.
    hand_count: Mapped[int] = mapped_column(Integer, default=0)
    # Whom the table named to keep score (person ids), besides whoever started the session.
    # (no Python default: the store gives it, and rows written by older code get the server's)
    keepers: Mapped[list[int] | None] = mapped_column(Json, server_default=text("'[]'"))


class SessionTotal(Base):
    """The running points of one seat in one session: the aggregate totals() reads."""

    __tablename__ = "session_totals"
    session_id: Mapped[int] = mapped_column(Id, ForeignKey("sessions.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    points: Mapped[int] = mapped_column(BigInteger, default=0)


class SeatStats(Base):
    """What /stats shows for one seat of one session, over its non-voided hands: kept by
    record_hand/void_hand in the same transaction, like the session totals."""

    __tablename__ = "seat_stats"
    session_id: Mapped[int] = mapped_column(Id, ForeignKey("sessions.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    hands: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    self_draws: Mapped[int] = mapped_column(Integer, default=0)
    dealt_in: Mapped[int] = mapped_column(Integer, default=0)
    biggest_gain: Mapped[int] = mapped_column(BigInteger, default=0)
    levels_won: Mapped[int] = mapped_column(Integer, default=0)  # a bankroll variant: ended levels it led


class Stint(Base):
    """What one person won or lost in one seat of one session, and the /stats counters of it:
    seats change hands during a session (a substitute, a swap), so the seat aggregates above
    follow the seat (the dealer, levels and games go on by seat) and these follow the person.
    A person's result in a session is the sum of their stints. Kept with the hands by the same
    trigger (migration 0009); a row appears with the first hand the person plays in the seat."""

    __tablename__ = "stints"
    __table_args__ = (Index(None, "session_id", "person_id"),)
    session_id: Mapped[int] = mapped_column(Id, ForeignKey("sessions.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    person_id: Mapped[int] = mapped_column(Id, ForeignKey("people.id"), primary_key=True)
    first_seq: Mapped[int] = mapped_column(Integer)  # the first hand they played there
    points: Mapped[int] = mapped_column(BigInteger, default=0)
    hands: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    self_draws: Mapped[int] = mapped_column(Integer, default=0)
    dealt_in: Mapped[int] = mapped_column(Integer, default=0)
    biggest_gain: Mapped[int] = mapped_column(BigInteger, default=0)
    levels_won: Mapped[int] = mapped_column(Integer, default=0)


class StintPattern(Base):
    """How often one person won with one pattern (term key) in one seat of one session."""

    __tablename__ = "stint_patterns"
    session_id: Mapped[int] = mapped_column(Id, ForeignKey("sessions.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    person_id: Mapped[int] = mapped_column(Id, ForeignKey("people.id"), primary_key=True)
    term: Mapped[str] = mapped_column(String(64), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)


class SeatPattern(Base):
    """How often one seat of one session won with one pattern (term key)."""

    __tablename__ = "seat_patterns"
    session_id: Mapped[int] = mapped_column(Id, ForeignKey("sessions.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    term: Mapped[str] = mapped_column(String(64), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)


class LevelTotal(Base):
    """One level (级 of a bankroll variant; level 1 for the others) of a session over its non-voided
    hands: count, summed deltas, and how its last hand left it."""

    __tablename__ = "level_totals"
    session_id: Mapped[int] = mapped_column(Id, ForeignKey("sessions.id"), primary_key=True)
    level: Mapped[int] = mapped_column(Integer, primary_key=True)
    hands: Mapped[int] = mapped_column(Integer, default=0)
    d0: Mapped[int] = mapped_column(BigInteger, default=0)
    d1: Mapped[int] = mapped_column(BigInteger, default=0)
    d2: Mapped[int] = mapped_column(BigInteger, default=0)
    d3: Mapped[int] = mapped_column(BigInteger, default=0)
    last_seq: Mapped[int] = mapped_column(Integer, default=0)
    ended: Mapped[bool] = mapped_column(Boolean, default=False)  # its last hand had level_over
    balances: Mapped[list[int] | None] = mapped_column(Json)  # after its last hand


class HandBucket(Base):
    """The non-voided hands of a run of BUCKET_SIZE sequence numbers, summed: /chart draws
    long sessions from these instead of every hand."""

    __tablename__ = "hand_buckets"
    session_id: Mapped[int] = mapped_column(Id, ForeignKey("sessions.id"), primary_key=True)
    bucket: Mapped[int] = mapped_column(Integer, primary_key=True)  # seq // BUCKET_SIZE
    hands: Mapped[int] = mapped_column(Integer, default=0)
    d0: Mapped[int] = mapped_column(BigInteger, default=0)
    d1: Mapped[int] = mapped_column(BigInteger, default=0)
    d2: Mapped[int] = mapped_column(BigInteger, default=0)
    d3: Mapped[int] = mapped_column(BigInteger, default=0)


BUCKET_SIZE = 64


class Hand(Base):
    """One scored hand: the record as entered and the outcome as scored."""

    __tablename__ = "hands"
    __table_args__ = (UniqueConstraint("session_id", "seq"), Index(None, "session_id", "level"))
    id: Mapped[int] = mapped_column(Id, primary_key=True)
    session_id: Mapped[int] = mapped_column(Id, ForeignKey("sessions.id"))
    seq: Mapped[int] = mapped_column(Integer)
    level: Mapped[int | None] = mapped_column(Integer)  # the level (级) the hand belongs to
    record: Mapped[dict[str, Any]] = mapped_column(Json)
    outcome: Mapped[dict[str, Any]] = mapped_column(Json)
    entered_by: Mapped[int | None] = mapped_column(Id, ForeignKey("people.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    # The same confirmation arriving twice carries the same key: one hand.
    idempotency_key: Mapped[str] = mapped_column(String(200), unique=True)
    voided: Mapped[bool] = mapped_column(Boolean, default=False)


class HandVoid(Base):
    """Who voided a hand, when and why; the hand itself stays."""

    __tablename__ = "hand_voids"
    hand_id: Mapped[int] = mapped_column(Id, ForeignKey("hands.id"), primary_key=True)
    voided_by: Mapped[int | None] = mapped_column(Id, ForeignKey("people.id"))
    reason: Mapped[str] = mapped_column(Text)
    voided_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)


class LedgerEntry(Base):
    """What one seat (and the person in it) won or lost in one hand; a hand's four sum to 0."""

    __tablename__ = "ledger_entries"
    # (session_id, seat, points): a seat's entries, biggest first (a void's next biggest gain)
    __table_args__ = (Index(None, "session_id", "seat", "points"), Index(None, "person_id"))
    hand_id: Mapped[int] = mapped_column(Id, ForeignKey("hands.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(Id, ForeignKey("sessions.id"))
    person_id: Mapped[int] = mapped_column(Id, ForeignKey("people.id"))
    points: Mapped[int] = mapped_column(BigInteger)


class Payment(Base):
    """Money that changed hands between two people to settle debts."""

    __tablename__ = "payments"
    __table_args__ = (
        CheckConstraint("cents > 0", name="cents_positive"),
        CheckConstraint("from_person <> to_person", name="not_to_self"),
        Index(None, "chat_id", "settled"),
    )
    id: Mapped[int] = mapped_column(Id, primary_key=True)
    chat_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("chats.id"))
    from_person: Mapped[int] = mapped_column(Id, ForeignKey("people.id"))
    to_person: Mapped[int] = mapped_column(Id, ForeignKey("people.id"))
    cents: Mapped[int] = mapped_column(BigInteger)
    session_id: Mapped[int | None] = mapped_column(Id, ForeignKey("sessions.id"))
    recorded_by: Mapped[int | None] = mapped_column(Id, ForeignKey("people.id"))
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    settled: Mapped[bool] = mapped_column(Boolean, default=False)
    # Only the payee (or a chat admin) makes a payment count; until then it is pending.
    confirmed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("true"))
    confirmed_by: Mapped[int | None] = mapped_column(Id, ForeignKey("people.id"))


class Draft(Base):
    """A hand being entered through a message's keyboard; survives restarts."""

    __tablename__ = "drafts"
    __table_args__ = (Index(None, "session_id"),)
    chat_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("chats.id"), primary_key=True)
    message_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    session_id: Mapped[int] = mapped_column(Id, ForeignKey("sessions.id"))
    data: Mapped[dict[str, Any]] = mapped_column(Json)
    version: Mapped[int] = mapped_column(Integer, default=1)
    updated_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)


class HandledUpdate(Base):
    """A Telegram update whose change to the books was committed, written in the same
    transaction: a redelivered update (at-least-once delivery) is recognised by it and changes
    nothing twice. Rows older than a few days are pruned (Telegram keeps an update for 24 h)."""

    __tablename__ = "handled_updates"
    __table_args__ = (Index(None, "handled_at"),)
    update_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    chat_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    handled_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)


# Not a table: a view whose triggers apply each row inserted into it (migration 0006; see
# aggregates.add_hand). Outside Base.metadata, so nothing creates or compares it as a table.
_INT = ("seat", "hands", "wins", "self_draws", "dealt_in", "levels_won", "n", "level", "bucket",
        "last_seq", "version")
_BIG = ("session_id", "hand_id", "person_id", "points", "gain", "d0", "d1", "d2", "d3", "chat_id",
        "message_id")
HAND_EFFECTS = Table(
    "hand_effects", MetaData(), Column("kind", String(16)), Column("term", String(64)),
    Column("ended", Boolean), Column("balances", JSON(none_as_null=True).with_variant(
        JSONB(none_as_null=True), "postgresql")),
    *(Column(name, Integer) for name in _INT), *(Column(name, BigInteger) for name in _BIG))
