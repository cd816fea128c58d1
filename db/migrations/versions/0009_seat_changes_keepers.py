"""Seats that change hands during a session, and scorekeepers.

`stints`: what each person won or lost in each seat they held (and their /stats counters);
`stint_patterns`: their winning patterns. The seat aggregates of 0004 stay as they are and
follow the seat (the dealer, levels and games go on by seat); these follow the person. The
`hand_effects` trigger of 0006 now also adds each hand's seat and pattern rows to them, in the
same statement. Existing sessions never changed seats (seats were fixed once a hand was
recorded), so each seated person's stint is the seat's aggregate as it stands.

`sessions.keepers`: the people the table named to keep score (besides whoever started it).

Self-contained: the trigger's statements are written out here, not imported from 0006.

Revision ID: 0009_seat_changes_keepers
Revises: 0008_tables_in_one_chat
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_seat_changes_keepers"
down_revision: str | None = "0008_tables_in_one_chat"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

# 0006's statements per kind (NEW is the row inserted into the hand_effects view) …
SEAT = [
    "INSERT INTO ledger_entries (hand_id, seat, session_id, person_id, points) "
    "VALUES (NEW.hand_id, NEW.seat, NEW.session_id, NEW.person_id, NEW.points)",
    "UPDATE session_totals SET points = points + NEW.points "
    "WHERE session_id = NEW.session_id AND seat = NEW.seat",
    "UPDATE seat_stats SET hands = hands + NEW.hands, wins = wins + NEW.wins, "
    "self_draws = self_draws + NEW.self_draws, dealt_in = dealt_in + NEW.dealt_in, "
    "levels_won = levels_won + NEW.levels_won, "
    "biggest_gain = CASE WHEN biggest_gain < NEW.gain THEN NEW.gain ELSE biggest_gain END "
    "WHERE session_id = NEW.session_id AND seat = NEW.seat",
]
PATTERN = [
    "INSERT INTO seat_patterns (session_id, seat, term, count) "
    "VALUES (NEW.session_id, NEW.seat, NEW.term, NEW.n) "
    "ON CONFLICT (session_id, seat, term) DO UPDATE SET count = seat_patterns.count + excluded.count",
]
_NEWER = "excluded.last_seq >= level_totals.last_seq"
LEVEL = [
    "INSERT INTO level_totals (session_id, level, hands, d0, d1, d2, d3, last_seq, ended, balances) "
    "VALUES (NEW.session_id, NEW.level, 1, NEW.d0, NEW.d1, NEW.d2, NEW.d3, NEW.last_seq, NEW.ended, "
    "NEW.balances) "
    "ON CONFLICT (session_id, level) DO UPDATE SET hands = level_totals.hands + 1, "
    "d0 = level_totals.d0 + excluded.d0, d1 = level_totals.d1 + excluded.d1, "
    "d2 = level_totals.d2 + excluded.d2, d3 = level_totals.d3 + excluded.d3, "
    f"last_seq = CASE WHEN {_NEWER} THEN excluded.last_seq ELSE level_totals.last_seq END, "
    f"ended = CASE WHEN {_NEWER} THEN excluded.ended ELSE level_totals.ended END, "
    f"balances = CASE WHEN {_NEWER} THEN excluded.balances ELSE level_totals.balances END",
]
BUCKET = [
    "INSERT INTO hand_buckets (session_id, bucket, hands, d0, d1, d2, d3) "
    "VALUES (NEW.session_id, NEW.bucket, 1, NEW.d0, NEW.d1, NEW.d2, NEW.d3) "
    "ON CONFLICT (session_id, bucket) DO UPDATE SET hands = hand_buckets.hands + 1, "
    "d0 = hand_buckets.d0 + excluded.d0, d1 = hand_buckets.d1 + excluded.d1, "
    "d2 = hand_buckets.d2 + excluded.d2, d3 = hand_buckets.d3 + excluded.d3",
]
# … and what this revision adds: the person's stint (a seat row's last_seq is the hand's seq).
STINT = [
    "INSERT INTO stints (session_id, seat, person_id, first_seq, points, hands, wins, self_draws, "
    "dealt_in, biggest_gain, levels_won) VALUES (NEW.session_id, NEW.seat, NEW.person_id, "
    "NEW.last_seq, NEW.points, NEW.hands, NEW.wins, NEW.self_draws, NEW.dealt_in, "
    "CASE WHEN NEW.gain > 0 THEN NEW.gain ELSE 0 END, NEW.levels_won) "
    "ON CONFLICT (session_id, seat, person_id) DO UPDATE SET points = stints.points + excluded.points, "
    "hands = stints.hands + excluded.hands, wins = stints.wins + excluded.wins, "
    "self_draws = stints.self_draws + excluded.self_draws, "
    "dealt_in = stints.dealt_in + excluded.dealt_in, "
    "levels_won = stints.levels_won + excluded.levels_won, "
    "biggest_gain = CASE WHEN stints.biggest_gain < excluded.biggest_gain "
    "THEN excluded.biggest_gain ELSE stints.biggest_gain END, "
    "first_seq = CASE WHEN excluded.first_seq < stints.first_seq "
    "THEN excluded.first_seq ELSE stints.first_seq END",
]
STINT_PATTERN = [
    "INSERT INTO stint_patterns (session_id, seat, person_id, term, count) "
    "VALUES (NEW.session_id, NEW.seat, NEW.person_id, NEW.term, NEW.n) "
    "ON CONFLICT (session_id, seat, person_id, term) "
    "DO UPDATE SET count = stint_patterns.count + excluded.count",
]
_DRAFT_WHERE = ("chat_id = NEW.chat_id AND message_id = NEW.message_id "
                "AND version = NEW.version")
BEFORE = {"seat": SEAT, "pattern": PATTERN, "level": LEVEL, "bucket": BUCKET}
AFTER = {**BEFORE, "seat": SEAT + STINT, "pattern": PATTERN + STINT_PATTERN}


def upgrade() -> None:
    op.add_column("sessions", sa.Column("keepers", sa.JSON().with_variant(
        sa.dialects.postgresql.JSONB(), "postgresql"), server_default=sa.text("'[]'"), nullable=True))
    op.create_table(
        "stints",
        sa.Column("session_id", Id, sa.ForeignKey("sessions.id", name="fk_stints_session_id_sessions"),
                  primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("person_id", Id, sa.ForeignKey("people.id", name="fk_stints_person_id_people"),
                  primary_key=True),
        sa.Column("first_seq", sa.Integer(), nullable=False),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("self_draws", sa.Integer(), nullable=False),
        sa.Column("dealt_in", sa.Integer(), nullable=False),
        sa.Column("biggest_gain", sa.BigInteger(), nullable=False),
        sa.Column("levels_won", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("session_id", "seat", "person_id", name="pk_stints"))
    op.create_index("ix_stints_session_id_person_id", "stints", ["session_id", "person_id"])
    op.create_table(
        "stint_patterns",
        sa.Column("session_id", Id, sa.ForeignKey(
            "sessions.id", name="fk_stint_patterns_session_id_sessions"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("person_id", Id, sa.ForeignKey(
            "people.id", name="fk_stint_patterns_person_id_people"), primary_key=True),
        sa.Column("term", sa.String(64), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("session_id", "seat", "person_id", "term", name="pk_stint_patterns"))
    # Seats never changed before this revision: each seated person's stint is the seat's.
    person = ("CASE x.seat WHEN 0 THEN s.seat0 WHEN 1 THEN s.seat1 WHEN 2 THEN s.seat2 "
              "ELSE s.seat3 END")
    op.execute(
        "INSERT INTO stints (session_id, seat, person_id, first_seq, points, hands, wins, "
        "self_draws, dealt_in, biggest_gain, levels_won) "
        f"SELECT x.session_id, x.seat, {person}, 1, t.points, x.hands, x.wins, x.self_draws, "
        "x.dealt_in, x.biggest_gain, x.levels_won FROM seat_stats AS x "
        "JOIN sessions AS s ON s.id = x.session_id "
        "JOIN session_totals AS t ON t.session_id = x.session_id AND t.seat = x.seat "
        f"WHERE {person} IS NOT NULL AND (x.hands > 0 OR t.points <> 0)")
    op.execute(
        "INSERT INTO stint_patterns (session_id, seat, person_id, term, count) "
        f"SELECT x.session_id, x.seat, {person}, x.term, x.count FROM seat_patterns AS x "
        f"JOIN sessions AS s ON s.id = x.session_id WHERE {person} IS NOT NULL AND x.count > 0")
    _triggers(AFTER)


def downgrade() -> None:
    _triggers(BEFORE)
    op.drop_table("stint_patterns")
    op.drop_index("ix_stints_session_id_person_id", table_name="stints")
    op.drop_table("stints")
    op.drop_column("sessions", "keepers")


def _triggers(kinds: dict[str, list[str]]) -> None:
    """Rewrite the hand_effects view's triggers (0006) with these statements per kind."""
    if op.get_bind().dialect.name == "sqlite":
        for kind in ("seat", "pattern"):
            op.execute(f"DROP TRIGGER hand_effects_{kind}")
            op.execute(f"CREATE TRIGGER hand_effects_{kind} INSTEAD OF INSERT ON hand_effects "
                       f"WHEN NEW.kind = '{kind}' BEGIN " + "; ".join(kinds[kind]) + "; END")
        return
    branches = "\n  ELS".join(
        f"IF NEW.kind = '{kind}' THEN\n    " + ";\n    ".join(statements) + ";"
        for kind, statements in kinds.items())
    op.execute(f"""
CREATE OR REPLACE FUNCTION hand_effects_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  {branches}
  ELSIF NEW.kind = 'draft' THEN
    DELETE FROM drafts WHERE {_DRAFT_WHERE};
    IF NOT FOUND THEN
      RAISE EXCEPTION 'hand_effects: the draft changed' USING ERRCODE = 'check_violation';
    END IF;
  ELSE
    RAISE EXCEPTION 'hand_effects: unknown kind %', NEW.kind;
  END IF;
  RETURN NEW;
END
$$""")
