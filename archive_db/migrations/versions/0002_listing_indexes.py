"""listing indexes: levels and attempts paged by (run, id), levels filtered by status,
teacher or sampling count

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 16:00:00

The (run_id, …, id) indexes let a listing count its rows and find a page's ids from the index
alone (PostgreSQL otherwise scans the whole table for both); (run_id, id) replaces the plain
run_id indexes it covers.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (table, new index, columns, plain run_id index it replaces or None)
INDEXES = (
    ("levels", "ix_levels_run_page", ["run_id", "id"], "ix_levels_run_id"),
    ("levels", "ix_levels_run_status", ["run_id", "status", "id"], None),
    ("levels", "ix_levels_run_teacher", ["run_id", "teacher", "id"], None),
    ("levels", "ix_levels_run_sampled", ["run_id", "times_sampled", "id"], None),
    (
        "generation_attempts",
        "ix_generation_attempts_run_page",
        ["run_id", "id"],
        "ix_generation_attempts_run_id",
    ),
)


def upgrade() -> None:
    for table, name, columns, replaced in INDEXES:
        op.create_index(name, table, columns)
        if replaced is not None:
            op.drop_index(replaced, table_name=table)


def downgrade() -> None:
    for table, name, _, replaced in reversed(INDEXES):
        if replaced is not None:
            op.create_index(replaced, table, ["run_id"])
        op.drop_index(name, table_name=table)
