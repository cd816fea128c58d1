"""`hand_effects`: what storing a hand changes besides the hand itself, written by one
multi-row INSERT (db/aggregates.py `add_hand`). It is a view that holds nothing; a trigger
applies each row inside the database: a seat's ledger entry, session total and /stats counters,
a winning pattern, the level, the chart bucket, and the closing of the wizard's draft (only at
the version the Confirm saw). One statement instead of seven per hand; the rows are plain data
computed in Python, the trigger only adds them up.

Revision ID: 0006_hand_effects
Revises: 0005_handled_updates
Create Date: 2026-11-24
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006_hand_effects"
down_revision: str | None = "0005_handled_updates"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (name, PostgreSQL type) of every column of the view; each kind of row uses some of them.
COLUMNS = [
    ("kind", "text"), ("session_id", "bigint"), ("seat", "integer"),
    # seat: the ledger entry, the session total and the /stats counters
    ("hand_id", "bigint"), ("person_id", "bigint"), ("points", "bigint"), ("hands", "integer"),
    ("wins", "integer"), ("self_draws", "integer"), ("dealt_in", "integer"),
    ("levels_won", "integer"), ("gain", "bigint"),
    # pattern: a winning pattern of a seat
    ("term", "varchar(64)"), ("n", "integer"),
    # level and bucket: the hand's deltas added to its level and its chart bucket
    ("level", "integer"), ("bucket", "integer"), ("d0", "bigint"), ("d1", "bigint"),
    ("d2", "bigint"), ("d3", "bigint"), ("last_seq", "integer"), ("ended", "boolean"),
    ("balances", "jsonb"),
    # draft: the wizard entry closed with the hand, at this version only
    ("chat_id", "bigint"), ("message_id", "bigint"), ("version", "integer"),
]

# The statements per kind, shared by both databases (NEW is the row inserted into the view).
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
_DRAFT_WHERE = ("chat_id = NEW.chat_id AND message_id = NEW.message_id "
                "AND version = NEW.version")
KINDS = {"seat": SEAT, "pattern": PATTERN, "level": LEVEL, "bucket": BUCKET}


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite()
    else:
        _postgresql()


def _sqlite() -> None:
    op.execute("CREATE VIEW hand_effects AS SELECT "
               + ", ".join(f"NULL AS {name}" for name, _ in COLUMNS) + " WHERE 0")
    for kind, statements in KINDS.items():
        op.execute(f"CREATE TRIGGER hand_effects_{kind} INSTEAD OF INSERT ON hand_effects "
                   f"WHEN NEW.kind = '{kind}' BEGIN " + "; ".join(statements) + "; END")
    # A draft that is gone or at another version aborts the statement (IntegrityError).
    op.execute("CREATE TRIGGER hand_effects_draft INSTEAD OF INSERT ON hand_effects "
               "WHEN NEW.kind = 'draft' BEGIN "
               "SELECT RAISE(ABORT, 'hand_effects: the draft changed') WHERE NOT EXISTS "
               f"(SELECT 1 FROM drafts WHERE {_DRAFT_WHERE}); "
               f"DELETE FROM drafts WHERE {_DRAFT_WHERE}; END")


def _postgresql() -> None:
    op.execute("CREATE VIEW hand_effects AS SELECT "
               + ", ".join(f"CAST(NULL AS {kind}) AS {name}" for name, kind in COLUMNS)
               + " WHERE false")
    branches = "\n  ELS".join(
        f"IF NEW.kind = '{kind}' THEN\n    " + ";\n    ".join(statements) + ";"
        for kind, statements in KINDS.items())
    op.execute(f"""
CREATE FUNCTION hand_effects_apply() RETURNS trigger LANGUAGE plpgsql AS $$
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
    op.execute("CREATE TRIGGER hand_effects_apply INSTEAD OF INSERT ON hand_effects "
               "FOR EACH ROW EXECUTE FUNCTION hand_effects_apply()")


def downgrade() -> None:
    op.execute("DROP VIEW hand_effects")  # its triggers go with it
    if op.get_bind().dialect.name != "sqlite":
        op.execute("DROP FUNCTION hand_effects_apply()")
