"""initial archive schema

Revision ID: 0001
Revises:
Create Date: 2026-11-30 08:10:49.329166
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("domain", sa.String(length=64), nullable=False),
        sa.Column(
            "config",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("active_version", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
        sa.UniqueConstraint("name", name=op.f("uq_runs_name")),
    )
    op.create_table(
        "changes",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("run_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("entity", sa.String(length=8), nullable=False),
        sa.Column("entity_id", sa.BigInteger(), nullable=False),
        sa.Column("other_id", sa.BigInteger(), nullable=True),
        sa.CheckConstraint("entity IN ('level', 'edge')", name=op.f("ck_changes_entity_kind")),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_changes_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_changes")),
    )
    with op.batch_alter_table("changes", schema=None) as batch_op:
        batch_op.create_index("ix_changes_run_id_id", ["run_id", "id"], unique=False)

    op.create_table(
        "checkpoints",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("run_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("iteration", sa.BigInteger(), nullable=False),
        sa.Column(
            "meta",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_checkpoints_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_checkpoints")),
    )
    with op.batch_alter_table("checkpoints", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_checkpoints_run_id"), ["run_id"], unique=False)

    op.create_table(
        "events",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("run_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column(
            "payload",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_events_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
    )
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_events_kind"), ["kind"], unique=False)
        batch_op.create_index(batch_op.f("ix_events_run_id"), ["run_id"], unique=False)

    op.create_table(
        "levels",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("run_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("domain", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=True),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("reasoning", sa.Text(), nullable=True),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("bundle", sa.LargeBinary(), nullable=True),
        sa.Column("bundle_format", sa.String(length=32), nullable=True),
        sa.Column("content_hash", sa.String(length=128), nullable=False),
        sa.Column("teacher", sa.String(length=200), nullable=False),
        sa.Column(
            "meta",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_iteration", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=1), nullable=False),
        sa.Column("success_rate", sa.Float(), nullable=True),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("last_sampled", sa.BigInteger(), nullable=True),
        sa.Column("times_sampled", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("status IN ('A', 'B', 'C', 'D')", name=op.f("ck_levels_status_letter")),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_levels_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_levels")),
        sa.UniqueConstraint("run_id", "content_hash", name="uq_levels_run_hash"),
    )
    with op.batch_alter_table("levels", schema=None) as batch_op:
        batch_op.create_index("ix_levels_run_active", ["run_id", "active"], unique=False)
        batch_op.create_index(batch_op.f("ix_levels_run_id"), ["run_id"], unique=False)

    op.create_table(
        "evaluations",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("run_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("level_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("student_iteration", sa.BigInteger(), nullable=False),
        sa.Column("episodes", sa.BigInteger(), nullable=False),
        sa.Column("successes", sa.BigInteger(), nullable=False),
        sa.Column("success_rate", sa.Float(), nullable=True),
        sa.Column("mean_return", sa.Float(), nullable=True),
        sa.Column(
            "per_goal",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["level_id"],
            ["levels.id"],
            name=op.f("fk_evaluations_level_id_levels"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_evaluations_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_evaluations")),
    )
    with op.batch_alter_table("evaluations", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_evaluations_level_id"), ["level_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_evaluations_run_id"), ["run_id"], unique=False)

    op.create_table(
        "generation_attempts",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("run_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("parent_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("level_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("teacher", sa.String(length=200), nullable=False),
        sa.Column("stage_reached", sa.String(length=64), nullable=False),
        sa.Column(
            "prompts",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "responses",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("code", sa.Text(), nullable=True),
        sa.Column("verdict", sa.String(length=16), nullable=False),
        sa.Column("failing_stage", sa.String(length=64), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("latency_s", sa.Float(), nullable=True),
        sa.Column("tokens_in", sa.BigInteger(), nullable=True),
        sa.Column("tokens_out", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "verdict IN ('accepted', 'rejected')", name=op.f("ck_generation_attempts_verdict_value")
        ),
        sa.ForeignKeyConstraint(
            ["level_id"],
            ["levels.id"],
            name=op.f("fk_generation_attempts_level_id_levels"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["parent_id"],
            ["levels.id"],
            name=op.f("fk_generation_attempts_parent_id_levels"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["runs.id"],
            name=op.f("fk_generation_attempts_run_id_runs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_generation_attempts")),
    )
    with op.batch_alter_table("generation_attempts", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_generation_attempts_level_id"), ["level_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_generation_attempts_run_id"), ["run_id"], unique=False)
        batch_op.create_index(
            "ix_generation_attempts_run_verdict", ["run_id", "verdict"], unique=False
        )

    op.create_table(
        "lineage_edges",
        sa.Column(
            "parent_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("child_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("run_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["child_id"],
            ["levels.id"],
            name=op.f("fk_lineage_edges_child_id_levels"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["parent_id"],
            ["levels.id"],
            name=op.f("fk_lineage_edges_parent_id_levels"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_lineage_edges_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("parent_id", "child_id", name=op.f("pk_lineage_edges")),
    )
    with op.batch_alter_table("lineage_edges", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lineage_edges_child_id"), ["child_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_lineage_edges_run_id"), ["run_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("lineage_edges", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lineage_edges_run_id"))
        batch_op.drop_index(batch_op.f("ix_lineage_edges_child_id"))

    op.drop_table("lineage_edges")
    with op.batch_alter_table("generation_attempts", schema=None) as batch_op:
        batch_op.drop_index("ix_generation_attempts_run_verdict")
        batch_op.drop_index(batch_op.f("ix_generation_attempts_run_id"))
        batch_op.drop_index(batch_op.f("ix_generation_attempts_level_id"))

    op.drop_table("generation_attempts")
    with op.batch_alter_table("evaluations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_evaluations_run_id"))
        batch_op.drop_index(batch_op.f("ix_evaluations_level_id"))

    op.drop_table("evaluations")
    with op.batch_alter_table("levels", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_levels_run_id"))
        batch_op.drop_index("ix_levels_run_active")

    op.drop_table("levels")
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_events_run_id"))
        batch_op.drop_index(batch_op.f("ix_events_kind"))

    op.drop_table("events")
    with op.batch_alter_table("checkpoints", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_checkpoints_run_id"))

    op.drop_table("checkpoints")
    with op.batch_alter_table("changes", schema=None) as batch_op:
        batch_op.drop_index("ix_changes_run_id_id")

    op.drop_table("changes")
    op.drop_table("runs")
