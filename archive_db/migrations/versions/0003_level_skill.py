"""levels.skill: the skill a generated level targets (the skill instruction's), indexed for
listings filtered by it

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 18:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("levels") as batch:
        batch.add_column(sa.Column("skill", sa.String(length=200), nullable=True))
    op.create_index("ix_levels_run_skill", "levels", ["run_id", "skill", "id"])


def downgrade() -> None:
    op.drop_index("ix_levels_run_skill", table_name="levels")
    with op.batch_alter_table("levels") as batch:
        batch.drop_column("skill")
