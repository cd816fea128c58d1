"""Running aggregates for /stats, Cixi levels and /chart, built from the hands already stored;
an index on hands.entered_by (the guest merge looks hands up by it); the ledger's (session_id,
seat) index widened with points.

Revision ID: 0004_aggregates
Revises: 0003_payment_confirm
Create Date: 2026-11-23
"""

from collections import Counter
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from scoring.stats import seat_facts

revision: str = "0004_aggregates"
down_revision: str | None = "0003_payment_confirm"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
BUCKET_SIZE = 64  # db.models.BUCKET_SIZE when this was written
BATCH = 5_000


def _fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(["session_id"], ["sessions.id"],
                                   name=op.f(f"fk_{table}_session_id_sessions"))


def _deltas() -> list[sa.Column]:
    return [sa.Column(f"d{seat}", sa.BigInteger(), nullable=False) for seat in range(4)]


def upgrade() -> None:
    op.create_index(op.f("ix_hands_entered_by"), "hands", ["entered_by"])
    # Widened: a seat's entries biggest first (voiding a seat's biggest gain finds the next).
    op.drop_index(op.f("ix_ledger_entries_session_id_seat"), "ledger_entries")
    op.create_index(op.f("ix_ledger_entries_session_id_seat_points"), "ledger_entries",
                    ["session_id", "seat", "points"])
    seat_stats = op.create_table(
        "seat_stats",
        sa.Column("session_id", ID, nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("self_draws", sa.Integer(), nullable=False),
        sa.Column("dealt_in", sa.Integer(), nullable=False),
        sa.Column("biggest_gain", sa.BigInteger(), nullable=False),
        sa.Column("levels_won", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("session_id", "seat", name=op.f("pk_seat_stats")),
        _fk("seat_stats"),
    )
    seat_patterns = op.create_table(
        "seat_patterns",
        sa.Column("session_id", ID, nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("term", sa.String(64), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("session_id", "seat", "term", name=op.f("pk_seat_patterns")),
        _fk("seat_patterns"),
    )
    level_totals = op.create_table(
        "level_totals",
        sa.Column("session_id", ID, nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=False),
        *_deltas(),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.Column("ended", sa.Boolean(), nullable=False),
        sa.Column("balances", JSON),
        sa.PrimaryKeyConstraint("session_id", "level", name=op.f("pk_level_totals")),
        _fk("level_totals"),
    )
    hand_buckets = op.create_table(
        "hand_buckets",
        sa.Column("session_id", ID, nullable=False),
        sa.Column("bucket", sa.Integer(), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=False),
        *_deltas(),
        sa.PrimaryKeyConstraint("session_id", "bucket", name=op.f("pk_hand_buckets")),
        _fk("hand_buckets"),
    )
    _backfill(op.get_bind(), seat_stats, seat_patterns, level_totals, hand_buckets)


class _Session:
    """One session's aggregates, added up hand after hand (in seq order)."""

    def __init__(self) -> None:
        self.seats = [{"hands": 0, "wins": 0, "self_draws": 0, "dealt_in": 0, "biggest_gain": 0,
                       "levels_won": 0} for _ in range(4)]
        self.patterns: list[Counter[str]] = [Counter() for _ in range(4)]
        self.levels: dict[int, dict[str, Any]] = {}
        self.buckets: dict[int, list[int]] = {}

    def add(self, seq: int, level: int | None, record: dict[str, Any], outcome: dict[str, Any]) -> None:
        facts = seat_facts(record, outcome)
        deltas = [f.points for f in facts]
        balances = outcome.get("balances")
        over = bool(outcome.get("level_over"))
        best = max(balances) if over and isinstance(balances, list) and len(balances) == 4 else None
        for seat, f in enumerate(facts):
            row = self.seats[seat]
            row["hands"] += 1
            row["wins"] += f.wins
            row["self_draws"] += f.self_draws
            row["dealt_in"] += f.dealt_in
            row["biggest_gain"] = max(row["biggest_gain"], f.points)
            row["levels_won"] += best is not None and balances[seat] == best
            self.patterns[seat].update(t[:64] for t in f.patterns)
        if level is not None:
            lv = self.levels.setdefault(level, {"hands": 0, "d": [0, 0, 0, 0]})
            lv["hands"] += 1
            lv["d"] = [a + b for a, b in zip(lv["d"], deltas, strict=True)]
            lv.update(last_seq=seq, ended=over, balances=balances)
        bucket = self.buckets.setdefault(seq // BUCKET_SIZE, [0, 0, 0, 0, 0])
        bucket[0] += 1
        for seat in range(4):
            bucket[seat + 1] += deltas[seat]


def _backfill(conn: Any, seat_stats: Any, seat_patterns: Any, level_totals: Any,
              hand_buckets: Any) -> None:
    """Every session gets its four seat rows; sessions with hands get their sums. The hands are
    read in batches, one session's sums held at a time."""
    sessions = sa.table("sessions", sa.column("id", ID))
    hands = sa.table("hands", sa.column("session_id", ID), sa.column("seq", sa.Integer()),
                     sa.column("level", sa.Integer()), sa.column("record", JSON),
                     sa.column("outcome", JSON), sa.column("voided", sa.Boolean()))
    ids = [r[0] for r in conn.execute(sa.select(sessions.c.id).order_by(sessions.c.id))]
    for start in range(0, len(ids), BATCH):
        conn.execute(seat_stats.insert(), [
            {"session_id": sid, "seat": seat, "hands": 0, "wins": 0, "self_draws": 0, "dealt_in": 0,
             "biggest_gain": 0, "levels_won": 0} for sid in ids[start:start + BATCH] for seat in range(4)])
    for sid in ids:
        agg, after = _Session(), 0
        while True:  # keyset over the (session_id, seq) index
            rows = conn.execute(
                sa.select(hands.c.seq, hands.c.level, hands.c.record, hands.c.outcome)
                .where(hands.c.session_id == sid, hands.c.seq > after, hands.c.voided.is_(False))
                .order_by(hands.c.seq).limit(BATCH)).all()
            if not rows:
                break
            for seq, level, record, outcome in rows:
                agg.add(seq, level, record, outcome)
            after = rows[-1][0]
        if after:
            _write(conn, sid, agg, seat_stats, seat_patterns, level_totals, hand_buckets)


def _write(conn: Any, sid: int, agg: _Session, seat_stats: Any, seat_patterns: Any,
           level_totals: Any, hand_buckets: Any) -> None:
    for seat, row in enumerate(agg.seats):
        conn.execute(seat_stats.update().where(seat_stats.c.session_id == sid,
                                               seat_stats.c.seat == seat).values(**row))
    patterns = [{"session_id": sid, "seat": seat, "term": term, "count": n}
                for seat, counter in enumerate(agg.patterns) for term, n in counter.items()]
    if patterns:
        conn.execute(seat_patterns.insert(), patterns)
    levels = [{"session_id": sid, "level": level, "hands": lv["hands"], "d0": lv["d"][0],
               "d1": lv["d"][1], "d2": lv["d"][2], "d3": lv["d"][3], "last_seq": lv["last_seq"],
               "ended": lv["ended"], "balances": lv["balances"]} for level, lv in agg.levels.items()]
    for start in range(0, len(levels), BATCH):
        conn.execute(level_totals.insert(), levels[start:start + BATCH])
    buckets = [{"session_id": sid, "bucket": b, "hands": v[0], "d0": v[1], "d1": v[2], "d2": v[3],
                "d3": v[4]} for b, v in agg.buckets.items()]
    for start in range(0, len(buckets), BATCH):
        conn.execute(hand_buckets.insert(), buckets[start:start + BATCH])


def downgrade() -> None:
    for table in ("hand_buckets", "level_totals", "seat_patterns", "seat_stats"):
        op.drop_table(table)
    op.drop_index(op.f("ix_ledger_entries_session_id_seat_points"), "ledger_entries")
    op.create_index(op.f("ix_ledger_entries_session_id_seat"), "ledger_entries", ["session_id", "seat"])
    op.drop_index(op.f("ix_hands_entered_by"), "hands")
