"""Payments count only once the payee confirmed them: `confirmed` (existing payments were
booked under the old rules and stay counted) and who confirmed.

Revision ID: 0003_payment_confirm
Revises: 0002_rules_snapshot
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_payment_confirm"
down_revision: str | None = "0002_rules_snapshot"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("payments") as batch:
        batch.add_column(sa.Column("confirmed", sa.Boolean(), nullable=False,
                                   server_default=sa.true()))
        batch.add_column(sa.Column("confirmed_by", ID))
        batch.create_foreign_key(op.f("fk_payments_confirmed_by_people"), "people",
                                 ["confirmed_by"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("payments") as batch:
        batch.drop_constraint(op.f("fk_payments_confirmed_by_people"), type_="foreignkey")
        batch.drop_column("confirmed_by")
        batch.drop_column("confirmed")
