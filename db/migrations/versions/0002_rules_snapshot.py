"""Sessions keep the rules they were played with: write revision 1's rule values into every
session stored so far, and into its hands' records.

Until now a session stored only the house rules a table had changed, and a hand record the
same; scoring filled in the rest from its defaults. Rules revision 2 changed some defaults
(Luzhou's cap, Hainan's self-draw gate, 门清 and kongs on an exhausted wall), so a stored hand
scored again (an export imported, a correction) would silently change. From now on the bot
records every rule's value when a session starts; this fills in the values revision 1 played by
for what is already stored. Options that did not exist then get the value that plays revision
1's behaviour. A value a table chose is never touched.

Revision ID: 0002_rules_snapshot
Revises: 0001
Create Date: 2026-11-23
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002_rules_snapshot"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")

# Frozen: the rules as revision 1 scored them (a migration must not change when scoring does).
REVISION_1: dict[str, dict[str, Any]] = {
    "luzhou": {"ghosts": 4, "cap": 40, "one_ke_discard": False, "no_ghost_steps": 2,
               "ready_pay": "full", "ghost_bonus": "linear", "ghost_bonus_mode": "always",
               # revision 1 capped each payment after halving, 杠上炮/抢杠 +2 steps, 花猫 = null
               "cap_applies": "payment", "kong_discard_steps": 2, "flower_cat": "not_ready"},
    "guiyang": {"pure_seven_pairs": 20, "self_draw_bonus": 0, "streak_bonus": "winner",
                "gold_chicken": 3, "hero_chicken": 2, "count_discarded_yaoji": True,
                "bao_ji": False, "follow_pay": "last"},
    "cixi": {"level_points": 100, "false_win_points": 24, "streak_bonus": 0},
    "feibao": {"discard_wins": False, "rob_multiplier": 6, "three_feed": True,
               "jing_on_exhausted": False},
    "hainan": {"discarder_extra": 1, "dealer_extra": 0, "exposed_kong_discarder": 0,
               # revision 1: every win needed a 番, a concealed kong kept 门清, and no kong paid
               # on an exhausted wall
               "self_draw_needs_fan": True, "concealed_kong_keeps_menqing": True,
               "kongs_on_exhausted": "void"},
}
# what revision 1 did not know (taken out again on downgrade, where it would be refused)
ADDED = {"luzhou": ("cap_applies", "kong_discard_steps", "flower_cat"),
         "guiyang": ("follow_pay",),
         "hainan": ("self_draw_needs_fan", "concealed_kong_keeps_menqing", "kongs_on_exhausted")}

sessions = sa.table("sessions", sa.column("id", sa.BigInteger()), sa.column("variant", sa.String()),
                    sa.column("rules", JSON))
hands = sa.table("hands", sa.column("id", sa.BigInteger()), sa.column("session_id", sa.BigInteger()),
                 sa.column("record", JSON))


def _filled(variant: str, rules: Any) -> Any:
    if not isinstance(rules, dict):
        return rules  # not something scoring would take; leave it as it is
    return {**REVISION_1.get(variant, {}), **rules}


def _stripped(variant: str, rules: Any) -> Any:
    if not isinstance(rules, dict):
        return rules
    return {k: v for k, v in rules.items() if k not in ADDED.get(variant, ())}


def _rewrite(change: Any) -> None:
    bind = op.get_bind()
    variants = {}
    for sid, variant, rules in bind.execute(sa.select(sessions.c.id, sessions.c.variant,
                                                      sessions.c.rules)).all():
        variants[sid] = variant
        new = change(variant, rules or {})
        if new != rules:
            bind.execute(sessions.update().where(sessions.c.id == sid).values(rules=new))
    for hid, sid, record in bind.execute(sa.select(hands.c.id, hands.c.session_id,
                                                   hands.c.record)).all():
        if not isinstance(record, dict):
            continue
        variant = record.get("variant", variants.get(sid))
        new_rules = change(variant, record.get("rules") or {})
        if new_rules != record.get("rules"):
            bind.execute(hands.update().where(hands.c.id == hid)
                         .values(record={**record, "rules": new_rules}))


def upgrade() -> None:
    _rewrite(_filled)


def downgrade() -> None:
    _rewrite(_stripped)
